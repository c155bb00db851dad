/**
 * The RayCluster (ray.io/v1, served by GKE's Ray operator addon, KubeRay) of `cluster create-ray`, as Python xpk's
 * `core/ray.py` writes it: namespace `ray`, name `raycluster`, the `rayproject/ray:<version>` image, the head on the
 * CPU pool with half of a node's allocatable CPU and memory and the GCS, dashboard, client and multislice ports, and
 * TPU workers with 90% of a TPU node's allocatable CPU and memory and the VM's chips. Where xpk differs (README,
 * "Ray"): one worker group per slice, pinned to that slice's node pool (Python: one group of --num-slices replicas,
 * placed by the accelerator and topology only), and the head pinned to the CPU pool (Python relies on the TPU taint).
 */
import {KIND_TRAITS, type Accelerator} from '../catalog/types.js'

export const RAY_NAMESPACE = 'ray'
export const RAY_CLUSTER_NAME = 'raycluster'
export const RAY_API_VERSION = 'ray.io/v1'
/** The CRD GKE's Ray operator addon installs; the RayCluster can be applied once it is served. */
export const RAY_CLUSTER_CRD_NAME = 'rayclusters.ray.io'

/** Share of a node's allocatable CPU and memory the head and each worker ask for (Python's HEAD_CPU, WORKER_CPU). */
export const HEAD_SHARE = 0.5
export const WORKER_SHARE = 0.9

/** The head's ports, by Python xpk's names. */
export const RAY_PORTS = {gcsServer: 6379, dashboard: 8265, client: 10001, multislice: 8081} as const

/** A node's allocatable CPU and memory, as the Kubernetes API reports them (`15890m`, `60055592Ki`). */
export interface Allocatable {
  readonly cpu: string
  readonly memory: string
}

export interface RayClusterInputs {
  readonly version: string
  /** The TPU type of the cluster's slices. */
  readonly accelerator: Accelerator
  /** The node pools of the slices, one worker group each, in order (`<cluster>-np-0`, ...). */
  readonly slicePools: readonly string[]
  /** The CPU pool the head runs on. */
  readonly headPool: string
  /** Allocatable of one node of the CPU pool, and of one TPU node. */
  readonly headNode: Allocatable
  readonly workerNode: Allocatable
}

/**
 * `share` of a quantity, as Python xpk takes it: the whole number times the share, rounded down, in the same unit
 * (`15890m` at 0.5 is `7945m`). A whole number of cores (`16`) is first made millicores, so no CPU is lost to the
 * rounding; a quantity with a decimal point or exponent is not what the API server reports and is refused.
 */
export function shareOf(quantity: string, share: number, resource: 'cpu' | 'memory'): string {
  const match = /^(\d+)([A-Za-z]*)$/.exec(quantity)
  if (!match) throw new Error(`Cannot take a share of the ${resource} quantity "${quantity}".`)
  const [value, unit] =
    resource === 'cpu' && match[2] === '' ? [Number(match[1]) * 1000, 'm'] : [Number(match[1]), match[2]]
  return `${Math.floor(value * share)}${unit}`
}

/** An object xpk applies for Ray: the namespace, or the RayCluster in it. */
export interface RayObject {
  readonly apiVersion: string
  readonly kind: string
  readonly metadata: {readonly name: string; readonly namespace?: string}
  readonly spec?: Readonly<Record<string, unknown>>
}

/** The `ray` Namespace and the RayCluster, in the order they are applied. */
export function rayClusterObjects(inputs: RayClusterInputs): RayObject[] {
  return [{apiVersion: 'v1', kind: 'Namespace', metadata: {name: RAY_NAMESPACE}}, rayCluster(inputs)]
}

export function rayCluster(inputs: RayClusterInputs): RayObject {
  const a = inputs.accelerator
  if (a.kind !== 'TPU' || a.gkeAccelerator === null || a.topology === null) {
    throw new Error(`A RayCluster is made for TPU slices; ${a.name} is a ${a.kind} type.`)
  }
  const image = `rayproject/ray:${inputs.version}`
  const head = {
    cpu: shareOf(inputs.headNode.cpu, HEAD_SHARE, 'cpu'),
    memory: shareOf(inputs.headNode.memory, HEAD_SHARE, 'memory'),
  }
  const worker = {
    cpu: shareOf(inputs.workerNode.cpu, WORKER_SHARE, 'cpu'),
    [KIND_TRAITS.TPU.resource]: String(a.chipsPerVm),
    memory: shareOf(inputs.workerNode.memory, WORKER_SHARE, 'memory'),
  }
  return {
    apiVersion: RAY_API_VERSION,
    kind: 'RayCluster',
    metadata: {name: RAY_CLUSTER_NAME, namespace: RAY_NAMESPACE},
    spec: {
      rayVersion: inputs.version,
      headGroupSpec: {
        rayStartParams: {},
        template: {
          spec: {
            containers: [
              {
                name: 'ray-head',
                image,
                resources: {limits: head, requests: head},
                // The protocol, though TCP is the default, is a key of the ports list: an apply without it finds
                // no live item of its key (the API server stored the default) and adds every port a second time.
                ports: [
                  {containerPort: RAY_PORTS.gcsServer, name: 'gcs-server', protocol: 'TCP'},
                  {containerPort: RAY_PORTS.dashboard, name: 'dashboard', protocol: 'TCP'},
                  {containerPort: RAY_PORTS.client, name: 'client', protocol: 'TCP'},
                  {containerPort: RAY_PORTS.multislice, name: 'multislice', protocol: 'TCP'},
                ],
              },
            ],
            nodeSelector: {'cloud.google.com/gke-nodepool': inputs.headPool},
          },
        },
      },
      workerGroupSpecs: inputs.slicePools.map((pool, index) => ({
        replicas: 1,
        numOfHosts: a.vmsPerSlice,
        minReplicas: 1,
        maxReplicas: 1,
        groupName: `workergroup${index}`,
        rayStartParams: {block: 'true'},
        template: {
          spec: {
            containers: [{name: 'ray-worker', image, resources: {limits: worker, requests: worker}}],
            nodeSelector: {
              [KIND_TRAITS.TPU.acceleratorLabel]: a.gkeAccelerator,
              [KIND_TRAITS.TPU.topologyLabel]: a.topology,
              'cloud.google.com/gke-nodepool': pool,
            },
          },
        },
      })),
    },
  }
}
