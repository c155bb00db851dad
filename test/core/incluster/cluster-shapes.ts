import {findAccelerator} from '../../../src/core/catalog/lookup.js'
import type {Accelerator} from '../../../src/core/catalog/types.js'
import type {ClusterShape} from '../../../src/core/incluster/cluster-shape.js'

/** Overrides for {@link aClusterShape}; `type` picks the accelerator by name (default `v5p-16`). */
export type ClusterShapeOverrides = Partial<ClusterShape> & {readonly type?: string}

/** The accelerator named `name`, or a test error. */
export function accelerator(name: string): Accelerator {
  const found = findAccelerator(name)
  if (!found) throw new Error(`unknown accelerator type ${name}`)
  return found
}

/** Cluster `demo` with one on-demand slice of v5p-16, unless overridden. */
export function aClusterShape(overrides: ClusterShapeOverrides = {}): ClusterShape {
  const {type, ...fields} = overrides
  return {
    clusterName: 'demo',
    accelerator: accelerator(type ?? 'v5p-16'),
    numSlices: 1,
    numNodes: 2,
    capacity: 'on-demand',
    reservation: null,
    ...fields,
  }
}
