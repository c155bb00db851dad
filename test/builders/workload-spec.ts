import {findAccelerator} from '../../src/core/catalog/lookup.js'
import type {WorkloadSpec} from '../../src/core/workload/spec.js'

/** Overrides for {@link aWorkloadSpec}; `type` picks the accelerator by name (default `v5p-8`). */
export type WorkloadSpecOverrides = Partial<WorkloadSpec> & {type?: string}

/**
 * A valid WorkloadSpec with Python xpk's `workload create` defaults, for tests. `parallelContainers` follows the
 * accelerator unless overridden.
 */
export function aWorkloadSpec(overrides: WorkloadSpecOverrides = {}): WorkloadSpec {
  const {type, ...fields} = overrides
  const accelerator = fields.accelerator ?? findAccelerator(type ?? 'v5p-8')
  if (!accelerator) throw new Error(`aWorkloadSpec: unknown accelerator type ${type}`)
  return {
    name: 'test-workload',
    cluster: 'test-cluster',
    command: 'python3 train.py',
    image: 'gcr.io/test-project/jax-tpu:ctx-0123456789abcdef',
    containerName: 'jax-tpu',
    numSlices: 1,
    numNodes: 1,
    priority: 'medium',
    maxRestarts: 0,
    restartOnExitCodes: [],
    ttlSecondsAfterFinished: 43200,
    terminationGracePeriodSeconds: 30,
    env: [],
    debugDumpGcs: null,
    scheduler: 'default-scheduler',
    imagePullSecret: null,
    enableDebugLogs: false,
    parallelContainers: accelerator.parallelContainers,
    ...fields,
    accelerator,
  }
}
