// Kept apart from desired.ts so that flag help can show them without loading the catalog.
/** Defaults of `cluster create`, as Python xpk. */
export const CLUSTER_DEFAULTS = {
  numSlices: 1,
  gpuNumNodes: 2,
  defaultPoolCpuMachineType: 'e2-standard-16',
  defaultPoolCpuNumNodes: 6,
  multiHostTpuMaxPodsPerNode: 15,
  /** `cluster create-pathways --pathways-gce-machine-type`: the Pathways CPU pool's machine type. */
  pathwaysGceMachineType: 'n2-standard-64',
} as const
