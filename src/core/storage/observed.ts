/**
 * What xpk reads of the objects that make a storage: the `Storage` object (Python xpk's kind, storages.xpk.x-k8s.io,
 * cluster-scoped, so that clusters set up by either tool work with both), its PersistentVolume, and the CRD that
 * says whether the cluster serves the kind at all. The readers copy the fields xpk uses and check each against the
 * type the CRD gives it: these objects were written by other tools and other versions, and one that lacks a field
 * is shown with what it has rather than stopping the command. Pure, and no decisions.
 */
import type {KubeObject} from '../kube/release-manifest.js'

export const STORAGE_API_GROUP = 'xpk.x-k8s.io'
export const STORAGE_API_VERSION = `${STORAGE_API_GROUP}/v1`
export const STORAGE_KIND = 'Storage'
/** The CRD of the Storage kind: present once a storage was attached to the cluster (by either tool). */
export const STORAGE_CRD_NAME = `storages.${STORAGE_API_GROUP}`

/**
 * The spec fields of a Storage as Python xpk's CRD declares them (every one required there), with their JSON types,
 * in the CRD's order. Our own CRD (crd.ts) is made from this table.
 */
export const STORAGE_SPEC_FIELDS = {
  type: 'string',
  cluster: 'string',
  auto_mount: 'boolean',
  mount_point: 'string',
  readonly: 'boolean',
  manifest: 'string',
  pv: 'string',
  pvc: 'string',
} as const

export type StorageSpecField = keyof typeof STORAGE_SPEC_FIELDS

/** A Storage object as read: each spec field as written, or null when it is missing or not of the CRD's type. */
export interface ObservedStorage {
  readonly name: string
  /** gcsfuse, gcpfilestore, parallelstore, pd or lustre when xpk attached it; any other text is kept as written. */
  readonly type: string | null
  /** The cluster it was attached to, by name. */
  readonly cluster: string | null
  /** Whether every workload mounts it. */
  readonly autoMount: boolean | null
  /** Where workloads mount it. */
  readonly mountPoint: string | null
  readonly readonly: boolean | null
  /** The manifest file the PersistentVolume and its claim came from, a path on the machine that attached it. */
  readonly manifest: string | null
  /** The PersistentVolume's name. */
  readonly pv: string | null
  /** The PersistentVolumeClaim's name (namespace default). */
  readonly pvc: string | null
  /** The spec fields that are missing or not of the CRD's type (`spec.mount_point`), in the CRD's order. */
  readonly invalidFields: readonly string[]
}

/** A PersistentVolume, the fields xpk reads: what its CSI driver mounts. */
export interface ObservedVolume {
  readonly name: string
  /** `spec.csi.driver`, e.g. gcsfuse.csi.storage.gke.io; null for a volume that is not a CSI one. */
  readonly driver: string | null
  /** `spec.csi.volumeHandle`: the bucket, or the instance's (or disk's) resource name, as the driver takes it. */
  readonly volumeHandle: string | null
}

type Loose = Record<string, unknown> | undefined

const obj = (value: unknown): Loose =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null)
const nameOf = (object: KubeObject): string => text(object.metadata?.name) ?? ''

/** A Storage object reduced to its name and spec fields, each checked against the CRD's type. */
export function readStorage(object: KubeObject): ObservedStorage {
  const spec = obj(object.spec)
  const invalidFields: string[] = []
  const checked = (name: StorageSpecField): unknown => {
    const value = spec?.[name]
    if (typeof value === STORAGE_SPEC_FIELDS[name]) return value
    invalidFields.push(`spec.${name}`)
    return null
  }
  const string = (name: StorageSpecField) => checked(name) as string | null
  const boolean = (name: StorageSpecField) => checked(name) as boolean | null
  return {
    name: nameOf(object),
    type: string('type'),
    cluster: string('cluster'),
    autoMount: boolean('auto_mount'),
    mountPoint: string('mount_point'),
    readonly: boolean('readonly'),
    manifest: string('manifest'),
    pv: string('pv'),
    pvc: string('pvc'),
    invalidFields,
  }
}

/** A PersistentVolume reduced to its name, CSI driver and volume handle. */
export function readVolume(object: KubeObject): ObservedVolume {
  const csi = obj(obj(object.spec)?.csi)
  return {name: nameOf(object), driver: text(csi?.driver), volumeHandle: text(csi?.volumeHandle)}
}

/**
 * Whether the Storage CRD, as read (undefined: there is none), serves the version xpk reads. A cluster without it
 * never had a storage attached: every attach installs it first.
 */
export function servesStorage(crd: KubeObject | undefined): boolean {
  const versions = obj(crd?.spec)?.versions
  if (!Array.isArray(versions)) return false
  const version = STORAGE_API_VERSION.slice(STORAGE_API_GROUP.length + 1)
  return versions.some((v) => obj(v)?.name === version && obj(v)?.served === true)
}
