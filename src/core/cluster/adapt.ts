/**
 * `xpk cluster adapt`: what a cluster made by another tool (Terraform, Cluster Toolkit, the console) holds, read from
 * its node pools as GKE reports them, and the shape the in-cluster objects (Kueue's quota, the ConfigMaps) are made
 * from. Python xpk takes the type and `--num-slices` (default 1) on trust; here the pools say what there is, and
 * what the user gives is checked against them.
 */
import {acceleratorCatalog} from '../catalog/catalog.js'
import {resolveAccelerator} from '../catalog/lookup.js'
import {KIND_TRAITS, type Accelerator} from '../catalog/types.js'
import {UsageError} from '../errors.js'
import {INTEGER_FLAGS, Problems} from '../input.js'
import {clusterVmCount, totalQuota, type ClusterShape} from '../incluster/cluster-shape.js'
import type {ObservedPlacement} from '../incluster/topology-aware.js'
import type {KueueLimits} from '../incluster/kueue-limits.js'
import {checkCapacityFlags, checkKueueLimits, checkTarget, type ClusterCreateFlags} from './desired.js'
import type {NodePoolStatus, ObservedCluster, ObservedNodePool} from './observed.js'
import type {Capacity} from './spec.js'

/**
 * The flags of `xpk cluster adapt`, as given (project, zone and cluster resolved from flags, env, config or gcloud):
 * the ones it shares with `cluster create`, read by the same checks.
 */
export type ClusterAdaptFlags = Pick<
  ClusterCreateFlags,
  | 'cluster'
  | 'project'
  | 'zone'
  | 'tpuType'
  | 'deviceType'
  | 'numSlices'
  | 'numNodes'
  | 'onDemand'
  | 'spot'
  | 'reservation'
  | 'flex'
  | 'cpuLimit'
  | 'memoryLimit'
  | 'enableAutoprovisioning'
  | 'autoprovisioningMinChips'
  | 'autoprovisioningMaxChips'
> & {
  /** Go on when --num-slices / --num-nodes ask for more than the pools hold (said in the plan); answers yes. */
  readonly force?: boolean
}

/** The flags, each checked; nothing here has read GKE yet. */
export interface AdaptRequest {
  readonly cluster: string
  readonly project: string
  readonly zone: string
  readonly region: string
  /** `--tpu-type` / `--device-type`; undefined: the one accelerator type the pools have. */
  readonly accelerator: Accelerator | undefined
  readonly numSlices: number | undefined
  readonly numNodes: number | undefined
  /** A capacity flag; undefined: the pools' own. */
  readonly capacity: Capacity | undefined
  /** `--reservation` as given. */
  readonly reservation: string | null
  readonly kueueLimits: KueueLimits
  readonly autoprovisioning: {readonly minimumChips?: number; readonly maximumChips?: number} | null
  readonly force: boolean
}

/**
 * Checks the flags of `cluster adapt` before anything is read; every problem at once (exit 2 naming the flag).
 * @throws UsageError or UsageErrors
 */
export function checkAdaptFlags(flags: ClusterAdaptFlags): AdaptRequest {
  const problems = new Problems()
  const {name, project, zone, region} = checkTarget(flags, problems)
  const named = flags.tpuType !== undefined || flags.deviceType !== undefined
  const accelerator = named
    ? problems.attempt(() => resolveAccelerator({tpuType: flags.tpuType, deviceType: flags.deviceType}))
    : undefined
  const numSlices = problems.integer('--num-slices', flags.numSlices, INTEGER_FLAGS['cluster:num-slices'])
  const numNodes = problems.integer('--num-nodes', flags.numNodes, INTEGER_FLAGS['cluster:num-nodes'])
  if (numNodes !== undefined && accelerator && accelerator.kind !== 'GPU') {
    problems.add(`--num-nodes applies to GPU types; ${accelerator.name} is counted in slices. Use --num-slices.`, {
      flag: '--num-nodes',
    })
  }
  if (numSlices !== undefined && accelerator?.kind === 'GPU') {
    problems.add('--num-slices applies to TPU and CPU types; a GPU cluster is counted in VMs (--num-nodes).', {
      flag: '--num-slices',
    })
  }
  const capacity = checkCapacityFlags(flags, problems, project, {required: false})
  const kueueLimits = checkKueueLimits(flags, problems, accelerator)
  const autoprovisioning = checkAdaptAutoprovisioning(flags, problems, accelerator)
  problems.throwIfAny()
  return {
    cluster: name as string,
    project: project as string,
    zone: zone as string,
    region: region as string,
    accelerator,
    numSlices,
    numNodes,
    capacity: capacity.chosen,
    reservation: flags.reservation ?? null,
    kueueLimits,
    autoprovisioning,
    force: Boolean(flags.force),
  }
}

/** `--enable-autoprovisioning` and its chips: TPU types; the chip flags only with it (as `cluster create`). */
function checkAdaptAutoprovisioning(
  flags: ClusterAdaptFlags,
  problems: Problems,
  accelerator: Accelerator | undefined,
): AdaptRequest['autoprovisioning'] {
  const chip = (flag: string, given: string | number | undefined, key: keyof typeof INTEGER_FLAGS) =>
    problems.integer(flag, given, INTEGER_FLAGS[key])
  const minimumChips = chip(
    '--autoprovisioning-min-chips',
    flags.autoprovisioningMinChips,
    'cluster:autoprovisioning-min-chips',
  )
  const maximumChips = chip(
    '--autoprovisioning-max-chips',
    flags.autoprovisioningMaxChips,
    'cluster:autoprovisioning-max-chips',
  )
  if (!flags.enableAutoprovisioning) {
    for (const [flag, given] of [
      ['--autoprovisioning-min-chips', flags.autoprovisioningMinChips],
      ['--autoprovisioning-max-chips', flags.autoprovisioningMaxChips],
    ] as const) {
      if (given !== undefined && !problems.has(flag)) {
        problems.add(`${flag} describes node auto-provisioning, which is not asked for.`, {
          flag,
          hints: [`Add --enable-autoprovisioning, or leave ${flag} out.`],
        })
      }
    }
    return null
  }
  if (accelerator !== undefined && (accelerator.kind !== 'TPU' || accelerator.gkeAccelerator === null)) {
    problems.add(
      `--enable-autoprovisioning provisions TPU slices; ${accelerator.name} is a ${accelerator.kind} type.`,
      {
        flag: '--enable-autoprovisioning',
      },
    )
  }
  return {
    ...(minimumChips === undefined ? {} : {minimumChips}),
    ...(maximumChips === undefined ? {} : {maximumChips}),
  }
}

/** Pool states whose nodes are there (or being updated in place): they count. */
const COUNTED: ReadonlySet<NodePoolStatus> = new Set(['RUNNING', 'RUNNING_WITH_ERROR', 'RECONCILING'])

let tpuByMachineAndTopology: Map<string, Accelerator> | undefined
let gpuByAccelerator: Map<string, Accelerator> | undefined

/**
 * The accelerator type a node pool provides: a TPU pool by its machine type and topology, a GPU pool by the GPU it
 * attaches (and its count per VM, else its machine type); undefined for CPU pools and types xpk does not know.
 */
export function acceleratorOfPool(pool: ObservedNodePool): Accelerator | undefined {
  if (tpuByMachineAndTopology === undefined || gpuByAccelerator === undefined) {
    tpuByMachineAndTopology = new Map()
    gpuByAccelerator = new Map()
    for (const a of acceleratorCatalog().values()) {
      if (a.name !== a.canonical) continue
      if (a.kind === 'TPU') {
        const key = `${a.machineType}/${a.topology}`
        if (!tpuByMachineAndTopology.has(key)) tpuByMachineAndTopology.set(key, a)
      } else if (a.kind === 'GPU' && a.gkeAccelerator !== null) {
        for (const key of [`${a.gkeAccelerator}/${a.chipsPerVm}`, `machine/${a.machineType}`]) {
          if (!gpuByAccelerator.has(key)) gpuByAccelerator.set(key, a)
        }
      }
    }
  }
  if (pool.gpu) {
    return (
      gpuByAccelerator.get(`${pool.gpu.type}/${pool.gpu.count}`) ?? gpuByAccelerator.get(`machine/${pool.machineType}`)
    )
  }
  if (pool.tpuTopology !== null) return tpuByMachineAndTopology.get(`${pool.machineType}/${pool.tpuTopology}`)
  return gpuByAccelerator.get(`machine/${pool.machineType}`)
}

/** Whether a pool attaches accelerators, known to xpk or not (TPU machine types start with `ct`, GPU pools say so). */
function isAcceleratorPool(pool: ObservedNodePool): boolean {
  return pool.gpu !== null || pool.tpuTopology !== null || /^(ct\d|tpu)/.test(pool.machineType)
}

/** One node pool as adapt reads it. */
export interface FoundPool {
  readonly name: string
  readonly status: NodePoolStatus
  /** The accelerator type (canonical name), `unknown` for an accelerator xpk does not know, null for CPU pools. */
  readonly type: string | null
  /** Slices (TPU, CPU types) or VMs (GPU) it gives Kueue; 0 when not counted. */
  readonly slices: number
  readonly vms: number
  readonly capacity: Capacity
  readonly reservation: string | null
  /** Counted for the cluster's type, or why not. */
  readonly counted: boolean
  readonly note: string
}

/** What the pools say, and the shape the in-cluster objects are made from. */
export interface AdaptFindings {
  readonly pools: readonly FoundPool[]
  readonly accelerator: Accelerator
  /** Slices (TPU, CPU) the counted pools hold; GPU: 1. */
  readonly slicesFound: number
  /** VMs the counted pools hold. */
  readonly vmsFound: number
  readonly shape: ClusterShape
  /** Where what was given differs from what was found and goes on (--force, a capacity flag). */
  readonly warnings: readonly string[]
  readonly notes: readonly string[]
}

/** The VMs a pool holds: its nodes in every zone, or, when it autoscales, the most it scales to. */
function poolVms(pool: ObservedNodePool): number {
  const perZone = pool.autoscaling?.enabled ? Math.max(pool.nodeCount, pool.autoscaling.maxNodes) : pool.nodeCount
  return perZone * Math.max(1, pool.locations.length)
}

/**
 * A multi-host TPU pool is one slice (GKE makes and deletes its VMs together); other pools hold as many slices as
 * their VMs make whole slices of the type.
 */
function poolSlices(pool: ObservedNodePool, a: Accelerator): number {
  if (a.kind === 'TPU' && a.vmsPerSlice > 1) return 1
  return Math.floor(poolVms(pool) / a.vmsPerSlice)
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/**
 * Reads the cluster's pools against the request: the type (asked, or the one the pools have), the slices or VMs its
 * pools in service hold, the capacity they use, and the shape from them. Several types without `--tpu-type` /
 * `--device-type`, none at all, or none of the type asked for, is exit 2 saying what was found; so is asking for more
 * than the pools hold (Kueue would admit workloads no node can run), unless --force.
 * @throws UsageError
 */
export function adaptFindings(request: AdaptRequest, cluster: ObservedCluster): AdaptFindings {
  const typed = cluster.nodePools.map((pool) => ({pool, a: acceleratorOfPool(pool)}))
  const typeFlag = request.accelerator?.kind === 'TPU' ? '--tpu-type' : '--device-type'
  const kinds = new Map<string, {a: Accelerator; pools: number}>()
  for (const {a} of typed) {
    if (a === undefined || a.kind === 'CPU') continue
    const entry = kinds.get(a.canonical) ?? {a, pools: 0}
    kinds.set(a.canonical, {...entry, pools: entry.pools + 1})
  }
  const foundText = () => {
    const known = [...kinds.values()].map((k) => `${k.a.canonical} (${plural(k.pools, 'pool')})`)
    const unknown = typed.filter(({pool, a}) => a === undefined && isAcceleratorPool(pool))
    const other = unknown.map(
      ({pool}) =>
        `${pool.name} (${pool.machineType}${pool.tpuTopology ? ` ${pool.tpuTopology}` : ''}, a type xpk does not know)`,
    )
    const all = [...known, ...other]
    return all.length === 0 ? 'no accelerator node pools' : all.join(', ')
  }
  const nap = cluster.autoprovisioning
  let accelerator = request.accelerator
  if (accelerator === undefined) {
    if (kinds.size !== 1) {
      const several = kinds.size > 1
      throw new UsageError(
        `Cluster ${cluster.name} has ${foundText()}: ${several ? 'say which type xpk is to schedule' : 'nothing for xpk to give Kueue'}.`,
        {
          flag: '--tpu-type',
          hints: several
            ? [
                `Pass --tpu-type or --device-type with one of ${[...kinds.keys()].join(', ')}; the pools of the other types are left alone.`,
              ]
            : [
                'Add TPU or GPU node pools with the tool that made the cluster, or name the type with --tpu-type and --enable-autoprovisioning where GKE provisions it.',
                '`xpk cluster describe` lists the pools.',
              ],
        },
      )
    }
    accelerator = [...kinds.values()][0]!.a
  }
  const a = accelerator
  const pools: FoundPool[] = typed.map(({pool, a: type}) => {
    const base = {
      name: pool.name,
      status: pool.status,
      type: type ? type.canonical : isAcceleratorPool(pool) ? 'unknown' : null,
      capacity: pool.capacity,
      reservation: pool.reservation,
    }
    const mine = type !== undefined && type.canonical === a.canonical
    if (!mine) {
      const note = type
        ? `another type (${type.canonical}): left alone`
        : isAcceleratorPool(pool)
          ? 'an accelerator xpk does not know: left alone'
          : 'no accelerator: left alone'
      return {...base, slices: 0, vms: 0, counted: false, note}
    }
    if (!COUNTED.has(pool.status)) {
      return {
        ...base,
        slices: 0,
        vms: 0,
        counted: false,
        note: `${pool.status}${pool.statusMessage ? ` (${pool.statusMessage})` : ''}: not counted`,
      }
    }
    const vms = poolVms(pool)
    const slices = a.kind === 'GPU' ? 0 : poolSlices(pool, a)
    const what = a.kind === 'GPU' ? plural(vms, 'VM') : `${plural(slices, 'slice')}, ${plural(vms, 'VM')}`
    return {...base, slices, vms, counted: true, note: `${what}, ${describeCapacity(pool.capacity, pool.reservation)}`}
  })
  const counted = pools.filter((p) => p.counted)
  const autoprovisioning = napChips(request, a, nap, cluster.name)
  if (counted.length === 0 && !autoprovisioning) {
    const ofType = pools.filter((p) => p.type === a.canonical)
    throw new UsageError(
      ofType.length === 0
        ? `Cluster ${cluster.name} has no ${a.canonical} node pool: it has ${foundText()}.`
        : `Cluster ${cluster.name}'s ${a.canonical} node pools are not in service (${ofType.map((p) => `${p.name} ${p.status}`).join(', ')}): nothing to give Kueue.`,
      {
        flag: request.accelerator ? typeFlag : '--tpu-type',
        hints: [
          ofType.length === 0
            ? 'Name a type its pools have, or add the pools with the tool that made the cluster.'
            : 'Re-run once a pool is RUNNING (`xpk cluster describe` shows them).',
        ],
      },
    )
  }
  const warnings: string[] = []
  const notes: string[] = []
  const vmsFound = counted.reduce((n, p) => n + p.vms, 0)
  const slicesFound = a.kind === 'GPU' ? (vmsFound > 0 ? 1 : 0) : counted.reduce((n, p) => n + p.slices, 0)
  let numSlices = a.kind === 'GPU' ? 1 : slicesFound
  let numNodes = a.kind === 'GPU' ? vmsFound : 0
  const more = (flag: string, asked: number, held: string) => {
    const text = `${flag} ${asked} asks for more than the ${a.canonical} pools hold (${held})`
    if (!request.force) {
      throw new UsageError(`${text}: Kueue would admit workloads no node can run.`, {
        flag,
        hints: [
          `Leave ${flag} out to use what the pools hold, or add pools with the tool that made the cluster.`,
          'To give Kueue that quota anyway (workloads wait until nodes come), re-run with --force.',
        ],
      })
    }
    warnings.push(`${text}; going on because of --force.`)
  }
  if (autoprovisioning === null && request.numSlices !== undefined && a.kind !== 'GPU') {
    if (request.numSlices > slicesFound) more('--num-slices', request.numSlices, plural(slicesFound, 'slice'))
    else if (request.numSlices < slicesFound) {
      notes.push(
        `Kueue's quota covers ${request.numSlices} of the ${plural(slicesFound, 'slice')} the pools hold (--num-slices).`,
      )
    }
    numSlices = request.numSlices
  }
  if (a.kind === 'GPU') {
    if (request.numNodes !== undefined) {
      if (request.numNodes > vmsFound) more('--num-nodes', request.numNodes, plural(vmsFound, 'VM'))
      else if (request.numNodes < vmsFound) {
        notes.push(
          `Kueue's quota covers ${request.numNodes} of the ${plural(vmsFound, 'VM')} the pools hold (--num-nodes).`,
        )
      }
      numNodes = request.numNodes
    }
  }
  const capacity = capacityOf(request, counted, cluster.name)
  if (capacity.note) notes.push(capacity.note)
  if (
    !autoprovisioning &&
    nap &&
    a.gkeAccelerator &&
    nap.resourceLimits.some((l) => l.resourceType === a.gkeAccelerator)
  ) {
    notes.push(
      `GKE's node auto-provisioning provides ${a.gkeAccelerator} too: add --enable-autoprovisioning to make its maximum Kueue's quota.`,
    )
  }
  const shape: ClusterShape = {
    clusterName: cluster.name,
    accelerator: a,
    numSlices,
    numNodes,
    capacity: capacity.capacity,
    reservation: capacity.reservation,
    cpuQuota: request.kueueLimits.cpu,
    memoryQuota: request.kueueLimits.memory,
    autoprovisioning,
  }
  return {pools, accelerator: a, slicesFound, vmsFound, shape, warnings, notes}
}

/**
 * Node auto-provisioning as GKE reports it, for `--enable-autoprovisioning`: adapt changes nothing in GKE, so GKE must
 * provide the type already, and the chip flags, when given, must say what GKE has.
 */
function napChips(
  request: AdaptRequest,
  a: Accelerator,
  nap: ObservedCluster['autoprovisioning'],
  cluster: string,
): ClusterShape['autoprovisioning'] {
  if (request.autoprovisioning === null) return null
  if (a.kind !== 'TPU' || a.gkeAccelerator === null) {
    throw new UsageError(`--enable-autoprovisioning provisions TPU slices; ${a.canonical} is a ${a.kind} type.`, {
      flag: '--enable-autoprovisioning',
    })
  }
  const limit = nap?.resourceLimits.find((l) => l.resourceType === a.gkeAccelerator)
  if (limit === undefined) {
    throw new UsageError(
      `--enable-autoprovisioning: GKE does not auto-provision ${a.gkeAccelerator} on cluster ${cluster}, and cluster adapt changes nothing in GKE.`,
      {
        flag: '--enable-autoprovisioning',
        hints: [
          'Enable node auto-provisioning for the type with the tool that made the cluster, or leave --enable-autoprovisioning out to use the fixed pools.',
        ],
      },
    )
  }
  const gke = {minimumChips: limit.minimum ?? 0, maximumChips: limit.maximum ?? 0}
  for (const [flag, key] of [
    ['--autoprovisioning-min-chips', 'minimumChips'],
    ['--autoprovisioning-max-chips', 'maximumChips'],
  ] as const) {
    const given = request.autoprovisioning[key]
    if (given !== undefined && given !== gke[key]) {
      throw new UsageError(
        `${flag} ${given} differs from GKE's node auto-provisioning of ${a.gkeAccelerator} (${gke.minimumChips} to ${gke.maximumChips} chips), which cluster adapt does not change.`,
        {flag, hints: [`Leave ${flag} out to use GKE's, or change the limits with the tool that made the cluster.`]},
      )
    }
  }
  return gke
}

function describeCapacity(capacity: Capacity, reservation: string | null): string {
  return capacity === 'reservation' && reservation ? `reservation ${reservation}` : capacity
}

/**
 * The capacity the ConfigMap records: a capacity flag as given (a note when the pools say otherwise), else the one
 * the counted pools share. Pools on different capacity need the flag (exit 2, naming what they use).
 */
function capacityOf(
  request: AdaptRequest,
  counted: readonly FoundPool[],
  cluster: string,
): {capacity: Capacity; reservation: string | null; note?: string} {
  const seen = [...new Set(counted.map((p) => describeCapacity(p.capacity, p.reservation)))]
  if (request.capacity !== undefined) {
    const given = describeCapacity(request.capacity, request.reservation)
    const differs = seen.length > 0 && (seen.length > 1 || (seen[0] !== given && seen[0] !== request.capacity))
    return {
      capacity: request.capacity,
      reservation: request.capacity === 'reservation' ? request.reservation : null,
      ...(differs ? {note: `The pools use ${seen.join(' and ')}; the ConfigMap records ${given}, as given.`} : {}),
    }
  }
  const capacities = [...new Set(counted.map((p) => p.capacity))]
  if (capacities.length > 1) {
    throw new UsageError(
      `Cluster ${cluster}'s pools use different capacity (${seen.join(', ')}): say which one workloads use.`,
      {
        flag: '--on-demand',
        hints: ['Pass one of --on-demand, --spot, --reservation NAME or --flex.'],
      },
    )
  }
  const capacity = capacities[0] ?? 'on-demand'
  const reservations = [...new Set(counted.flatMap((p) => (p.reservation ? [p.reservation] : [])))]
  return {capacity, reservation: capacity === 'reservation' && reservations.length > 0 ? reservations.join(',') : null}
}

/**
 * Whether a pool of the cluster has COMPACT placement (what decides a GPU cluster's `gke-default` Topology, as Python's
 * `is_GPU_TAS_possible` asks GKE): every pool but those being deleted, whoever made it.
 */
export function placementOfPools(cluster: ObservedCluster): ObservedPlacement {
  const compactPools = cluster.nodePools
    .filter((p) => p.placementType === 'COMPACT' && p.status !== 'STOPPING')
    .map((p) => p.name)
  return {compactPlacementPool: compactPools.length > 0, compactPools}
}

/** Nodes the cluster's pools hold (every pool, the default pool too): sizes the JobSet and Kueue controllers. */
export function nodesOfPools(cluster: ObservedCluster): number {
  return cluster.nodePools.reduce((n, p) => n + p.nodeCount * Math.max(1, p.locations.length), 0)
}

/** What Kueue is given, in one phrase: "v5p-16: 2 slices (4 VMs, 16 chips), spot". */
export function describeQuota(shape: ClusterShape): string {
  const a = shape.accelerator
  const unit = KIND_TRAITS[a.kind].resource === 'cpu' ? 'vCPUs' : a.kind === 'GPU' ? 'GPUs' : 'chips'
  const capacity = describeCapacity(shape.capacity, shape.reservation)
  if (shape.autoprovisioning) {
    const {minimumChips, maximumChips} = shape.autoprovisioning
    return `${a.canonical} through GKE's node auto-provisioning: ${minimumChips} to ${maximumChips} chips (Kueue's quota ${maximumChips}), ${capacity}`
  }
  const vms = clusterVmCount(shape)
  const total = `${plural(vms, 'VM')}, ${totalQuota(shape)} ${unit}`
  return a.kind === 'GPU'
    ? `${a.canonical}: ${total}, ${capacity}`
    : `${a.canonical}: ${plural(shape.numSlices, 'slice')} (${total}), ${capacity}`
}

/** The findings as the plan's first part: the cluster, each pool and whether it counts, what Kueue gets. */
export function renderAdaptFindings(findings: AdaptFindings, cluster: ObservedCluster): string {
  const rows = findings.pools.map((p) => [p.counted ? '*' : ' ', p.name, p.type ?? '-', p.status, p.note])
  const widths = [1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i]!.length)))
  const lines = [
    `Cluster ${cluster.name} (project ${cluster.project}, ${cluster.location}), ${cluster.status}: cluster adapt changes nothing in GKE.`,
    `Node pools (* counted for ${findings.accelerator.canonical}):`,
    ...rows.map(([mark, ...cells]) =>
      `  ${mark} ${cells.map((c, i) => (i < 3 ? c!.padEnd(widths[i]!) : c)).join('  ')}`.trimEnd(),
    ),
    `Kueue gets ${describeQuota(findings.shape)}.`,
    ...findings.warnings.map((w) => `  ! ${w}`),
    ...findings.notes.map((n) => `  ! ${n}`),
  ]
  return lines.join('\n')
}

/** The findings as data, for `--json`. */
export function adaptFindingsToJson(findings: AdaptFindings) {
  const s = findings.shape
  return {
    accelerator: findings.accelerator.canonical,
    kind: findings.accelerator.kind,
    slicesFound: findings.slicesFound,
    vmsFound: findings.vmsFound,
    quota: {
      slices: s.accelerator.kind === 'GPU' ? null : s.numSlices,
      vms: clusterVmCount(s),
      total: totalQuota(s),
      resource: KIND_TRAITS[s.accelerator.kind].resource,
      capacity: s.capacity,
      reservation: s.reservation,
      autoprovisioning: s.autoprovisioning ?? null,
    },
    pools: findings.pools,
    warnings: findings.warnings,
    notes: findings.notes,
  }
}
