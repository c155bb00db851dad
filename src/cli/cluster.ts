/**
 * The `cluster` topic: the flags of its commands, and their wiring (settings, timing and the adapters behind each
 * service). The flags are read when the CLI starts (help, parsing); everything else is imported when a command
 * runs, by the function that needs it, so `--help` and the other topics never load it.
 */
import {readFileSync} from 'node:fs'
import {hostname, uptime, userInfo} from 'node:os'

import * as Flags from '@oclif/core/flags'

import {CLUSTER_DEFAULTS} from '../core/cluster/defaults.js'
import {DEFAULT_CACHE_KEY} from '../core/incluster/cache-image.js'
import {DEFAULT_APPLY_CONCURRENCY} from '../core/retry.js'
import type {ResolvedSettings} from '../core/settings.js'
import type {Timing} from '../core/timing.js'
import type {ComputeClient} from '../ports/compute.js'
import type {CacheImageResult} from '../services/cluster-cacheimage.js'
import type {ClusterAdaptResult} from '../services/cluster-adapt.js'
import type {ClusterCreateResult} from '../services/cluster-create.js'
import type {ClusterDeleteResult} from '../services/cluster-delete.js'
import type {ClusterLockOptions} from '../services/cluster-lock.js'
import type {ClusterDescription} from '../services/cluster-read.js'
import type {ObservedCluster} from '../core/cluster/observed.js'
import type {Invocation} from './base-command.js'
import {insideCluster, startCommand} from './command-start.js'
import {choiceFlag, integerFlag, pathFlag, valueShape, type FlagOptions} from './flag-kinds.js'
import {
  acceleratorFlags,
  changeFlags,
  gkeEndpointFlag,
  kubeAccessFlags,
  offlineFlag,
  outputFlags,
  noChangeDryRunFlag,
  targetFlags,
} from './flags.js'

const capacity = ['on-demand', 'spot', 'reservation', 'flex']
const others = (self: string) => capacity.filter((c) => c !== self)

/**
 * How a command that also works inside the cluster reaches it: --kubeconfig and --context, unless --skip-in-cluster
 * (what it skips is `skip`) leaves the inside alone.
 */
function insideClusterFlags(skip: string) {
  const reach = {helpGroup: 'INSIDE THE CLUSTER', exclusive: ['skip-in-cluster']}
  return {
    'skip-in-cluster': Flags.boolean({description: skip, helpGroup: 'INSIDE THE CLUSTER'}),
    kubeconfig: {...kubeAccessFlags.kubeconfig, ...reach},
    context: {...kubeAccessFlags.context, ...reach},
  }
}

/** The flags of `xpk cluster create`, grouped as in `--help`. Defaults are applied (and documented) in src/core. */
export const clusterCreateFlags = {
  ...targetFlags,
  ...gkeEndpointFlag,
  ...acceleratorFlags,
  'compute-endpoint': Flags.string({
    description:
      'Compute Engine API endpoint, for reservations and workload placement policies. [env: XPK_COMPUTE_ENDPOINT]',
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
  'sub-slicing': Flags.boolean({
    description:
      "Sub-slicing (v6e 2x4 to 16x16): workloads of smaller topologies share slices, placed by Kueue's sub-slice Topology. Needs a Cluster Director (DENSE) --reservation.",
    helpGroup: 'SLICING',
  }),
  'super-slicing': Flags.boolean({
    description:
      "Super-slicing (tpu7x-4x4x4 cubes): each pool on a healthy sub-block of the Cluster Director (DENSE) --reservation; GKE's slice controller joins cubes into larger slices.",
    helpGroup: 'SLICING',
  }),
  'num-cubes': integerFlag('cluster:num-cubes', {
    description: 'With --super-slicing: the cubes (node pools); --num-slices, if given too, must be the same.',
    default: '--num-slices, else 1',
    helpGroup: 'SLICING',
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
  // CSI drivers and Workload Identity, by Python xpk's flag names: in the create request of a new cluster, as updates
  // of an existing one.
  'enable-workload-identity': Flags.boolean({
    description:
      "Workload Identity: pods act as their Kubernetes service account (the project's pool PROJECT.svc.id.goog); xpk's node pools use the GKE metadata server.",
    helpGroup: 'STORAGE',
  }),
  'enable-gcsfuse-csi-driver': Flags.boolean({
    description: 'Enable the Cloud Storage FUSE CSI driver (buckets as volumes); implies --enable-workload-identity.',
    helpGroup: 'STORAGE',
  }),
  'enable-gcpfilestore-csi-driver': Flags.boolean({
    description: 'Enable the Filestore CSI driver.',
    helpGroup: 'STORAGE',
  }),
  'enable-parallelstore-csi-driver': Flags.boolean({
    description: 'Enable the Parallelstore CSI driver.',
    helpGroup: 'STORAGE',
  }),
  'enable-pd-csi-driver': Flags.boolean({
    description: 'Enable the Compute Engine persistent disk CSI driver.',
    helpGroup: 'STORAGE',
  }),
  'enable-lustre-csi-driver': Flags.boolean({
    description: 'Enable the Managed Lustre CSI driver.',
    helpGroup: 'STORAGE',
  }),
  'enable-legacy-lustre-port': Flags.boolean({
    description:
      'Run the Lustre CSI driver on its legacy port 6988 (nodes older than GKE 1.33.2-gke.4655000); needs --enable-lustre-csi-driver.',
    helpGroup: 'STORAGE',
  }),
  'cpu-limit': integerFlag('cluster:cpu-limit', {
    description:
      "The ClusterQueue's cpu quota, as Python xpk sets it: replaced by the vCPUs of one VM of the type when they differ (Compute Engine's machine type). Not for CPU types. [default: no cpu quota]",
    helpGroup: 'KUEUE',
  }),
  'memory-limit': Flags.string({
    description:
      "The ClusterQueue's memory quota (a Kubernetes quantity, e.g. 64Gi), as Python xpk sets it: replaced by the memory of one VM of the type when it differs (Compute Engine's machine type). [default: no memory quota]",
    helpGroup: 'KUEUE',
  }),
  'max-parallel': integerFlag('cluster:max-parallel', {
    description: 'Node-pool operations in flight at once.',
    default: DEFAULT_APPLY_CONCURRENCY,
  }),
  'enable-autoprovisioning': Flags.boolean({
    description:
      'TPU types: GKE node auto-provisioning creates and removes slices as workloads ask for them, within the chips below.',
    helpGroup: 'AUTOPROVISIONING',
  }),
  'autoprovisioning-min-chips': integerFlag('cluster:autoprovisioning-min-chips', {
    description: 'Chips node auto-provisioning keeps at least.',
    default: 0,
    helpGroup: 'AUTOPROVISIONING',
  }),
  'autoprovisioning-max-chips': integerFlag('cluster:autoprovisioning-max-chips', {
    description: "Chips node auto-provisioning provides at most; Kueue's quota.",
    default: 'the chips of --num-slices slices',
    helpGroup: 'AUTOPROVISIONING',
  }),
  'host-maintenance-interval': choiceFlag(['AS_NEEDED', 'PERIODIC'], {
    description: "Host maintenance of the node pools' VMs; PERIODIC pools go through GKE's v1beta1 API.",
    default: 'AS_NEEDED',
  }),
  'custom-cluster-arguments': Flags.string({
    ...valueShape('text'),
    description:
      'Extra gcloud-style cluster flags, mapped to fields of the create request (e.g. "--cluster-ipv4-cidr=10.224.0.0/12").',
  }),
  // How `cluster create` reaches inside the cluster, and what it installs there.
  ...insideClusterFlags(
    'Change only GKE (cluster and node pools): install nothing inside the cluster (JobSet, Kueue, queues, ConfigMaps). For a control plane not reachable from here.',
  ),
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
  'nccl-installer-manifest': pathFlag('manifest', {
    description:
      "A file, file:///PATH or https:// URL to install the NCCL plugin from (TCPX, TCPXO or RDMA, as the GPU type takes), instead of Google's on GitHub.",
    helpGroup: 'INSIDE THE CLUSTER',
    exclusive: ['skip-in-cluster'],
  }),
  'nri-device-injector-manifest': pathFlag('manifest', {
    description:
      "A file, file:///PATH or https:// URL to install the NRI device injector from (h100-80gb-8, h100-mega-80gb-8), instead of Google's on GitHub.",
    helpGroup: 'INSIDE THE CLUSTER',
    exclusive: ['skip-in-cluster'],
  }),
  ...changeFlags,
  ...offlineFlag,
}

/** The flags of `xpk cluster create-pathways`: `cluster create`'s, and the machine type of the Pathways CPU pool. */
export const clusterCreatePathwaysFlags = {
  ...clusterCreateFlags,
  'pathways-gce-machine-type': Flags.string({
    description:
      "Machine type of the Pathways CPU pool cpu-np, where the workloads' heads run: at least 49 vCPUs and 233 GiB, checked against the zone's machine types.",
    default: CLUSTER_DEFAULTS.pathwaysGceMachineType,
    helpGroup: 'PATHWAYS',
  }),
}

/**
 * The flags of `xpk cluster adapt`: those of `cluster create` that say what the cluster holds and what goes inside it.
 * The type, slices and capacity default to what the node pools have (Python xpk requires the type and takes
 * --num-slices 1 on trust); nothing here changes GKE, so there are no pool, network or driver flags.
 */
export const clusterAdaptFlags = {
  ...targetFlags,
  ...gkeEndpointFlag,
  'tpu-type': {
    ...acceleratorFlags['tpu-type'],
    description: `${acceleratorFlags['tpu-type'].description} [default: the one accelerator type of the node pools]`,
  },
  'device-type': acceleratorFlags['device-type'],
  'compute-endpoint': clusterCreateFlags['compute-endpoint'],
  'num-slices': integerFlag('cluster:num-slices', {
    description: "Slices Kueue's quota covers; more than the pools hold is refused (exit 2) unless --force.",
    default: 'the slices of the node pools',
  }),
  'num-nodes': integerFlag('cluster:num-nodes', {
    description: "GPU only: VMs Kueue's quota covers; more than the pools hold is refused (exit 2) unless --force.",
    default: 'the VMs of the GPU node pools',
  }),
  'on-demand': {...clusterCreateFlags['on-demand'], helpGroup: 'CAPACITY (at most one; default: the pools’)'},
  spot: {...clusterCreateFlags.spot, helpGroup: 'CAPACITY (at most one; default: the pools’)'},
  reservation: {
    ...clusterCreateFlags.reservation,
    description: 'The reservations the pools use: recorded in the metadata ConfigMap (not read or checked).',
    helpGroup: 'CAPACITY (at most one; default: the pools’)',
  },
  flex: {...clusterCreateFlags.flex, helpGroup: 'CAPACITY (at most one; default: the pools’)'},
  'cpu-limit': clusterCreateFlags['cpu-limit'],
  'memory-limit': clusterCreateFlags['memory-limit'],
  'enable-autoprovisioning': Flags.boolean({
    description:
      "TPU types: Kueue's quota is the maximum of GKE's node auto-provisioning for the type, which the cluster must have already (adapt changes nothing in GKE).",
    helpGroup: 'AUTOPROVISIONING',
  }),
  'autoprovisioning-min-chips': integerFlag('cluster:autoprovisioning-min-chips', {
    description: "Must equal GKE's minimum for the type, when given.",
    default: "GKE's",
    helpGroup: 'AUTOPROVISIONING',
  }),
  'autoprovisioning-max-chips': integerFlag('cluster:autoprovisioning-max-chips', {
    description: "Must equal GKE's maximum for the type, when given.",
    default: "GKE's",
    helpGroup: 'AUTOPROVISIONING',
  }),
  kubeconfig: {...kubeAccessFlags.kubeconfig, helpGroup: 'INSIDE THE CLUSTER'},
  context: {...kubeAccessFlags.context, helpGroup: 'INSIDE THE CLUSTER'},
  'jobset-manifest': {...clusterCreateFlags['jobset-manifest'], exclusive: undefined},
  'kueue-manifest': {...clusterCreateFlags['kueue-manifest'], exclusive: undefined},
  ...changeFlags,
}

/** The flags of `cluster create` that `cluster create-ray` does not have (Python xpk's create-ray has none of them). */
const CREATE_RAY_DROP_NAMES = [
  'num-nodes',
  'sub-slicing',
  'super-slicing',
  'num-cubes',
  'enable-autoprovisioning',
  'autoprovisioning-min-chips',
  'autoprovisioning-max-chips',
] as const
type CreateRayDrop = (typeof CREATE_RAY_DROP_NAMES)[number]
const CREATE_RAY_DROPS: ReadonlySet<string> = new Set(CREATE_RAY_DROP_NAMES)

/**
 * The flags of `xpk cluster create-ray`: `cluster create`'s, without those Python xpk's create-ray drops (GPU
 * --num-nodes, sub- and super-slicing, autoprovisioning), plus the required --ray-version. --skip-in-cluster keeps
 * its meaning: GKE only (the addon, but no RayCluster).
 */
export const clusterCreateRayFlags = {
  ...(Object.fromEntries(Object.entries(clusterCreateFlags).filter(([name]) => !CREATE_RAY_DROPS.has(name))) as Omit<
    typeof clusterCreateFlags,
    CreateRayDrop
  >),
  'ray-version': Flags.string({
    description:
      "The Ray release of the RayCluster (e.g. 2.38.0): KubeRay's rayVersion and the rayproject/ray image's tag. Another version on a re-run updates the RayCluster.",
    required: true,
    helpGroup: 'RAY',
  }),
}

/** The flags of `xpk cluster delete`. */
export const clusterDeleteFlags = {
  ...targetFlags,
  ...gkeEndpointFlag,
  'compute-endpoint': clusterCreateFlags['compute-endpoint'],
  ...changeFlags,
}

/** The flags of `xpk cluster list`: no cluster, a zone narrows the list to its region. */
export const clusterListFlags = {
  project: targetFlags.project,
  zone: targetFlags.zone,
  ...gkeEndpointFlag,
  ...outputFlags,
  ...noChangeDryRunFlag,
}

/** The flags of `xpk cluster describe`. */
export const clusterDescribeFlags = {
  ...targetFlags,
  ...gkeEndpointFlag,
  ...insideClusterFlags(
    'Show only what GKE reports; do not read inside the cluster (for a control plane not reachable from here).',
  ),
  ...outputFlags,
  ...noChangeDryRunFlag,
}

/** The flags of `xpk cluster cacheimage`. */
export const clusterCacheImageFlags = {
  ...targetFlags,
  ...gkeEndpointFlag,
  ...acceleratorFlags,
  'docker-image': Flags.string({
    description: 'The image to cache on every node of the type, as workloads will name it.',
    required: true,
  }),
  'cache-key': Flags.string({
    description: `Names the DaemonSet that caches the image; another key caches a second image beside the first. [default: ${DEFAULT_CACHE_KEY}]`,
  }),
  ...kubeAccessFlags,
  'dry-run': Flags.boolean({
    description: 'Show the DaemonSet that would be applied; make no network call.',
    helpGroup: 'GLOBAL',
  }),
}

/**
 * `xpk cluster create`: GKE and Compute Engine connect on first use, the release manifests are fetched when needed.
 * Project, zone and cluster as resolved (flag > env > xpk config > gcloud); the other flags as given.
 */
export async function createCluster(
  options:
    | FlagOptions<typeof clusterCreateFlags>
    | FlagOptions<typeof clusterCreatePathwaysFlags>
    | FlagOptions<typeof clusterCreateRayFlags>,
  run: Invocation,
): Promise<ClusterCreateResult> {
  const [{wiring, settings, timing}, {createCluster}, {HttpReleaseManifests}, {HttpInstallerManifests}] =
    await Promise.all([
      startCommand(import('./wiring.js'), options, run),
      import('../services/cluster-create.js'),
      import('../adapters/release-manifests.js'),
      import('../adapters/installer-manifests.js'),
    ])
  return createCluster(
    {
      flags: {...options, ...wiring.clusterTarget(settings)},
      dryRun: options.dryRun,
      offline: options.offline,
      verbose: options.verbose,
      timing,
      inCluster: {
        skip: options.skipInCluster,
        ...installOptions(options, run, wiring.viaKubeconfig(options)),
        installerOverrides: {
          '--nccl-installer-manifest': options.ncclInstallerManifest,
          '--nri-device-injector-manifest': options.nriDeviceInjectorManifest,
        },
      },
      lock: clusterLock(timing),
    },
    {
      ...wiring.clusterAccess(settings, options, run),
      compute: computeConnector(settings),
      manifests: new HttpReleaseManifests(),
      installers: new HttpInstallerManifests(),
    },
  )
}

/** What `cluster create` and `cluster adapt` install inside the cluster from: the releases, or the files given. */
function installOptions(
  options: {readonly jobsetManifest?: string; readonly kueueManifest?: string},
  run: Invocation,
  viaKubeconfig: boolean,
) {
  return {
    viaKubeconfig,
    xpkVersion: run.version,
    manifestOverrides: {jobset: options.jobsetManifest, kueue: options.kueueManifest},
  }
}

/**
 * `xpk cluster adapt`: GKE to read the cluster (never to change it), Compute Engine for --cpu-limit/--memory-limit,
 * the cluster's Kubernetes API, the release manifests when needed.
 */
export async function adaptCluster(
  options: FlagOptions<typeof clusterAdaptFlags>,
  run: Invocation,
): Promise<ClusterAdaptResult> {
  const [{wiring, settings, timing}, {adaptCluster}, {HttpReleaseManifests}] = await Promise.all([
    startCommand(import('./wiring.js'), options, run),
    import('../services/cluster-adapt.js'),
    import('../adapters/release-manifests.js'),
  ])
  return adaptCluster(
    {
      flags: {...options, ...wiring.clusterTarget(settings)},
      dryRun: options.dryRun,
      verbose: options.verbose,
      timing,
      inCluster: {
        ...installOptions(options, run, wiring.viaKubeconfig(options)),
      },
      lock: clusterLock(timing),
    },
    {
      ...wiring.clusterAccess(settings, options, run),
      compute: computeConnector(settings),
      manifests: new HttpReleaseManifests(),
    },
  )
}

/** `xpk cluster delete`: GKE and Compute Engine (the GPU networks) on first use. Project, zone and cluster are required. */
export async function deleteCluster(
  options: FlagOptions<typeof clusterDeleteFlags>,
  run: Invocation,
): Promise<ClusterDeleteResult> {
  const [{wiring, settings, timing}, {deleteCluster}, {requireSettings}] = await Promise.all([
    startCommand(import('./wiring.js'), options, run),
    import('../services/cluster-delete.js'),
    import('../core/settings.js'),
  ])
  return deleteCluster(
    {
      ...requireSettings(settings, 'project', 'zone', 'cluster'),
      dryRun: options.dryRun,
      timing,
      lock: clusterLock(timing),
    },
    {
      gke: wiring.gkeConnector(settings),
      compute: computeConnector(settings),
      console: run.console,
      signal: run.signal,
      ...wiring.systemClock,
    },
  )
}

/** `xpk cluster list`: GKE on first use; the project is required. Shows the table. */
export async function listClusters(
  options: FlagOptions<typeof clusterListFlags>,
  run: Invocation,
): Promise<ObservedCluster[]> {
  const [
    {wiring, settings, timing},
    {listClusters},
    {requireSetting},
    {clusterListView},
    {showOutput},
    {clusterListNoneFound},
  ] = await Promise.all([
    startCommand(import('./wiring.js'), options, run),
    import('../services/cluster-read.js'),
    import('../core/settings.js'),
    import('../core/render/clusters.js'),
    import('../services/show-output.js'),
    import('../core/messages/lists.js'),
  ])
  const clusters = await listClusters(
    {project: requireSetting(settings, 'project'), zone: options.zone, timing},
    {gke: wiring.gkeConnector(settings), signal: run.signal, ...wiring.systemClock},
  )
  showOutput(run.console, run.output, clusterListView, clusters, () =>
    clusterListNoneFound({project: requireSetting(settings, 'project'), zone: options.zone ?? null}),
  )
  return clusters
}

/**
 * `xpk cluster describe`: GKE and the cluster's Kubernetes API on first use. Project, zone and cluster are required
 * unless `--kubeconfig` / `--context` reach the cluster without GKE. Shows the description.
 */
export async function describeCluster(
  options: FlagOptions<typeof clusterDescribeFlags>,
  run: Invocation,
): Promise<ClusterDescription> {
  const [{wiring, settings, timing}, {describeCluster}, {requireSettings}, {clusterDescribeView}, {showOutput}] =
    await Promise.all([
      startCommand(import('./wiring.js'), options, run),
      import('../services/cluster-read.js'),
      import('../core/settings.js'),
      import('../core/render/clusters.js'),
      import('../services/show-output.js'),
    ])
  const target = wiring.viaKubeconfig(options) ? null : requireSettings(settings, 'project', 'zone', 'cluster')
  const description = await describeCluster(
    {target, skipInCluster: options.skipInCluster, timing},
    wiring.clusterAccess(settings, options, run),
  )
  showOutput(run.console, run.output, clusterDescribeView, description)
  return description
}

/**
 * `xpk cluster cacheimage`: GKE (to find the cluster) and its Kubernetes API on first use. XPK_CACHE_IMAGE_TIMEOUT_S
 * bounds the wait for every node to pull the image (default 30 min: large images on many nodes take long).
 */
export async function cacheImage(
  options: FlagOptions<typeof clusterCacheImageFlags>,
  run: Invocation,
): Promise<CacheImageResult> {
  return insideCluster(
    import('./wiring.js'),
    options,
    run,
    import('../services/cluster-cacheimage.js').then((m) => m.cacheImage),
  )
}

/** Connects to Compute Engine (once, on first use) with the compute-endpoint setting and XPK_ACCESS_TOKEN, if set. */
function computeConnector(settings: ResolvedSettings): () => Promise<ComputeClient> {
  let client: Promise<ComputeClient> | undefined
  // Imported on use: only `cluster create` for types with a workload policy needs it, and start-up pays per byte.
  return () =>
    (client ??= Promise.all([import('./wiring.js'), import('../adapters/compute-rest.js')]).then(
      ([wiring, {createComputeClient}]) =>
        createComputeClient({endpoint: settings['compute-endpoint'].value, accessToken: wiring.accessToken()}),
    ))
}

/**
 * The cluster lock `cluster create` and `cluster delete` take: who holds it, this process (user@host, pid, this boot
 * of the machine), how to tell whether a process of this machine still runs, and when another run's lock counts as
 * abandoned (the timing's: XPK_CLUSTER_LOCK_STALE_S).
 */
function clusterLock(timing: Pick<Timing, 'lockStaleSeconds'>): ClusterLockOptions {
  let user = process.env.USER ?? 'unknown'
  try {
    user = userInfo().username
  } catch {
    // No passwd entry for this uid (a container's arbitrary user): the environment's name, if any.
  }
  // With the host name, it says a lock was taken on this machine since it booted: Linux's boot id, else the boot
  // time to the minute.
  let boot: string
  try {
    boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').replaceAll('-', '').trim().slice(0, 16)
  } catch {
    boot = `t${Math.round((Date.now() / 1000 - uptime()) / 60)}`
  }
  return {
    identity: {user, host: hostname(), pid: process.pid, boot},
    staleSeconds: timing.lockStaleSeconds,
    alive: (pid) => {
      try {
        process.kill(pid, 0)
        return true
      } catch (error) {
        // EPERM: it runs, as another user.
        return (error as NodeJS.ErrnoException).code === 'EPERM'
      }
    },
  }
}
