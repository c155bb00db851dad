/**
 * The two ConfigMaps in which Python xpk keeps a cluster's state, `<cluster>-resources-configmap` and
 * `<cluster>-metadata-configmap` (namespace `default`), with exactly its keys and value formats, so that either
 * tool reads what the other wrote. `cluster create` replaces both on every run: a cluster holds one device type.
 *
 * resources: `<device type>: "<VMs>"` (GPU: `--num-nodes`; otherwise slices x VMs per slice); with node
 * auto-provisioning (`--enable-autoprovisioning`), Python's form instead: `<gke accelerator>: AUTOPROVISION`,
 * `minimum_chips` and `maximum_chips`.
 * metadata: `xpk_version: v<version>`, `capacity_type: ON_DEMAND|RESERVATION|SPOT|FLEX_START`, and
 * `reservation_id: <--reservation as given>` on reservations. The Vertex AI TensorBoard keys and Cluster Toolkit's
 * `provisioner` (and its lower-case `capacity_type`) are only read.
 */
import type {Capacity} from '../cluster/spec.js'
import type {ConfigMap} from '../manifests/k8s-types.js'
import type {ClusterShape} from './cluster-shape.js'
import {clusterVmCount} from './cluster-shape.js'
import {XPK_NAMESPACE} from './namespace.js'

/** Python xpk's names for the ways a cluster's VMs are obtained (its `CapacityType` enum). */
export type CapacityTypeName = 'ON_DEMAND' | 'RESERVATION' | 'SPOT' | 'FLEX_START' | 'UNKNOWN'

const CAPACITY_TYPE_NAMES: Readonly<Record<Capacity, CapacityTypeName>> = {
  'on-demand': 'ON_DEMAND',
  reservation: 'RESERVATION',
  spot: 'SPOT',
  flex: 'FLEX_START',
}

/** The keys both tools read and write. */
export const CONFIGMAP_KEYS = {
  xpkVersion: 'xpk_version',
  capacityType: 'capacity_type',
  reservationId: 'reservation_id',
  minimumChips: 'minimum_chips',
  maximumChips: 'maximum_chips',
  tensorboardRegion: 'tensorboard_region',
  tensorboardName: 'tensorboard_name',
  tensorboardId: 'tensorboard_id',
  provisioner: 'provisioner',
} as const

/** The value of a `<gke accelerator>` key when node auto-provisioning supplies the nodes. */
export const AUTOPROVISION_VALUE = 'AUTOPROVISION'

export function resourcesConfigMapName(clusterName: string): string {
  return `${clusterName}-resources-configmap`
}

export function metadataConfigMapName(clusterName: string): string {
  return `${clusterName}-metadata-configmap`
}

/** Python xpk's capacity type name for one of ours. */
export function capacityTypeName(capacity: Capacity): CapacityTypeName {
  return CAPACITY_TYPE_NAMES[capacity]
}

export interface ClusterConfigMapOptions {
  /** This xpk's version, with or without a leading `v`; written as `v<version>` like Python's. */
  readonly xpkVersion: string
}

/** Both ConfigMaps of a cluster of `shape`. */
export function clusterConfigMaps(
  shape: ClusterShape,
  options: ClusterConfigMapOptions,
): {readonly resources: ConfigMap; readonly metadata: ConfigMap} {
  const capacityType = capacityTypeName(shape.capacity)
  return {
    resources: configMap(
      resourcesConfigMapName(shape.clusterName),
      shape.autoprovisioning && shape.accelerator.gkeAccelerator
        ? {
            [shape.accelerator.gkeAccelerator]: AUTOPROVISION_VALUE,
            [CONFIGMAP_KEYS.minimumChips]: String(shape.autoprovisioning.minimumChips),
            [CONFIGMAP_KEYS.maximumChips]: String(shape.autoprovisioning.maximumChips),
          }
        : {[shape.accelerator.canonical]: String(clusterVmCount(shape))},
    ),
    metadata: configMap(metadataConfigMapName(shape.clusterName), {
      [CONFIGMAP_KEYS.xpkVersion]: `v${options.xpkVersion.replace(/^v/, '')}`,
      [CONFIGMAP_KEYS.capacityType]: capacityType,
      ...(capacityType === 'RESERVATION' && shape.reservation !== null
        ? {[CONFIGMAP_KEYS.reservationId]: shape.reservation}
        : {}),
    }),
  }
}

function configMap(name: string, data: Readonly<Record<string, string>>): ConfigMap {
  return {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name, namespace: XPK_NAMESPACE}, data}
}

/** The resources ConfigMap, read. */
export interface ClusterResources {
  /** VMs (GPU: nodes) of each device type the map names; a map xpk wrote names exactly one. */
  readonly vmsByDeviceType: Readonly<Record<string, number>>
  /** Set when node auto-provisioning supplies the nodes. */
  readonly autoprovisioning: {
    /** The GKE accelerator names marked `AUTOPROVISION`. */
    readonly gkeAccelerators: readonly string[]
    readonly minimumChips: number | null
    readonly maximumChips: number | null
  } | null
  /** `key: value` entries that fit none of the forms; not counted. */
  readonly unreadable: readonly string[]
}

/** Reads the `data` of a resources ConfigMap (see the module comment for its forms). */
export function parseResourcesConfigMap(data: Readonly<Record<string, string>>): ClusterResources {
  const vmsByDeviceType: Record<string, number> = {}
  const gkeAccelerators: string[] = []
  const unreadable: string[] = []
  let minimumChips: number | null = null
  let maximumChips: number | null = null
  for (const [key, raw] of Object.entries(data)) {
    const value = raw.trim()
    const count = wholeNumber(value)
    if (key === CONFIGMAP_KEYS.minimumChips || key === CONFIGMAP_KEYS.maximumChips) {
      if (count === null) unreadable.push(`${key}: ${raw}`)
      else if (key === CONFIGMAP_KEYS.minimumChips) minimumChips = count
      else maximumChips = count
    } else if (value === AUTOPROVISION_VALUE) {
      gkeAccelerators.push(key)
    } else if (count !== null) {
      vmsByDeviceType[key] = count
    } else {
      unreadable.push(`${key}: ${raw}`)
    }
  }
  const autoprovisioning =
    gkeAccelerators.length > 0 || minimumChips !== null || maximumChips !== null
      ? {gkeAccelerators, minimumChips, maximumChips}
      : null
  return {vmsByDeviceType, autoprovisioning, unreadable}
}

/** The metadata ConfigMap, read. Absent keys read as null. */
export interface ClusterMetadata {
  /** As written, e.g. `v0.14.3`. */
  readonly xpkVersion: string | null
  /** Upper-cased (Cluster Toolkit writes lower case); null when absent or not a known name. */
  readonly capacityType: CapacityTypeName | null
  /** The same in our terms; null also for UNKNOWN. */
  readonly capacity: Capacity | null
  /** `--reservation` as the cluster was created with it. */
  readonly reservation: string | null
  readonly tensorboard: {
    readonly region: string | null
    readonly name: string | null
    readonly id: string | null
  }
  /** `gcluster` for clusters Cluster Toolkit created. */
  readonly provisioner: string | null
  readonly unreadable: readonly string[]
}

/** Reads the `data` of a metadata ConfigMap. Keys it does not know are ignored, as Python's readers do. */
export function parseMetadataConfigMap(data: Readonly<Record<string, string>>): ClusterMetadata {
  const read = (key: string): string | null => {
    const value = data[key]?.trim()
    return value === undefined || value === '' ? null : value
  }
  const unreadable: string[] = []
  const rawCapacity = read(CONFIGMAP_KEYS.capacityType)
  const capacityType = rawCapacity === null ? null : capacityTypeFromName(rawCapacity)
  if (rawCapacity !== null && capacityType === null) unreadable.push(`${CONFIGMAP_KEYS.capacityType}: ${rawCapacity}`)
  return {
    xpkVersion: read(CONFIGMAP_KEYS.xpkVersion),
    capacityType,
    capacity: capacityType === null ? null : capacityFromTypeName(capacityType),
    reservation: read(CONFIGMAP_KEYS.reservationId),
    tensorboard: {
      region: read(CONFIGMAP_KEYS.tensorboardRegion),
      name: read(CONFIGMAP_KEYS.tensorboardName),
      id: read(CONFIGMAP_KEYS.tensorboardId),
    },
    provisioner: read(CONFIGMAP_KEYS.provisioner),
    unreadable,
  }
}

function capacityTypeFromName(name: string): CapacityTypeName | null {
  const upper = name.toUpperCase()
  if (upper === 'UNKNOWN') return 'UNKNOWN'
  return Object.values(CAPACITY_TYPE_NAMES).find((known) => known === upper) ?? null
}

/** Our capacity for one of Python's names; null for UNKNOWN. */
export function capacityFromTypeName(name: CapacityTypeName): Capacity | null {
  const entry = Object.entries(CAPACITY_TYPE_NAMES).find(([, known]) => known === name)
  return entry === undefined ? null : (entry[0] as Capacity)
}

/** A count as Python writes it (`"16"`): decimal digits only. */
function wholeNumber(text: string): number | null {
  if (!/^\d+$/.test(text)) return null
  const n = Number(text)
  return Number.isSafeInteger(n) ? n : null
}
