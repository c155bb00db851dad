// `xpk cluster cacheimage` maps its flags to the options of one service call; the lazily imported runtime is
// replaced, so no service, adapter or network runs here.
import {beforeEach, describe, expect, it, vi} from 'vitest'

import {COMMANDS} from '../../src/index.js'

const calls: Array<{options: unknown; deps: unknown; kubeFlags: unknown}> = []
const settings = {
  project: {value: 'settings-project'},
  zone: {value: 'us-central2-b'},
  cluster: {value: 'settings-cluster'},
}

vi.mock('../../src/cli/cacheimage-runtime.js', () => ({
  resolveCommandSettings: async () => settings,
  cacheImageTuning: () => ({timeoutMs: 1234, poll: {initialMs: 1, maxMs: 2, factor: 1}, retry: {tuned: true}}),
  cacheImageDeps: (_settings: unknown, kubeFlags: unknown) => ({deps: true, kubeFlags}),
  cacheImage: async (options: unknown, deps: {kubeFlags: unknown}) => (
    calls.push({options, deps, kubeFlags: deps.kubeFlags}),
    {}
  ),
}))

const STUB_CONFIG = {
  bin: 'xpk',
  runHook: async () => ({successes: [], failures: []}),
  scopedEnvVar: () => undefined,
  scopedEnvVarTrue: () => false,
  findCommand: () => undefined,
}

async function run(argv: string[]) {
  const Cmd = COMMANDS['cluster:cacheimage'] as unknown as new (
    argv: string[],
    config: unknown,
  ) => {id: string; run(): Promise<unknown>}
  const command = new Cmd(argv, STUB_CONFIG)
  command.id = 'cluster:cacheimage'
  await command.run()
  return calls.at(-1)
}

beforeEach(() => {
  calls.length = 0
})

describe('cluster cacheimage flag mapping', () => {
  it('every flag reaches its option; project, zone and cluster come from the resolved settings', async () => {
    const call = await run([
      ...['--cluster', 'from-flag', '--tpu-type', 'v5p-16', '--docker-image', 'python:3.11'],
      ...['--cache-key', 'py', '--dry-run'],
    ])
    expect(call?.options).toEqual({
      project: 'settings-project',
      zone: 'us-central2-b',
      cluster: 'settings-cluster',
      tpuType: 'v5p-16',
      deviceType: undefined,
      dockerImage: 'python:3.11',
      cacheKey: 'py',
      dryRun: true,
      viaKubeconfig: false,
      timeoutMs: 1234,
      poll: {initialMs: 1, maxMs: 2, factor: 1},
      retry: {tuned: true},
    })
  })

  it.each([
    [['--kubeconfig', '/tmp/kind.yaml'], {kubeconfig: '/tmp/kind.yaml'}],
    [['--context', 'kind-xpk'], {context: 'kind-xpk'}],
  ])('%j reaches the cluster through the kubeconfig', async (flags, kube) => {
    const call = await run(['--device-type', 'h100-80gb-8', '--docker-image', 'python:3.11', ...flags])
    expect(call?.options).toMatchObject({viaKubeconfig: true, deviceType: 'h100-80gb-8'})
    expect(call?.kubeFlags).toMatchObject(kube)
  })

  it('requires --docker-image', async () => {
    await expect(run(['--tpu-type', 'v5p-16'])).rejects.toThrow(/docker-image/)
    expect(calls).toEqual([])
  })
})
