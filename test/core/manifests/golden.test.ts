import {spawnSync} from 'node:child_process'
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'

import {load} from 'js-yaml'
import {describe, expect, it} from 'vitest'

import type {BuildJobSetOptions} from '../../../src/core/manifests/jobset.js'
import {buildJobSet} from '../../../src/core/manifests/jobset.js'
import type {JobSet} from '../../../src/core/manifests/k8s-types.js'
import {toYaml} from '../../../src/core/manifests/to-yaml.js'
import {MOUNTED} from '../../builders/storage.js'
import {aWorkloadSpec} from '../../builders/workload-spec.js'
import type {WorkloadSpecOverrides} from '../../builders/workload-spec.js'
import {SKIP_CRD_TESTS, validateJobSet} from '../../helpers/jobset-schema.js'

import {autoprovisioningNodeSelector} from '../../../src/core/workload/autoprovisioning.js'

// Regenerate with `UPDATE_GOLDENS=1 npx vitest run test/core/manifests/golden.test.ts`, then review the diff.
const UPDATE = process.env.UPDATE_GOLDENS === '1'

interface GoldenCase {
  readonly file: string
  /** The `xpk workload create` flags the case stands for. */
  readonly flags: string
  readonly spec: WorkloadSpecOverrides
  readonly options?: BuildJobSetOptions
}

/** A command that broke the wrapper when it was spliced into the script, and that Kubernetes would expand. */
const HOSTILE_COMMAND = 'python3 train.py --name=\'$(GREETING)\' $$ # run it )\necho "done" `date`'

const CASES: readonly GoldenCase[] = [
  {file: 'jobset-tpu-v5p-8.yaml', flags: '--tpu-type=v5p-8', spec: {type: 'v5p-8'}},
  {
    file: 'jobset-tpu-v5litepod-16-multislice.yaml',
    flags:
      '--tpu-type=v5litepod-16 --num-slices=4 --env LIBTPU_INIT_ARGS=--xla_tpu_enable_async_all_gather=true ' +
      '--env ENABLE_PJRT_COMPATIBILITY=true --restart-on-exit-codes=3,5-7 --max-restarts=2 --priority=high',
    spec: {
      type: 'v5litepod-16',
      numSlices: 4,
      env: [
        {name: 'LIBTPU_INIT_ARGS', value: '--xla_tpu_enable_async_all_gather=true'},
        {name: 'ENABLE_PJRT_COMPATIBILITY', value: 'true'},
      ],
      restartOnExitCodes: [3, 5, 6, 7],
      maxRestarts: 2,
      priority: 'high',
    },
  },
  {
    file: 'jobset-tpu-tpu7x-8.yaml',
    flags: '--tpu-type=tpu7x-8 --debug-dump-gcs=gs://test-bucket/dumps --enable-debug-logs',
    spec: {type: 'tpu7x-8', debugDumpGcs: 'gs://test-bucket/dumps', enableDebugLogs: true},
  },
  {
    file: 'jobset-tpu-tpu7x-16-hostile-command.yaml',
    flags: `--tpu-type=tpu7x-16 --command=${JSON.stringify(HOSTILE_COMMAND)} --env GREETING=hello`,
    spec: {type: 'tpu7x-16', command: HOSTILE_COMMAND, env: [{name: 'GREETING', value: 'hello'}]},
  },
  {
    file: 'jobset-gpu-a100-40gb-8.yaml',
    flags: '--device-type=a100-40gb-8 --num-nodes=2 --docker-image-pull-secret=regcred --env NCCL_DEBUG=INFO',
    spec: {
      type: 'a100-40gb-8',
      numNodes: 2,
      imagePullSecret: 'regcred',
      env: [{name: 'NCCL_DEBUG', value: 'INFO'}],
    },
  },
  {
    file: 'jobset-gpu-l4-4-topology-aware-auto.yaml',
    flags: '--device-type=l4-4 --scheduler=gke.io/topology-aware-auto',
    spec: {type: 'l4-4', scheduler: 'gke.io/topology-aware-auto'},
  },
  {
    file: 'jobset-gpu-h100-80gb-8.yaml',
    flags: '--device-type=h100-80gb-8 --num-nodes=2 (cluster supports topology-aware scheduling)',
    spec: {type: 'h100-80gb-8', numNodes: 2},
    options: {topologyAwareScheduling: true},
  },
  {
    file: 'jobset-gpu-h100-mega-80gb-8.yaml',
    flags: '--device-type=h100-mega-80gb-8 --num-nodes=2',
    spec: {type: 'h100-mega-80gb-8', numNodes: 2},
  },
  {
    file: 'jobset-gpu-h200-141gb-8.yaml',
    flags: '--device-type=h200-141gb-8 --num-nodes=4 (cluster supports topology-aware scheduling)',
    spec: {type: 'h200-141gb-8', numNodes: 4},
    options: {topologyAwareScheduling: true},
  },
  {file: 'jobset-gpu-b200-8.yaml', flags: '--device-type=b200-8 --num-nodes=2', spec: {type: 'b200-8', numNodes: 2}},
  {
    file: 'jobset-gpu-gb200-4.yaml',
    flags: '--device-type=gb200-4 --num-nodes=2',
    spec: {type: 'gb200-4', numNodes: 2},
  },
  {
    file: 'jobset-tpu-v5p-8-storages.yaml',
    flags:
      '--tpu-type=v5p-8 --storage datasets (auto-mount on the cluster: home on Filestore, scratch on Parallelstore)',
    spec: {type: 'v5p-8'},
    options: {storages: [MOUNTED.datasets, MOUNTED.home, MOUNTED.scratch]},
  },
  {
    file: 'jobset-tpu-tpu7x-8-storage.yaml',
    flags: '--tpu-type=tpu7x-8 --storage disk (two containers per pod, both mount it)',
    spec: {type: 'tpu7x-8'},
    options: {storages: [MOUNTED.disk]},
  },
  {
    file: 'jobset-gpu-a100-40gb-8-storage.yaml',
    flags: '--device-type=a100-40gb-8 --storage datasets',
    spec: {type: 'a100-40gb-8'},
    options: {storages: [MOUNTED.datasets]},
  },
  {
    file: 'jobset-gpu-h200-141gb-8-storages.yaml',
    flags: '--device-type=h200-141gb-8 --num-nodes=2 --storage datasets (auto-mount on the cluster: lustre)',
    spec: {type: 'h200-141gb-8', numNodes: 2},
    options: {storages: [MOUNTED.datasets, MOUNTED.lustre]},
  },
  {
    file: 'jobset-tpu-tpu7x-8-nap-spot.yaml',
    flags: '--tpu-type=tpu7x-8 --num-slices=2 --spot (on a cluster with node auto-provisioning)',
    spec: {type: 'tpu7x-8', numSlices: 2},
    options: {extraNodeSelector: autoprovisioningNodeSelector({capacity: 'spot', reservation: null})},
  },
  {
    file: 'jobset-tpu-v5p-16-nap-reservation.yaml',
    flags: '--tpu-type=v5p-16 --reservation=projects/other/reservations/r1 (on a cluster with node auto-provisioning)',
    spec: {type: 'v5p-16'},
    options: {
      extraNodeSelector: autoprovisioningNodeSelector({
        capacity: 'reservation',
        reservation: 'projects/other/reservations/r1',
      }),
    },
  },
  {
    // Python xpk's recipe Workload_create_sub-slicing.md.
    file: 'jobset-tpu-v6e-2x4-sub-slicing.yaml',
    flags: '--tpu-type=v6e-2x4 (on a cluster of v6e-16 slices set up for sub-slicing)',
    spec: {type: 'v6e-2x4'},
    options: {slicing: {kind: 'sub', sliceTopology: '2x4', clusterTopology: '4x4'}},
  },
  {
    // Python xpk's recipe Workload_create_super-slicing.md.
    file: 'jobset-tpu-tpu7x-4x4x20-super-slicing.yaml',
    flags: '--tpu-type=tpu7x-4x4x20 (on a cluster of 5 cubes of tpu7x-4x4x4 set up for super-slicing)',
    spec: {type: 'tpu7x-4x4x20'},
    options: {slicing: {kind: 'super', topology: '4x4x20'}},
  },
  {
    file: 'jobset-tpu-tpu7x-4x4x8-super-slicing-storage.yaml',
    flags: '--tpu-type=tpu7x-4x4x8 --num-slices=2 --storage datasets (on a cluster set up for super-slicing)',
    spec: {type: 'tpu7x-4x4x8', numSlices: 2},
    options: {slicing: {kind: 'super', topology: '4x4x8'}, storages: [MOUNTED.datasets]},
  },
  {
    file: 'jobset-cpu-n2-standard-32-4.yaml',
    flags: '--device-type=n2-standard-32-4 --num-slices=2 --env JAX_PLATFORMS=cpu',
    spec: {type: 'n2-standard-32-4', numSlices: 2, env: [{name: 'JAX_PLATFORMS', value: 'cpu'}]},
  },
]

function goldenPath(file: string): string {
  return fileURLToPath(new URL(`../../golden/${file}`, import.meta.url))
}

function render(c: GoldenCase): string {
  return `# xpk workload create ${c.flags}\n${toYaml(buildJobSet(aWorkloadSpec(c.spec), c.options))}`
}

describe('JobSet goldens', () => {
  it.each(CASES)('$file matches the builder', (c) => {
    const path = goldenPath(c.file)
    const actual = render(c)
    if (UPDATE) writeFileSync(path, actual)
    expect(existsSync(path), `${c.file} is missing; run with UPDATE_GOLDENS=1`).toBe(true)
    expect(actual).toBe(readFileSync(path, 'utf8'))
  })

  it.skipIf(SKIP_CRD_TESTS).each(CASES)(
    '$file is a valid JobSet v1alpha2 (the CRD test/helpers/crds.ts finds)',
    (c) => {
      expect(validateJobSet(load(readFileSync(goldenPath(c.file), 'utf8')))).toEqual([])
    },
  )

  it.each(CASES)('$file: every bash script in it parses (bash -n)', (c) => {
    const js = load(readFileSync(goldenPath(c.file), 'utf8')) as JobSet
    const pod = js.spec.replicatedJobs[0].template.spec.template.spec
    const scripts = [...(pod.initContainers ?? []), ...pod.containers]
      .map((container) => [...(container.command ?? []), ...(container.args ?? [])])
      .filter((argv) => /^(\/bin\/)?(ba)?sh$/.test(argv[0] ?? '') && argv[1] === '-c')
      .map((argv) => argv[2] ?? '')
    expect(scripts.length).toBeGreaterThan(0)
    for (const script of scripts) {
      const parsed = spawnSync('bash', ['-n', '-c', script], {encoding: 'utf8'})
      expect(parsed.status, parsed.stderr).toBe(0)
    }
  })
})
