import {writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {HttpInstallerManifests} from '../../src/adapters/installer-manifests.js'
import {UsageError, XpkError} from '../../src/core/errors.js'
import {GPU_INSTALLERS} from '../../src/core/incluster/gpu-installers.js'
import {tempDir} from '../helpers/temp.js'

const DAEMONSET = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: nccl-tcpx-installer
  namespace: kube-system
spec:
  selector:
    matchLabels: {k8s-app: nccl-tcpx-installer}
  template:
    metadata:
      labels: {k8s-app: nccl-tcpx-installer}
    spec:
      containers:
        - name: pause
          image: gcr.io/google-containers/pause:2.0
`
const TCPX = GPU_INSTALLERS['nccl-tcpx']

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))))
})

/** A loopback server answering every request with `status` and `body`; the paths asked, in order. */
async function serving(status: number, body: string): Promise<{url: string; requests: string[]}> {
  const requests: string[] = []
  const server = createServer((request, response) => {
    requests.push(request.url ?? '')
    response.writeHead(status, {'content-type': 'text/yaml'}).end(body)
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/installer.yaml`, requests}
}

describe('HttpInstallerManifests', () => {
  it('downloads the installer on every load: no cache, the URL names no version', async () => {
    const server = await serving(200, DAEMONSET)
    const source = new HttpInstallerManifests({'nccl-tcpx': server.url})
    const first = await source.load(TCPX)
    await source.load(TCPX)
    expect(first.objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['DaemonSet/nccl-tcpx-installer'])
    expect(first.source).toBe(server.url)
    expect(server.requests).toEqual(['/installer.yaml', '/installer.yaml'])
  })

  it('refuses a download with no DaemonSet (not a usage error: no flag was given), naming the URL and the flag', async () => {
    const server = await serving(200, '<html>rate limited</html>\n')
    const error = await new HttpInstallerManifests({'nccl-tcpx': server.url}).load(TCPX).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(XpkError)
    expect(error).not.toBeInstanceOf(UsageError)
    expect((error as XpkError).message).toContain(server.url)
    expect((error as XpkError).hints.join(' ')).toContain('--nccl-installer-manifest')
  })

  it('reads an override file, and refuses one without a DaemonSet as a usage error naming the flag', async () => {
    const dir = tempDir('xpk-installer-')
    const good = join(dir, 'good.yaml')
    const bad = join(dir, 'bad.yaml')
    writeFileSync(good, DAEMONSET)
    writeFileSync(bad, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n')
    const source = new HttpInstallerManifests()
    expect((await source.load(TCPX, {override: good})).objects).toHaveLength(1)
    const error = await source.load(TCPX, {override: bad}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UsageError)
    expect((error as UsageError).message).toMatch(/^--nccl-installer-manifest: .*has no DaemonSet/)
  })

  it('refuses an override URL that answers 404 as a usage error naming the flag', async () => {
    const server = await serving(404, 'not found')
    const error = await new HttpInstallerManifests().load(TCPX, {override: server.url}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UsageError)
    expect((error as UsageError).message).toMatch(/^--nccl-installer-manifest: Cannot download .*HTTP 404/)
  })
})
