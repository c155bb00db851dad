import {spawnSync} from 'node:child_process'
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:http'
import type {Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {crdReport, defaultCrdSearch, findCrds, skipCrdTests} from './crds.js'
import type {CrdLookup, CrdSearch} from './crds.js'
import {tempDir} from './temp.js'

const GROUPS = {jobset: 'jobset.x-k8s.io', kueue: 'kueue.x-k8s.io'} as const
type Component = keyof typeof GROUPS

/** A CRD file of one kind, as controller-gen writes them (the real ones are far larger). */
function crdYaml(component: Component, kind: string): string {
  const plural = `${kind.toLowerCase()}s`
  return `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.${GROUPS[component]}
spec:
  group: ${GROUPS[component]}
  names:
    kind: ${kind}
    plural: ${plural}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
`
}

/** A release manifest: its CRD plus the controller Deployment the adapter insists on. */
function releaseYaml(component: Component, kind: string): string {
  return `${crdYaml(component, kind)}---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${component}-controller-manager
  namespace: ${component}-system
`
}

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), {recursive: true})
  writeFileSync(path, text)
}

/** Where nothing is: a search that finds nothing and stays offline, to extend per test. */
function emptySearch(): CrdSearch {
  const root = tempDir()
  return {sharedDir: join(root, 'shared', 'crds'), cacheDir: join(root, 'cache'), download: false}
}

function kinds(lookup: CrdLookup): Record<string, string[]> {
  return Object.fromEntries(
    lookup.components.map((c) => [
      c.component,
      c.crds().map((crd) => String((crd.spec as {names: {kind: string}}).names.kind)),
    ]),
  )
}

const servers: Server[] = []
const realFetch = globalThis.fetch

beforeEach(() => {
  // Nothing here may reach the internet: a search that forgot its local URLs fails instead.
  globalThis.fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    if (url.hostname !== '127.0.0.1') throw new Error(`a test tried to reach ${url.href}`)
    return realFetch(input, init)
  }
})

afterEach(async () => {
  globalThis.fetch = realFetch
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve))
})

/** Serves each component's release manifest at /<component>.yaml on a free loopback port, counting requests. */
async function releaseServer(): Promise<{urls: Record<Component, string>; requests: string[]}> {
  const requests: string[] = []
  const server = createServer((request, response) => {
    requests.push(request.url ?? '')
    const component = request.url?.slice(1).replace(/\.yaml$/, '') as Component
    if (!(component in GROUPS)) return void response.writeHead(404).end()
    response.writeHead(200).end(releaseYaml(component, component === 'jobset' ? 'JobSet' : 'LocalQueue'))
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {urls: {jobset: `${base}/jobset.yaml`, kueue: `${base}/kueue.yaml`}, requests}
}

async function refusedUrl(): Promise<string> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return `http://127.0.0.1:${port}/manifests.yaml`
}

describe('findCrds', () => {
  it('reads ../shared/crds/<component>-<version>/, each CRD in its own file', async () => {
    const search = emptySearch()
    write(join(search.sharedDir, 'jobset-v0.10.1', 'jobset.x-k8s.io_jobsets.yaml'), crdYaml('jobset', 'JobSet'))
    write(join(search.sharedDir, 'kueue-v0.17.1', 'kueue.x-k8s.io_localqueues.yaml'), crdYaml('kueue', 'LocalQueue'))
    write(join(search.sharedDir, 'kueue-v0.17.1', 'kueue.x-k8s.io_workloads.yaml'), crdYaml('kueue', 'Workload'))
    write(join(search.sharedDir, 'kueue-v0.17.1', 'LICENSE'), 'Apache License')
    // Another version beside them is not read.
    write(join(search.sharedDir, 'kueue-v0.16.0', 'kueue.x-k8s.io_cohorts.yaml'), crdYaml('kueue', 'Cohort'))
    const lookup = await findCrds(search)
    expect(lookup.found).toBe(true)
    expect(lookup.components.map((c) => c.source)).toEqual([
      join(search.sharedDir, 'jobset-v0.10.1'),
      join(search.sharedDir, 'kueue-v0.17.1'),
    ])
    expect(kinds(lookup)).toEqual({jobset: ['JobSet'], kueue: ['LocalQueue', 'Workload']})
  })

  it('prefers CRDS_DIR, laid out like ../shared/crds or holding the release manifests themselves', async () => {
    const search = {...emptySearch(), crdsDir: tempDir()}
    write(join(search.sharedDir, 'jobset-v0.10.1', 'a.yaml'), crdYaml('jobset', 'SharedJobSet'))
    write(join(search.sharedDir, 'kueue-v0.17.1', 'a.yaml'), crdYaml('kueue', 'SharedQueue'))
    write(join(search.crdsDir, 'jobset-v0.10.1', 'a.yaml'), crdYaml('jobset', 'JobSet'))
    write(join(search.crdsDir, 'kueue-manifests.yml'), releaseYaml('kueue', 'ClusterQueue'))
    const lookup = await findCrds(search)
    expect(lookup.components.map((c) => c.source)).toEqual([search.crdsDir, search.crdsDir])
    expect(kinds(lookup)).toEqual({jobset: ['JobSet'], kueue: ['ClusterQueue']})
  })

  it('reads the release manifests cached in the user cache directory', async () => {
    const search = emptySearch()
    write(join(search.cacheDir, 'jobset-v0.10.1.yaml'), releaseYaml('jobset', 'JobSet'))
    write(join(search.cacheDir, 'kueue-v0.17.1.yaml'), releaseYaml('kueue', 'Topology'))
    const lookup = await findCrds(search)
    expect(lookup.components.map((c) => c.source)).toEqual([
      join(search.cacheDir, 'jobset-v0.10.1.yaml'),
      join(search.cacheDir, 'kueue-v0.17.1.yaml'),
    ])
    expect(kinds(lookup)).toEqual({jobset: ['JobSet'], kueue: ['Topology']})
  })

  it('downloads the release manifests into the cache once, then reads them from there', async () => {
    const server = await releaseServer()
    const search: CrdSearch = {...emptySearch(), download: {timeoutMs: 5000, urls: server.urls}}
    const first = await findCrds(search)
    expect(first.components.map((c) => c.source)).toEqual([server.urls.jobset, server.urls.kueue])
    expect(kinds(first)).toEqual({jobset: ['JobSet'], kueue: ['LocalQueue']})
    expect(readFileSync(join(search.cacheDir, 'kueue-v0.17.1.yaml'), 'utf8')).toBe(releaseYaml('kueue', 'LocalQueue'))

    const second = await findCrds(search)
    expect(second.components.map((c) => c.source)).toEqual([
      join(search.cacheDir, 'jobset-v0.10.1.yaml'),
      join(search.cacheDir, 'kueue-v0.17.1.yaml'),
    ])
    expect(server.requests).toEqual(['/jobset.yaml', '/kueue.yaml'])
  })

  it('skips a directory without CRDs of the component for the next place', async () => {
    const search = {...emptySearch(), crdsDir: tempDir()}
    write(join(search.crdsDir, 'notes.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n')
    // JobSet's CRD in Kueue's directory: neither component's.
    write(join(search.crdsDir, 'kueue-v0.17.1', 'jobset.yaml'), crdYaml('jobset', 'Misplaced'))
    write(join(search.sharedDir, 'jobset-v0.10.1', 'a.yaml'), crdYaml('jobset', 'JobSet'))
    write(join(search.sharedDir, 'kueue-v0.17.1', 'a.yaml'), crdYaml('kueue', 'LocalQueue'))
    const lookup = await findCrds(search)
    expect(lookup.components.map((c) => c.source)).toEqual([
      join(search.sharedDir, 'jobset-v0.10.1'),
      join(search.sharedDir, 'kueue-v0.17.1'),
    ])
    expect(kinds(lookup)).toEqual({jobset: ['JobSet'], kueue: ['LocalQueue']})
  })

  it('without the CRDs anywhere, says in one line where it looked, why the download failed and what to do', async () => {
    const url = await refusedUrl()
    const search: CrdSearch = {...emptySearch(), download: {timeoutMs: 5000, urls: {jobset: url, kueue: url}}}
    const lookup = await findCrds(search)
    expect(lookup.found).toBe(false)
    expect(lookup.components).toEqual([])
    if (lookup.found) return
    expect(lookup.reason).not.toContain('\n')
    expect(lookup.reason).toBe(
      'Skipping the CRD schema tests: ' +
        `no JobSet v0.10.1 CRDs (no ${search.sharedDir}; not cached at ${search.cacheDir}/jobset-v0.10.1.yaml; ` +
        `cannot download the JobSet v0.10.1 release manifest from ${url}: connection refused (ECONNREFUSED)); ` +
        `no Kueue v0.17.1 CRDs (no ${search.sharedDir}; not cached at ${search.cacheDir}/kueue-v0.17.1.yaml; ` +
        `cannot download the Kueue v0.17.1 release manifest from ${url}: connection refused (ECONNREFUSED)). ` +
        `To run them, put the CRDs in ${search.sharedDir}/<component>-<version>/, or the release manifests in ` +
        `${search.cacheDir}/ (jobset-v0.10.1.yaml, kueue-v0.17.1.yaml), or set CRDS_DIR to a directory of CRD or ` +
        'release-manifest YAML files (or CRDS_DOWNLOAD=1 to fetch them from GitHub).',
    )
  })

  it('reports a missing component while keeping the one it found', async () => {
    const search = {...emptySearch(), crdsDir: tempDir()}
    write(join(search.sharedDir, 'jobset-v0.10.1', 'a.yaml'), crdYaml('jobset', 'JobSet'))
    const lookup = await findCrds(search)
    expect(lookup.found).toBe(false)
    expect(lookup.components.map((c) => c.component)).toEqual(['jobset'])
    if (lookup.found) return
    expect(lookup.reason).toMatch(
      new RegExp(
        `^Skipping the CRD schema tests: no Kueue v0.17.1 CRDs \\(not in ${search.crdsDir}; not in ` +
          `${search.sharedDir}/kueue-v0.17.1; not cached at ${search.cacheDir}/kueue-v0.17.1.yaml\\)\\. To run them`,
      ),
    )
  })

  it('parses a directory on first use only, and says which file is broken then', async () => {
    const search = emptySearch()
    write(join(search.sharedDir, 'jobset-v0.10.1', 'a.yaml'), crdYaml('jobset', 'JobSet'))
    write(join(search.sharedDir, 'kueue-v0.17.1', 'a.yaml'), `${crdYaml('kueue', 'LocalQueue')}  broken: [\n`)
    const lookup = await findCrds(search)
    expect(lookup.found).toBe(true)
    expect(() => lookup.components[1]!.crds()).toThrow(/kueue-v0.17.1\/a.yaml line 20, column 1 is not valid YAML/)
  })
})

describe('skipCrdTests', () => {
  const found: CrdLookup = {found: true, components: []}
  const missing: CrdLookup = {found: false, components: [], reason: 'Skipping the CRD schema tests: none.'}

  it.each<[string, CrdLookup, NodeJS.ProcessEnv, boolean]>([
    ['runs them when the CRDs are found', found, {}, false],
    ['skips them when the CRDs are missing', missing, {}, true],
    ['runs them under CI even when the CRDs are missing, so that they fail', missing, {CI: 'true'}, false],
  ])('%s', (_name, lookup, env, skip) => {
    expect(skipCrdTests(lookup, env)).toBe(skip)
  })
})

describe('crdReport (the check .ci/run makes before the tests)', () => {
  it('lists where the CRDs come from, and exits 0', () => {
    const lookup: CrdLookup = {
      found: true,
      components: [
        {component: 'jobset', source: '/s/jobset-v0.10.1', crds: () => []},
        {component: 'kueue', source: '/c/kueue-v0.17.1.yaml', crds: () => []},
      ],
    }
    expect(crdReport(lookup)).toEqual({
      stdout: 'JobSet CRDs: /s/jobset-v0.10.1\nKueue CRDs: /c/kueue-v0.17.1.yaml\n',
      stderr: '',
      exitCode: 0,
    })
  })

  it('fails with the reason when any is missing', () => {
    const lookup: CrdLookup = {
      found: false,
      components: [{component: 'jobset', source: '/s/jobset-v0.10.1', crds: () => []}],
      reason: 'Skipping the CRD schema tests: no Kueue v0.17.1 CRDs (...). To run them, ...',
    }
    expect(crdReport(lookup)).toEqual({
      stdout: 'JobSet CRDs: /s/jobset-v0.10.1\n',
      stderr: 'The CRD schema tests cannot run: no Kueue v0.17.1 CRDs (...). To run them, ...\n',
      exitCode: 1,
    })
  })

  it('runs as a script: CRDS_DIR is honoured (KubeRay’s RayCluster CRD too), and the exit code is 0 when everything is found', () => {
    const crdsDir = tempDir()
    write(join(crdsDir, 'jobset-v0.10.1', 'a.yaml'), crdYaml('jobset', 'JobSet'))
    write(join(crdsDir, 'kueue-v0.17.1', 'a.yaml'), crdYaml('kueue', 'LocalQueue'))
    write(
      join(crdsDir, 'kuberay-v1.7.0', 'a.yaml'),
      [
        'apiVersion: apiextensions.k8s.io/v1',
        'kind: CustomResourceDefinition',
        'metadata: {name: rayclusters.ray.io}',
        'spec:',
        '  group: ray.io',
        '  names: {kind: RayCluster, plural: rayclusters}',
        '  scope: Namespaced',
        '  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]',
        '',
      ].join('\n'),
    )
    const root = fileURLToPath(new URL('../..', import.meta.url))
    const run = spawnSync(process.execPath, ['--import', './bench/ts-resolve.mjs', 'test/helpers/crds.ts'], {
      cwd: root,
      env: {...process.env, CRDS_DIR: crdsDir, XDG_CACHE_HOME: tempDir()},
      encoding: 'utf8',
      timeout: 30_000,
    })
    expect(run.stderr).toBe('')
    expect(run.stdout).toBe(`JobSet CRDs: ${crdsDir}\nKueue CRDs: ${crdsDir}\nRayCluster CRD: KubeRay v1.7.0\n`)
    expect(run.status).toBe(0)
  })
})

describe('defaultCrdSearch', () => {
  it('takes CRDS_DIR and the XDG cache from the environment, and ../shared/crds beside the checkout', () => {
    const search = defaultCrdSearch({CRDS_DIR: '/crds', XDG_CACHE_HOME: '/xdg'})
    expect(search.crdsDir).toBe('/crds')
    expect(search.cacheDir).toBe('/xdg/xpk/manifests')
    expect(search.sharedDir).toBe(join(fileURLToPath(new URL('../../..', import.meta.url)), 'shared', 'crds'))
    // Offline unless asked: the tests reach nothing but loopback.
    expect(search.download).toBe(false)
    expect(defaultCrdSearch({CRDS_DIR: ''}).crdsDir).toBeUndefined()
    expect(defaultCrdSearch({CRDS_DOWNLOAD: '1'}).download).toEqual({timeoutMs: 10_000})
  })
})
