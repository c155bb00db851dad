// Kept apart from options.ts so that flag help can show them without loading the catalog.
/** xpk's defaults for `workload create`. */
export const WORKLOAD_DEFAULTS = {
  dockerName: 'jax-tpu',
  numSlices: 1,
  numNodes: 1,
  maxRestarts: 0,
  ttlSecondsAfterFinished: 43_200,
  terminationGracePeriodSeconds: 30,
  scheduler: 'default-scheduler',
  baseDockerImage: 'python:3.10',
} as const
