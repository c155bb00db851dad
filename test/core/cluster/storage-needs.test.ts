import {describe, expect, it} from 'vitest'

import type {ObservedCluster} from '../../../src/core/cluster/observed.js'
import type {ClusterUpdate} from '../../../src/core/cluster/spec.js'
import {
  planStorageClusterUpdates,
  storageNeeds,
  STORAGE_CSI_DRIVER,
  type StorageDriverType,
} from '../../../src/core/cluster/storage-needs.js'
import {anObservedCluster, anObservedPool} from '../../builders/observed.js'

const POOL = 'test-project.svc.id.goog'
const TYPES = Object.keys(STORAGE_CSI_DRIVER) as StorageDriverType[]

/** The steps as `action resource name: what`. */
function lines(type: StorageDriverType, observed: Partial<ObservedCluster>, lustreLegacyPort = false): string[] {
  const what = (spec: ClusterUpdate) =>
    spec.kind === 'workloadIdentity'
      ? `identity ${spec.workloadPool}`
      : spec.kind === 'autoprovisioning'
        ? 'autoprovisioning'
        : spec.kind === 'rayOperator'
          ? 'ray operator'
          : `addons ${spec.enable.join(',')}${spec.lustreLegacyPort ? ' legacy' : ''}`
  return planStorageClusterUpdates(type, anObservedCluster(observed), {lustreLegacyPort}).steps.map(
    (s) =>
      `${s.action} ${s.resource} ${s.name}: ${s.resource === 'nodePoolUpdate' ? s.spec.workloadMetadataMode : what(s.spec)}`,
  )
}

const bare = {nodePools: [anObservedPool({name: 'demo-np-0', workloadMetadataMode: 'GCE_METADATA'})]}
const ready = (drivers: ObservedCluster['csiDrivers']): Partial<ObservedCluster> => ({
  csiDrivers: drivers,
  workloadPool: POOL,
  nodePools: [anObservedPool({name: 'demo-np-0', workloadMetadataMode: 'GKE_METADATA'})],
})

describe('planStorageClusterUpdates: what each storage type needs of a cluster', () => {
  it.each<{type: StorageDriverType; observed: Partial<ObservedCluster>; legacy?: boolean; lines: string[]}>([
    {
      type: 'gcsfuse',
      observed: bare,
      lines: [
        `update clusterUpdate demo: identity ${POOL}`,
        'update clusterUpdate demo: addons GcsFuseCsiDriver',
        'update nodePoolUpdate demo-np-0: GKE_METADATA',
      ],
    },
    {
      type: 'gcsfuse',
      observed: ready(['GcsFuseCsiDriver']),
      lines: [`none clusterUpdate demo: identity ${POOL}`, 'none clusterUpdate demo: addons GcsFuseCsiDriver'],
    },
    {
      type: 'gcsfuse',
      observed: {...bare, workloadPool: POOL, csiDrivers: ['GcsFuseCsiDriver']},
      lines: [
        `none clusterUpdate demo: identity ${POOL}`,
        'none clusterUpdate demo: addons GcsFuseCsiDriver',
        'update nodePoolUpdate demo-np-0: GKE_METADATA',
      ],
    },
    {type: 'gcpfilestore', observed: bare, lines: ['update clusterUpdate demo: addons GcpFilestoreCsiDriver']},
    {
      type: 'gcpfilestore',
      observed: ready(['GcpFilestoreCsiDriver']),
      lines: ['none clusterUpdate demo: addons GcpFilestoreCsiDriver'],
    },
    {type: 'parallelstore', observed: bare, lines: ['update clusterUpdate demo: addons ParallelstoreCsiDriver']},
    {
      type: 'parallelstore',
      observed: {csiDrivers: ['ParallelstoreCsiDriver']},
      lines: ['none clusterUpdate demo: addons ParallelstoreCsiDriver'],
    },
    {type: 'pd', observed: bare, lines: ['update clusterUpdate demo: addons GcePersistentDiskCsiDriver']},
    {
      type: 'pd',
      observed: {csiDrivers: ['GcePersistentDiskCsiDriver']},
      lines: ['none clusterUpdate demo: addons GcePersistentDiskCsiDriver'],
    },
    {type: 'lustre', observed: bare, lines: ['update clusterUpdate demo: addons LustreCsiDriver']},
    {type: 'lustre', observed: bare, legacy: true, lines: ['update clusterUpdate demo: addons LustreCsiDriver legacy']},
    {
      type: 'lustre',
      observed: {csiDrivers: ['LustreCsiDriver']},
      legacy: true,
      lines: ['update clusterUpdate demo: addons LustreCsiDriver legacy'],
    },
    {
      type: 'lustre',
      observed: {csiDrivers: ['LustreCsiDriver'], lustreLegacyPort: true},
      legacy: true,
      lines: ['none clusterUpdate demo: addons LustreCsiDriver legacy'],
    },
    {
      type: 'lustre',
      observed: {csiDrivers: ['LustreCsiDriver']},
      lines: ['none clusterUpdate demo: addons LustreCsiDriver'],
    },
  ])('$type on $observed.csiDrivers (legacy port $legacy)', ({type, observed, legacy, lines: expected}) => {
    expect(lines(type, observed, legacy)).toEqual(expected)
  })

  it.each(TYPES)('%s: only GCS FUSE needs Workload Identity and switches pools', (type) => {
    const steps = planStorageClusterUpdates(type, anObservedCluster(bare)).steps
    const identity = steps.some((s) => s.resource === 'clusterUpdate' && s.spec.kind === 'workloadIdentity')
    expect(identity).toBe(type === 'gcsfuse')
    expect(steps.some((s) => s.resource === 'nodePoolUpdate')).toBe(type === 'gcsfuse')
    expect(storageNeeds(type).csiDrivers).toEqual([{driver: STORAGE_CSI_DRIVER[type], why: `--type ${type}`}])
  })

  it('the legacy Lustre port matters only to Lustre', () => {
    for (const type of TYPES) {
      expect(storageNeeds(type, {lustreLegacyPort: true}).lustreLegacyPort !== null).toBe(type === 'lustre')
    }
  })

  it('switches xpk’s own usable pools, names the others, and leaves pools being deleted or in ERROR', () => {
    const observed = anObservedCluster({
      nodePools: [
        anObservedPool({name: 'default-pool'}),
        anObservedPool({name: 'demo-np-0'}),
        anObservedPool({name: 'demo-np-1', status: 'PROVISIONING'}),
        anObservedPool({name: 'demo-np-2', status: 'STOPPING'}),
        anObservedPool({name: 'demo-np-3', status: 'ERROR'}),
        anObservedPool({name: 'team-pool', status: 'STOPPING'}),
      ],
    })
    const {steps, warnings} = planStorageClusterUpdates('gcsfuse', observed)
    expect(steps.filter((s) => s.resource === 'nodePoolUpdate').map((s) => s.name)).toEqual(['demo-np-0', 'demo-np-1'])
    expect(warnings).toEqual([expect.stringMatching(/^Node pool default-pool keeps the VM's metadata server/)])
  })

  it('reasons name the storage type', () => {
    const [identity, addons] = planStorageClusterUpdates('gcsfuse', anObservedCluster()).steps
    expect([identity.reason, addons.reason]).toEqual([
      'not enabled yet (GCS FUSE needs it: --type gcsfuse)',
      'not enabled yet (--type gcsfuse)',
    ])
  })
})
