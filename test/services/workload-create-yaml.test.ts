// `xpk workload create` makes the JobSet's YAML only where it is written or printed: --output-manifest-file, and
// --dry-run's result after the plan (not under --json, whose result is the manifest as data), never on a plain submit.
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {beforeEach, describe, expect, it, vi} from 'vitest'

import {NodeFiles} from '../../src/adapters/local-files.js'
import {toYaml} from '../../src/core/manifests/to-yaml.js'
import {resolveSettings} from '../../src/core/settings.js'
import {DEFAULT_RETRY_POLICY} from '../../src/executor/retry.js'
import {createWorkload, type WorkloadCreateOptions} from '../../src/services/workload-create.js'
import {aWorkloadCluster} from '../builders/workload-cluster.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {RecordingConsole} from '../helpers/recording-console.js'
import {tempDir} from '../helpers/temp.js'
import {virtualClock} from '../helpers/virtual-clock.js'

vi.mock('../../src/core/manifests/to-yaml.js', async (importOriginal) => {
  const real = await importOriginal<{toYaml: (value: unknown) => string}>()
  return {...real, toYaml: vi.fn(real.toYaml)}
})

const IMAGE = 'us-docker.pkg.dev/my-project/repo/trainer@sha256:' + 'a'.repeat(64)

/** A console as --json makes it: text results are dropped unread (terminal-console.ts). */
class JsonConsole extends RecordingConsole {
  override result(): void {}
}

async function submit(patch: Partial<WorkloadCreateOptions>, json = false) {
  const console = json ? new JsonConsole() : new RecordingConsole()
  await createWorkload(
    {
      flags: {workload: 'run-1', tpuType: 'v5p-16', numSlices: '2', command: 'python3 train.py'},
      dockerImage: IMAGE,
      dryRun: false,
      offline: false,
      settings: resolveSettings({
        flags: {project: 'my-project', zone: 'us-central2-b', cluster: 'demo'},
        env: {},
        config: {},
        gcloud: {},
      }),
      timing: {
        retry: DEFAULT_RETRY_POLICY,
        workloadGone: {poll: {initialMs: 1000, maxMs: 5000, factor: 1.5}, timeoutMs: 60_000},
      },
      ...patch,
    },
    {
      console,
      files: new NodeFiles(),
      env: {},
      cwd: tempDir('xpk-cwd-'),
      planImage: async () => {
        throw new Error('no image is planned: --docker-image is given')
      },
      gke: async () => new MemoryGke(),
      kube: async () => aWorkloadCluster(),
      signal: new AbortController().signal,
      ...virtualClock(),
    },
  )
  return console
}

beforeEach(() => vi.mocked(toYaml).mockClear())

describe('workload create: the YAML is made only where it goes', () => {
  it('a plain submit makes none', async () => {
    await submit({})
    expect(vi.mocked(toYaml)).not.toHaveBeenCalled()
  })

  it('--dry-run prints it', async () => {
    const console = await submit({dryRun: true})
    expect(vi.mocked(toYaml)).toHaveBeenCalledTimes(1)
    // After the plan, the JobSet it would create.
    expect(console.results[0]).toMatch(/^Plan for workload run-1 on cluster demo:\n/)
    expect(console.results[0]).toMatch(/\n\napiVersion: jobset\.x-k8s\.io\/v1alpha2\nkind: JobSet\n/)
  })

  it('--dry-run --json makes none (the result is the manifest as data)', async () => {
    await submit({dryRun: true}, true)
    expect(vi.mocked(toYaml)).not.toHaveBeenCalled()
  })

  it('--output-manifest-file writes it, and a submit with it makes it once', async () => {
    const file = join(tempDir('xpk-out-'), 'jobset.yaml')
    await submit({outputManifestFile: file})
    expect(vi.mocked(toYaml)).toHaveBeenCalledTimes(1)
    expect(readFileSync(file, 'utf8')).toMatch(/^apiVersion: jobset\.x-k8s\.io\/v1alpha2\n/)
  })
})
