import type {Accelerator} from '../catalog/types.js'
import type {PathwaysSpec} from './pathways.js'
import type {Priority} from './priority.js'

/** One environment variable for the workload's containers, in the order the user gave them. */
export interface EnvVar {
  readonly name: string
  readonly value: string
}

/**
 * Everything needed to build a workload's JobSet, already validated. Built from `workload create` flags by
 * src/core/workload/options.ts; consumed by the manifest builders in src/core/manifests/.
 */
export interface WorkloadSpec {
  /** `--workload`: a lowercase RFC 1123 label, at most 40 characters. */
  readonly name: string
  /** `--cluster`: the cluster the workload is for (GPU pod affinity names its first node pool). */
  readonly cluster: string
  readonly accelerator: Accelerator
  /** `--command`: run by bash inside the wrapper script. */
  readonly command: string
  /** The container image reference (built, or `--docker-image`). */
  readonly image: string
  /** `--docker-name`: the container name (GPU containers are always `gpu-image`). Default `jax-tpu`. */
  readonly containerName: string
  /** `--num-slices`: JobSet replicas for TPU and CPU. Default 1. */
  readonly numSlices: number
  /** `--num-nodes`: VMs of a GPU workload (Job parallelism). Default 1. Unused for TPU/CPU. */
  readonly numNodes: number
  /** `--priority`. Default `medium`. */
  readonly priority: Priority
  /** `--max-restarts`: JobSet failurePolicy.maxRestarts. Default 0. */
  readonly maxRestarts: number
  /** `--restart-on-exit-codes`, expanded (ranges resolved), without the built-in 42 and 127-255. */
  readonly restartOnExitCodes: readonly number[]
  /** `--ttl-seconds-after-finished`. Default 43200 (12 h). */
  readonly ttlSecondsAfterFinished: number
  /** `--termination-grace-period-seconds`. Default 30. */
  readonly terminationGracePeriodSeconds: number
  /** `--env` / `--env-file`, in order; later duplicates already removed (last wins). */
  readonly env: readonly EnvVar[]
  /** `--debug-dump-gcs gs://bucket/dir`: upload XLA dumps there at the end. */
  readonly debugDumpGcs: string | null
  /** `--scheduler`. Default `default-scheduler`; GPU also allows `gke.io/topology-aware-auto`. */
  readonly scheduler: string
  /** `--docker-image-pull-secret`. */
  readonly imagePullSecret: string | null
  /** `--enable-debug-logs`: verbose TPU runtime logging. */
  readonly enableDebugLogs: boolean
  /** Containers per pod: the accelerator's `parallelContainers`, or 1 with `--no-use-parallel-containers`. */
  readonly parallelContainers: number
  /** `workload create-pathways`: the Pathways head and workers instead of one slice Job (pathways-jobset.ts). */
  readonly pathways?: PathwaysSpec
}
