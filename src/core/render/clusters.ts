import {acceleratorCatalog} from '../catalog/catalog.js'
import type {ObservedCluster, ObservedNodePool} from '../cluster/observed.js'
import {renderKeyValues, renderTable} from './table.js'

let familyByMachine: Map<string, string> | undefined

/** The accelerator a pool provides, in xpk's words: "v5p 2x2x2", "8x nvidia-h100-80gb", or the machine type. */
export function poolAccelerator(pool: ObservedNodePool): string {
  if (pool.gpu) return `${pool.gpu.count}x ${pool.gpu.type}`
  familyByMachine ??= new Map(
    [...acceleratorCatalog().values()].filter((a) => a.kind === 'TPU').map((a) => [a.machineType, a.family]),
  )
  const family = familyByMachine.get(pool.machineType)
  if (!family) return pool.machineType
  return pool.tpuTopology ? `${family} ${pool.tpuTopology}` : family
}

/** "4x v5p 2x2x2, e2-standard-16" — pools grouped by what they provide. */
export function acceleratorSummary(pools: readonly ObservedNodePool[]): string {
  const counts = new Map<string, number>()
  for (const pool of pools) counts.set(poolAccelerator(pool), (counts.get(poolAccelerator(pool)) ?? 0) + 1)
  return [...counts].map(([what, n]) => (n === 1 ? what : `${n}x ${what}`)).join(', ')
}

/** The `xpk cluster list` table. */
export function renderClusterList(clusters: readonly ObservedCluster[]): string {
  if (clusters.length === 0) return 'No clusters.'
  return renderTable(
    ['name', 'location', 'status', 'version', 'node pools', 'accelerators'],
    clusters.map((c) => [c.name, c.location, c.status, c.version, c.nodePools.length, acceleratorSummary(c.nodePools)]),
  )
}

/** The `xpk cluster describe` view: cluster facts, then one row per node pool. */
export function renderClusterDetails(c: ObservedCluster): string {
  const facts = renderKeyValues([
    ['Cluster', c.name],
    ['Project', c.project],
    ['Location', c.location],
    ['Node zones', c.nodeLocations.join(', ')],
    ['Status', c.statusMessage ? `${c.status} (${c.statusMessage})` : c.status],
    ['Version', c.version],
    ['Release channel', c.releaseChannel],
    ['Private nodes', c.privateNodes ? 'yes' : 'no'],
    ['Endpoint', c.endpoint || null],
  ])
  const pools =
    c.nodePools.length === 0
      ? 'No node pools.'
      : renderTable(
          ['node pool', 'machine type', 'accelerator', 'topology', 'nodes', 'status', 'capacity'],
          c.nodePools.map((p) => [
            p.name,
            p.machineType,
            poolAccelerator(p),
            p.tpuTopology,
            p.nodeCount,
            p.status,
            p.capacity === 'reservation' ? `reservation ${p.reservation}` : p.capacity,
          ]),
        )
  return `${facts}\n\n${pools}`
}
