import {spawnSync} from 'node:child_process'

import {describe, expect, it} from 'vitest'

import {containerCommand} from '../../../src/core/manifests/container-script.js'
import type {BuildJobSetOptions} from '../../../src/core/manifests/jobset.js'
import {
  BUILTIN_RESTART_EXIT_CODES,
  buildJobSet,
  defaultGpuNetworks,
  mainContainerEnv,
  mainContainerLimits,
  restartExitCodes,
} from '../../../src/core/manifests/jobset.js'
import type {Container, EnvVar, JobSet, PodSpec} from '../../../src/core/manifests/k8s-types.js'
import {UsageError} from '../../../src/core/errors.js'
import {acceleratorCatalog} from '../../../src/core/catalog/catalog.js'
import {aWorkloadSpec} from '../../builders/workload-spec.js'
import {desiredFor} from '../../builders/observed.js'
import type {WorkloadSpecOverrides} from '../../builders/workload-spec.js'
import {SKIP_CRD_TESTS, validateJobSet} from '../../helpers/jobset-schema.js'

function build(overrides: WorkloadSpecOverrides = {}, options?: BuildJobSetOptions): JobSet {
  return buildJobSet(aWorkloadSpec(overrides), options)
}

function jobOf(js: JobSet) {
  expect(js.spec.replicatedJobs).toHaveLength(1)
  return js.spec.replicatedJobs[0]
}

function podOf(js: JobSet): PodSpec {
  return jobOf(js).template.spec.template.spec
}

function mainOf(js: JobSet): Container {
  return podOf(js).containers[0]
}

function envNames(env: readonly EnvVar[] | undefined): string[] {
  return (env ?? []).map((e) => e.name)
}

const GENERIC_GPUS = ['l4-1', 'l4-4', 'a100-40gb-8']
const A3_GPUS = ['h100-80gb-8', 'h100-mega-80gb-8', 'h200-141gb-8', 'b200-8', 'gb200-4', 'gb200-4-nolssd']
const ALL_TYPES = [
  'v5p-8',
  'v5litepod-16',
  'v6e-1',
  'v4-8',
  'tpu7x-8',
  'tpu7x-16',
  'n2-standard-32-4',
  'm1-megamem-96-1',
  ...GENERIC_GPUS,
  ...A3_GPUS,
]

describe('restartExitCodes', () => {
  it('is 42 and 127-255 by default', () => {
    const codes = restartExitCodes([])
    expect(codes).toHaveLength(130)
    expect(codes[0]).toBe(42)
    expect(codes.slice(1)).toEqual(Array.from({length: 129}, (_, i) => 127 + i))
    expect(codes).toEqual(BUILTIN_RESTART_EXIT_CODES)
  })

  it.each([
    {user: [3, 5, 6, 7], first: [3, 5, 6, 7, 42, 127], length: 134},
    {user: [200, 42, 1, 1], first: [1, 42, 127], length: 131},
    {user: [255, 127], first: [42, 127, 128], length: 130},
    {user: [60, 10], first: [10, 42, 60, 127], length: 132},
  ])('adds $user sorted and de-duplicated', ({user, first, length}) => {
    const codes = restartExitCodes(user)
    expect(codes.slice(0, first.length)).toEqual(first)
    expect(codes).toHaveLength(length)
    expect(new Set(codes).size).toBe(codes.length)
    expect([...codes].sort((a, b) => a - b)).toEqual(codes)
  })

  it('is what every podFailurePolicy rule uses', () => {
    const js = build({type: 'tpu7x-8', restartOnExitCodes: [9]})
    const rules = jobOf(js).template.spec.podFailurePolicy?.rules ?? []
    expect(rules).toHaveLength(2)
    for (const rule of rules) {
      expect(rule).toMatchObject({action: 'FailJob', onPodConditions: [], onExitCodes: {operator: 'NotIn'}})
      expect(rule.onExitCodes?.values).toEqual(restartExitCodes([9]))
    }
  })
})

describe('main containers and resources', () => {
  it('splits a tpu7x-8 VM into two containers of 2 chips, each with its own failure rule', () => {
    const js = build({type: 'tpu7x-8'})
    const containers = podOf(js).containers
    expect(containers.map((c) => c.name)).toEqual(['jax-tpu-1', 'jax-tpu-2'])
    expect(containers.map((c) => c.resources?.limits)).toEqual([{'google.com/tpu': 2}, {'google.com/tpu': 2}])
    const rules = jobOf(js).template.spec.podFailurePolicy?.rules ?? []
    expect(rules.map((r) => r.onExitCodes?.containerName)).toEqual(['jax-tpu-1', 'jax-tpu-2'])
  })

  it('keeps one container with all chips under --no-use-parallel-containers', () => {
    const js = build({type: 'tpu7x-8', parallelContainers: 1, containerName: 'trainer'})
    expect(podOf(js).containers.map((c) => [c.name, c.resources?.limits])).toEqual([['trainer', {'google.com/tpu': 4}]])
    expect(jobOf(js).template.spec.podFailurePolicy?.rules.map((r) => r.onExitCodes?.containerName)).toEqual([
      'trainer',
    ])
  })

  it.each([
    {type: 'v5p-8', limits: {'google.com/tpu': 4}},
    {type: 'v6e-1', limits: {'google.com/tpu': 1}},
    {type: 'tpu7x-2', limits: {'google.com/tpu': 1}},
    {type: 'tpu7x-128', limits: {'google.com/tpu': 2}},
    {type: 'n2-standard-32-4', limits: {cpu: 30}},
    {type: 'n2-standard-4-1', limits: {cpu: 3}},
    {type: 'n2-standard-64-1', limits: {cpu: 60}},
    {type: 'm1-megamem-96-1', limits: {cpu: 91}},
    {type: 'l4-1', limits: {'nvidia.com/gpu': 1}},
    {type: 'a100-40gb-4', limits: {'nvidia.com/gpu': 4}},
    {type: 'h100-80gb-8', limits: {'nvidia.com/gpu': 8}},
    {type: 'gb200-4', limits: {'nvidia.com/gpu': 4}},
  ])('$type gets limits $limits and no requests', ({type, limits}) => {
    expect(mainContainerLimits(aWorkloadSpec({type}))).toEqual(limits)
    const js = build({type})
    for (const c of podOf(js).containers) expect(c.resources).toEqual({limits})
  })

  it.each(ALL_TYPES)('%s: main container runs the wrapper script, privileged', (type) => {
    const spec = aWorkloadSpec({type, command: 'bash run.sh', debugDumpGcs: 'gs://b/d'})
    const main = mainOf(buildJobSet(spec))
    const gpu = spec.accelerator.kind === 'GPU'
    expect(main.image).toBe(spec.image)
    expect(main.securityContext).toEqual({privileged: true})
    expect(main.command).toEqual(
      containerCommand({command: 'bash run.sh', debugDumpGcs: 'gs://b/d', signalGpuTermination: gpu}),
    )
    expect(main.imagePullPolicy).toBe(gpu ? 'Always' : undefined)
  })

  it.each([...GENERIC_GPUS, ...A3_GPUS])('%s: the GPU container is gpu-image whatever --docker-name says', (type) => {
    const js = build({type, containerName: 'my-container'})
    expect(mainOf(js).name).toBe('gpu-image')
    expect(jobOf(js).template.spec.podFailurePolicy?.rules.map((r) => r.onExitCodes?.containerName)).toEqual([
      'gpu-image',
    ])
  })
})

describe('replicas and pods', () => {
  it.each([
    {type: 'v5p-8', numSlices: 1, replicas: 1, pods: 1},
    {type: 'v5litepod-16', numSlices: 4, replicas: 4, pods: 4},
    {type: 'v5p-128', numSlices: 2, replicas: 2, pods: 16},
    {type: 'n2-standard-32-4', numSlices: 1, replicas: 1, pods: 4},
    {type: 'n2-standard-32-4', numSlices: 3, replicas: 3, pods: 4},
  ])('$type x $numSlices slices: $replicas replicas of $pods pods', ({type, numSlices, replicas, pods}) => {
    const job = jobOf(build({type, numSlices, numNodes: 7}))
    expect(job.name).toBe('slice-job')
    expect(job.replicas).toBe(replicas)
    expect(job.template.spec).toMatchObject({parallelism: pods, completions: pods, backoffLimit: 0})
  })

  it.each([...GENERIC_GPUS, ...A3_GPUS])('%s: one replica of --num-nodes pods, whatever --num-slices says', (type) => {
    const js = build({type, numNodes: 3, numSlices: 5})
    const job = jobOf(js)
    expect(job.replicas).toBe(1)
    expect(job.template.spec).toMatchObject({parallelism: 3, completions: 3, backoffLimit: 0})
    expect(mainOf(js).env).toContainEqual({name: 'NNODES', value: '3'})
  })
})

describe('environment', () => {
  it('TPU: only the user variables, in order, then XLA_FLAGS for --debug-dump-gcs', () => {
    const env = [
      {name: 'B', value: '2'},
      {name: 'A', value: '1'},
    ]
    expect(mainContainerEnv(aWorkloadSpec({env}))).toEqual(env)
    expect(mainOf(build({env, debugDumpGcs: 'gs://x'})).env).toEqual([
      ...env,
      {name: 'XLA_FLAGS', value: '--xla_dump_to=/tmp/xla_dump/'},
    ])
    expect(mainOf(build()).env).toBeUndefined()
  })

  it('GPU: defaults first, user values replace defaults of the same name in place', () => {
    const env = mainOf(
      build({
        type: 'a100-40gb-8',
        numNodes: 2,
        command: 'train',
        env: [
          {name: 'JAX_COORDINATOR_PORT', value: '7000'},
          {name: 'FOO', value: 'bar'},
          {name: 'NNODES', value: '9'},
        ],
      }),
    ).env
    expect(envNames(env)).toEqual([
      'REPLICATED_JOB_NAME',
      'JOBSET_NAME',
      'NNODES',
      'NODE_RANK',
      'USE_GPUDIRECT',
      'GPUS_PER_NODE',
      'COMMAND',
      'JAX_COORDINATOR_PORT',
      'JAX_COORDINATOR_ADDRESS',
      'FOO',
    ])
    expect(env).toContainEqual({name: 'JAX_COORDINATOR_PORT', value: '7000'})
    expect(env).toContainEqual({name: 'NNODES', value: '9'})
    expect(env).toContainEqual({name: 'USE_GPUDIRECT', value: 'fastrak'})
    expect(env).toContainEqual({name: 'GPUS_PER_NODE', value: '8'})
    expect(env).toContainEqual({name: 'COMMAND', value: 'train'})
    expect(env).toContainEqual({
      name: 'NODE_RANK',
      valueFrom: {fieldRef: {fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']"}},
    })
  })

  it.each([
    {type: 'h100-80gb-8', direct: 'tcpx'},
    {type: 'h100-mega-80gb-8', direct: 'tcpxo'},
    {type: 'h200-141gb-8', direct: 'rdma'},
    {type: 'b200-8', direct: 'rdma'},
    {type: 'gb200-4', direct: 'rdma'},
    {type: 'l4-8', direct: 'fastrak'},
  ])('$type: USE_GPUDIRECT=$direct', ({type, direct}) => {
    expect(mainOf(build({type})).env).toContainEqual({name: 'USE_GPUDIRECT', value: direct})
  })

  it('CPU: defaults, then user values; JOBSET_NAME is defined for the coordinator address', () => {
    const env = mainOf(
      build({
        type: 'n2-standard-32-4',
        numSlices: 2,
        env: [
          {name: 'JAX_PROCESS_COUNT', value: '1'},
          {name: 'X', value: 'y'},
        ],
      }),
    ).env
    expect(envNames(env)).toEqual([
      'REPLICATED_JOB_NAME',
      'JOBSET_NAME',
      'JOB_INDEX',
      'JOB_COMPLETION_INDEX',
      'PROCESSES_IN_JOB',
      'JAX_PROCESS_COUNT',
      'JAX_COORDINATOR_ADDRESS',
      'X',
    ])
    expect(env).toContainEqual({name: 'PROCESSES_IN_JOB', value: '4'})
    expect(env).toContainEqual({name: 'JAX_PROCESS_COUNT', value: '1'})
    expect(mainOf(build({type: 'n2-standard-32-4', numSlices: 2})).env).toContainEqual({
      name: 'JAX_PROCESS_COUNT',
      value: '8',
    })
  })

  it('GPU networking variables win over user values of the same name, without duplicates', () => {
    const env = mainOf(build({type: 'h100-mega-80gb-8', env: [{name: 'LD_LIBRARY_PATH', value: '/mine'}]})).env ?? []
    expect(env.filter((e) => e.name === 'LD_LIBRARY_PATH')).toEqual([
      {name: 'LD_LIBRARY_PATH', value: '/usr/local/nvidia/lib64'},
    ])
    expect(envNames(env).slice(-2)).toEqual(['LD_LIBRARY_PATH', 'NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY'])
  })

  it.each(ALL_TYPES)('%s: names are unique and every $(VAR) xpk writes refers to an earlier variable', (type) => {
    const js = build({type, env: [{name: 'USER_VAR', value: 'x'}], debugDumpGcs: 'gs://b'})
    for (const container of podOf(js).containers) {
      const names = envNames(container.env)
      expect(new Set(names).size).toBe(names.length)
      ;(container.env ?? []).forEach((entry, i) => {
        for (const [, ref] of (entry.value ?? '').matchAll(/\$\(([A-Z_][A-Z0-9_]*)\)/g)) {
          expect(names.slice(0, i), `${entry.name} references ${ref}`).toContain(ref)
        }
      })
    }
  })
})

describe('metadata', () => {
  it.each(ALL_TYPES)('%s: queue and workload labels, pod workload label', (type) => {
    const js = build({type, name: 'my-run'})
    expect(js.apiVersion).toBe('jobset.x-k8s.io/v1alpha2')
    expect(js.kind).toBe('JobSet')
    expect(js.metadata.name).toBe('my-run')
    expect(js.metadata.labels).toEqual({
      'kueue.x-k8s.io/queue-name': 'multislice-queue',
      'xpk.google.com/workload': 'my-run',
    })
    expect(jobOf(js).template.spec.template.metadata?.labels).toEqual({'xpk.google.com/workload': 'my-run'})
  })

  it.each(ALL_TYPES)('%s: exclusive node-pool topology only for TPU and CPU', (type) => {
    const spec = aWorkloadSpec({type})
    const annotations = buildJobSet(spec).metadata.annotations
    if (spec.accelerator.kind === 'GPU') expect(annotations).toBeUndefined()
    else expect(annotations).toEqual({'alpha.jobset.sigs.k8s.io/exclusive-topology': 'cloud.google.com/gke-nodepool'})
  })

  it.each(ALL_TYPES)('%s: failure policy, ttl, priority and grace period come from the spec', (type) => {
    const js = build({
      type,
      maxRestarts: 3,
      ttlSecondsAfterFinished: 600,
      priority: 'very-high',
      terminationGracePeriodSeconds: 90,
    })
    expect(js.spec.ttlSecondsAfterFinished).toBe(600)
    expect(js.spec.failurePolicy).toEqual({
      rules: [{name: 'failurePolicyRule0', action: 'FailJobSet', onJobFailureReasons: ['PodFailurePolicy']}],
      maxRestarts: 3,
    })
    expect(podOf(js)).toMatchObject({
      priorityClassName: 'very-high',
      terminationGracePeriodSeconds: 90,
      restartPolicy: 'Never',
      dnsPolicy: 'ClusterFirstWithHostNet',
    })
  })

  it.each(ALL_TYPES)('%s: imagePullSecrets only with --docker-image-pull-secret', (type) => {
    expect(podOf(build({type})).imagePullSecrets).toBeUndefined()
    expect(podOf(build({type, imagePullSecret: 'regcred'})).imagePullSecrets).toEqual([{name: 'regcred'}])
  })
})

describe('TPU and CPU pods', () => {
  it('TPU: accelerator and topology selector, TPU toleration, host network, shared memory', () => {
    const pod = podOf(build({type: 'v5litepod-16'}))
    expect(pod.schedulerName).toBe('default-scheduler')
    expect(pod.nodeSelector).toEqual({
      'cloud.google.com/gke-tpu-accelerator': 'tpu-v5-lite-podslice',
      'cloud.google.com/gke-tpu-topology': '4x4',
    })
    expect(pod.tolerations).toEqual([{operator: 'Exists', key: 'google.com/tpu'}])
    expect(pod.affinity).toBeUndefined()
    expect(pod.hostNetwork).toBe(true)
    expect(pod.volumes).toEqual([{name: 'dshm-2', emptyDir: {medium: 'Memory'}}])
    expect(pod.containers[0].volumeMounts).toEqual([{name: 'dshm-2', mountPath: '/dev/shm'}])
    expect(pod.serviceAccountName).toBeUndefined()
  })

  it('TPU: extra node labels are merged after the accelerator labels', () => {
    const pod = podOf(build({type: 'tpu7x-16'}, {extraNodeSelector: {'cloud.google.com/placement-policy-name': 'pp'}}))
    expect(pod.nodeSelector).toEqual({
      'cloud.google.com/gke-tpu-accelerator': 'tpu7x',
      'cloud.google.com/gke-tpu-topology': '2x2x2',
      'cloud.google.com/placement-policy-name': 'pp',
    })
  })

  it('CPU n2-standard-32-4: kept off default-pool, no selector or toleration, 30 vCPUs, 4 pods', () => {
    const js = build({type: 'n2-standard-32-4'})
    const pod = podOf(js)
    expect(jobOf(js).template.spec.parallelism).toBe(4)
    expect(pod.affinity).toEqual({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            {matchExpressions: [{key: 'cloud.google.com/gke-nodepool', operator: 'NotIn', values: ['default-pool']}]},
          ],
        },
      },
    })
    expect(pod.nodeSelector).toBeUndefined()
    expect(pod.tolerations).toBeUndefined()
    expect(pod.hostNetwork).toBe(true)
    expect(pod.containers[0].resources?.limits).toEqual({cpu: 30})
  })

  it('CPU: extra node labels become the selector', () => {
    expect(podOf(build({type: 'n2-standard-4-2'}, {extraNodeSelector: {a: 'b'}})).nodeSelector).toEqual({a: 'b'})
  })
})

describe('generic GPU pods (l4, a100)', () => {
  it('default-scheduler: affinity to the first node pool plus the accelerator selector', () => {
    const pod = podOf(
      build({type: 'l4-4', cluster: 'gpu-cluster'}, {extraNodeSelector: {'cloud.google.com/gke-spot': 'true'}}),
    )
    expect(pod.schedulerName).toBe('default-scheduler')
    expect(pod.schedulingGates).toBeUndefined()
    expect(pod.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms).toEqual([
      {
        matchExpressions: [
          {key: 'cloud.google.com/gke-accelerator', operator: 'Exists'},
          {key: 'cloud.google.com/gke-nodepool', operator: 'In', values: ['gpu-cluster-np-0']},
        ],
      },
    ])
    expect(pod.nodeSelector).toEqual({
      'cloud.google.com/gke-accelerator': 'nvidia-l4',
      'cloud.google.com/gke-spot': 'true',
    })
    expect(pod.tolerations).toEqual([{operator: 'Exists', key: 'nvidia.com/gpu'}])
    expect(pod.hostNetwork).toBe(true)
    expect(pod.serviceAccountName).toBeUndefined()
  })

  it('gke.io/topology-aware-auto: a scheduling gate named after the workload instead', () => {
    const pod = podOf(build({type: 'a100-40gb-2', name: 'w1', scheduler: 'gke.io/topology-aware-auto'}))
    expect(pod.schedulingGates).toEqual([{name: 'gke.io/topology-aware-auto-w1'}])
    expect(pod.schedulerName).toBeUndefined()
    expect(pod.affinity).toBeUndefined()
    expect(pod.nodeSelector).toBeUndefined()
  })

  it('rejects any other scheduler', () => {
    expect(() => build({type: 'l4-1', scheduler: 'volcano'})).toThrow(UsageError)
    expect(() => build({type: 'l4-1', scheduler: 'volcano'})).toThrow(/--scheduler=volcano/)
  })

  it.each([
    ['v5p-8', 'volcano'],
    ['v5p-8', 'gke.io/topology-aware-auto'],
    ['n2-standard-32-4', 'my-scheduler'],
  ])('%s refuses --scheduler %s: its cluster has no such scheduler', (type, scheduler) => {
    expect(() => build({type, scheduler})).toThrow(/--scheduler=.*workloads need `default-scheduler`\./)
  })
})

describe('A3/A4/A4X GPU pods', () => {
  it.each(A3_GPUS)('%s: xpk service account, workload toleration, no host network', (type) => {
    const pod = podOf(build({type}))
    expect(pod.serviceAccountName).toBe('xpk-sa')
    expect(pod.hostNetwork).toBeUndefined()
    expect(pod.schedulerName).toBeUndefined()
    expect(pod.tolerations).toContainEqual({operator: 'Exists', key: 'nvidia.com/gpu'})
    expect(pod.tolerations).toContainEqual({
      key: 'user-workload',
      operator: 'Equal',
      value: 'true',
      effect: 'NoSchedule',
    })
    // No accelerator label; gb200 adds its placement policy.
    expect(Object.keys(pod.nodeSelector ?? {})).toEqual(
      type.startsWith('gb200') ? ['cloud.google.com/placement-policy-name'] : [],
    )
  })

  it.each([...A3_GPUS, ...GENERIC_GPUS, 'v5p-8', 'n2-standard-4-1'])('%s: every mounted volume exists', (type) => {
    const pod = podOf(build({type}))
    const volumes = new Set((pod.volumes ?? []).map((v) => v.name))
    expect(volumes.size).toBe((pod.volumes ?? []).length)
    for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
      for (const m of c.volumeMounts ?? []) expect(volumes, `${c.name} mounts ${m.name}`).toContain(m.name)
    }
  })

  it.each([
    {type: 'gb200-4', arm: true},
    {type: 'gb200-4-nolssd', arm: true},
    {type: 'b200-8', arm: false},
    {type: 'h100-80gb-8', arm: false},
  ])('$type: arm64 toleration only on A4X ($arm)', ({type, arm}) => {
    const tolerations = podOf(build({type})).tolerations ?? []
    const armToleration = {key: 'kubernetes.io/arch', operator: 'Equal', value: 'arm64', effect: 'NoSchedule'}
    if (arm) expect(tolerations).toContainEqual(armToleration)
    else expect(tolerations).not.toContainEqual(armToleration)
  })

  it.each([
    {type: 'h100-80gb-8', daemon: 'tcpx-daemon', image: 'gpudirect-tcpx/tcpgpudmarxd-dev:v2.0.11'},
    {type: 'h100-mega-80gb-8', daemon: 'tcpxo-daemon', image: 'gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.12'},
  ])('$type: $daemon runs as a sidecar init container', ({type, daemon, image}) => {
    const pod = podOf(build({type}))
    expect(pod.initContainers?.map((c) => c.name)).toEqual([daemon])
    expect(pod.initContainers?.[0]).toMatchObject({restartPolicy: 'Always', imagePullPolicy: 'Always'})
    expect(pod.initContainers?.[0].image).toBe(`us-docker.pkg.dev/gce-ai-infra/${image}`)
    expect(pod.containers.map((c) => c.name)).toEqual(['gpu-image'])
  })

  it.each(['h200-141gb-8', 'b200-8', 'gb200-4'])('%s: rdma needs no daemon', (type) => {
    const pod = podOf(build({type}))
    expect(pod.initContainers).toBeUndefined()
    expect(pod.volumes?.map((v) => v.name)).toEqual(['library-dir-host', 'gib', 'dshm'])
    expect(pod.containers[0].volumeMounts).toEqual([
      {name: 'library-dir-host', mountPath: '/usr/local/nvidia'},
      {name: 'gib', mountPath: '/usr/local/gib'},
      {name: 'dshm', mountPath: '/dev/shm'},
    ])
  })

  it('tcpx (A3 High) always uses the vpc1-4 networks', () => {
    const annotations =
      jobOf(build({type: 'h100-80gb-8'}, {gpuNetworks: ['ignored']})).template.spec.template.metadata?.annotations ?? {}
    expect(annotations['networking.gke.io/default-interface']).toBe('eth0')
    expect(annotations['networking.gke.io/interfaces']).toBe(
      [
        '[',
        '    {"interfaceName":"eth0","network":"default"},',
        '    {"interfaceName":"eth1","network":"vpc1"},',
        '    {"interfaceName":"eth2","network":"vpc2"},',
        '    {"interfaceName":"eth3","network":"vpc3"},',
        '    {"interfaceName":"eth4","network":"vpc4"}',
        ']',
      ].join('\n'),
    )
    expect(annotations['devices.gke.io/container.tcpx-daemon']).toMatch(
      /^- path: \/dev\/nvidia0\n.*- path: \/dev\/nvidia-uvm\n$/s,
    )
  })

  it.each(['h100-mega-80gb-8', 'h200-141gb-8'])('%s: interfaces follow the given networks after eth0', (type) => {
    const annotations =
      jobOf(build({type}, {gpuNetworks: ['net-a', 'net-b']})).template.spec.template.metadata?.annotations ?? {}
    expect(annotations['networking.gke.io/interfaces']).toBe(
      '[\n    {"interfaceName":"eth0","network":"default"},\n    {"interfaceName":"eth1","network":"net-a"},\n' +
        '    {"interfaceName":"eth2","network":"net-b"}\n]',
    )
  })

  it.each([
    {type: 'h100-mega-80gb-8', networks: ['c-gpunet-0-subnet', 'c-gpunet-7-subnet'], count: 8},
    {type: 'h200-141gb-8', networks: ['c-sub-1', 'c-rdma-sub-0', 'c-rdma-sub-7'], count: 9},
    {type: 'gb200-4', networks: ['c-sub-1', 'c-rdma-sub-7'], count: 9},
    {type: 'h100-80gb-8', networks: [], count: 0},
    {type: 'l4-1', networks: [], count: 0},
    {type: 'v5p-8', networks: [], count: 0},
  ])('$type: default GPU networks derive from the cluster name', ({type, networks, count}) => {
    const names = defaultGpuNetworks(aWorkloadSpec({type, cluster: 'c'}))
    expect(names).toHaveLength(count)
    for (const n of networks) expect(names).toContain(n)
  })

  it.each(A3_GPUS)('%s: Kueue topology annotation only when the cluster supports it', (type) => {
    const key = 'kueue.x-k8s.io/podset-preferred-topology'
    expect(jobOf(build({type})).template.spec.template.metadata?.annotations?.[key]).toBeUndefined()
    expect(
      jobOf(build({type}, {topologyAwareScheduling: true})).template.spec.template.metadata?.annotations?.[key],
    ).toBe('kubernetes.io/hostname')
  })

  it.each(GENERIC_GPUS)('%s: no Kueue topology annotation even when asked (not an A3/A4 type)', (type) => {
    expect(
      jobOf(build({type}, {topologyAwareScheduling: true})).template.spec.template.metadata?.annotations,
    ).toBeUndefined()
  })

  it('extra node labels become the A3 pod selector', () => {
    expect(
      podOf(build({type: 'b200-8'}, {extraNodeSelector: {'cloud.google.com/reservation-name': 'r1'}})).nodeSelector,
    ).toEqual({
      'cloud.google.com/reservation-name': 'r1',
    })
  })
})

/** Every type, bare and with every option. */
const VARIANTS: {name: string; spec: WorkloadSpecOverrides; options?: BuildJobSetOptions}[] = [
  ...ALL_TYPES.map((type) => ({name: type, spec: {type}})),
  ...ALL_TYPES.map((type) => ({
    name: `${type} with every option`,
    spec: {
      type,
      numSlices: 2,
      numNodes: 2,
      env: [{name: 'A', value: 'true'}],
      debugDumpGcs: 'gs://b/d',
      enableDebugLogs: true,
      imagePullSecret: 'regcred',
      restartOnExitCodes: [1, 2, 3],
      maxRestarts: 5,
    },
    options: {
      extraNodeSelector: {'cloud.google.com/gke-spot': 'true'},
      topologyAwareScheduling: true,
      gpuNetworks: ['n1', 'n2'],
    },
  })),
  {name: 'l4-4 with topology-aware-auto', spec: {type: 'l4-4', scheduler: 'gke.io/topology-aware-auto'}},
  {name: 'tpu7x-8 without parallel containers', spec: {type: 'tpu7x-8', parallelContainers: 1}},
  {name: 'v5p-8 with a 40-character name', spec: {type: 'v5p-8', name: 'a'.repeat(40)}},
]

describe.skipIf(SKIP_CRD_TESTS)('schema validity (the JobSet CRD test/helpers/crds.ts finds)', () => {
  it.each(VARIANTS)('$name is a valid JobSet', ({spec, options}) => {
    expect(validateJobSet(build(spec, options))).toEqual([])
  })
})

describe('placement-policy selector (Python xpk: workloads on workload-policy pools select them by name)', () => {
  const POLICY = 'cloud.google.com/placement-policy-name'

  it.each<{type: string; policy: string | undefined}>([
    {type: 'tpu7x-16', policy: 'tpu7x-16-2x2x2-placement-policy'},
    {type: 'tpu7x-256', policy: 'tpu7x-256-4x4x8-placement-policy'},
    {type: 'tpu7x-4x4x4', policy: 'tpu7x-128-4x4x4-placement-policy'},
    {type: 'tpu7-16', policy: 'tpu7-16-2x2x2-placement-policy'},
    {type: 'gb200-4', policy: 'gb200-4-1x72-placement-policy'},
    {type: 'gb200-4-nolssd', policy: 'gb200-4-1x72-placement-policy'},
    {type: 'tpu7x-8', policy: undefined},
    {type: 'tpu7x-2', policy: undefined},
    {type: 'v5p-16', policy: undefined},
    {type: 'v6e-16', policy: undefined},
    {type: 'b200-8', policy: undefined},
    {type: 'h100-mega-80gb-8', policy: undefined},
    {type: 'l4-4', policy: undefined},
    {type: 'n2-standard-32-4', policy: undefined},
  ])('$type: $policy', ({type, policy}) => {
    expect(podOf(build({type})).nodeSelector?.[POLICY]).toBe(policy)
  })

  it('comes after the accelerator labels, and an extra selector still wins', () => {
    expect(podOf(build({type: 'tpu7x-16'})).nodeSelector).toEqual({
      'cloud.google.com/gke-tpu-accelerator': 'tpu7x',
      'cloud.google.com/gke-tpu-topology': '2x2x2',
      [POLICY]: 'tpu7x-16-2x2x2-placement-policy',
    })
    expect(podOf(build({type: 'gb200-4'}, {extraNodeSelector: {[POLICY]: 'p', a: 'b'}})).nodeSelector).toEqual({
      [POLICY]: 'p',
      a: 'b',
    })
  })

  it('names the policy every cluster node pool of the type is created with, for every catalog entry', () => {
    const mismatches: string[] = []
    for (const [name, accelerator] of acceleratorCatalog()) {
      const pool = desiredFor(accelerator.kind === 'TPU' ? {tpuType: name} : {deviceType: name}).poolTemplate
        .placementPolicy
      const expected = pool?.type === 'workload-policy' ? pool.name : undefined
      const actual = podOf(buildJobSet(aWorkloadSpec({accelerator}))).nodeSelector?.[POLICY]
      if (actual !== expected) mismatches.push(`${name}: workload ${actual}, node pool ${expected}`)
    }
    expect(mismatches).toEqual([])
  })
})

describe('generated shell (rule: no value reaches shell text)', () => {
  const SENTINEL = 'SENTINEL_c0ffee'
  const HOSTILE_COMMAND = `${SENTINEL} ) # ' " $(x) \`y\` <<EOF\n`

  /** Every `sh -c` / `bash -c` script in a JobSet, with where it is. */
  function shellScripts(js: JobSet): {where: string; script: string}[] {
    const pod = podOf(js)
    return [...(pod.initContainers ?? []), ...pod.containers].flatMap((c) => {
      const argv = [...(c.command ?? []), ...(c.args ?? [])]
      const shell = ['bash', 'sh', '/bin/sh', '/bin/bash'].includes(argv[0] ?? '') && argv[1] === '-c'
      return shell ? [{where: c.name, script: argv[2] ?? ''}] : []
    })
  }

  it.each(VARIANTS)('$name: every script parses (bash -n) and holds no user value', ({spec, options}) => {
    const js = build({...spec, command: HOSTILE_COMMAND}, options)
    const scripts = shellScripts(js)
    expect(scripts.length).toBeGreaterThan(0)
    for (const {where, script} of scripts) {
      const parsed = spawnSync('bash', ['-n', '-c', script], {encoding: 'utf8'})
      expect(parsed.status, `${where}: ${parsed.stderr}`).toBe(0)
      expect(script, where).not.toContain(SENTINEL)
      expect(script, where).not.toContain('gs://')
    }
  })
})
