/**
 * The storages a workload mounts, and what they add to its JobSet, as Python xpk's `workload create` does
 * (core/storage.py `get_storages_to_mount`, `get_storage_annotations`; core/docker_resources.py `get_volumes`,
 * `get_volume_mounts`; workload_decorators/storage_decorator.py): the storages named with `--storage` and every one
 * with `auto_mount: true`; for each, a pod volume named after its PersistentVolume claiming its claim (read-only where
 * the storage is) and a mount of it at its mount point in every main container; the pod annotations the CSI drivers
 * act on (GCS FUSE's sidecar, without resource limits; Parallelstore's); and the pods run as `xpk-sa`, the service
 * account that is granted the storages (Workload Identity).
 *
 * Where we differ from Python xpk:
 *   - a named storage that does not exist is exit 6, naming those that do, before anything is built (Python: exit 1,
 *     after the cluster and credentials were set up);
 *   - a storage that cannot be mounted (written by another tool without its volume, claim or mount point, or of a type
 *     xpk does not know) is exit 6 naming it and what it lacks; Python skipped unknown types without a word and wrote
 *     `None` into the JobSet for missing fields;
 *   - two storages at one mount point, or a storage at a path the container already mounts (/dev/shm, the GPU
 *     libraries), is exit 6 before submitting; Kubernetes would refuse the pods (or shadow xpk's own mount);
 *   - the order is the storages named, then the auto-mount ones, each by name (Python: the same, by the API's order).
 */
import {XpkError} from '../errors.js'
import type {Volume, VolumeMount} from '../manifests/k8s-types.js'
import {escapeInline} from '../text.js'
import {STORAGES_ANNOTATION} from '../workload/observed.js'
import type {ObservedStorage} from './observed.js'
import {isStorageType, type StorageType} from './types.js'

/** A storage as a workload mounts it. */
export interface WorkloadStorage {
  readonly name: string
  readonly type: StorageType
  /** The PersistentVolume: it names the pod's volume, as in Python xpk. */
  readonly pv: string
  /** The claim (namespace default) the pod's volume claims. */
  readonly pvc: string
  readonly mountPoint: string
  readonly readonly: boolean
  /** Why it is mounted: named with --storage, or auto-mount. */
  readonly by: '--storage' | 'auto-mount'
}

/** The annotations GKE's GCS FUSE webhook acts on: inject the sidecar, with no CPU, memory or disk limit. */
export const GCS_FUSE_ANNOTATIONS: Readonly<Record<string, string>> = {
  'gke-gcsfuse/volumes': 'true',
  'gke-gcsfuse/cpu-limit': '0',
  'gke-gcsfuse/memory-limit': '0',
  'gke-gcsfuse/ephemeral-storage-limit': '0',
}

/** The annotation GKE's Parallelstore webhook acts on. */
export const PARALLELSTORE_ANNOTATIONS: Readonly<Record<string, string>> = {'gke-parallelstore/volumes': 'true'}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/
const RFC1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/

/**
 * Why a name cannot name an existing Storage object (`workload create --storage`), or undefined: any name the API
 * server takes (a DNS subdomain), since other tools may have attached it.
 */
export function storageReferenceProblem(name: string): string | undefined {
  if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
    return 'a storage is named with lowercase letters, digits, hyphens and dots (at most 253); `xpk storage list` shows them'
  }
  return undefined
}

/**
 * The storages a workload mounts: those named (each must exist) and every auto-mount one, each checked mountable.
 * @throws XpkError conflict (exit 6) for a named storage the cluster lacks, or a storage that cannot be mounted
 */
export function storagesToMount(
  requested: readonly string[],
  observed: readonly ObservedStorage[],
  cluster: string,
): WorkloadStorage[] {
  const byName = [...observed].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const missing = requested.filter((name) => !byName.some((s) => s.name === name))
  if (missing.length > 0) throw storageNotFound(missing, byName, cluster)
  const named = byName.filter((s) => requested.includes(s.name))
  const automatic = byName.filter((s) => !requested.includes(s.name) && s.autoMount === true)
  const chosen = [...named.map((s) => [s, '--storage'] as const), ...automatic.map((s) => [s, 'auto-mount'] as const)]
  const problems = chosen.flatMap(([s, by]) => {
    const why = unmountable(s)
    return why === undefined ? [] : [`${escapeInline(s.name)} (${by}) ${why}`]
  })
  if (problems.length > 0) {
    throw new XpkError(
      'conflict',
      `Cluster ${cluster} has storages this workload cannot mount: ${problems.join('; ')}. Nothing was submitted.`,
      {
        hints: [
          `\`xpk storage list --cluster ${cluster} -o wide\` shows what each storage names; detach the storage and attach it again (its data stays).`,
        ],
      },
    )
  }
  const storages = chosen.map(([s, by]) => ({
    name: s.name,
    type: s.type as StorageType,
    pv: s.pv!,
    pvc: s.pvc!,
    mountPoint: s.mountPoint!,
    readonly: s.readonly!,
    by,
  }))
  checkDistinct(storages, cluster)
  return storages
}

/** The error for storages named that the cluster does not have, listing those it has. */
export function storageNotFound(missing: readonly string[], existing: readonly ObservedStorage[], cluster: string) {
  const names = missing.map(escapeInline).join(', ')
  const has =
    existing.length === 0
      ? `cluster ${cluster} has no storages`
      : `cluster ${cluster} has ${existing.map((s) => escapeInline(s.name)).join(', ')}`
  return new XpkError('conflict', `No storage named ${names}: ${has}. Nothing was submitted.`, {
    hints: [`\`xpk storage list --cluster ${cluster}\` lists them.`],
  })
}

function unmountable(s: ObservedStorage): string | undefined {
  const lacks = (['pv', 'pvc', 'mountPoint', 'readonly'] as const).filter((f) => s[f] === null)
  if (lacks.length > 0) {
    const field = {pv: 'spec.pv', pvc: 'spec.pvc', mountPoint: 'spec.mount_point', readonly: 'spec.readonly'}
    return `lacks ${lacks.map((f) => field[f]).join(', ')}`
  }
  if (!isStorageType(s.type))
    return `is of type ${s.type === null ? 'none' : `"${escapeInline(s.type)}"`}, which xpk cannot mount`
  if (s.pv!.length > 63 || !RFC1123_LABEL.test(s.pv!)) {
    return `names PersistentVolume "${escapeInline(s.pv!)}", which cannot name a pod's volume (an RFC 1123 label)`
  }
  if (!s.mountPoint!.startsWith('/')) return `mounts at "${escapeInline(s.mountPoint!)}", not an absolute path`
  return undefined
}

function checkDistinct(storages: readonly WorkloadStorage[], cluster: string): void {
  const clashes: string[] = []
  for (const [field, what] of [
    ['mountPoint', 'mount at'],
    ['pv', 'name volume'],
  ] as const) {
    const seen = new Map<string, string>()
    for (const s of storages) {
      const other = seen.get(s[field])
      if (other !== undefined) clashes.push(`${other} and ${s.name} both ${what} ${s[field]}`)
      else seen.set(s[field], s.name)
    }
  }
  if (clashes.length > 0) {
    throw new XpkError(
      'conflict',
      `The storages this workload mounts clash on cluster ${cluster}: ${clashes.join('; ')}.`,
      {
        hints: [
          'Name only one of them with --storage; an auto-mount one is always mounted: detach it and attach it again at another mount point (its data stays).',
        ],
      },
    )
  }
}

/** The pod volumes of the storages: each claims its claim, read-only where the storage is. */
export function storageVolumes(storages: readonly WorkloadStorage[]): Volume[] {
  return storages.map((s) => ({name: s.pv, persistentVolumeClaim: {claimName: s.pvc, readOnly: s.readonly}}))
}

/** The mounts of the storages in a main container. */
export function storageVolumeMounts(storages: readonly WorkloadStorage[]): VolumeMount[] {
  return storages.map((s) => ({name: s.pv, mountPath: s.mountPoint, readOnly: s.readonly}))
}

/** The JobSet's annotation naming the storages it mounts, in mount order; none when it mounts none. */
export function storagesAnnotation(storages: readonly WorkloadStorage[]): Record<string, string> {
  return storages.length === 0 ? {} : {[STORAGES_ANNOTATION]: storages.map((s) => s.name).join(',')}
}

/** The pod annotations the CSI drivers of the storages need. */
export function storageAnnotations(storages: readonly WorkloadStorage[]): Record<string, string> {
  return {
    ...(storages.some((s) => s.type === 'gcsfuse') ? GCS_FUSE_ANNOTATIONS : {}),
    ...(storages.some((s) => s.type === 'parallelstore') ? PARALLELSTORE_ANNOTATIONS : {}),
  }
}

/**
 * A storage mounted where the container already has a volume, or whose volume takes the name of one of the pod's
 * own: Kubernetes refuses the pod (duplicate names or mount paths), or one mount hides the other.
 * @throws XpkError conflict (exit 6)
 */
export function checkStorageMounts(
  storages: readonly WorkloadStorage[],
  podVolumes: readonly Volume[],
  containerMounts: readonly VolumeMount[],
): void {
  const clashes = storages.flatMap((s) => [
    ...containerMounts
      .filter((m) => m.mountPath === s.mountPoint)
      .map((m) => `${s.name} mounts at ${s.mountPoint}, where the container has ${m.name}`),
    ...podVolumes
      .filter((v) => v.name === s.pv)
      .map((v) => `${s.name}'s volume ${s.pv} takes the name of the pod's own ${v.name}`),
  ])
  if (clashes.length > 0) {
    throw new XpkError('conflict', `Storages clash with the workload's own volumes: ${clashes.join('; ')}.`, {
      hints: ['Detach the storage and attach it again under another name or mount point (its data stays).'],
    })
  }
}
