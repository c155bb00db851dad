// `workload why`: one case per cause it recognises, each from the objects the cluster holds in that state (the
// builders' JobSets and Kueue statuses, pods as the kubelet and scheduler write them, node pools as GKE reports
// them), checked by cause code, numbers and the words of the answer; the rendered answers are one golden.
import {describe, expect, it} from 'vitest'

import type {ObservedNodePool} from '../../../src/core/cluster/observed.js'
import {renderWhy} from '../../../src/core/render/why.js'
import type {KubeObject} from '../../../src/ports/kube.js'
import type {Priority} from '../../../src/core/workload/priority.js'
import {readJobSet, readWorkload} from '../../../src/core/workload/observed.js'
import {age} from '../../../src/core/render/ages.js'
import {WHY_CAUSES, whyWorkload, type WhyInputs, type WhyCause} from '../../../src/core/workload/why.js'
import {
  readClusterQueue,
  readMaxRestarts,
  readPendingWorkloads,
  readPod,
  readWorkloadDetail,
} from '../../../src/core/workload/why-observed.js'
import {localQueue} from '../../builders/workload-cluster.js'
import {
  at,
  jobsetStatus,
  kueueStatus,
  kueueWorkloadFor,
  submittedJobSet,
  uidOf,
} from '../../builders/workload-states.js'
import {pendingWorkloadsSummary} from '../../fakes/kueue-visibility.js'
import {expectGolden} from '../../helpers/golden.js'

type Json = Record<string, unknown>

/** A workload of the cluster: its JobSet and (unless null) the Workload Kueue made, in a state. */
interface Member {
  readonly name: string
  readonly priority: Priority
  readonly created: number
  readonly kueue: Json | null
  readonly jobset?: Json
  readonly uid?: string
}

interface World {
  readonly me: Member
  readonly maxRestarts?: number
  readonly others?: readonly Member[]
  /** The ClusterQueue's TPU quota (chips); null: no ClusterQueue. @default 64 (one workload of 4 x v5litepod-16) */
  readonly nominal?: number | null
  readonly inactive?: boolean
  /** Where the queue order comes from. @default 'kueue' */
  readonly order?: 'kueue' | 'computed'
  readonly pods?: readonly Json[]
  readonly nodePools?: readonly ObservedNodePool[] | null
  readonly readyNodes?: Record<string, number>
  readonly now?: number
}

const NOW = Date.parse(at(30))

function objects(member: Member): {jobset: Json; workload: Json | null} {
  const stored = submittedJobSet(member.name, member.priority, at(member.created), member.uid ?? uidOf(member.name))
  const jobset = {...stored, status: member.jobset ?? jobsetStatus.suspended(member.created)} as Json
  const workload = member.kueue ? {...kueueWorkloadFor(stored, at(member.created)), status: member.kueue} : null
  return {jobset, workload}
}

function inputs(world: World): WhyInputs {
  const members = [world.me, ...(world.others ?? [])]
  const built = members.map(objects)
  const mine = built[0]
  const rawWorkloads = built.flatMap((b) => (b.workload ? [b.workload as KubeObject] : []))
  const workloads = rawWorkloads.map((o) => ({observed: readWorkload(o), detail: readWorkloadDetail(o)}))
  const nominal = world.nominal === undefined ? 64 : world.nominal
  const clusterQueue =
    nominal === null
      ? undefined
      : ({
          apiVersion: 'kueue.x-k8s.io/v1beta2',
          kind: 'ClusterQueue',
          metadata: {name: 'cluster-queue'},
          spec: {
            resourceGroups: [
              {
                coveredResources: ['google.com/tpu'],
                flavors: [{name: '4xv5litepod-16', resources: [{name: 'google.com/tpu', nominalQuota: nominal}]}],
              },
            ],
          },
          ...(world.inactive
            ? {
                status: {
                  conditions: [
                    {
                      type: 'Active',
                      status: 'False',
                      reason: 'FlavorNotFound',
                      message: "Can't admit new workloads: references missing ResourceFlavor(s): 4xv5litepod-16.",
                    },
                  ],
                },
              }
            : {}),
        } as KubeObject)
  const summary =
    clusterQueue && (world.order ?? 'kueue') === 'kueue'
      ? pendingWorkloadsSummary(rawWorkloads, [localQueue()], [clusterQueue], 'cluster-queue')
      : undefined
  const jobsetObject = mine.jobset as unknown as KubeObject
  if (world.maxRestarts !== undefined) {
    ;((jobsetObject.spec as Json).failurePolicy as Json).maxRestarts = world.maxRestarts
  }
  return {
    name: world.me.name,
    now: world.now ?? NOW,
    jobset: readJobSet(jobsetObject),
    maxRestarts: readMaxRestarts(jobsetObject),
    workload: mine.workload ? workloads[rawWorkloads.indexOf(mine.workload as KubeObject)] : undefined,
    workloads,
    clusterQueue: clusterQueue && readClusterQueue(clusterQueue),
    pending: summary ? readPendingWorkloads(summary) : null,
    pods: (world.pods ?? []).map(readPod),
    nodePools: world.nodePools === undefined ? [] : world.nodePools,
    readyNodes: world.readyNodes ?? null,
    cluster: 'demo',
  }
}

/** A pod of slice 0 of run-1, as the kubelet reports it; `status` adds to (or replaces) its fields. */
function pod(worker: number, status: Json = {phase: 'Running'}, slice = 0): Json {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `run-1-slice-job-${slice}-${worker}-abcde`,
      namespace: 'default',
      creationTimestamp: at(20),
      labels: {
        'jobset.sigs.k8s.io/jobset-name': 'run-1',
        'jobset.sigs.k8s.io/job-index': String(slice),
        'batch.kubernetes.io/job-completion-index': String(worker),
      },
    },
    spec: {
      nodeSelector: {
        'cloud.google.com/gke-tpu-accelerator': 'tpu-v5-lite-podslice',
        'cloud.google.com/gke-tpu-topology': '4x4',
      },
      ...(status.phase === 'Running' ? {nodeName: `node-${slice}-${worker}`} : {}),
    },
    status,
  }
}

const running16 = () => Array.from({length: 16}, (_, i) => pod(i % 4, {phase: 'Running'}, Math.floor(i / 4)))

const unschedulable = {
  phase: 'Pending',
  conditions: [
    {
      type: 'PodScheduled',
      status: 'False',
      reason: 'Unschedulable',
      message:
        "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    },
  ],
}

function nodePool(name: string, fields: Partial<ObservedNodePool> = {}): ObservedNodePool {
  return {
    name,
    status: 'RUNNING',
    statusMessage: '',
    machineType: 'ct5lp-hightpu-4t',
    nodeCount: 4,
    locations: ['us-west4-a'],
    version: '1.33.5-gke.1000000',
    tpuTopology: '4x4',
    placementType: 'COMPACT',
    placementPolicyName: null,
    capacity: 'on-demand',
    reservation: null,
    gpu: null,
    autoscaling: null,
    workloadMetadataMode: null,
    ...fields,
  }
}

const run1 = (kueue: Json | null, fields: Partial<Member> = {}): Member => ({
  name: 'run-1',
  priority: 'medium',
  created: 10,
  kueue,
  ...fields,
})

/** The Workload and JobSet uids the preemption messages of the builders name. */
const PREEMPTOR_UID = '6b1d5c9e-0c4e-4c1e-9d55-2f8f0a3f7c21'
const PREEMPTOR_JOB_UID = '0d2b7a64-51c3-4d6e-8b0f-6f1f7c9e2a10'

interface Case {
  readonly name: string
  readonly world: World
  readonly causes: readonly WhyCause[]
  readonly headline: RegExp
  readonly next: RegExp | null
  readonly data?: Partial<Record<WhyCause, Json>>
}

const CASES: readonly Case[] = [
  {
    name: 'a JobSet Kueue has made no Workload for',
    world: {me: run1(null)},
    causes: ['not-in-kueue'],
    headline: /^SUBMITTED 20m ago, not yet seen by Kueue/,
    next: /xpk cluster describe --cluster demo/,
  },
  {
    name: 'succeeded',
    world: {me: run1(kueueStatus.succeeded(25), {jobset: jobsetStatus.completed(25)})},
    causes: ['succeeded'],
    headline: /^FINISHED: succeeded 5m ago/,
    next: null,
  },
  {
    name: 'failed after its restarts, a container exiting 1',
    world: {
      me: run1(kueueStatus.failed(25), {jobset: jobsetStatus.failed(25, 2)}),
      maxRestarts: 2,
      pods: [
        pod(0, {
          phase: 'Failed',
          containerStatuses: [{name: 'jax-tpu', restartCount: 0, state: {terminated: {exitCode: 1, reason: 'Error'}}}],
        }),
      ],
    },
    causes: ['failed', 'restarts', 'crash-loop'],
    headline: /^FINISHED: failed 5m ago/,
    next: /xpk workload logs run-1 --cluster demo --all --tail 50/,
    data: {restarts: {restarts: 2, maxRestarts: 2}, 'crash-loop': {exitCode: 1}},
  },
  {
    name: 'no ClusterQueue',
    world: {
      me: run1({
        conditions: [
          {
            type: 'QuotaReserved',
            status: 'False',
            reason: 'Inadmissible',
            message: "ClusterQueue cluster-queue doesn't exist",
            lastTransitionTime: at(10),
          },
        ],
      }),
      nominal: null,
    },
    causes: ['no-queue'],
    headline: /^QUEUED with nowhere to go: ClusterQueue cluster-queue doesn't exist/,
    next: /xpk cluster create --cluster demo/,
  },
  {
    name: 'an inactive ClusterQueue',
    world: {me: run1(kueueStatus.pending(10)), inactive: true},
    causes: ['no-queue'],
    headline: /ClusterQueue cluster-queue is inactive: Can't admit new workloads/,
    next: /xpk cluster create/,
  },
  {
    name: 'more chips than the whole queue has',
    world: {me: run1(kueueStatus.pending(10)), nominal: 32},
    causes: ['too-big'],
    headline: /it can never start here/,
    next: /--num-slices N/,
    data: {'too-big': {needed: 64, nominal: 32, flavor: '4xv5litepod-16'}},
  },
  {
    name: 'waiting for quota held by a higher priority: position from Kueue, a higher class would preempt',
    world: {
      me: run1(kueueStatus.pending(10)),
      others: [
        {name: 'run-7', priority: 'high', created: 1, kueue: kueueStatus.running(2), jobset: jobsetStatus.running(2)},
        {name: 'run-3', priority: 'high', created: 5, kueue: kueueStatus.pending(5)},
        {name: 'run-4', priority: 'low', created: 3, kueue: kueueStatus.pending(3)},
      ],
    },
    causes: ['waiting-for-quota', 'queue-position', 'quota-in-use'],
    headline: /^QUEUED, position 2 of 3 in cluster-queue: waiting for 64 more chips/,
    next: /submit it again with --priority very-high to preempt run-7/,
    data: {
      'waiting-for-quota': {needed: 64, free: 0, nominal: 64, moreNeeded: 64},
      'queue-position': {position: 2, of: 3, source: 'kueue', ahead: ['run-3'], aheadNeed: 64},
      'quota-in-use': {used: 64, nominal: 64, holders: ['run-7']},
    },
  },
  {
    name: 'the same, the order computed where the visibility API is off',
    world: {
      me: run1(kueueStatus.pending(10)),
      order: 'computed',
      others: [
        {name: 'run-7', priority: 'high', created: 1, kueue: kueueStatus.running(2), jobset: jobsetStatus.running(2)},
        {name: 'run-3', priority: 'high', created: 5, kueue: kueueStatus.pending(5)},
        {name: 'run-4', priority: 'low', created: 3, kueue: kueueStatus.pending(3)},
      ],
    },
    causes: ['waiting-for-quota', 'queue-position', 'quota-in-use'],
    headline: /^QUEUED, position 2 of 3 in cluster-queue/,
    next: /--priority very-high/,
    data: {'queue-position': {position: 2, of: 3, source: 'computed', ahead: ['run-3']}},
  },
  {
    name: 'outranking the holder: Kueue preempts it',
    world: {
      me: run1(kueueStatus.pending(10), {priority: 'very-high'}),
      others: [
        {name: 'run-9', priority: 'low', created: 1, kueue: kueueStatus.running(2), jobset: jobsetStatus.running(2)},
      ],
    },
    causes: ['waiting-for-quota', 'queue-position', 'quota-in-use'],
    headline: /^QUEUED, position 1 of 1/,
    next: /^It outranks run-9: Kueue preempts it to make room\.$/,
  },
  {
    name: 'held by the highest class: nothing preempts it',
    world: {
      me: run1(kueueStatus.pending(10)),
      others: [
        {
          name: 'run-9',
          priority: 'very-high',
          created: 1,
          kueue: kueueStatus.running(2),
          jobset: jobsetStatus.running(2),
        },
      ],
    },
    causes: ['waiting-for-quota', 'queue-position', 'quota-in-use'],
    headline: /^QUEUED/,
    next: /^It starts when enough of them finish\.$/,
  },
  {
    name: 'quota reserved, an admission check (flex-start provisioning) pending',
    world: {me: run1(kueueStatus.quotaReserved(10))},
    causes: ['admission-check'],
    headline: /waiting for capacity \(admission check\)/,
    next: /flex-start can take hours/,
    data: {'admission-check': {checks: ['dws-prov'], states: ['Pending']}},
  },
  {
    name: 'preempted by a named workload, back in the queue',
    world: {
      me: run1(kueueStatus.preempted(28)),
      others: [
        {
          name: 'urgent',
          priority: 'very-high',
          created: 27,
          kueue: kueueStatus.running(28),
          jobset: jobsetStatus.running(28),
          uid: PREEMPTOR_JOB_UID,
        },
      ],
    },
    causes: ['evicted', 'waiting-for-quota', 'queue-position', 'quota-in-use'],
    headline: /^QUEUED, position 1 of 1/,
    next: /^It starts when enough of them finish\.$/,
    data: {evicted: {reason: 'Preempted', by: 'urgent'}},
  },
  {
    name: 'evicted for pods not ready in time, requeued with a backoff',
    world: {me: run1(kueueStatus.evictedBackoff(29.5))},
    causes: ['evicted', 'requeued', 'waiting-for-quota'],
    headline: /^QUEUED, held out of the queue for 30s after an eviction/,
    next: /./,
    data: {evicted: {reason: 'PodsReadyTimeout', by: null}, requeued: {count: 1}},
  },
  {
    name: 'admitted, pods unschedulable, their node pool in ERROR',
    world: {
      me: run1(kueueStatus.admitted(20), {jobset: jobsetStatus.starting(20)}),
      pods: [...running16().slice(0, 15), pod(3, unschedulable, 3)],
      nodePools: [
        nodePool('demo-np-0'),
        nodePool('demo-np-3', {status: 'ERROR', statusMessage: 'GCE_STOCKOUT: no capacity in us-west4-a'}),
        nodePool('demo-cpu', {tpuTopology: null, machineType: 'e2-standard-16'}),
      ],
    },
    causes: ['pods-unschedulable', 'node-pool-unhealthy'],
    headline: /^RUNNING on 15 of 16 VMs for 10m/,
    next: /Re-run xpk cluster create --cluster demo .* to repair or recreate the node pool\./,
    data: {'node-pool-unhealthy': {nodePool: 'demo-np-3', status: 'ERROR'}},
  },
  {
    name: 'admitted, pods unschedulable, a node pool missing nodes',
    world: {
      me: run1(kueueStatus.admitted(20), {jobset: jobsetStatus.starting(20)}),
      pods: [...running16().slice(0, 12), ...[0, 1, 2, 3].map((w) => pod(w, unschedulable, 3))],
      nodePools: [nodePool('demo-np-2'), nodePool('demo-np-3')],
      readyNodes: {'demo-np-2': 4, 'demo-np-3': 0},
    },
    causes: ['pods-unschedulable', 'node-pool-unhealthy'],
    headline: /^RUNNING on 12 of 16 VMs/,
    next: /recreate the node pool/,
    data: {'node-pool-unhealthy': {nodePool: 'demo-np-3', ready: 0, expected: 4}},
  },
  {
    name: 'an image that cannot be pulled',
    world: {
      me: run1(kueueStatus.admitted(20), {jobset: jobsetStatus.starting(20)}),
      pods: [0, 1, 2, 3].map((w) =>
        pod(w, {
          phase: 'Pending',
          containerStatuses: [
            {
              name: 'jax-tpu',
              restartCount: 0,
              state: {waiting: {reason: 'ImagePullBackOff', message: 'Back-off pulling image "gcr.io/p/img:nope"'}},
            },
          ],
        }),
      ),
    },
    causes: ['image-pull'],
    headline: /^STARTING on 0 of 16 VMs/,
    next: /Artifact Registry Reader/,
    data: {'image-pull': {reason: 'ImagePullBackOff'}},
  },
  {
    name: 'a container in a crash loop',
    world: {
      me: run1(kueueStatus.running(20), {jobset: jobsetStatus.running(20, 1)}),
      maxRestarts: 3,
      pods: [
        ...running16().slice(1),
        pod(0, {
          phase: 'Running',
          containerStatuses: [
            {
              name: 'jax-tpu',
              restartCount: 4,
              state: {waiting: {reason: 'CrashLoopBackOff', message: 'back-off 40s restarting failed container'}},
              lastState: {terminated: {exitCode: 137, reason: 'OOMKilled'}},
            },
          ],
        }),
      ],
    },
    causes: ['crash-loop', 'restarts'],
    headline: /^RUNNING on 16 of 16 VMs/,
    next: /xpk workload logs run-1 --cluster demo --slice 0 --worker 0 shows why it exits/,
    data: {'crash-loop': {exitCode: 137, restarts: 4}, restarts: {restarts: 1, maxRestarts: 3}},
  },
  {
    name: 'admitted, pods being created',
    world: {
      me: run1(kueueStatus.admitted(29), {jobset: jobsetStatus.starting(29)}),
      pods: [pod(0, {phase: 'Pending'})],
    },
    causes: ['starting'],
    headline: /^STARTING on 0 of 16 VMs for 1m/,
    next: /run xpk workload why again/,
  },
  {
    name: 'running on every VM, one restart used',
    world: {
      me: run1(kueueStatus.running(20), {jobset: jobsetStatus.running(20, 1)}),
      maxRestarts: 3,
      pods: running16(),
    },
    causes: ['running', 'restarts'],
    headline: /^RUNNING on 16 of 16 VMs for 11m/,
    next: /^Follow it: xpk workload logs run-1 --cluster demo -f\.$/,
  },
]

describe('workload why: one answer per cause', () => {
  it.each(CASES)('$name', (c) => {
    const answer = whyWorkload(inputs(c.world))
    expect(answer.findings.map((f) => f.cause)).toEqual(c.causes)
    expect(answer.headline).toMatch(c.headline)
    if (c.next === null) expect(answer.next).toBeNull()
    else expect(answer.next).toMatch(c.next)
    for (const [cause, data] of Object.entries(c.data ?? {})) {
      expect(answer.findings.find((f) => f.cause === cause)?.data, cause).toMatchObject(data as Json)
    }
  })

  it('recognises every cause it lists, in some case above', () => {
    const seen = new Set(CASES.flatMap((c) => c.causes))
    expect(WHY_CAUSES.filter((cause) => !seen.has(cause))).toEqual([])
  })

  it('renders each answer within six lines and the next step (golden)', () => {
    const text = CASES.map((c) => {
      const rendered = renderWhy(whyWorkload(inputs(c.world)))
      const lines = rendered.split('\n')
      expect(lines.filter((l) => !l.startsWith('Next: ')).length, c.name).toBeLessThanOrEqual(6)
      return `# ${c.name}\n${rendered}\n`
    }).join('\n')
    expectGolden('why/answers.txt', text)
  })

  it('keeps text from the cluster on one line, control characters escaped', () => {
    const hostile = run1({
      conditions: [
        {
          type: 'QuotaReserved',
          status: 'False',
          reason: 'Inadmissible',
          message: "ClusterQueue cluster-queue doesn't exist\n\u001b[31mFAKE: all good",
          lastTransitionTime: at(10),
        },
      ],
    })
    const rendered = renderWhy(whyWorkload(inputs({me: hostile, nominal: null})))
    expect(rendered).not.toContain('\u001b')
    expect(rendered.split('\n')[0]).toContain("ClusterQueue cluster-queue doesn't exist")
  })

  it.each([
    [0, '0s'],
    [45_000, '45s'],
    [12 * 60_000, '12m'],
    [125 * 60_000, '2h 5m'],
    [3 * 3_600_000, '3h'],
    [(3 * 24 + 4) * 3_600_000, '3d 4h'],
    [-5_000, '0s'],
  ])('age(%i) is %s', (ms, text) => expect(age(ms)).toBe(text))
})

describe('the preemptor is named by the uid Kueue gives', () => {
  it('the Workload of that uid, by its JobSet name', () => {
    const world = inputs({
      me: run1(kueueStatus.preempted(28)),
      others: [{name: 'urgent', priority: 'very-high', created: 27, kueue: kueueStatus.running(28)}],
    })
    // The builders' preemption message names this uid: give it to urgent's Workload.
    const urgent = world.workloads.find((w) => w.observed.metadata.name.startsWith('jobset-urgent-'))!
    const renamed = {
      ...urgent,
      observed: {...urgent.observed, metadata: {...urgent.observed.metadata, uid: PREEMPTOR_UID}},
    }
    const answer = whyWorkload({...world, workloads: world.workloads.map((w) => (w === urgent ? renamed : w))})
    expect(answer.findings[0]).toMatchObject({cause: 'evicted', data: {by: 'urgent'}})
    expect(answer.findings[0].text).toMatch(/^Preempted 2m ago by urgent \(very-high\)/)
  })
})
