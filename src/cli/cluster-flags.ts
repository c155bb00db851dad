import * as Flags from '@oclif/core/flags'

import {CLUSTER_DEFAULTS} from '../core/cluster/defaults.js'
import {DEFAULT_APPLY_CONCURRENCY} from '../core/retry.js'
import {integerFlag, pathFlag, valueShape} from './flag-kinds.js'
import {kubeAccessFlags} from './flags.js'

const capacity = ['on-demand', 'spot', 'reservation', 'flex']
const others = (self: string) => capacity.filter((c) => c !== self)

/** The flags of `xpk cluster create`, grouped as in `--help`. Defaults are applied (and documented) in src/core. */
export const clusterCreateFlags = {
  'compute-endpoint': Flags.string({
    description: 'Compute Engine API endpoint, for workload placement policies. [env: XPK_COMPUTE_ENDPOINT]',
    helpGroup: 'TARGET',
  }),
  'num-slices': integerFlag('cluster:num-slices', {
    description: 'Slices (TPU/CPU node pools) the cluster should have; 0 empties it.',
    default: CLUSTER_DEFAULTS.numSlices,
  }),
  'num-nodes': integerFlag('cluster:num-nodes', {
    description: 'GPU only: VMs in the GPU node pool.',
    default: CLUSTER_DEFAULTS.gpuNumNodes,
  }),
  'on-demand': Flags.boolean({
    description: 'Use on-demand VMs.',
    exclusive: others('on-demand'),
    helpGroup: 'CAPACITY (exactly one)',
  }),
  spot: Flags.boolean({
    description: 'Use Spot VMs (cheaper, can be preempted).',
    exclusive: others('spot'),
    helpGroup: 'CAPACITY (exactly one)',
  }),
  reservation: Flags.string({
    ...valueShape('list'),
    description: 'Use these reservations: NAME[,NAME2] or projects/P/reservations/NAME[/reservationBlocks/B].',
    exclusive: others('reservation'),
    helpGroup: 'CAPACITY (exactly one)',
  }),
  flex: Flags.boolean({
    description: 'Use flex-start VMs (Dynamic Workload Scheduler): pools start empty and scale up when work arrives.',
    exclusive: others('flex'),
    helpGroup: 'CAPACITY (exactly one)',
  }),
  'gke-version': Flags.string({
    description: 'Pin the GKE version (REGULAR channel, no auto-upgrade). [default: RAPID channel default]',
  }),
  'default-pool-cpu-machine-type': Flags.string({
    description: `Machine type of the default CPU pool (old name: --cluster-cpu-machine-type). [default: ${CLUSTER_DEFAULTS.defaultPoolCpuMachineType}]`,
    // The seed README's Troubleshooting section still documents Python xpk's old name.
    aliases: ['cluster-cpu-machine-type'],
  }),
  'default-pool-cpu-num-nodes': integerFlag('cluster:default-pool-cpu-num-nodes', {
    description: 'Nodes in the default CPU pool.',
    default: CLUSTER_DEFAULTS.defaultPoolCpuNumNodes,
  }),
  network: Flags.string({description: 'VPC network for the cluster.', helpGroup: 'NETWORK'}),
  subnetwork: Flags.string({description: 'Subnetwork for the nodes.', helpGroup: 'NETWORK'}),
  private: Flags.boolean({description: 'Private nodes (no public IPs).', helpGroup: 'NETWORK'}),
  'authorized-networks': Flags.string({
    description: 'CIDR allowed to reach the control plane; repeat for more (implies --private).',
    multiple: true,
    helpGroup: 'NETWORK',
  }),
  'enable-private-endpoint': Flags.boolean({
    description: 'Control plane reachable only inside the VPC (needs --private).',
    helpGroup: 'NETWORK',
  }),
  'private-endpoint-subnetwork': Flags.string({
    description: 'Subnetwork for the private endpoint (implies --enable-private-endpoint; needs --private).',
    helpGroup: 'NETWORK',
  }),
  'enable-master-global-access': Flags.boolean({
    description: 'Reach the private endpoint from any region (implies --private).',
    helpGroup: 'NETWORK',
  }),
  'max-pods-per-node': integerFlag('cluster:max-pods-per-node', {
    description: 'Pods per node on accelerator pools.',
    default: `${CLUSTER_DEFAULTS.multiHostTpuMaxPodsPerNode} on multi-host TPU pools`,
  }),
  'custom-nodepool-arguments': Flags.string({
    ...valueShape('text'),
    description:
      'Extra gcloud-style node-pool flags, mapped to API fields (e.g. "--node-labels=team=ml --disk-size=200").',
  }),
  'custom-tpu-nodepool-arguments': Flags.string({
    ...valueShape('text'),
    description: 'Like --custom-nodepool-arguments, for multi-host TPU pools only.',
  }),
  'max-parallel': integerFlag('cluster:max-parallel', {
    description: 'Node-pool operations in flight at once.',
    default: DEFAULT_APPLY_CONCURRENCY,
  }),
}

/** How `cluster create` reaches inside the cluster, and what it installs there. */
export const inClusterFlags = {
  'skip-in-cluster': Flags.boolean({
    description:
      'Change only GKE (cluster and node pools): install nothing inside the cluster (JobSet, Kueue, queues, ConfigMaps). For a control plane not reachable from here.',
    helpGroup: 'INSIDE THE CLUSTER',
  }),
  kubeconfig: {...kubeAccessFlags.kubeconfig, helpGroup: 'INSIDE THE CLUSTER', exclusive: ['skip-in-cluster']},
  context: {...kubeAccessFlags.context, helpGroup: 'INSIDE THE CLUSTER', exclusive: ['skip-in-cluster']},
  'jobset-manifest': pathFlag('manifest', {
    description:
      "A file, file:///PATH or https:// URL to install JobSet from, instead of the release's manifests.yaml (air-gapped clusters).",
    helpGroup: 'INSIDE THE CLUSTER',
    exclusive: ['skip-in-cluster'],
  }),
  'kueue-manifest': pathFlag('manifest', {
    description:
      "A file, file:///PATH or https:// URL to install Kueue from, instead of the release's manifests.yaml (air-gapped clusters).",
    helpGroup: 'INSIDE THE CLUSTER',
    exclusive: ['skip-in-cluster'],
  }),
}
