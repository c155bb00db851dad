/**
 * The capacity a workload asks node auto-provisioning for, as Python xpk's `get_autoprovisioning_node_selector_args`
 * and `get_capacity_node_selectors_from_capacity_type` decide it: on a cluster whose resources ConfigMap says
 * AUTOPROVISION for the workload's accelerator, `--on-demand | --spot | --reservation R | --flex` (or, without one,
 * the capacity the cluster was created with, from its metadata ConfigMap) becomes a node selector of the pods, which
 * GKE provisions the matching nodes for:
 *
 *   - on-demand: none;
 *   - spot: `cloud.google.com/gke-spot: "true"`;
 *   - flex: `cloud.google.com/gke-queued: "true"`;
 *   - reservation: `cloud.google.com/reservation-name: <name>` (one reservation: a bare name, or
 *     `projects/P/reservations/R[/reservationBlocks/B[/reservationSubBlocks/S]]` for another project's).
 *
 * Tolerations stay as they are, as in Python. Unlike Python, which ignores the capacity flags on a cluster without
 * node auto-provisioning, they are refused there: the cluster's fixed pools already have their capacity, and a
 * selector they do not match would leave the pods pending.
 */
import type {Capacity} from '../cluster/spec.js'
import {UsageError} from '../errors.js'
import {metadataConfigMapName, type ClusterMetadata} from '../incluster/configmaps.js'
import {splitList} from '../input.js'
import {escapeInline} from '../text.js'
import type {CapacityVerdict} from './capacity.js'

/** The capacity flags of `workload create`, by capacity. */
export const WORKLOAD_CAPACITY_FLAGS = {
  'on-demand': '--on-demand',
  spot: '--spot',
  reservation: '--reservation',
  flex: '--flex',
} as const satisfies Record<Capacity, string>

export type WorkloadCapacityFlag = (typeof WORKLOAD_CAPACITY_FLAGS)[Capacity]

/** A capacity flag as given to `workload create`. */
export interface WorkloadCapacityChoice {
  readonly flag: WorkloadCapacityFlag
  readonly capacity: Capacity
  /** `--reservation`'s one reservation; null for the others. */
  readonly reservation: string | null
}

/** The capacity node auto-provisioning is asked for, and where it was decided. */
export interface AutoprovisioningCapacity {
  readonly capacity: Capacity
  readonly reservation: string | null
  /** The flag given, or the cluster's metadata ConfigMap (the capacity it was created with). */
  readonly from: WorkloadCapacityFlag | 'cluster'
}

const RESERVATION =
  /^(?:projects\/[a-z][-a-z0-9]{4,28}[a-z0-9]\/reservations\/)?[a-z]([-a-z0-9]*[a-z0-9])?(\/reservationBlocks\/[-a-z0-9]+(\/reservationSubBlocks\/[-a-z0-9]+)?)?$/

/**
 * The capacity flags as given: at most one, and `--reservation` naming one reservation (node auto-provisioning
 * takes one, as in Python).
 * @throws UsageError naming the flag
 */
export function workloadCapacityChoice(flags: {
  readonly onDemand?: boolean
  readonly spot?: boolean
  readonly reservation?: string
  readonly flex?: boolean
}): WorkloadCapacityChoice | null {
  const chosen = (
    [
      ['on-demand', flags.onDemand === true],
      ['spot', flags.spot === true],
      ['reservation', flags.reservation !== undefined],
      ['flex', flags.flex === true],
    ] as const
  ).filter(([, given]) => given)
  if (chosen.length === 0) return null
  const flagsGiven = chosen.map(([capacity]) => WORKLOAD_CAPACITY_FLAGS[capacity])
  if (chosen.length > 1) {
    throw new UsageError(`Pick one capacity flag, not ${flagsGiven.join(' and ')}.`, {flag: flagsGiven[0]})
  }
  const capacity = chosen[0][0]
  if (capacity !== 'reservation') return {flag: WORKLOAD_CAPACITY_FLAGS[capacity], capacity, reservation: null}
  return {flag: '--reservation', capacity, reservation: oneReservation(flags.reservation!, '--reservation')}
}

function oneReservation(text: string, flag: string): string {
  const items = splitList(flag, text)
  if (items.length !== 1) {
    throw new UsageError(`${flag} "${escapeInline(text)}": node auto-provisioning takes one reservation.`, {
      flag,
      hints: ['Name one reservation; submit another workload for another one.'],
    })
  }
  const item = items[0]!
  if (!RESERVATION.test(item)) {
    throw new UsageError(
      `${flag} "${escapeInline(item)}": expected NAME or projects/PROJECT/reservations/NAME, optionally with /reservationBlocks/BLOCK[/reservationSubBlocks/SUB].`,
      {flag},
    )
  }
  return item
}

/**
 * The capacity of a workload on a cluster whose capacity verdict is `verdict`: null on a cluster with fixed pools
 * (where a capacity flag is refused), else the flag's, or the cluster's own from its metadata ConfigMap
 * (`metadata`, read only then; undefined: absent).
 * @throws UsageError naming the flag (refused on a cluster without node auto-provisioning; no capacity to be had)
 */
export function autoprovisioningCapacity(
  cluster: string,
  choice: WorkloadCapacityChoice | null,
  verdict: CapacityVerdict,
  metadata: ClusterMetadata | undefined,
): AutoprovisioningCapacity | null {
  if (verdict.kind !== 'fits-autoprovisioning') {
    if (choice !== null) {
      throw new UsageError(
        `${choice.flag} asks node auto-provisioning for capacity, but cluster ${cluster} has fixed node pools (its resources ConfigMap has no AUTOPROVISION for this accelerator), whose capacity was chosen when they were created.`,
        {
          flag: choice.flag,
          hints: [
            `Leave ${choice.flag} out, or create the cluster with \`xpk cluster create --enable-autoprovisioning ...\`.`,
          ],
        },
      )
    }
    return null
  }
  if (choice !== null) return {capacity: choice.capacity, reservation: choice.reservation, from: choice.flag}
  const capacity = metadata?.capacity ?? null
  if (capacity === null) {
    throw new UsageError(
      `Cluster ${cluster} provisions nodes on demand, and its ConfigMap ${metadataConfigMapName(cluster)} does not say with which capacity.`,
      {
        flag: '--on-demand',
        hints: ['Say which: --on-demand, --spot, --reservation NAME or --flex.'],
      },
    )
  }
  if (capacity !== 'reservation') return {capacity, reservation: null, from: 'cluster'}
  const given = metadata?.reservation ?? ''
  const items = given === '' ? [] : given.split(',').filter(Boolean)
  if (items.length !== 1) {
    throw new UsageError(
      `Cluster ${cluster} was created on ${items.length === 0 ? 'a reservation it does not name' : `the reservations ${given}`}; node auto-provisioning takes one.`,
      {flag: '--reservation', hints: ['Name one with --reservation NAME.']},
    )
  }
  return {capacity, reservation: items[0]!, from: 'cluster'}
}

/** The node selector that asks node auto-provisioning for `capacity`, as Python xpk writes it. */
export function autoprovisioningNodeSelector(capacity: {
  readonly capacity: Capacity
  readonly reservation: string | null
}): Readonly<Record<string, string>> {
  switch (capacity.capacity) {
    case 'on-demand':
      return {}
    case 'spot':
      return {'cloud.google.com/gke-spot': 'true'}
    case 'flex':
      return {'cloud.google.com/gke-queued': 'true'}
    case 'reservation':
      return {'cloud.google.com/reservation-name': capacity.reservation ?? ''}
  }
}
