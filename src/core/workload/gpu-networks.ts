/**
 * The extra GPU networks of A3 Mega (GPUDirect-TCPXO) and A3 Ultra/A4/A4X (GPUDirect-RDMA) clusters, which a
 * workload's pods attach through the `networking.gke.io/interfaces` annotation. Python xpk names what the cluster
 * has (`kubectl get GKENetworkParamSet`); so does xpk, through the Kubernetes API. A3 High (GPUDirect-TCPX) pods
 * always use the four networks `vpc1`..`vpc4`, so they need no lookup.
 */
import type {Accelerator} from '../catalog/types.js'
import type {KubeObject} from '../kube/release-manifest.js'
import {gpuVariant} from '../manifests/jobset.js'

/** GKE's description of one additional pod network (cluster-scoped). */
export const GKE_NETWORK_PARAM_SET = {apiVersion: 'networking.gke.io/v1', kind: 'GKENetworkParamSet'} as const

/** Whether the workload's pods name the cluster's GKENetworkParamSets (tcpxo and rdma GPU types). */
export function needsClusterGpuNetworks(accelerator: Accelerator): boolean {
  if (accelerator.kind !== 'GPU') return false
  const variant = gpuVariant(accelerator)
  return variant === 'tcpxo' || variant === 'rdma'
}

/**
 * The networks an A3 High (GPUDirect-TCPX) workload's pods always name (`vpc1`..`vpc4`, eth1-eth4), which
 * `cluster create` makes (src/core/cluster/gpu-networks.ts); empty for other types, whose pods name what the cluster
 * has.
 */
export function fixedGpuNetworks(accelerator: Accelerator): string[] {
  if (accelerator.kind !== 'GPU' || gpuVariant(accelerator) !== 'tcpx') return []
  return ['vpc1', 'vpc2', 'vpc3', 'vpc4']
}

/** The fixed networks (see {@link fixedGpuNetworks}) that no live GKENetworkParamSet is named after. */
export function missingGpuNetworks(accelerator: Accelerator, paramSets: readonly KubeObject[]): string[] {
  const live = new Set(paramSets.filter((p) => p.metadata.deletionTimestamp === undefined).map((p) => p.metadata.name))
  return fixedGpuNetworks(accelerator).filter((name) => !live.has(name))
}

/**
 * The network names to attach, in NIC order (eth1, eth2, ...). The API lists them by name, which would put
 * `x-rdma-sub-0` before `x-sub-1`; GKE's A3 Ultra/A4 layout wants the plain (gVNIC) network first and the RDMA
 * NICs after it, so networks whose `spec.deviceMode` is RDMA come last, each group in natural order (`x-2` before
 * `x-10`). Objects being deleted are left out.
 */
export function gpuNetworkNames(paramSets: readonly KubeObject[]): string[] {
  const live = paramSets.filter((p) => p.metadata.deletionTimestamp === undefined)
  const isRdma = (p: KubeObject) => (p.spec as {deviceMode?: unknown} | undefined)?.deviceMode === 'RDMA'
  const natural = (a: KubeObject, b: KubeObject) => naturalCompare(a.metadata.name, b.metadata.name)
  return [...live.filter((p) => !isRdma(p)).sort(natural), ...live.filter(isRdma).sort(natural)].map(
    (p) => p.metadata.name,
  )
}

/** Compares names with runs of digits as numbers (`a-2` < `a-10`), without Intl (which costs start-up time). */
function naturalCompare(a: string, b: string): number {
  const parts = (s: string) => s.match(/\d+|\D+/g) ?? []
  const [x, y] = [parts(a), parts(b)]
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const [p, q] = [x[i]!, y[i]!]
    if (p === q) continue
    const numeric = /^\d/.test(p) && /^\d/.test(q)
    if (numeric && Number(p) !== Number(q)) return Number(p) - Number(q)
    return p < q ? -1 : 1
  }
  return x.length - y.length
}
