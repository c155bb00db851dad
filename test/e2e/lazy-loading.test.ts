// Start-up is a feature: each command loads only the code it uses. Every module a command resolves is recorded (a
// resolve hook loaded with --import); the bundle's source maps say which of xpk's modules each loaded file holds, so
// the table is about source modules and packages (which services, adapters and SDKs), not about how esbuild chose
// to split the bundle into chunks.
import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {FakeGke} from '../fakes/fake-gke.js'
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
let hook: string
beforeAll(async () => {
  fake = await FakeGke.start()
  hook = join(tempDir('xpk-hook-'), 'record-loads.mjs')
  writeFileSync(hook, HOOK)
})
afterAll(async () => fake?.stop())

const SDKS = ['@google-cloud/container', '@google-cloud/tpu', 'google-gax', 'dockerode', 'ssh2', 'google-auth-library']

/**
 * Each topic's services: those its module (src/cli/<topic>.ts) imports when a command runs. A service no topic
 * imports directly (confirm, cluster-lock, ...) is shared and belongs to none.
 */
const TOPIC_OF_SERVICE = new Map(
  readdirSync(join(REPO_ROOT, 'src/cli')).flatMap((file) => {
    const source = readFileSync(join(REPO_ROOT, 'src/cli', file), 'utf8')
    return [...source.matchAll(/import\('\.\.\/services\/([\w-]+)\.js'\)/g)].map((m) => [m[1]!, file.slice(0, -3)])
  }),
)

/** The services and adapters of src/ and the SDK packages a command run loaded, and the topics of those services. */
async function loads(args: string[]) {
  const log = join(tempDir('xpk-loads-'), 'loaded.txt')
  writeFileSync(log, '')
  const env = isolatedEnv({
    XPK_LOADED_LOG: log,
    NODE_OPTIONS: `--import=${hook}`,
    XPK_GKE_ENDPOINT: `http://${fake.endpoint}`,
    XPK_PROJECT: 'my-project',
    XPK_ZONE: 'us-central2-b',
  })
  const result = await runCli(args, {env, cwd: tempDir('xpk-cwd-')})
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
  const services = inLayer('services')
  return {
    topics: [...new Set(services.flatMap((s) => TOPIC_OF_SERVICE.get(s) ?? []))].sort(),
    services,
    // The console every command writes through is left out.
    adapters: inLayer('adapters').filter((a) => a !== 'terminal-console'),
    packages: SDKS.filter((p) => files.some((f) => f.includes(`/node_modules/${p}/`))),
  }
}

describe('each command loads only what it uses', () => {
  it('knows the topic of each command service', () => {
    expect(TOPIC_OF_SERVICE.get('workload-create')).toBe('workload')
    expect(TOPIC_OF_SERVICE.get('cluster-read')).toBe('cluster')
    expect(TOPIC_OF_SERVICE.get('vm-run')).toBe('vm')
    expect(TOPIC_OF_SERVICE.get('accelerators')).toBe('accelerator')
    expect(TOPIC_OF_SERVICE.has('confirm')).toBe(false)
  })

  it.each<[string[], {topics: string[]; services: string[]; adapters: string[]; packages: string[]}]>([
    [['--help'], {topics: [], services: [], adapters: [], packages: []}],
    [
      ['accelerator', 'list', '--family', 'v5p'],
      {topics: ['accelerator'], services: ['accelerators'], adapters: [], packages: []},
    ],
    [['version'], {topics: ['version'], services: ['version'], adapters: [], packages: []}],
    [
      ['config', 'list'],
      {topics: ['config'], services: ['config'], adapters: ['gcloud-properties', 'settings-file'], packages: []},
    ],
    // Planned offline: no GKE adapter, no Compute Engine, no Kubernetes client.
    [
      ['cluster', 'create', '--cluster', 'c', '--tpu-type', 'v5p-8', '--spot', '--dry-run', '--offline'],
      {
        topics: ['cluster'],
        services: ['cluster-create', 'cluster-lock', 'cluster-lookup', 'confirm', 'in-cluster'],
        adapters: ['gcloud-properties', 'local-files', 'release-manifests', 'settings-file'],
        packages: [],
      },
    ],
    // A given image and --offline: no image build (Docker, registry), no GKE adapter, no Kubernetes client.
    [
      [
        ...['workload', 'create', '--cluster', 'c', '--workload', 'w', '--tpu-type', 'v5p-8', '--command', 'true'],
        ...['--docker-image', 'python:3.10', '--dry-run', '--offline'],
      ],
      {
        topics: ['workload'],
        services: ['cluster-lookup', 'confirm', 'script-dir', 'workload-cluster', 'workload-create', 'workload-delete'],
        adapters: ['gcloud-properties', 'local-files', 'settings-file'],
        packages: [],
      },
    ],
    // GKE over REST with node:http: no client library at all, and no google-auth-library for a loopback endpoint
    // (plain http carries no credentials; with ADC only google-auth-library would load).
    [
      ['cluster', 'list'],
      {
        topics: ['cluster'],
        services: ['cluster-lookup', 'cluster-read'],
        adapters: ['gcloud-properties', 'gke-container-api', 'google-rest', 'http-client', 'settings-file'],
        packages: [],
      },
    ],
  ])('xpk %j loads %j', async (args, expected) => {
    expect(await loads(args)).toEqual(expected)
  })
})
