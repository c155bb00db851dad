// The capacity a workload asks node auto-provisioning for (Python xpk's node selectors), and where it is refused.
import {describe, expect, it} from 'vitest'

import {UsageError} from '../../../src/core/errors.js'
import {parseMetadataConfigMap} from '../../../src/core/incluster/configmaps.js'
import {
  autoprovisioningCapacity,
  autoprovisioningNodeSelector,
  workloadCapacityChoice,
} from '../../../src/core/workload/autoprovisioning.js'
import type {CapacityVerdict} from '../../../src/core/workload/capacity.js'
import {thrown} from '../../helpers/thrown.js'

const NAP: CapacityVerdict = {kind: 'fits-autoprovisioning', chipsNeeded: 4, maximumChips: 16}
const FIXED: CapacityVerdict = {kind: 'fits', deviceType: 'v5p-8', vmsNeeded: 1, vmsAvailable: 2}

describe('the node selector of each capacity, as Python xpk writes it', () => {
  it.each([
    [{capacity: 'on-demand', reservation: null}, {}],
    [{capacity: 'spot', reservation: null}, {'cloud.google.com/gke-spot': 'true'}],
    [{capacity: 'flex', reservation: null}, {'cloud.google.com/gke-queued': 'true'}],
    [{capacity: 'reservation', reservation: 'r1'}, {'cloud.google.com/reservation-name': 'r1'}],
    [
      {capacity: 'reservation', reservation: 'projects/p2/reservations/r1/reservationBlocks/b1'},
      {'cloud.google.com/reservation-name': 'projects/p2/reservations/r1/reservationBlocks/b1'},
    ],
  ] as const)('%o', (capacity, selector) => {
    expect(autoprovisioningNodeSelector(capacity)).toEqual(selector)
  })
})

describe('the capacity flags of workload create', () => {
  it.each([
    [{}, null],
    [{onDemand: true}, {flag: '--on-demand', capacity: 'on-demand', reservation: null}],
    [{spot: true}, {flag: '--spot', capacity: 'spot', reservation: null}],
    [{flex: true}, {flag: '--flex', capacity: 'flex', reservation: null}],
    [{reservation: 'r1'}, {flag: '--reservation', capacity: 'reservation', reservation: 'r1'}],
  ])('%o', (flags, choice) => {
    expect(workloadCapacityChoice(flags)).toEqual(choice)
  })

  it.each([
    [{spot: true, flex: true}, '--spot'],
    [{reservation: 'r1,r2'}, '--reservation'],
    [{reservation: 'R1'}, '--reservation'],
  ])('refused: %o names %s', (flags, flag) => {
    expect(thrown(() => workloadCapacityChoice(flags), UsageError).flag).toBe(flag)
  })
})

describe('the capacity asked of the cluster', () => {
  const metadata = (data: Record<string, string>) => parseMetadataConfigMap(data)

  it('a flag wins over what the cluster was created with', () => {
    const choice = workloadCapacityChoice({spot: true})
    expect(autoprovisioningCapacity('demo', choice, NAP, undefined)).toEqual({
      capacity: 'spot',
      reservation: null,
      from: '--spot',
    })
  })

  it.each([
    [{capacity_type: 'ON_DEMAND'}, {capacity: 'on-demand', reservation: null, from: 'cluster'}],
    [{capacity_type: 'SPOT'}, {capacity: 'spot', reservation: null, from: 'cluster'}],
    [{capacity_type: 'FLEX_START'}, {capacity: 'flex', reservation: null, from: 'cluster'}],
    [
      {capacity_type: 'RESERVATION', reservation_id: 'r1'},
      {capacity: 'reservation', reservation: 'r1', from: 'cluster'},
    ],
  ])('without a flag, the cluster metadata: %o', (data, expected) => {
    expect(autoprovisioningCapacity('demo', null, NAP, metadata(data))).toEqual(expected)
  })

  it.each([
    ['no metadata ConfigMap', undefined, '--on-demand'],
    ['no capacity_type', metadata({xpk_version: 'v1'}), '--on-demand'],
    ['two reservations', metadata({capacity_type: 'RESERVATION', reservation_id: 'r1,r2'}), '--reservation'],
  ])('refused without a flag: %s', (_case, data, flag) => {
    expect(thrown(() => autoprovisioningCapacity('demo', null, NAP, data), UsageError).flag).toBe(flag)
  })

  it.each(['--on-demand', '--spot', '--flex', '--reservation'] as const)(
    '%s on a cluster of fixed pools is refused, naming the flag',
    (flag) => {
      const flags = {
        '--on-demand': {onDemand: true},
        '--spot': {spot: true},
        '--flex': {flex: true},
        '--reservation': {reservation: 'r1'},
      }[flag]
      const error = thrown(
        () => autoprovisioningCapacity('demo', workloadCapacityChoice(flags), FIXED, undefined),
        UsageError,
      )
      expect(error.flag).toBe(flag)
      expect(error.message).toContain('fixed node pools')
    },
  )

  it('no flag on a cluster of fixed pools: nothing asked, nothing read', () => {
    expect(autoprovisioningCapacity('demo', null, FIXED, undefined)).toBeNull()
  })
})
