// Start-up is a feature: each command loads only the code it uses. Every module a command resolves is recorded (a
// resolve hook loaded with --import); the bundle's source maps say which of xpk's modules each loaded file holds, so
// the table is about source modules and packages (which services, adapters and SDKs), not about how esbuild chose
// to split the bundle into chunks.
import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {ALL_PLANNED_PERMISSIONS, REQUIRED_APIS} from '../../src/core/doctor/requirements.js'
import {COMMANDS} from '../../src/index.js'
import {FakeGke} from '../fakes/fake-gke.js'
import {FakeKube} from '../fakes/fake-kube.js'
import {FakeResourceManager} from '../fakes/fake-resource-manager.js'
import {FakeServiceUsage} from '../fakes/fake-service-usage.js'
import {FakeTpu} from '../fakes/fake-tpu.js'
import {isolatedEnv, REPO_ROOT, runCli} from '../helpers/cli.js'
import {tempDir} from '../helpers/temp.js'

const HOOK = `import module from 'node:module'
import {appendFileSync} from 'node:fs'
module.registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context)
    appendFileSync(process.env.XPK_LOADED_LOG, resolved.url + '\\n')
    return resolved
  },
})
`
let fake: FakeGke
let tpu: FakeTpu
let kube: FakeKube
let rm: FakeResourceManager
let su: FakeServiceUsage
let hook: string
/** A kubeconfig reaching the Kubernetes fake, for the commands that work inside a cluster. */
const KUBECONFIG = join(tempDir('xpk-kubeconfig-'), 'config')
beforeAll(async () => {
  fake = await FakeGke.start()
  tpu = await FakeTpu.start()
  kube = await FakeKube.start()
  rm = await FakeResourceManager.start()
  rm.seedProject({projectId: 'my-project', granted: ALL_PLANNED_PERMISSIONS})
  su = await FakeServiceUsage.start()
  su.seedProject(
    'my-project',
    REQUIRED_APIS.map((a) => a.service),
  )
  writeFileSync(KUBECONFIG, kube.kubeconfig())
  hook = join(tempDir('xpk-hook-'), 'record-loads.mjs')
  writeFileSync(hook, HOOK)
})
afterAll(async () => {
  await fake?.stop()
  await tpu?.stop()
  await kube?.stop()
  await rm?.stop()
  await su?.stop()
})

const SDKS = ['@google-cloud/container', '@google-cloud/tpu', 'google-gax', 'dockerode', 'ssh2', 'google-auth-library']

/**
 * Each topic's services: those its module (src/cli/<topic>.ts) imports when a command runs. A service no topic
 * imports directly (confirm, cluster-lock, ...), or more than one does (show-output), is shared and belongs to none.
 */
const TOPIC_OF_SERVICE = (() => {
  const topics = new Map<string, Set<string>>()
  for (const file of readdirSync(join(REPO_ROOT, 'src/cli'))) {
    const source = readFileSync(join(REPO_ROOT, 'src/cli', file), 'utf8')
    for (const m of source.matchAll(/import\('\.\.\/services\/([\w-]+)\.js'\)/g)) {
      topics.set(m[1]!, (topics.get(m[1]!) ?? new Set()).add(file.slice(0, -3)))
    }
  }
  return new Map([...topics].flatMap(([service, of]) => (of.size === 1 ? [[service, [...of][0]!] as const] : [])))
})()

/** The topics whose services a command run loaded, the adapters of src/ and the SDK packages it loaded. */
async function loads(args: string[], extra: Record<string, string> = {}) {
  const log = join(tempDir('xpk-loads-'), 'loaded.txt')
  writeFileSync(log, '')
  const cwd = tempDir('xpk-cwd-')
  const env = isolatedEnv({
    XPK_LOADED_LOG: log,
    NODE_OPTIONS: `--import=${hook}`,
    XPK_GKE_ENDPOINT: `http://${fake.endpoint}`,
    XPK_TPU_ENDPOINT: `http://${tpu.endpoint}`,
    XPK_PROJECT: 'my-project',
    XPK_ZONE: 'us-central2-b',
    // `xpk inspector` writes its file in TMPDIR: the run's own directory, removed with it.
    TMPDIR: cwd,
    ...extra,
  })
  const result = await runCli(args, {env, cwd})
  expect(result.stderr).not.toMatch(/^Error/m)
  expect(result.code).toBe(0)
  const files = readFileSync(log, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith('file:'))
    .map((url) => fileURLToPath(url))
  // What each file of the bundle holds, from its source map.
  const sources = new Set(
    files
      .filter((file) => file.startsWith(join(REPO_ROOT, 'dist')))
      .flatMap((file) => (JSON.parse(readFileSync(`${file}.map`, 'utf8')) as {sources: string[]}).sources)
      .flatMap((source) => /(?:^|\/)src\/((?:services|adapters)\/[\w-]+)\.ts$/.exec(source)?.[1] ?? []),
  )
  const inLayer = (layer: string) =>
    [...sources]
      .filter((s) => s.startsWith(`${layer}/`))
      .map((s) => s.slice(layer.length + 1))
      .sort()
  return {
    topics: [...new Set(inLayer('services').flatMap((s) => TOPIC_OF_SERVICE.get(s) ?? []))].sort(),
    // The console every command writes through is left out.
    adapters: inLayer('adapters').filter((a) => a !== 'terminal-console'),
    packages: SDKS.filter((p) => files.some((f) => f.includes(`/node_modules/${p}/`))),
  }
}

/** The adapters that reach GKE and a cluster: loaded on the first connection, never by a command that makes none. */
const CONNECTIONS = ['gke-container-api', 'kube-client']

describe('each command loads only what it uses', () => {
  it('knows the topic of each command service', () => {
    expect(TOPIC_OF_SERVICE.get('workload-create')).toBe('workload')
    expect(TOPIC_OF_SERVICE.get('cluster-read')).toBe('cluster')
    expect(TOPIC_OF_SERVICE.get('vm-run')).toBe('vm')
    expect(TOPIC_OF_SERVICE.get('accelerators')).toBe('accelerator')
    expect(TOPIC_OF_SERVICE.has('confirm')).toBe(false)
  })

  interface Row {
    readonly args: string[]
    /** The topics whose services it loads. */
    readonly topics: string[]
    /** The SDK packages it loads. */
    readonly packages: string[]
    /** Adapters it must not load, and adapters it must. */
    readonly absent?: string[]
    readonly present?: string[]
    /** More environment for its run. */
    readonly env?: () => Record<string, string>
  }
  const rows: Row[] = [
    {args: ['--help'], topics: [], packages: [], absent: ['gcloud-properties', 'settings-file', ...CONNECTIONS]},
    {
      args: ['accelerator', 'list', '--family', 'v5p'],
      topics: ['accelerator'],
      packages: [],
      absent: ['settings-file', ...CONNECTIONS],
    },
    {args: ['version'], topics: ['version'], packages: [], absent: ['settings-file', ...CONNECTIONS]},
    // Inside a cluster reached through a kubeconfig: the Kubernetes adapter, and neither GKE nor the other topics.
    {
      args: ['info', '--kubeconfig', KUBECONFIG],
      topics: ['info'],
      packages: [],
      absent: ['gke-container-api'],
      present: ['kube-client'],
    },
    {
      args: ['inspector', '--kubeconfig', KUBECONFIG],
      topics: ['inspector'],
      packages: [],
      absent: ['gke-container-api'],
      present: ['kube-client', 'local-files'],
    },
    // Doctor's own APIs over plain http to their fakes: no google-auth-library, no GKE or cluster connection.
    {
      args: ['doctor'],
      topics: ['doctor'],
      packages: [],
      absent: CONNECTIONS,
      present: ['resource-manager-rest', 'service-usage-rest', 'google-credentials'],
      env: () => ({
        XPK_RESOURCE_MANAGER_ENDPOINT: rm.endpoint,
        XPK_SERVICE_USAGE_ENDPOINT: su.endpoint,
        XPK_REGISTRY: '127.0.0.1:5999/xpk',
      }),
    },
    {args: ['config', 'list'], topics: ['config'], packages: [], absent: CONNECTIONS, present: ['settings-file']},
    // Planned offline: no connection at all.
    {
      args: ['cluster', 'create', '--cluster', 'c', '--tpu-type', 'v5p-8', '--spot', '--dry-run', '--offline'],
      topics: ['cluster'],
      packages: [],
      absent: CONNECTIONS,
    },
    // A given image and --offline: no connection (Docker and the registry are reached only to build).
    {
      args: [
        ...['workload', 'create', '--cluster', 'c', '--workload', 'w', '--tpu-type', 'v5p-8', '--command', 'true'],
        ...['--docker-image', 'python:3.10', '--dry-run', '--offline'],
      ],
      topics: ['workload'],
      packages: [],
      absent: CONNECTIONS,
    },
    // GKE over REST with node:http: no client library at all, and no google-auth-library for a loopback endpoint
    // (plain http carries no credentials; with ADC only google-auth-library would load).
    {args: ['cluster', 'list'], topics: ['cluster'], packages: [], present: ['gke-container-api']},
    // The TPU API over REST too: neither @google-cloud/tpu nor google-gax (0.5-0.7 s of CPU when they were used).
    {args: ['vm', 'list', '--tpu-prefix', 'demo'], topics: ['vm'], packages: [], present: ['tpu-api']},
    // Inside a cluster reached through a kubeconfig: the Kubernetes adapter, and neither GKE nor the other topics.
    {
      args: ['storage', 'list', '--kubeconfig', KUBECONFIG],
      topics: ['storage'],
      packages: [],
      absent: ['gke-container-api'],
      present: ['kube-client'],
    },
    // The live queue view, once: the Kubernetes adapter and the terminal screen, nothing of the other topics.
    {
      args: ['queue', '--kubeconfig', KUBECONFIG, '--once'],
      topics: ['queue'],
      packages: [],
      absent: ['gke-container-api'],
      present: ['kube-client', 'terminal-screen'],
    },
  ]

  it('has a row for every topic, so a new topic says what it loads', () => {
    const topics = new Set(Object.keys(COMMANDS).map((id) => id.split(':')[0]!))
    expect(new Set(rows.flatMap((r) => r.topics))).toEqual(topics)
  })

  it.each(rows)(
    'xpk $args loads the services of $topics and the SDKs $packages',
    async ({args, topics, packages, absent, present, env}) => {
      const loaded = await loads(args, env?.())
      expect(loaded.topics).toEqual(topics)
      expect(loaded.packages).toEqual(packages)
      expect(loaded.adapters.filter((a) => absent?.includes(a))).toEqual([])
      expect(present?.filter((a) => !loaded.adapters.includes(a)) ?? []).toEqual([])
    },
  )
})
