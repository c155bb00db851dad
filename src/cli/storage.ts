/**
 * The `storage` topic: the flags of its commands, and their wiring. The flags are read when the CLI starts (help,
 * parsing); everything else is imported when a command runs, so `--help` and the other topics never load it.
 */
import * as Flags from '@oclif/core/flags'

import {FILESTORE_TIERS} from '../core/storage/backends.js'
import {CREATE_DEFAULT_TIER} from '../core/storage/create-plan.js'
import {ATTACH_DEFAULTS} from '../core/storage/rules.js'
import {ACCESS_MODES, STORAGE_TYPES} from '../core/storage/types.js'
import type {StorageAttachResult} from '../services/storage-attach.js'
import type {StorageCreateResult} from '../services/storage-create.js'
import type {StorageDeleteResult} from '../services/storage-delete.js'
import type {StorageDetachResult} from '../services/storage-detach.js'
import type {StorageListResult} from '../services/storage-list.js'
import type {Invocation} from './base-command.js'
import {insideCluster, startCommand} from './command-start.js'
import {choiceFlag, integerFlag, pathFlag, valueShape, type FlagOptions} from './flag-kinds.js'
import {changeFlags, gkeEndpointFlag, kubeAccessFlags, noChangeDryRunFlag, outputFlags, targetFlags} from './flags.js'

/** The flags of `xpk storage list`: the cluster is reached as `workload list` reaches it. */
export const storageListFlags = {
  ...targetFlags,
  ...gkeEndpointFlag,
  ...kubeAccessFlags,
  ...outputFlags,
  ...noChangeDryRunFlag,
}

/** `xpk storage list`: GKE (to find the cluster) and its Kubernetes API on first use. */
export async function listStorages(
  options: FlagOptions<typeof storageListFlags>,
  run: Invocation,
): Promise<StorageListResult> {
  return insideCluster(
    import('./wiring.js'),
    {...options, output: run.output},
    run,
    import('../services/storage-list.js').then((m) => m.listStorages),
  )
}

/** The endpoints of the two Google services behind a storage, as `--gke-endpoint` is GKE's. */
const storageEndpointFlags = {
  'storage-endpoint': Flags.string({
    description: 'Cloud Storage JSON API endpoint, e.g. https://storage.googleapis.com/. [env: XPK_STORAGE_ENDPOINT]',
    helpGroup: 'TARGET',
  }),
  'filestore-endpoint': Flags.string({
    description: 'Filestore API endpoint, e.g. https://file.googleapis.com/. [env: XPK_FILESTORE_ENDPOINT]',
    helpGroup: 'TARGET',
  }),
}

const trueFalse = (description: string) => choiceFlag(['true', 'false'], {description})

/** The flags of `xpk storage attach`: Python xpk's, plus --project-number (GCS FUSE), the endpoints and --force. */
export const storageAttachFlags = {
  ...targetFlags,
  ...gkeEndpointFlag,
  ...kubeAccessFlags,
  ...storageEndpointFlags,
  type: choiceFlag(STORAGE_TYPES, {description: 'What the storage is: a bucket, a Filestore instance, or a manifest.'}),
  'auto-mount': trueFalse('Whether every workload mounts it (true or false).'),
  // A path inside the workloads' containers, not on this machine: checked by core/storage/rules.ts, not as a local path.
  'mount-point': Flags.string({
    description: 'Where workloads find it: an absolute path in their containers, like /data.',
  }),
  readonly: trueFalse('Whether workloads may only read it (true or false).'),
  bucket: Flags.string({description: 'gcsfuse: the Cloud Storage bucket. [default: NAME]', helpGroup: 'GCS FUSE'}),
  size: integerFlag('storage:size', {
    description: 'gcsfuse: the capacity the volume states, in GiB.',
    helpGroup: 'GCS FUSE',
  }),
  'mount-options': Flags.string({
    ...valueShape('list'),
    description: 'gcsfuse: comma-separated GCS FUSE mount options.',
    helpGroup: 'GCS FUSE',
  }),
  'prefetch-metadata': Flags.boolean({
    description: `gcsfuse: fill the metadata cache when the volume is mounted. [default: ${ATTACH_DEFAULTS.prefetchMetadata}]`,
    allowNo: true,
    helpGroup: 'GCS FUSE',
  }),
  'project-number': Flags.string({
    description:
      "gcsfuse: the project's number, which the workloads' Workload Identity principal names (`gcloud projects describe PROJECT --format='value(projectNumber)'`).",
    helpGroup: 'GCS FUSE',
  }),
  instance: Flags.string({
    description: 'gcpfilestore: the Filestore instance. [default: NAME]',
    helpGroup: 'FILESTORE',
  }),
  vol: Flags.string({
    description: `gcpfilestore: its file share. [default: ${ATTACH_DEFAULTS.vol}]`,
    helpGroup: 'FILESTORE',
  }),
  'access-mode': choiceFlag(ACCESS_MODES, {
    description: 'gcpfilestore: how pods may mount the volume.',
    default: ATTACH_DEFAULTS.accessMode,
    helpGroup: 'FILESTORE',
  }),
  manifest: pathFlag('file', {
    description:
      'A YAML file of the PersistentVolume and its claim (parallelstore, pd, lustre; or gcsfuse and gcpfilestore as written).',
  }),
  'enable-legacy-lustre-port': Flags.boolean({
    description: 'lustre: the CSI driver uses the legacy port (instances made with --gke-support-enabled).',
  }),
  ...changeFlags,
}

/** The flags every attached storage has, whatever its type (the Storage object's own fields), as given. */
function storageSettings(options: {
  readonly name?: string
  readonly type?: string
  readonly autoMount?: string
  readonly mountPoint?: string
  readonly readonly?: string
}) {
  const {name, type, autoMount, mountPoint, readonly} = options
  return {name, type, autoMount, mountPoint, readonly}
}

/** `xpk storage attach NAME`: GKE, the cluster, and the bucket's or instance's API on first use. */
export async function attachStorage(
  options: FlagOptions<typeof storageAttachFlags> & {readonly name?: string},
  run: Invocation,
): Promise<StorageAttachResult> {
  const [{wiring, settings, timing}, {attachStorage}, {NodeFiles}, endpoints] = await Promise.all([
    startCommand(import('./wiring.js'), options, run),
    import('../services/storage-attach.js'),
    import('../adapters/local-files.js'),
    import('../core/storage/endpoints.js'),
  ])
  // Checked now, with the settings: a bad endpoint is bad input before any request.
  const filestoreEndpoint = endpoints.resolveFilestoreEndpoint(options.filestoreEndpoint, process.env)
  const storageEndpoint = endpoints.resolveStorageEndpoint(options.storageEndpoint, process.env)
  const accessToken = wiring.accessToken()
  return attachStorage(
    {
      ...wiring.clusterTarget(settings),
      viaKubeconfig: false,
      flags: {
        ...storageSettings(options),
        bucket: options.bucket,
        size: options.size,
        mountOptions: options.mountOptions,
        prefetchMetadata: options.prefetchMetadata,
        instance: options.instance,
        vol: options.vol,
        accessMode: options.accessMode,
        manifest: options.manifest,
        enableLegacyLustrePort: options.enableLegacyLustrePort,
      },
      projectNumber: options.projectNumber,
      dryRun: options.dryRun,
      timing,
    },
    {
      // A kubeconfig reaches the cluster's API; GKE is read all the same (the cluster updates are GKE's).
      ...wiring.clusterAccess(settings, options, run),
      files: new NodeFiles(),
      filestore: () =>
        import('../adapters/filestore-rest.js').then((m) =>
          m.createFilestoreClient({endpoint: filestoreEndpoint, accessToken}),
        ),
      cloudStorage: () =>
        import('../adapters/cloud-storage-rest.js').then((m) =>
          m.createCloudStorageClient({endpoint: storageEndpoint, accessToken}),
        ),
    },
  )
}

/** The flags of `xpk storage detach NAME`. */
export const storageDetachFlags = {
  ...targetFlags,
  ...gkeEndpointFlag,
  ...kubeAccessFlags,
  ...changeFlags,
}

/** `xpk storage detach NAME`: GKE (to find the cluster) and its Kubernetes API on first use. */
export async function detachStorage(
  options: FlagOptions<typeof storageDetachFlags> & {readonly name?: string},
  run: Invocation,
): Promise<StorageDetachResult> {
  return insideCluster(
    import('./wiring.js'),
    options,
    run,
    import('../services/storage-detach.js').then((m) => m.detachStorage),
  )
}

/** The flags of `xpk storage delete NAME` (Python xpk's, with the Filestore endpoint and --kubeconfig/--context). */
export const storageDeleteFlags = {
  ...targetFlags,
  ...gkeEndpointFlag,
  'filestore-endpoint': storageEndpointFlags['filestore-endpoint'],
  ...kubeAccessFlags,
  ...changeFlags,
}

/** `xpk storage delete NAME`: the cluster (GKE, its Kubernetes API) and the Filestore API on first use. */
export async function deleteStorage(
  options: FlagOptions<typeof storageDeleteFlags> & {readonly name?: string},
  run: Invocation,
): Promise<StorageDeleteResult> {
  const [{wiring, settings, timing}, {deleteStorage}, {resolveFilestoreEndpoint}] = await Promise.all([
    startCommand(import('./wiring.js'), options, run),
    import('../services/storage-delete.js'),
    import('../core/storage/endpoints.js'),
  ])
  const endpoint = resolveFilestoreEndpoint(options.filestoreEndpoint, process.env)
  const accessToken = wiring.accessToken()
  return deleteStorage(
    {
      ...wiring.clusterTarget(settings),
      viaKubeconfig: wiring.viaKubeconfig(options),
      name: options.name,
      dryRun: options.dryRun,
      timing,
    },
    {
      ...wiring.clusterAccess(settings, options, run),
      filestore: () =>
        import('../adapters/filestore-rest.js').then((m) => m.createFilestoreClient({endpoint, accessToken})),
    },
  )
}

/** The flags of `xpk storage create NAME`: Python xpk's (Filestore only), plus the Filestore endpoint and --force. */
export const storageCreateFlags = {
  ...targetFlags,
  ...gkeEndpointFlag,
  ...kubeAccessFlags,
  'filestore-endpoint': storageEndpointFlags['filestore-endpoint'],
  type: choiceFlag(['gcpfilestore'], {description: 'What the storage is: a Filestore instance, the one type created.'}),
  'auto-mount': storageAttachFlags['auto-mount'],
  'mount-point': storageAttachFlags['mount-point'],
  readonly: storageAttachFlags.readonly,
  instance: Flags.string({description: 'The Filestore instance to create. [default: NAME]', helpGroup: 'FILESTORE'}),
  size: Flags.string({
    description: 'Its capacity: GiB, or with a unit (1024, 2560G, 1T), in the range of the tier.',
    helpGroup: 'FILESTORE',
  }),
  tier: choiceFlag(FILESTORE_TIERS, {
    description: `Its service tier: BASIC_HDD, BASIC_SSD and ZONAL live in the zone, REGIONAL and ENTERPRISE in its region. [default: ${CREATE_DEFAULT_TIER}]`,
    helpGroup: 'FILESTORE',
  }),
  vol: Flags.string({
    description: `The file share it is made with. [default: ${ATTACH_DEFAULTS.vol}]`,
    helpGroup: 'FILESTORE',
  }),
  'access-mode': storageAttachFlags['access-mode'],
  'mount-options': storageAttachFlags['mount-options'],
  manifest: pathFlag('file', {
    description: 'A YAML file of the PersistentVolume and its claim, used as written in place of the ones xpk builds.',
  }),
  ...changeFlags,
}

/** `xpk storage create NAME`: GKE, the cluster, and the Filestore API on first use. */
export async function createStorage(
  options: FlagOptions<typeof storageCreateFlags> & {readonly name?: string},
  run: Invocation,
): Promise<StorageCreateResult> {
  const [{wiring, settings, timing}, {createStorage}, {NodeFiles}, {resolveFilestoreEndpoint}] = await Promise.all([
    startCommand(import('./wiring.js'), options, run),
    import('../services/storage-create.js'),
    import('../adapters/local-files.js'),
    import('../core/storage/endpoints.js'),
  ])
  const endpoint = resolveFilestoreEndpoint(options.filestoreEndpoint, process.env)
  const accessToken = wiring.accessToken()
  return createStorage(
    {
      ...wiring.clusterTarget(settings),
      viaKubeconfig: false,
      flags: {
        ...storageSettings(options),
        instance: options.instance,
        size: options.size,
        tier: options.tier,
        vol: options.vol,
        accessMode: options.accessMode,
        mountOptions: options.mountOptions,
        manifest: options.manifest,
      },
      dryRun: options.dryRun,
      timing,
    },
    {
      ...wiring.clusterAccess(settings, options, run),
      files: new NodeFiles(),
      filestore: () =>
        import('../adapters/filestore-rest.js').then((m) => m.createFilestoreClient({endpoint, accessToken})),
    },
  )
}
