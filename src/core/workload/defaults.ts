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

/** xpk's defaults for `workload create-pathways`: Python xpk's (its parser and src/xpk/commands/workload.py). */
export const PATHWAYS_DEFAULTS = {
  serverImage: 'us-docker.pkg.dev/cloud-tpu-v2-images/pathways/server:latest',
  proxyServerImage: 'us-docker.pkg.dev/cloud-tpu-v2-images/pathways/proxy_server:latest',
  gcsLocation: 'gs://cloud-pathways-staging/tmp',
  elasticSlices: 0,
  maxSliceRestarts: 1,
} as const
