import {describe, expect, it} from 'vitest'

import {FakeGke} from '../fakes/fake-gke.js'
import {closeServer, startHttpServer} from '../fakes/fake-server.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
import {fakesForFile} from '../helpers/wire-fakes.js'

// GCE_METADATA_HOST points google-auth-library's metadata lookups at this sink instead of 169.254.169.254, so any
// probe shows up here instead of leaving the machine.
let sinkPort: number
const probes: string[] = []
let fake: FakeGke

fakesForFile(
  async (fakes) => {
    const started = await startHttpServer('metadata sink', async (request, response) => {
      probes.push(`${request.method} ${request.url}`)
      response.writeHead(404).end()
    })
    sinkPort = started.port
    fakes.add({stop: () => closeServer(started.server)})
    fake = fakes.add(await FakeGke.start({operationMs: 20}))
  },
  {reset: false},
)

describe('the GKE client with an endpoint override', () => {
  it('never asks the metadata server for credentials, a project or a universe domain', async () => {
    const port = sinkPort
    const env = isolatedEnv({
      XPK_GKE_ENDPOINT: `http://${fake.endpoint}`,
      GCE_METADATA_HOST: `127.0.0.1:${port}`,
      GCE_METADATA_IP: `127.0.0.1:${port}`,
    })
    // Metadata detection stays on: the point is that the client is configured not to need it.
    delete (env as Record<string, string | undefined>).METADATA_SERVER_DETECTION
    const create = await runCli(
      [
        'cluster',
        'create',
        '--project',
        'probe-project',
        '--zone',
        'us-central2-b',
        '--cluster',
        'probe',
        '--tpu-type',
        'v5p-8',
        '--spot',
        // The GKE client is under test; reaching inside the cluster needs Google credentials (ADC may well ask
        // the metadata server on a GCE VM), which cluster-in-cluster.test.ts supplies with XPK_ACCESS_TOKEN.
        '--skip-in-cluster',
      ],
      {env},
    )
    expect(create.code, create.stderr).toBe(0)
    const list = await runCli(['cluster', 'list', '--project', 'probe-project'], {env})
    expect(list.stdout).toContain('probe')
    expect(probes).toEqual([])
  })

  it('refuses plain http to anything but loopback', async () => {
    const result = await runCli([
      'cluster',
      'list',
      '--project',
      'probe-project',
      '--gke-endpoint',
      'http://container.example.com',
    ])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('plain http is only allowed on loopback')
  })
})
