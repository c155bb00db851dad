import {existsSync, readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'

import {loadAll} from 'js-yaml'

import {cacheImageDaemonSet} from '../../../src/core/incluster/cache-image.js'
import type {ClusterShape} from '../../../src/core/incluster/cluster-shape.js'
import {clusterConfigMaps} from '../../../src/core/incluster/configmaps.js'
import {kueueConfiguration, kueueConfigurationObjects} from '../../../src/core/incluster/kueue.js'
import {topologyAwareSchedulingPossible} from '../../../src/core/incluster/topology-aware.js'
import type {InClusterObject} from '../../../src/core/incluster/types.js'
import {gpuNetworkObjects, gpuNetworksFor} from '../../../src/core/cluster/gpu-networks.js'
import {workloadRbacObjects} from '../../../src/core/incluster/workload-rbac.js'
import {aClusterShape, accelerator} from './cluster-shapes.js'

/** One golden file of test/golden/incluster/: the objects one command writes into a cluster. */
export interface GoldenCase {
  readonly file: string
  /** The command the objects stand for, written at the top of the file. */
  readonly command: string
  readonly objects: () => readonly InClusterObject[]
}

/** The Kueue configuration and both ConfigMaps `cluster create` applies for `shape`, in apply order. */
function clusterObjects(shape: ClusterShape): InClusterObject[] {
  const tas = topologyAwareSchedulingPossible(shape.accelerator, shape.capacity, {compactPlacementPool: false})
  const {resources, metadata} = clusterConfigMaps(shape, {xpkVersion: '0.0.0'})
  return [...kueueConfigurationObjects(kueueConfiguration(shape, {topologyAwareScheduling: tas})), resources, metadata]
}

const cluster = 'golden-cluster'

export const GOLDEN_CASES: readonly GoldenCase[] = [
  {
    file: 'cluster-tpu-v5p-16-2-slices-spot.yaml',
    command: `xpk cluster create --cluster ${cluster} --tpu-type=v5p-16 --num-slices=2 --spot`,
    objects: () =>
      clusterObjects(aClusterShape({clusterName: cluster, type: 'v5p-16', numSlices: 2, capacity: 'spot'})),
  },
  {
    file: 'cluster-tpu-v5litepod-256-4-slices-reservation.yaml',
    command: `xpk cluster create --cluster ${cluster} --tpu-type=v5litepod-256 --num-slices=4 --reservation=res-a,res-b`,
    objects: () =>
      clusterObjects(
        aClusterShape({
          clusterName: cluster,
          type: 'v5litepod-256',
          numSlices: 4,
          capacity: 'reservation',
          reservation: 'res-a,res-b',
        }),
      ),
  },
  {
    // Python xpk's recipe NAP_cluster-create_with_pathways.md: the cpu-user flavor and its resource group.
    file: 'cluster-tpu-tpu7x-8-pathways-autoprovisioning.yaml',
    command: `xpk cluster create-pathways --cluster ${cluster} --tpu-type=tpu7x-8 --enable-autoprovisioning --on-demand`,
    objects: () =>
      clusterObjects(
        aClusterShape({
          clusterName: cluster,
          type: 'tpu7x-8',
          numSlices: 1,
          autoprovisioning: {minimumChips: 0, maximumChips: 4},
          pathways: true,
        }),
      ),
  },
  {
    // Python xpk's recipe Cluster_create_super-slicing.md: 3 cubes on the sub-blocks of a block.
    file: 'cluster-tpu-tpu7x-128-3-cubes-super-slicing.yaml',
    command: `xpk cluster create --cluster ${cluster} --tpu-type=tpu7x-4x4x4 --super-slicing --num-cubes=3 --reservation=golden-reservation/reservationBlocks/block`,
    objects: () =>
      clusterObjects(
        aClusterShape({
          clusterName: cluster,
          type: 'tpu7x-4x4x4',
          numSlices: 3,
          capacity: 'reservation',
          reservation: 'golden-reservation/reservationBlocks/block',
          slicing: 'super',
        }),
      ),
  },
  {
    // Python xpk's recipe Cluster_create_sub-slicing.md.
    file: 'cluster-tpu-v6e-16-sub-slicing.yaml',
    command: `xpk cluster create --cluster ${cluster} --tpu-type=v6e-4x4 --sub-slicing --reservation=golden-reservation`,
    objects: () =>
      clusterObjects(
        aClusterShape({
          clusterName: cluster,
          type: 'v6e-4x4',
          numSlices: 1,
          capacity: 'reservation',
          reservation: 'golden-reservation',
          slicing: 'sub',
        }),
      ),
  },
  {
    file: 'cluster-gpu-h100-80gb-8-2-nodes-flex.yaml',
    command: `xpk cluster create --cluster ${cluster} --device-type=h100-80gb-8 --num-nodes=2 --flex`,
    objects: () =>
      clusterObjects(aClusterShape({clusterName: cluster, type: 'h100-80gb-8', numNodes: 2, capacity: 'flex'})),
  },
  {
    file: 'cluster-gpu-h100-80gb-8-2-nodes-on-demand.yaml',
    command: `xpk cluster create --cluster ${cluster} --device-type=h100-80gb-8 --num-nodes=2 --on-demand`,
    objects: () =>
      clusterObjects(aClusterShape({clusterName: cluster, type: 'h100-80gb-8', numNodes: 2, capacity: 'on-demand'})),
  },
  {
    // Python xpk's CLUSTER_NETWORK_YAML (core/network.py) for an A3 High cluster in us-central1, but for vpcSubnet:
    // the subnetwork Python creates (<cluster>-<region>-sub-<i>), where Python's YAML names <cluster>-sub-<i>.
    file: 'cluster-gpu-h100-80gb-8-networks.yaml',
    command: `xpk cluster create --cluster ${cluster} --zone=us-central1-a --device-type=h100-80gb-8 (the GPU networks)`,
    objects: () =>
      gpuNetworkObjects(
        gpuNetworksFor(accelerator('h100-80gb-8'), {
          project: 'p',
          region: 'us-central1',
          zone: 'us-central1-a',
          name: cluster,
        }),
      ),
  },
  // Cluster Toolkit's gke-cluster templates (gke-network-paramset, network-object) for the networks of Python's
  // blueprints: k8s_network_names `<cluster>-gpunet-<i>-subnet` (A3 Mega), `<cluster>-sub-1` and
  // `<cluster>-rdma-sub-<i>` in RDMA device mode (A3 Ultra, A4).
  ...(['h100-mega-80gb-8', 'h200-141gb-8', 'b200-8'] as const).map((type) => ({
    file: `cluster-gpu-${type}-networks.yaml`,
    command: `xpk cluster create --cluster ${cluster} --zone=us-central1-a --device-type=${type} (the GPU networks)`,
    objects: () =>
      gpuNetworkObjects(
        gpuNetworksFor(accelerator(type), {project: 'p', region: 'us-central1', zone: 'us-central1-a', name: cluster}),
      ),
  })),
  {
    file: 'cluster-cpu-n2-standard-32-4-2-slices-on-demand.yaml',
    command: `xpk cluster create --cluster ${cluster} --device-type=n2-standard-32-4 --num-slices=2 --on-demand`,
    objects: () =>
      clusterObjects(
        aClusterShape({clusterName: cluster, type: 'n2-standard-32-4', numSlices: 2, capacity: 'on-demand'}),
      ),
  },
  {
    // Python's recipe Cluster_create_with_CPU_and_memory_limits_above_capacity, with ct5p-hightpu-4t's capacity
    // (208 vCPUs, 458752 MB) in place of its dry run's pretended "10 10".
    file: 'cluster-tpu-v5p-16-1-slice-spot-cpu-memory-limits.yaml',
    command: `xpk cluster create --cluster ${cluster} --tpu-type=v5p-16 --spot --cpu-limit=300 --memory-limit=1Ti`,
    objects: () =>
      clusterObjects(
        aClusterShape({clusterName: cluster, type: 'v5p-16', capacity: 'spot', cpuQuota: 208, memoryQuota: '458752Mi'}),
      ),
  },
  {
    file: 'cluster-gpu-h100-80gb-8-2-nodes-memory-limit.yaml',
    command: `xpk cluster create --cluster ${cluster} --device-type=h100-80gb-8 --num-nodes=2 --on-demand --memory-limit=1872Gi`,
    objects: () =>
      clusterObjects(
        aClusterShape({
          clusterName: cluster,
          type: 'h100-80gb-8',
          numNodes: 2,
          capacity: 'on-demand',
          memoryQuota: '1872Gi',
        }),
      ),
  },
  {
    file: 'cacheimage-tpu-v5p-16.yaml',
    command: `xpk cluster cacheimage --cluster ${cluster} --tpu-type=v5p-16 --docker-image=gcr.io/golden-project/trainer:v1`,
    objects: () => [
      cacheImageDaemonSet({
        cacheKey: 'containerimage',
        image: 'gcr.io/golden-project/trainer:v1',
        accelerator: accelerator('v5p-16'),
      }),
    ],
  },
  {
    file: 'cacheimage-cpu-n2-standard-32-4.yaml',
    command:
      `xpk cluster cacheimage --cluster ${cluster} --device-type=n2-standard-32-4 ` +
      '--docker-image=python:3.11 --cache-key=python311',
    objects: () => [
      cacheImageDaemonSet({cacheKey: 'python311', image: 'python:3.11', accelerator: accelerator('n2-standard-32-4')}),
    ],
  },
  {
    file: 'workload-rbac.yaml',
    command: `xpk workload create --cluster ${cluster} ... (before the first JobSet)`,
    objects: () => workloadRbacObjects(),
  },
]

/** Where a golden file lives. */
export function goldenPath(file: string): string {
  return fileURLToPath(new URL(`../../golden/incluster/${file}`, import.meta.url))
}

/** The documents of a golden file as a YAML 1.1 reader (kubectl) reads them; none while it is missing. */
export function goldenDocuments(file: string): Record<string, unknown>[] {
  const path = goldenPath(file)
  return existsSync(path) ? (loadAll(readFileSync(path, 'utf8')) as Record<string, unknown>[]) : []
}

/** Every document of every golden, labelled for test names. */
export function allGoldenDocuments(): {readonly label: string; readonly doc: Record<string, unknown>}[] {
  return GOLDEN_CASES.flatMap((c) =>
    goldenDocuments(c.file).map((doc, index) => ({
      label: `${String(doc.kind)} ${String((doc.metadata as {name?: string} | undefined)?.name)} (${c.file} #${index + 1})`,
      doc,
    })),
  )
}
