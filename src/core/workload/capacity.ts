/**
 * Whether a cluster can ever run a workload, from its resources ConfigMap (`<cluster>-resources-configmap`, see
 * src/core/incluster/configmaps.ts), as Python xpk's `check_if_workload_can_schedule` decides it:
 *
 *   - node auto-provisioning (`<gke accelerator>: AUTOPROVISION`): the chips asked for must be at most
 *     `maximum_chips`;
 *   - otherwise the workload's device type must be a key of the map, and the VMs asked for (GPU: `--num-nodes`;
 *     TPU/CPU: slices x VMs per slice) at most its value.
 *
 * Unlike Python xpk, a cluster without the ConfigMap is not waved through: it was not set up by `cluster create`,
 * so Kueue's queue and the JobSet controller the workload needs may be missing too, and the user is told how to
 * fix that instead of getting a workload that never starts. Sub- and super-slicing are not supported here.
 */
import type {Accelerator} from '../catalog/types.js'
import {UsageError, XpkError} from '../errors.js'
import type {ClusterResources} from '../incluster/configmaps.js'
import {resourcesConfigMapName} from '../incluster/configmaps.js'

/** What a workload asks of the cluster. */
export interface CapacityRequest {
  readonly workload: string
  readonly cluster: string
  readonly accelerator: Accelerator
  readonly numSlices: number
  readonly numNodes: number
  /** The flag the accelerator came from, for messages: `--tpu-type` or `--device-type`. */
  readonly acceleratorFlag: '--tpu-type' | '--device-type'
}

/** One device type the cluster has, with its VMs. */
export interface ClusterDeviceType {
  readonly deviceType: string
  readonly vms: number
}

export type CapacityVerdict =
  | {readonly kind: 'fits'; readonly deviceType: string; readonly vmsNeeded: number; readonly vmsAvailable: number}
  | {readonly kind: 'fits-autoprovisioning'; readonly chipsNeeded: number; readonly maximumChips: number | null}
  | {readonly kind: 'no-configmap'}
  | {readonly kind: 'too-big'; readonly deviceType: string; readonly vmsNeeded: number; readonly vmsAvailable: number}
  | {readonly kind: 'autoprovisioning-too-big'; readonly chipsNeeded: number; readonly maximumChips: number}
  | {readonly kind: 'wrong-type'; readonly deviceType: string; readonly clusterTypes: readonly ClusterDeviceType[]}

/** VMs a workload needs: GPU `--num-nodes`, otherwise slices x VMs per slice. */
export function vmsNeeded(request: Pick<CapacityRequest, 'accelerator' | 'numSlices' | 'numNodes'>): number {
  const {accelerator} = request
  return accelerator.kind === 'GPU' ? request.numNodes : request.numSlices * accelerator.vmsPerSlice
}

/** The verdict for `request` on a cluster whose resources ConfigMap reads as `resources` (undefined: absent). */
export function checkCapacity(request: CapacityRequest, resources: ClusterResources | undefined): CapacityVerdict {
  if (resources === undefined) return {kind: 'no-configmap'}
  const {accelerator} = request
  const vms = vmsNeeded(request)
  const gkeAccelerator = accelerator.gkeAccelerator
  const auto = resources.autoprovisioning
  if (auto !== null && gkeAccelerator !== null && auto.gkeAccelerators.includes(gkeAccelerator)) {
    const chipsNeeded = vms * accelerator.chipsPerVm
    // Python reads maximum_chips unconditionally; a map without it says nothing about a limit, so nothing is refused.
    if (auto.maximumChips !== null && chipsNeeded > auto.maximumChips) {
      return {kind: 'autoprovisioning-too-big', chipsNeeded, maximumChips: auto.maximumChips}
    }
    return {kind: 'fits-autoprovisioning', chipsNeeded, maximumChips: auto.maximumChips}
  }
  const deviceType = accelerator.canonical
  const available = resources.vmsByDeviceType[deviceType]
  if (available === undefined) {
    const clusterTypes = Object.entries(resources.vmsByDeviceType).map(([type, count]) => ({
      deviceType: type,
      vms: count,
    }))
    return {kind: 'wrong-type', deviceType, clusterTypes}
  }
  if (vms > available) return {kind: 'too-big', deviceType, vmsNeeded: vms, vmsAvailable: available}
  return {kind: 'fits', deviceType, vmsNeeded: vms, vmsAvailable: available}
}

/**
 * The error for a verdict that stops the submit, or undefined when the workload fits. A request that can never fit
 * is bad input (exit 2, naming the flag to change and the cluster's capacity); a cluster that was never set up is
 * a state that forbids the change (exit 6), with the command that sets it up.
 */
export function capacityProblem(request: CapacityRequest, verdict: CapacityVerdict): XpkError | undefined {
  const {workload, cluster, accelerator} = request
  const scaleFlag = accelerator.kind === 'GPU' ? '--num-nodes' : '--num-slices'
  switch (verdict.kind) {
    case 'fits':
    case 'fits-autoprovisioning':
      return undefined
    case 'no-configmap':
      return new XpkError(
        'conflict',
        `Cluster ${cluster} has no ConfigMap ${resourcesConfigMapName(cluster)}: it was not set up by \`xpk cluster create\`, ` +
          `so xpk cannot tell whether it has ${accelerator.canonical} nodes, and the Kueue queue and JobSet controller a workload needs may be missing.`,
        {
          hints: [
            `Set the cluster up with \`xpk cluster create --cluster ${cluster} ${request.acceleratorFlag} ${accelerator.canonical} ...\` ` +
              '(re-running it on an existing cluster keeps what is there and adds what is missing).',
            'If you reached another cluster than you meant, check --cluster, or --kubeconfig and --context.',
          ],
        },
      )
    case 'too-big': {
      const asked = describeVms(accelerator, verdict.vmsNeeded)
      const has = describeVms(accelerator, verdict.vmsAvailable)
      const most =
        accelerator.kind === 'GPU'
          ? `--num-nodes ${verdict.vmsAvailable}`
          : `--num-slices ${Math.floor(verdict.vmsAvailable / accelerator.vmsPerSlice)}`
      return new UsageError(
        `${scaleFlag}: workload ${workload} needs ${asked} of ${verdict.deviceType}, but cluster ${cluster} has ${has}, ` +
          'so it could never be admitted.',
        {
          flag: scaleFlag,
          hints: [
            `Ask for at most what the cluster has (${most}), or grow the cluster first with \`xpk cluster create --cluster ${cluster} ${request.acceleratorFlag} ${verdict.deviceType} ${scaleFlag} ${accelerator.kind === 'GPU' ? verdict.vmsNeeded : request.numSlices}\`.`,
          ],
        },
      )
    }
    case 'autoprovisioning-too-big':
      return new UsageError(
        `${scaleFlag}: workload ${workload} needs ${verdict.chipsNeeded} chips of ${accelerator.canonical}, but node auto-provisioning ` +
          `of cluster ${cluster} stops at ${verdict.maximumChips} chips, so it could never be admitted.`,
        {
          flag: scaleFlag,
          hints: [
            `Ask for fewer ${accelerator.kind === 'GPU' ? 'nodes' : 'slices'}, or raise the cluster's chip limit.`,
          ],
        },
      )
    case 'wrong-type': {
      const has =
        verdict.clusterTypes.length === 0
          ? 'no accelerator type recorded'
          : verdict.clusterTypes.map((t) => `${describeVms(undefined, t.vms)} of ${t.deviceType}`).join(' and ')
      const other = verdict.clusterTypes[0]?.deviceType
      return new UsageError(
        `${request.acceleratorFlag} ${accelerator.name}: cluster ${cluster} has ${has}, not ${verdict.deviceType}, so workload ${workload} could never run there.`,
        {
          flag: request.acceleratorFlag,
          hints: [
            other === undefined
              ? `Set the cluster up for ${verdict.deviceType} with \`xpk cluster create --cluster ${cluster} ${request.acceleratorFlag} ${verdict.deviceType} ...\`.`
              : `Submit a ${other} workload (${request.acceleratorFlag} ${other}), or pick a cluster of ${verdict.deviceType} (\`xpk cluster list\`).`,
          ],
        },
      )
    }
  }
}

/** `8 VMs (4 slices)` for TPU and CPU types whose slices have several VMs; `2 VMs` otherwise. */
function describeVms(accelerator: Accelerator | undefined, vms: number): string {
  const plain = `${vms} VM${vms === 1 ? '' : 's'}`
  if (accelerator === undefined || accelerator.kind === 'GPU' || accelerator.vmsPerSlice <= 1) return plain
  const slices = vms / accelerator.vmsPerSlice
  return Number.isInteger(slices) ? `${plain} (${slices} slice${slices === 1 ? '' : 's'})` : plain
}
