/**
 * The GKE half of `cluster create-pathways`, as Python xpk's `cluster create --enable-pathways` makes it: the CPU
 * node pool `cpu-np` where a Pathways workload's head (proxy, resource manager, the user's JAX client) runs, beside
 * the TPU slices. Its Kueue half (the `cpu-user` flavor and resource group) is in incluster/kueue.ts.
 */
import type {Accelerator} from '../catalog/types.js'
import {machineTypeProblem} from '../catalog/machine-types.js'
import type {Problems} from '../input.js'
import {escapeInline} from '../text.js'
import {CLUSTER_DEFAULTS} from './defaults.js'
import {SCOPES, type NodePoolSpec} from './spec.js'

import {PATHWAYS_CPU_POOL} from '../workload/pathways.js'

export {PATHWAYS_CPU_POOL}

/** `--pathways-gce-machine-type`'s default, as Python xpk's. */
export const DEFAULT_PATHWAYS_MACHINE_TYPE = CLUSTER_DEFAULTS.pathwaysGceMachineType

/**
 * Python xpk offers only machine types with at least 49 vCPUs and 233 GiB (`guestCpus >= 49 AND memoryMb >=
 * 233*1024`): the head's proxy, resource manager and client, plus GKE's own pods, must fit on one node.
 */
export const PATHWAYS_MACHINE_MINIMUM = {guestCpus: 49, memoryMb: 233 * 1024} as const

/** The Pathways part of a desired cluster: the CPU pool's machine type. */
export interface PathwaysRequest {
  readonly machineType: string
}

/** The flags of `cluster create-pathways` beyond `cluster create`'s. */
export interface PathwaysFlags {
  readonly pathwaysGceMachineType?: string
  readonly tpuType?: string
  readonly deviceType?: string
  readonly cpuLimit?: string | number
  readonly memoryLimit?: string
}

/**
 * `--pathways-gce-machine-type` (its form; the zone's types are read later) and what a Pathways cluster cannot
 * be: a GPU or CPU type (Pathways drives TPUs only, and a CPU type's quota covers `cpu` already), or one with
 * `--cpu-limit` / `--memory-limit` (the `cpu-user` resource group covers cpu and memory, and Kueue refuses a
 * resource two groups cover; Python xpk renders such a ClusterQueue and Kueue rejects it).
 */
export function checkPathways(
  flags: PathwaysFlags,
  problems: Problems,
  accelerator: Accelerator | undefined,
): PathwaysRequest | null {
  const machineType = flags.pathwaysGceMachineType
  if (machineType === undefined) return null
  const flag = '--pathways-gce-machine-type'
  const problem = machineTypeProblem(machineType)
  if (problem) {
    problems.add(`${flag} "${escapeInline(machineType)}" ${problem}.`, {
      flag,
      hints: [`For example ${DEFAULT_PATHWAYS_MACHINE_TYPE} (the default), n2-highmem-64 or c3-standard-88.`],
    })
  }
  if (accelerator !== undefined && accelerator.kind !== 'TPU') {
    problems.add(`Pathways drives TPU slices, and ${accelerator.name} is a ${accelerator.kind} type.`, {
      flag: flags.deviceType !== undefined ? '--device-type' : '--tpu-type',
      hints: ['Give a TPU type with --tpu-type, e.g. --tpu-type v5p-16; other types: xpk cluster create.'],
    })
  }
  for (const [limit, given] of [
    ['--cpu-limit', flags.cpuLimit],
    ['--memory-limit', flags.memoryLimit],
  ] as const) {
    if (given === undefined) continue
    problems.add(
      `${limit} adds ${limit === '--cpu-limit' ? 'cpu' : 'memory'} to the TPU quota, and a Pathways cluster's cpu-user group (the heads' CPU pool) covers cpu and memory already: Kueue refuses a resource two groups cover.`,
      {flag: limit, hints: [`Leave ${limit} out of cluster create-pathways.`]},
    )
  }
  return problem ? null : {machineType}
}

/**
 * What is wrong with the machine type as Compute Engine reports it in the zone (`undefined`: the zone has none of
 * that name), or undefined when it fits.
 */
export function pathwaysMachineProblem(
  machineType: string,
  zone: string,
  found: {readonly guestCpus: number; readonly memoryMb: number} | undefined,
): string | undefined {
  if (found === undefined) return `is not a machine type of zone ${zone}`
  const {guestCpus, memoryMb} = PATHWAYS_MACHINE_MINIMUM
  if (found.guestCpus < guestCpus || found.memoryMb < memoryMb) {
    return `has ${found.guestCpus} vCPUs and ${Math.floor(found.memoryMb / 1024)} GiB; the Pathways head needs at least ${guestCpus} vCPUs and ${memoryMb / 1024} GiB (as Python xpk checks)`
  }
  return undefined
}

/**
 * The `cpu-np` pool as Python xpk creates it (`gcloud beta container node-pools create cpu-np --num-nodes=1
 * --machine-type=M --scopes=storage-full,gke-default,cloud-platform --enable-autoscaling --min-nodes=1
 * --max-nodes=20`, in the cluster's zone, at the node version of the TPU pools): on-demand whatever the slices'
 * capacity, since Python passes no capacity flag for it.
 */
export function pathwaysPoolSpec(request: PathwaysRequest, zone: string, version: string | null): NodePoolSpec {
  return {
    name: PATHWAYS_CPU_POOL,
    machineType: request.machineType,
    nodeCount: 1,
    tpuTopology: null,
    capacity: 'on-demand',
    reservation: null,
    placementPolicy: null,
    gpu: null,
    locations: [zone],
    oauthScopes: [SCOPES.storageFull, ...SCOPES.gkeDefault, SCOPES.cloudPlatform],
    maxPodsPerNode: null,
    gvnic: false,
    acceleratorNetworkProfile: null,
    labels: {},
    flexMaxNodes: null,
    autoscalingLocationPolicy: null,
    autoscaling: {minNodes: 1, maxNodes: 20},
    management: {autoRepair: true, autoUpgrade: true},
    queuedProvisioning: false,
    version,
    workloadMetadataMode: null,
    custom: {},
    hostMaintenanceInterval: 'AS_NEEDED',
  }
}
