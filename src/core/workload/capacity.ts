/**
 * Whether a cluster can ever run a workload, from its resources ConfigMap (`<cluster>-resources-configmap`, see
 * src/core/incluster/configmaps.ts), as Python xpk's `check_if_workload_can_schedule` decides it:
 *
 *   - node auto-provisioning (`<gke accelerator>: AUTOPROVISION`): the chips asked for must be at most
 *     `maximum_chips`;
 *   - otherwise the workload's device type must be a key of the map, and the VMs asked for (GPU: `--num-nodes`;
 *     TPU/CPU: slices x VMs per slice) at most its value.
 *
 * On a cluster set up for sub- or super-slicing (its Kueue Topology, read by the caller: see slicing.ts), in
 * Python's order:
 *
 *   - super-slicing first: a workload of the cluster's accelerator (tpu7x) is a super-slice, whose topology must be
 *     whole cubes (4i x 4j x 4k, i <= j <= k, at most 144) and whose slices' VMs must be at most the cluster's;
 *   - then the workload's own device type, as above;
 *   - then sub-slicing: a workload of the cluster's accelerator whose topology is a sub-slice topology runs on part
 *     of a slice, if its VMs are at most the cluster's. Unlike Python, the sub-slice must also fit in the cluster's
 *     slice (a 8x8 workload on 4x4 slices is refused, not queued forever: Kueue's Topology has no 8x8 level there).
 *
 * Unlike Python xpk, a cluster without the ConfigMap is not waved through: it was not set up by `cluster create`,
 * so Kueue's queue and the JobSet controller the workload needs may be missing too, and the user is told how to
 * fix that instead of getting a workload that never starts. Python's check of the Kueue version (0.13 for
 * sub-slicing, 0.15.2 for super-slicing) is not made: the Topology is read at kueue.x-k8s.io/v1beta2, which only a
 * Kueue of 0.15 or later serves.
 */
import {catalogEntry} from '../catalog/catalog.js'
import type {Accelerator} from '../catalog/types.js'
import {SUB_SLICING_TOPOLOGIES, topologyContained} from '../cluster/slicing.js'
import {UsageError, XpkError} from '../errors.js'
import type {ClusterResources} from '../incluster/configmaps.js'
import {resourcesConfigMapName} from '../incluster/configmaps.js'
import {
  isSubSliceTopology,
  NO_SLICING,
  SUPER_SLICING_MAX_CUBES,
  SUPER_SLICING_NAME_LIMIT,
  superSliceCubes,
  type ClusterSlicing,
  type WorkloadSlicing,
} from './slicing.js'

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
  | {
      readonly kind: 'wrong-type'
      readonly deviceType: string
      readonly clusterTypes: readonly ClusterDeviceType[]
      /** On a sub-slicing cluster: the types it can run sub-sliced (smaller than its slice), smallest first. */
      readonly subSliceTypes?: readonly string[]
    }
  | {
      readonly kind: 'fits-sub-slicing' | 'sub-slicing-too-big'
      /** The cluster's device type, whose VMs the sub-slices share. */
      readonly deviceType: string
      readonly vmsNeeded: number
      readonly vmsAvailable: number
      readonly slicing: Extract<WorkloadSlicing, {kind: 'sub'}>
    }
  | {
      readonly kind: 'fits-super-slicing' | 'super-slicing-too-big'
      /** The cluster's device type (tpu7x-128: one 4x4x4 cube a slice). */
      readonly deviceType: string
      readonly cubesNeeded: number
      readonly cubesAvailable: number
      readonly vmsNeeded: number
      readonly vmsAvailable: number
      readonly slicing: Extract<WorkloadSlicing, {kind: 'super'}>
    }
  | {
      readonly kind: 'super-slicing-topology'
      readonly deviceType: string
      readonly topology: string | null
      readonly cubesAvailable: number
    }

/** VMs a workload needs: GPU `--num-nodes`, otherwise slices x VMs per slice. */
export function vmsNeeded(request: Pick<CapacityRequest, 'accelerator' | 'numSlices' | 'numNodes'>): number {
  const {accelerator} = request
  return accelerator.kind === 'GPU' ? request.numNodes : request.numSlices * accelerator.vmsPerSlice
}

/**
 * The verdict for `request` on a cluster whose resources ConfigMap reads as `resources` (undefined: absent), set up
 * for `slicing` as its Kueue Topologies say.
 */
export function checkCapacity(
  request: CapacityRequest,
  resources: ClusterResources | undefined,
  slicing: ClusterSlicing = NO_SLICING,
): CapacityVerdict {
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
  const cluster = clusterSystem(resources)
  const sameAccelerator = cluster !== undefined && cluster.accelerator.gkeAccelerator === gkeAccelerator
  if (sameAccelerator && slicing.super && cluster.accelerator.supportsSuperSlicing) {
    return superSlicingVerdict(request, cluster, vms)
  }
  const deviceType = accelerator.canonical
  const available = resources.vmsByDeviceType[deviceType]
  if (available === undefined) {
    const subSlicing = sameAccelerator && slicing.sub && cluster.accelerator.supportsSubSlicing
    const clusterTopology = cluster?.accelerator.topology ?? null
    if (subSlicing && clusterTopology !== null) {
      const fitsInSlice =
        isSubSliceTopology(accelerator.topology) && topologyContained(accelerator.topology, clusterTopology)
      if (fitsInSlice) {
        const slicingOf = {kind: 'sub', sliceTopology: accelerator.topology!, clusterTopology} as const
        const fit = {deviceType: cluster.deviceType, vmsNeeded: vms, vmsAvailable: cluster.vms, slicing: slicingOf}
        return {kind: vms > cluster.vms ? 'sub-slicing-too-big' : 'fits-sub-slicing', ...fit}
      }
    }
    const clusterTypes = Object.entries(resources.vmsByDeviceType).map(([type, count]) => ({
      deviceType: type,
      vms: count,
    }))
    return {
      kind: 'wrong-type',
      deviceType,
      clusterTypes,
      ...(subSlicing && clusterTopology !== null ? {subSliceTypes: subSliceTypes(cluster.accelerator)} : {}),
    }
  }
  if (vms > available) return {kind: 'too-big', deviceType, vmsNeeded: vms, vmsAvailable: available}
  return {kind: 'fits', deviceType, vmsNeeded: vms, vmsAvailable: available}
}

/** The cluster's device type: the first key of its resources ConfigMap that names one (Python's cluster system). */
function clusterSystem(
  resources: ClusterResources,
): {readonly deviceType: string; readonly vms: number; readonly accelerator: Accelerator} | undefined {
  for (const [deviceType, vms] of Object.entries(resources.vmsByDeviceType)) {
    const accelerator = catalogEntry(deviceType)
    if (accelerator !== undefined) return {deviceType, vms, accelerator}
  }
  return undefined
}

/** Python's super-slicing branch: whole cubes, and no more VMs than the cluster's cubes have. */
function superSlicingVerdict(
  request: CapacityRequest,
  cluster: {readonly deviceType: string; readonly vms: number; readonly accelerator: Accelerator},
  vms: number,
): CapacityVerdict {
  const cubeVms = cluster.accelerator.vmsPerSlice
  const cubesAvailable = Math.floor(cluster.vms / cubeVms)
  const topology = request.accelerator.topology
  const cubesPerSlice = superSliceCubes(topology)
  if (cubesPerSlice === null) {
    return {kind: 'super-slicing-topology', deviceType: cluster.deviceType, topology, cubesAvailable}
  }
  return {
    kind: vms > cluster.vms ? 'super-slicing-too-big' : 'fits-super-slicing',
    deviceType: cluster.deviceType,
    cubesNeeded: request.numSlices * cubesPerSlice,
    cubesAvailable,
    vmsNeeded: vms,
    vmsAvailable: cluster.vms,
    slicing: {kind: 'super', topology: topology!},
  }
}

/** The types a sub-slicing cluster of `cluster` runs sub-sliced: `v6e-8 (2x4)`, smallest first, its own excluded. */
function subSliceTypes(cluster: Accelerator): string[] {
  const clusterTopology = cluster.topology!
  return SUB_SLICING_TOPOLOGIES.filter((t) => t !== clusterTopology && topologyContained(t, clusterTopology)).map(
    (t) => `${catalogEntry(`${cluster.family}-${t}`)?.canonical ?? `${cluster.family}-${t}`} (${t})`,
  )
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
      const sub = verdict.subSliceTypes
      if (sub !== undefined && other !== undefined) {
        return new UsageError(
          `${request.acceleratorFlag} ${accelerator.name}: cluster ${cluster} has ${has}, set up for sub-slicing, ` +
            `which runs ${other} and the sub-slices that fit in its slice, not ${verdict.deviceType}` +
            `${accelerator.topology === null ? '' : ` (${accelerator.topology})`}, so workload ${workload} could never run there.`,
          {
            flag: request.acceleratorFlag,
            hints: [
              sub.length === 0
                ? `Submit a ${other} workload (${request.acceleratorFlag} ${other}).`
                : `Submit ${other} or a sub-slice of it: ${request.acceleratorFlag} ${sub.join(', ')}.`,
            ],
          },
        )
      }
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
    case 'fits-sub-slicing':
      return undefined
    case 'sub-slicing-too-big': {
      const {sliceTopology} = verdict.slicing
      const most = Math.floor(verdict.vmsAvailable / accelerator.vmsPerSlice)
      return new UsageError(
        `${scaleFlag}: workload ${workload} needs ${verdict.vmsNeeded} VMs (${request.numSlices} sub-slice${s(request.numSlices)} of ${sliceTopology}), ` +
          `but cluster ${cluster} has ${verdict.vmsAvailable} VMs of ${verdict.deviceType} to share, so it could never be admitted.`,
        {flag: scaleFlag, hints: [`Ask for at most what the cluster has (--num-slices ${most}).`]},
      )
    }
    case 'fits-super-slicing':
      if (workload.length <= SUPER_SLICING_NAME_LIMIT) return undefined
      return new UsageError(
        `--workload ${workload}: a super-slicing workload's name is at most ${SUPER_SLICING_NAME_LIMIT} characters ` +
          `(this one has ${workload.length}): GKE and Kueue add up to 35 to it in names limited to 63.`,
        {flag: '--workload', hints: [`Pick a name of at most ${SUPER_SLICING_NAME_LIMIT} characters.`]},
      )
    case 'super-slicing-too-big': {
      const cubesPerSlice = verdict.cubesNeeded / request.numSlices
      const oneSliceTooBig = cubesPerSlice > verdict.cubesAvailable
      const flag = oneSliceTooBig ? request.acceleratorFlag : scaleFlag
      const addCubes = `\`xpk cluster create --cluster ${cluster} --tpu-type ${verdict.deviceType} --super-slicing --num-cubes ${verdict.cubesNeeded} ...\``
      const asked = `${verdict.cubesNeeded} cube${s(verdict.cubesNeeded)} of 4x4x4 (${request.numSlices} slice${s(request.numSlices)} of ${verdict.slicing.topology}, ${verdict.vmsNeeded} VMs)`
      return new UsageError(
        `${flag}: workload ${workload} needs ${asked}, but cluster ${cluster} has ${verdict.cubesAvailable} ` +
          `cube${s(verdict.cubesAvailable)} (${verdict.vmsAvailable} VMs of ${verdict.deviceType}), so it could never be admitted.`,
        {
          flag,
          hints: [
            verdict.cubesAvailable === 0
              ? `Add cubes first: ${addCubes}.`
              : oneSliceTooBig
                ? `Pick a topology of at most ${verdict.cubesAvailable} cube${s(verdict.cubesAvailable)}${cubeExamples(accelerator, verdict.cubesAvailable)}, or add cubes with ${addCubes}.`
                : `Ask for at most --num-slices ${Math.floor(verdict.cubesAvailable / cubesPerSlice)}, or add cubes with ${addCubes}.`,
          ],
        },
      )
    }
    case 'super-slicing-topology':
      return new UsageError(
        `${request.acceleratorFlag} ${accelerator.name}: cluster ${cluster} is set up for super-slicing, where a workload ` +
          `runs on whole 4x4x4 cubes that GKE's slice controller joins; ${accelerator.topology ?? 'its topology'} is not ` +
          `4i x 4j x 4k with i <= j <= k and at most ${SUPER_SLICING_MAX_CUBES} cubes, so workload ${workload} could never run there.`,
        {
          flag: request.acceleratorFlag,
          hints: [
            verdict.cubesAvailable === 0
              ? `Pick a topology of whole cubes (${accelerator.family}-4x4x4, ...); the cluster has none yet: add them with \`xpk cluster create --cluster ${cluster} --tpu-type ${verdict.deviceType} --super-slicing --num-cubes N ...\`.`
              : `Pick a topology of whole cubes, at most the cluster's ${verdict.cubesAvailable}${cubeExamples(accelerator, verdict.cubesAvailable)}.`,
          ],
        },
      )
  }
}

/** ` (tpu7x-4x4x4, tpu7x-4x4x8, ...)`: the smallest super-slice topologies of at most `cubes` cubes. */
function cubeExamples(accelerator: Accelerator, cubes: number): string {
  const limit = Math.min(cubes, SUPER_SLICING_MAX_CUBES)
  const shapes: [number, number, number][] = []
  for (let i = 1; i <= limit; i++) {
    for (let j = i; i * j <= limit; j++) for (let k = j; i * j * k <= limit; k++) shapes.push([i, j, k])
  }
  shapes.sort((x, y) => x[0] * x[1] * x[2] - y[0] * y[1] * y[2])
  if (shapes.length === 0) return ''
  const names = shapes.slice(0, 4).map((d) => `${accelerator.family}-${d.map((n) => 4 * n).join('x')}`)
  return ` (${names.join(', ')}${shapes.length > 4 ? ', ...' : ''})`
}

const s = (n: number) => (n === 1 ? '' : 's')

/** `8 VMs (4 slices)` for TPU and CPU types whose slices have several VMs; `2 VMs` otherwise. */
function describeVms(accelerator: Accelerator | undefined, vms: number): string {
  const plain = `${vms} VM${vms === 1 ? '' : 's'}`
  if (accelerator === undefined || accelerator.kind === 'GPU' || accelerator.vmsPerSlice <= 1) return plain
  const slices = vms / accelerator.vmsPerSlice
  return Number.isInteger(slices) ? `${plain} (${slices} slice${slices === 1 ? '' : 's'})` : plain
}
