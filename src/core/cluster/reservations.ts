/**
 * Reservations, inspected before anything is created: what Compute Engine reports of each `--reservation` item (the
 * types below, which the Compute port returns) and the pure check of it against the request. Python xpk reads the
 * same fields (core/reservation.py, core/capacity.py: assess_available_slices) but only when the node pools are
 * created, after the cluster exists.
 */
import type {Accelerator} from '../catalog/types.js'
import type {HostMaintenanceInterval} from './spec.js'

/** An accelerator count of a reservation, e.g. `{type: 'nvidia-h100-80gb', count: 8}`. */
export interface AcceleratorCount {
  /** As Compute Engine names it: `nvidia-h100-80gb`, or a URL/path `projects/P/zones/Z/acceleratorTypes/tpu7x`. */
  readonly type: string
  readonly count: number
}

/** A reservation as Compute Engine reports it, reduced to what xpk decides with; `null` for fields it left out. */
export interface ObservedReservation {
  readonly name: string
  /** The zone's name (the API's zone URL, last segment). */
  readonly zone: string | null
  /** `CREATING`, `READY`, `UPDATING`, `DELETING` or `INVALID`; only a READY reservation gives VMs. */
  readonly status: string | null
  /** A reservation of `count` VMs of one machine type. */
  readonly specific: {
    readonly machineType: string | null
    readonly guestAccelerators: readonly AcceleratorCount[]
    /** VMs reserved. */
    readonly count: number
    /** VMs of it running now. */
    readonly inUseCount: number
    /** `AS_NEEDED`, `PERIODIC` or `RECURRENT` (instanceProperties.maintenanceInterval), when set. */
    readonly maintenanceInterval: string | null
  } | null
  /** A reservation of accelerators (TPUs or GPUs) counted in chips, not VMs. */
  readonly aggregate: {
    readonly reserved: readonly AcceleratorCount[]
    readonly inUse: readonly AcceleratorCount[]
  } | null
  /** `DENSE` (Cluster Director: blocks and sub-blocks) or `FLEXIBLE`. */
  readonly deploymentType: string | null
  /** The resource policies the reservation's VMs are placed by (values of the API's map), e.g. a compact policy. */
  readonly resourcePolicies: readonly string[]
  /** Only VMs that name the reservation may use it. */
  readonly specificReservationRequired: boolean
  /** `LOCAL`, `SPECIFIC_PROJECTS`, ... (shareSettings.shareType), when shared settings are reported. */
  readonly shareType: string | null
}

/** Health as Compute Engine reports it for blocks and sub-blocks: `HEALTHY`, `DEGRADED`, or null when unreported. */
export type ReservationHealth = string | null

/** A block (or sub-block) of a DENSE reservation: hosts it has, hosts in use, its status and health. */
export interface ObservedReservationBlock {
  readonly name: string
  readonly count: number
  readonly inUseCount: number
  /** `CREATING`, `READY`, `DELETING` or `INVALID`. */
  readonly status: string | null
  readonly health: ReservationHealth
}

/** A `--reservation` item as the planner keeps it (desired.ts reservationPath), taken apart. */
export interface ReservationRef {
  /** The item as node pools name it: `NAME`, or `projects/P/reservations/NAME`, with `/reservationBlocks/B[...]`. */
  readonly path: string
  /** The project the reservation lives in (the cluster's unless the item names another: a shared reservation). */
  readonly project: string
  readonly name: string
  readonly block: string | null
  readonly subBlock: string | null
}

/** Takes a reservation path apart; `project` is the cluster's, for paths that name none. */
export function reservationRef(path: string, project: string): ReservationRef {
  const shared = /^projects\/([^/]+)\/reservations\/(.+)$/.exec(path)
  const [owner, rest] = shared ? [shared[1]!, shared[2]!] : [project, path]
  const [name, , block, , subBlock] = rest.split('/')
  return {path, project: owner, name: name!, block: block ?? null, subBlock: subBlock ?? null}
}

/** What was read for one item: the reservation, and its block and sub-block when the item names them (null: none). */
export interface ReservationRead {
  readonly ref: ReservationRef
  readonly reservation: ObservedReservation | undefined
  readonly block?: ObservedReservationBlock | null
  readonly subBlock?: ObservedReservationBlock | null
}

/** What one item can hold: whole slices free, and the numbers behind them in words ("12 of 64 VMs free"). */
export interface ReservationCapacity {
  readonly path: string
  readonly freeSlices: number
  readonly free: string
}

/** The verdict on every item: problems that make an item unusable, and the capacity of the usable ones. */
export interface ReservationsVerdict {
  /** One line per unusable item (missing, not READY, another zone, another machine type or accelerator). */
  readonly problems: readonly string[]
  readonly capacities: readonly ReservationCapacity[]
}

/** The target of the check: the type, the cluster's project and zone, and the VMs of one node pool. */
export interface ReservationTarget {
  readonly accelerator: Accelerator
  readonly zone: string
  /** VMs per node pool: the slice's VMs (TPU, CPU), or --num-nodes (GPU). */
  readonly vmsPerPool: number
  /** The flag that needs Cluster Director (DENSE) reservations (`--super-slicing`, `--sub-slicing`), if any. */
  readonly denseFor?: string
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/**
 * The accelerator type an aggregate reservation names for the type, as Python xpk compares it: the machine type's
 * prefix (`tpu7x`, `ct5p`) under the zone for TPUs, the GKE accelerator for GPUs; null for CPUs.
 */
export function aggregateAcceleratorType(accelerator: Accelerator): string | null {
  if (accelerator.kind === 'TPU') return accelerator.machineType.split('-')[0]!
  if (accelerator.kind === 'GPU') return accelerator.gkeAccelerator
  return null
}

function matchesAggregate(type: string, wanted: string, accelerator: Accelerator, zone: string): boolean {
  if (accelerator.kind !== 'TPU') return type === wanted
  // `projects/<id or number>/zones/<zone>/acceleratorTypes/<prefix>`, maybe as a URL: Python tries the project id,
  // then its number; any project segment is accepted here, the zone and type must match.
  const tail = `/zones/${zone}/acceleratorTypes/${wanted}`
  return type.endsWith(tail) && /(^|\/)projects\/[^/]+$/.test(type.slice(0, -tail.length))
}

/** The one reservation item checked: a problem, or its capacity. */
function checkOne(read: ReservationRead, target: ReservationTarget): {problem: string} | ReservationCapacity {
  const {ref, reservation: r} = read
  const {accelerator: a, zone, vmsPerPool} = target
  const where = `project ${ref.project}, zone ${zone}`
  if (r === undefined) return {problem: `no reservation ${ref.name} in ${where}`}
  if (r.zone !== null && r.zone !== zone) {
    return {problem: `reservation ${ref.name} is in zone ${r.zone}; the node pools are in ${zone}`}
  }
  if (r.status !== 'READY') return {problem: `reservation ${ref.name} is ${r.status ?? 'in no state'}, not READY`}
  if (target.denseFor !== undefined && r.deploymentType !== 'DENSE') {
    return {
      problem: `reservation ${ref.name} is not a Cluster Director reservation (deployment type ${r.deploymentType ?? 'not reported'}); ${target.denseFor} needs a DENSE one`,
    }
  }
  let freeText: string
  let freeSlices: number
  if (r.specific) {
    const s = r.specific
    if (a.kind === 'GPU') {
      if (!s.guestAccelerators.some((g) => g.type === a.gkeAccelerator)) {
        const has = s.guestAccelerators.map((g) => g.type).join(', ') || 'none'
        return {
          problem: `reservation ${ref.name} reserves no ${a.gkeAccelerator} GPUs (it has ${has}), which ${a.name} needs`,
        }
      }
    } else if (s.machineType !== a.machineType) {
      return {
        problem: `reservation ${ref.name} reserves ${s.machineType ?? 'no'} VMs; ${a.name} needs ${a.machineType}`,
      }
    }
    const free = Math.max(0, s.count - s.inUseCount)
    freeText = `${free} of ${plural(s.count, 'VM')} free`
    freeSlices = Math.floor(free / vmsPerPool)
  } else if (r.aggregate) {
    const wanted = aggregateAcceleratorType(a)
    const reserved =
      wanted === null ? undefined : r.aggregate.reserved.find((x) => matchesAggregate(x.type, wanted, a, zone))
    if (reserved === undefined) {
      return {
        problem: `reservation ${ref.name} reserves no ${wanted ?? a.machineType} accelerators, which ${a.name} needs`,
      }
    }
    const used = r.aggregate.inUse.find((x) => x.type === reserved.type)?.count ?? 0
    const free = Math.max(0, reserved.count - used)
    freeText = `${free} of ${reserved.count} ${wanted} chips free`
    freeSlices = Math.floor(free / (vmsPerPool * a.chipsPerVm))
  } else {
    return {problem: `reservation ${ref.name} reserves neither VMs nor accelerators that xpk can count`}
  }
  // A block or sub-block holds only its own hosts: the reservation's free count does not tell where they are.
  const part = read.subBlock !== undefined ? read.subBlock : read.block
  if (ref.block !== null && part !== undefined) {
    const label = ref.subBlock !== null ? `sub-block ${ref.subBlock} of block ${ref.block}` : `block ${ref.block}`
    if (part === null) return {problem: `reservation ${ref.name} has no ${label}`}
    return partCapacity(ref.path, label, part, vmsPerPool)
  }
  return {path: ref.path, freeSlices, free: freeText}
}

/** What a block or sub-block holds: its free hosts in whole pools, none when it is not READY or not HEALTHY. */
function partCapacity(
  path: string,
  label: string,
  part: ObservedReservationBlock,
  vmsPerPool: number,
): ReservationCapacity {
  const free = Math.max(0, part.count - part.inUseCount)
  const unusable = partUnusable(part)
  return {
    path,
    freeSlices: unusable ? 0 : Math.floor(free / vmsPerPool),
    free: `${label}: ${free} of ${plural(part.count, 'host')} free${unusable ? `, but ${unusable}` : ''}`,
  }
}

/** Why a block or sub-block gives no VMs (its status, or its health), or null when it does. */
export function partUnusable(part: ObservedReservationBlock): string | null {
  if (part.status !== null && part.status !== 'READY') return part.status
  if (part.health !== null && part.health !== 'HEALTHY') return part.health
  return null
}

/** One sub-block of a `--reservation` item, listed for super-slicing: the item, the block it is in, the sub-block. */
export interface SubBlockRead {
  readonly item: ReservationRef
  readonly block: string
  readonly subBlock: ObservedReservationBlock
}

/** The sub-block's path as node pools name it: the item's path with the block and sub-block it lacks. */
export function subBlockPath(read: SubBlockRead): string {
  const block = read.item.block === null ? `/reservationBlocks/${read.block}` : ''
  return `${read.item.path}${block}/reservationSubBlocks/${read.subBlock.name}`
}

/**
 * Super-slicing places each pool on one sub-block (Python xpk: assess_available_slices with sub-block targeting):
 * each sub-block listed holds its own free hosts in whole pools; unhealthy ones hold none.
 */
export function subBlockCapacities(reads: readonly SubBlockRead[], vmsPerPool: number): ReservationCapacity[] {
  return reads.map((read) =>
    partCapacity(
      subBlockPath(read),
      `sub-block ${read.subBlock.name} of block ${read.block}`,
      read.subBlock,
      vmsPerPool,
    ),
  )
}

/**
 * The shortage of a super-slicing cluster, in numbers: the slices the healthy sub-blocks hold, each sub-block's
 * free hosts, and what the new pools need. Null when they fit.
 */
export function subBlockShortage(
  items: readonly string[],
  capacities: readonly ReservationCapacity[],
  target: ReservationTarget,
  newPools: number,
): string | null {
  const total = capacities.reduce((sum, c) => sum + c.freeSlices, 0)
  if (newPools === 0 || total >= newPools) return null
  const each = capacities.map((c) => c.free).join('; ') || 'no sub-blocks'
  return `the sub-blocks of ${items.join(' and ')} hold ${plural(total, 'slice')} of ${target.accelerator.name} (${each}); ${plural(newPools, 'new slice')} need ${target.vmsPerPool} free hosts each, on one healthy sub-block`
}

/** Checks every item read: each must exist in the zone, be READY and reserve the type; their free slices add up. */
export function checkReservations(reads: readonly ReservationRead[], target: ReservationTarget): ReservationsVerdict {
  const problems: string[] = []
  const capacities: ReservationCapacity[] = []
  for (const read of reads) {
    const verdict = checkOne(read, target)
    if ('problem' in verdict) problems.push(verdict.problem)
    else capacities.push(verdict)
  }
  return {problems, capacities}
}

/**
 * Whether the reservations hold the pools to be created, and if not, why in numbers: "reservation r1 has 12 of 64
 * VMs free; 4 slices of v5p-128 need 64 (16 VMs each)". Slices do not span reservations, so each item counts in
 * whole slices and the items' slices add up, as in Python xpk.
 */
export function reservationShortage(
  capacities: readonly ReservationCapacity[],
  target: ReservationTarget,
  newPools: number,
): string | null {
  const total = capacities.reduce((sum, c) => sum + c.freeSlices, 0)
  if (newPools === 0 || total >= newPools) return null
  const a = target.accelerator
  const need =
    a.kind === 'GPU'
      ? `a pool of ${plural(target.vmsPerPool, `${a.name} VM`)} needs ${target.vmsPerPool}`
      : `${plural(newPools, 'new slice')} of ${a.name} need ${newPools * target.vmsPerPool} (${plural(target.vmsPerPool, 'VM')} each)`
  if (capacities.length === 1) {
    const [only] = capacities
    return `reservation ${only!.path} has ${only!.free}; ${need}`
  }
  const unit = a.kind === 'GPU' ? 'pool' : 'slice'
  const each = capacities.map((c) => `${c.path}: ${c.free}, ${plural(c.freeSlices, unit)}`).join('; ')
  return `reservations ${capacities.map((c) => c.path).join(' and ')} hold ${plural(total, unit)} together (${each}); ${need}`
}

/** An item whose VMs have another host maintenance interval than the node pools ask for. */
export interface MaintenanceIntervalMismatch {
  /** The reservation's name, and its interval as Compute Engine reports it (null: unset, which is AS_NEEDED). */
  readonly reservation: string
  readonly reserved: string | null
  readonly asked: HostMaintenanceInterval
}

/**
 * GKE's rule for node pools on a specific reservation: Compute Engine gives the reservation's VMs only to VMs of the
 * same host maintenance interval (the reservation's `instanceProperties.maintenanceInterval`, unset being AS_NEEDED,
 * what a VM has without one), so a pool of another interval fails when it is created ("Reservation ... is incorrect
 * for the requested resources", which Python xpk explains in a hint afterwards). Each reservation read whose
 * interval differs, once: PERIODIC asked of a reservation that is not PERIODIC, or AS_NEEDED of a PERIODIC one.
 * Aggregate reservations (no instance properties) and items not found are not judged here.
 */
export function maintenanceIntervalMismatches(
  reads: readonly ReservationRead[],
  asked: HostMaintenanceInterval,
): MaintenanceIntervalMismatch[] {
  const out: MaintenanceIntervalMismatch[] = []
  const seen = new Set<string>()
  for (const {ref, reservation} of reads) {
    const key = `${ref.project}/${ref.name}`
    if (!reservation?.specific || seen.has(key)) continue
    seen.add(key)
    const reserved = reservation.specific.maintenanceInterval
    const differs = asked === 'PERIODIC' ? reserved !== 'PERIODIC' : reserved === 'PERIODIC'
    if (differs) out.push({reservation: ref.name, reserved, asked})
  }
  return out
}
