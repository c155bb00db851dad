import {describe, expect, it} from 'vitest'

import type {ObservedCluster} from '../../../src/core/cluster/observed.js'
import type {CsiDriver} from '../../../src/core/cluster/spec.js'
import {
  clusterHas,
  NO_NEEDS,
  planClusterUpdates,
  planRayOperatorUpdate,
  type ClusterNeeds,
} from '../../../src/core/cluster/updates.js'
import {anObservedCluster, anObservedPool} from '../../builders/observed.js'

const POOL = 'test-project.svc.id.goog'
const needs = (drivers: readonly CsiDriver[], more: Partial<ClusterNeeds> = {}): ClusterNeeds => ({
  ...NO_NEEDS,
  csiDrivers: drivers.map((driver) => ({driver, why: `--${driver}`})),
  ...more,
})
const identity = {workloadIdentity: {why: '--enable-workload-identity'}}

/** The steps as `action resource name: what`, the shape the plan shows. */
function lines(n: ClusterNeeds, observed: ObservedCluster, own = observed.nodePools) {
  return planClusterUpdates(n, observed, {own, others: []}).steps.map((s) => {
    const what =
      s.resource === 'nodePoolUpdate'
        ? s.spec.workloadMetadataMode
        : s.spec.kind === 'workloadIdentity'
          ? `identity ${s.spec.workloadPool}`
          : s.spec.kind === 'autoprovisioning'
            ? 'autoprovisioning'
            : s.spec.kind === 'rayOperator'
              ? 'ray operator'
              : `addons ${s.spec.enable.join(',')}${s.spec.lustreLegacyPort ? ' legacy' : ''}`
    return `${s.action} ${s.resource} ${s.name}: ${what}`
  })
}

describe('planClusterUpdates', () => {
  it.each<{case: string; needs: ClusterNeeds; observed: Partial<ObservedCluster>; lines: string[]}>([
    {case: 'nothing needed: no step', needs: NO_NEEDS, observed: {}, lines: []},
    {
      case: 'missing drivers: one update for all, in CSI_DRIVERS order',
      needs: needs(['LustreCsiDriver', 'GcsFuseCsiDriver']),
      observed: {},
      lines: ['update clusterUpdate demo: addons GcsFuseCsiDriver,LustreCsiDriver'],
    },
    {
      case: 'some enabled already: an update for the rest, a none step for those',
      needs: needs(['GcpFilestoreCsiDriver', 'GcePersistentDiskCsiDriver']),
      observed: {csiDrivers: ['GcePersistentDiskCsiDriver']},
      lines: [
        'update clusterUpdate demo: addons GcpFilestoreCsiDriver',
        'none clusterUpdate demo: addons GcePersistentDiskCsiDriver',
      ],
    },
    {
      case: 'all enabled: nothing to send',
      needs: needs(['ParallelstoreCsiDriver']),
      observed: {csiDrivers: ['ParallelstoreCsiDriver', 'GcsFuseCsiDriver']},
      lines: ['none clusterUpdate demo: addons ParallelstoreCsiDriver'],
    },
    {
      case: 'Lustre enabled without its legacy port, which is wanted: enabled again with it',
      needs: needs(['LustreCsiDriver'], {lustreLegacyPort: {why: '--enable-legacy-lustre-port'}}),
      observed: {csiDrivers: ['LustreCsiDriver']},
      lines: ['update clusterUpdate demo: addons LustreCsiDriver legacy'],
    },
    {
      case: 'Lustre on its legacy port already',
      needs: needs(['LustreCsiDriver'], {lustreLegacyPort: {why: '--enable-legacy-lustre-port'}}),
      observed: {csiDrivers: ['LustreCsiDriver'], lustreLegacyPort: true},
      lines: ['none clusterUpdate demo: addons LustreCsiDriver legacy'],
    },
    {
      case: 'Lustre on its legacy port, not asked for it: left as it is',
      needs: needs(['LustreCsiDriver']),
      observed: {csiDrivers: ['LustreCsiDriver'], lustreLegacyPort: true},
      lines: ['none clusterUpdate demo: addons LustreCsiDriver legacy'],
    },
    {
      case: 'Workload Identity off: enabled first, then the addons, then the pools without GKE_METADATA',
      needs: needs(['GcsFuseCsiDriver'], identity),
      observed: {
        nodePools: [
          anObservedPool({name: 'demo-np-0', workloadMetadataMode: 'GCE_METADATA'}),
          anObservedPool({name: 'demo-np-1', workloadMetadataMode: null}),
        ],
      },
      lines: [
        `update clusterUpdate demo: identity ${POOL}`,
        'update clusterUpdate demo: addons GcsFuseCsiDriver',
        'update nodePoolUpdate demo-np-0: GKE_METADATA',
        'update nodePoolUpdate demo-np-1: GKE_METADATA',
      ],
    },
    {
      case: 'Workload Identity on, one pool still on GCE_METADATA: only that pool',
      needs: needs([], identity),
      observed: {
        workloadPool: POOL,
        nodePools: [
          anObservedPool({name: 'demo-np-0', workloadMetadataMode: 'GKE_METADATA'}),
          anObservedPool({name: 'demo-np-1', workloadMetadataMode: 'GCE_METADATA'}),
        ],
      },
      lines: [`none clusterUpdate demo: identity ${POOL}`, 'update nodePoolUpdate demo-np-1: GKE_METADATA'],
    },
    {
      case: 'another project’s pool is not the project’s: updated',
      needs: needs([], identity),
      observed: {workloadPool: 'other.svc.id.goog'},
      lines: [`update clusterUpdate demo: identity ${POOL}`],
    },
  ])('$case', ({needs: n, observed, lines: expected}) => {
    expect(lines(n, anObservedCluster(observed))).toEqual(expected)
  })

  it('says why in each reason, and what is already there', () => {
    const {steps} = planClusterUpdates(
      needs(['GcsFuseCsiDriver', 'GcePersistentDiskCsiDriver'], {workloadIdentity: {why: 'GCS FUSE needs it'}}),
      anObservedCluster({csiDrivers: ['GcePersistentDiskCsiDriver'], nodePools: [anObservedPool()]}),
      {own: [anObservedPool()], others: []},
    )
    expect(steps.map((s) => s.reason)).toEqual([
      'not enabled yet (GCS FUSE needs it)',
      'not enabled yet (--GcsFuseCsiDriver)',
      'already enabled',
      'its pods get Workload Identity only from the GKE metadata server (GCS FUSE needs it); GKE recreates its nodes',
    ])
    expect(steps.every((s) => s.wait === false)).toBe(true)
  })

  it('changes only the pools it is given as its own; the others without GKE_METADATA are named in a warning', () => {
    const observed = anObservedCluster({
      nodePools: [
        anObservedPool({name: 'default-pool'}),
        anObservedPool({name: 'team-gpu', workloadMetadataMode: 'GKE_METADATA'}),
        anObservedPool({name: 'demo-np-0'}),
      ],
    })
    const [defaultPool, teamGpu, own] = observed.nodePools
    const updates = planClusterUpdates(needs([], identity), observed, {own: [own], others: [defaultPool, teamGpu]})
    expect(updates.steps.filter((s) => s.resource === 'nodePoolUpdate').map((s) => s.name)).toEqual(['demo-np-0'])
    expect(updates.warnings).toHaveLength(1)
    expect(updates.warnings[0]).toMatch(/^Node pool default-pool keeps the VM's metadata server: xpk changes only/)
    expect(updates.warnings[0]).toContain('--workload-metadata=GKE_METADATA')
  })

  it('warns that existing nodes may need recreating when Lustre is enabled on a cluster with pools', () => {
    const lustre = needs(['LustreCsiDriver'])
    const withPools = planClusterUpdates(lustre, anObservedCluster({nodePools: [anObservedPool()]}), {
      own: [],
      others: [],
    })
    expect(withPools.warnings).toEqual([expect.stringMatching(/Python xpk recreates the nodes of every pool/)])
    expect(planClusterUpdates(lustre, anObservedCluster(), {own: [], others: []}).warnings).toEqual([])
    const enabled = anObservedCluster({csiDrivers: ['LustreCsiDriver'], nodePools: [anObservedPool()]})
    expect(planClusterUpdates(lustre, enabled, {own: [], others: []}).warnings).toEqual([])
  })
})

describe('clusterHas', () => {
  it.each<{case: string; observed: Partial<ObservedCluster>; has: boolean}>([
    {case: 'the pool', observed: {workloadPool: POOL}, has: true},
    {case: 'no pool', observed: {}, has: false},
  ])('Workload Identity: $case -> $has', ({observed, has}) => {
    expect(clusterHas(anObservedCluster(observed), {kind: 'workloadIdentity', workloadPool: POOL})).toBe(has)
  })

  it.each<{case: string; observed: Partial<ObservedCluster>; legacy: boolean; has: boolean}>([
    {case: 'both enabled', observed: {csiDrivers: ['GcsFuseCsiDriver', 'LustreCsiDriver']}, legacy: false, has: true},
    {case: 'one missing', observed: {csiDrivers: ['LustreCsiDriver']}, legacy: false, has: false},
    {
      case: 'legacy port missing',
      observed: {csiDrivers: ['GcsFuseCsiDriver', 'LustreCsiDriver']},
      legacy: true,
      has: false,
    },
    {
      case: 'legacy port on',
      observed: {csiDrivers: ['GcsFuseCsiDriver', 'LustreCsiDriver'], lustreLegacyPort: true},
      legacy: true,
      has: true,
    },
  ])('addons: $case -> $has', ({observed, legacy, has}) => {
    const update = {kind: 'addons', enable: ['GcsFuseCsiDriver', 'LustreCsiDriver'], lustreLegacyPort: legacy} as const
    expect(clusterHas(anObservedCluster(observed), update)).toBe(has)
  })
})

describe('planRayOperatorUpdate (cluster create-ray on an existing cluster)', () => {
  it.each<{case: string; observed: Partial<ObservedCluster>; action: string; reason: RegExp}>([
    {case: 'addon off: one update', observed: {}, action: 'update', reason: /^not enabled yet/},
    {case: 'addon on: nothing sent', observed: {rayOperator: true}, action: 'none', reason: /^already enabled$/},
  ])('$case', ({observed, action, reason}) => {
    const step = planRayOperatorUpdate(anObservedCluster(observed))
    expect(step).toMatchObject({action, resource: 'clusterUpdate', name: 'demo', spec: {kind: 'rayOperator'}})
    expect(step.reason).toMatch(reason)
    expect(clusterHas(anObservedCluster(observed), {kind: 'rayOperator'})).toBe(action === 'none')
  })
})
