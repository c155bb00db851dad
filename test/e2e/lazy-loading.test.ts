// Start-up is a feature: each command loads only the code it uses. Every module a command resolves is recorded
// (a resolve hook loaded with --import), and the table says which runtime chunks and SDK packages must stay unloaded.
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {FakeGke} from '../fakes/fake-gke.js'
import {FakeTpu} from '../fakes/fake-tpu.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
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
let hook: string
beforeAll(async () => {
  fake = await FakeGke.start()
  tpu = await FakeTpu.start()
  hook = join(tempDir('xpk-hook-'), 'record-loads.mjs')
  writeFileSync(hook, HOOK)
})
afterAll(async () => {
  await fake?.stop()
  await tpu?.stop()
})

const RUNTIMES = ['catalog-runtime', 'workload-runtime', 'vm-runtime', 'runtime']
const SDKS = ['@google-cloud/container', '@google-cloud/tpu', 'google-gax', 'dockerode', 'ssh2', 'google-auth-library']

/** The runtime chunks and SDK packages a command run loaded. */
async function loads(args: string[]): Promise<{chunks: string[]; packages: string[]}> {
  const log = join(tempDir('xpk-loads-'), 'loaded.txt')
  writeFileSync(log, '')
  const env = isolatedEnv({
    XPK_LOADED_LOG: log,
    NODE_OPTIONS: `--import=${hook}`,
    XPK_GKE_ENDPOINT: `http://${fake.endpoint}`,
    XPK_TPU_ENDPOINT: `http://${tpu.endpoint}`,
    XPK_PROJECT: 'my-project',
    XPK_ZONE: 'us-central2-b',
  })
  const result = await runCli(args, {env, cwd: tempDir('xpk-cwd-')})
  expect(result.stderr).not.toMatch(/^Error/m)
  expect(result.code).toBe(0)
  const urls = readFileSync(log, 'utf8').split('\n')
  const chunkOf = (url: string) => /\/dist\/chunks\/([a-z-]+?)-[A-Z0-9]{8}\.js$/.exec(url)?.[1]
  return {
    chunks: [...new Set(urls.map(chunkOf).filter((c): c is string => RUNTIMES.includes(c ?? '')))].sort(),
    packages: SDKS.filter((p) => urls.some((u) => u.includes(`/node_modules/${p}/`))),
  }
}

describe('each command loads only what it uses', () => {
  it.each<[string[], string[], string[]]>([
    [['--help'], [], []],
    [['accelerator', 'list', '--family', 'v5p'], ['catalog-runtime'], []],
    [['version'], ['catalog-runtime'], []],
    [
      ['cluster', 'create', '--cluster', 'c', '--tpu-type', 'v5p-8', '--spot', '--dry-run', '--offline'],
      ['runtime'],
      [],
    ],
    [
      [
        ...['workload', 'create', '--cluster', 'c', '--workload', 'w', '--tpu-type', 'v5p-8', '--command', 'true'],
        ...['--docker-image', 'python:3.10', '--dry-run', '--offline'],
      ],
      ['workload-runtime'],
      [],
    ],
    // GKE over REST with fetch: no client library at all, and no google-auth-library for a loopback endpoint
    // (plain http carries no credentials; with ADC only google-auth-library would load).
    [['cluster', 'list'], ['runtime'], []],
    // The TPU API over REST too: neither @google-cloud/tpu nor google-gax (0.5-0.7 s of CPU when they were used).
    [['vm', 'list', '--tpu-prefix', 'demo'], ['vm-runtime'], []],
  ])('xpk %j loads runtimes %j and SDKs %j only', async (args, chunks, packages) => {
    const loaded = await loads(args)
    expect(loaded.chunks).toEqual(chunks)
    expect(loaded.packages).toEqual(packages)
  })
})
