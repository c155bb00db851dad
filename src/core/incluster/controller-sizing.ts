/**
 * Resources of the JobSet and Kueue controllers, scaled to the cluster's node count as Python xpk scales them after
 * `cluster create`: both controllers watch every pod and node, and their release defaults run out of memory on
 * clusters of thousands of VMs. Expressed as strategic-merge patches of the `manager` container, so nothing else
 * in the release's Deployment changes.
 *
 * A super-slicing cluster gets Python's fixed sizes instead (superSlicingControllerPatch): its slice controller and
 * Kueue's admission checks work per workload across every cube, whatever the node count.
 */
import {RELEASES} from '../kube/release-manifest.js'
import type {ReleaseComponent} from '../kube/release-manifest.js'
import type {DeploymentPatch} from './types.js'

/** The container both releases run their controller in. */
export const CONTROLLER_CONTAINER = 'manager'

/** Memory below which neither controller is sized (4 GiB), in MiB. */
export const MIN_CONTROLLER_MEMORY_MI = 4096

/** JobSet's memory limit: 1.2 MiB per node, at least 4 GiB. */
export function jobSetControllerMemoryMi(nodeCount: number): number {
  return Math.max(Math.ceil(nodeCount * 1.2), MIN_CONTROLLER_MEMORY_MI)
}

/** Kueue's CPUs and memory (requests = limits): 32 MiB and 0.004 CPU per node, at least 4 GiB and 2 CPUs. */
export function kueueControllerResources(nodeCount: number): {readonly cpu: number; readonly memoryMi: number} {
  return {
    cpu: Math.max(Math.ceil(nodeCount * 0.004), 2),
    memoryMi: Math.max(Math.ceil(nodeCount * 32), MIN_CONTROLLER_MEMORY_MI),
  }
}

/**
 * The JobSet controller's requests Python xpk's Deployment sets (`update_jobset_resources_if_necessary`): 1000m CPU
 * (the release asks for 500m) and the release's 128Mi of memory, which the requests replaced whole must name again.
 */
export const JOBSET_CONTROLLER_REQUESTS = {cpu: '1000m', memory: '128Mi'} as const

/**
 * The JobSet controller's memory limit for a cluster of `nodeCount` nodes (every node, system pool included), and
 * its requests as Python xpk sets them: on a large cluster the controller reconciles thousands of pods, and half a
 * CPU, shared with the webhooks every JobSet goes through, is what made Python raise it.
 */
export function jobSetControllerPatch(nodeCount: number): DeploymentPatch {
  const memory = `${jobSetControllerMemoryMi(nodeCount)}Mi`
  return managerPatch(
    'jobset',
    {requests: {...JOBSET_CONTROLLER_REQUESTS}, limits: {memory}},
    `cpu request ${JOBSET_CONTROLLER_REQUESTS.cpu}, memory limit ${memory}`,
    nodeCount,
  )
}

/** The Kueue controller's CPUs and memory for a cluster of `nodeCount` nodes (every node, system pool included). */
export function kueueControllerPatch(nodeCount: number): DeploymentPatch {
  const {cpu, memoryMi} = kueueControllerResources(nodeCount)
  const quantities = {cpu: String(cpu), memory: `${memoryMi}Mi`}
  return managerPatch(
    'kueue',
    {requests: quantities, limits: quantities},
    `cpu ${quantities.cpu}, memory ${quantities.memory}`,
    nodeCount,
  )
}

function managerPatch(
  component: ReleaseComponent,
  resources: DeploymentPatch['body']['spec']['template']['spec']['containers'][number]['resources'],
  summary: string,
  nodeCount: number,
): DeploymentPatch {
  const release = RELEASES[component]
  return {
    namespace: release.controller.namespace,
    name: release.controller.name,
    patchType: 'strategic',
    body: {spec: {template: {spec: {containers: [{name: CONTROLLER_CONTAINER, resources}]}}}},
    reason: `size ${release.title}'s controller for ${nodeCount} ${nodeCount === 1 ? 'node' : 'nodes'}: ${summary}`,
  }
}

/**
 * The controllers of a super-slicing cluster, as Python xpk sizes them: Kueue 3 replicas of 16 CPUs and 64Gi,
 * JobSet 4 CPUs and 16Gi (requests = limits).
 */
export function superSlicingControllerPatch(component: ReleaseComponent): DeploymentPatch {
  const quantities = component === 'kueue' ? {cpu: '16', memory: '64Gi'} : {cpu: '4', memory: '16Gi'}
  const patch = managerPatch(
    component,
    {requests: quantities, limits: quantities},
    `cpu ${quantities.cpu}, memory ${quantities.memory}${component === 'kueue' ? ', 3 replicas' : ''}`,
    0,
  )
  const release = RELEASES[component]
  return {
    ...patch,
    body: component === 'kueue' ? {spec: {replicas: 3, ...patch.body.spec}} : patch.body,
    reason: `size ${release.title}'s controller for super-slicing: ${quantities.cpu} CPUs, ${quantities.memory}${component === 'kueue' ? ', 3 replicas' : ''}`,
  }
}
