/**
 * A storage attached from the user's manifest (`storage attach --manifest FILE`: how Parallelstore, persistent disks
 * and Lustre are attached, and GCS FUSE or Filestore when the user writes their own volume). Python xpk applied
 * whatever the file held and took the last PersistentVolume and claim it found for the Storage object; here the file
 * is read and checked before anything is sent, every problem named at once:
 *
 *   - it holds exactly one PersistentVolume and one PersistentVolumeClaim, and for Filestore at most one
 *     StorageClass, named `<name>-sc` (the name `storage detach` removes, as Python xpk's detach does); nothing else
 *     (a Deployment in a storage manifest would be applied by no one and never removed);
 *   - the volume is the type's (its CSI driver: a `--type pd` manifest of a Lustre volume is refused), and its name
 *     is an RFC 1123 label of at most 63 characters, as it also names the volume in every pod that mounts it;
 *   - the claim is in namespace `default`, where workloads run and where detach looks for it;
 *   - the two are bound to each other: the claim's `volumeName` names the volume, or the volume's `claimRef` names
 *     the claim, and neither names another (Python xpk's own GCS FUSE example reserves its volume for a claim of
 *     another name, so its claim would wait for a volume forever); both state the same storage class (a claim
 *     without one gets the cluster's default class and never binds to the volume); the volume offers every access
 *     mode the claim asks for;
 *   - the volume keeps its data when its claim goes (`persistentVolumeReclaimPolicy` Retain, the default of a
 *     volume made by hand): `storage detach` keeps the data, and a volume that says Delete would take it along.
 */
import {parseManifest} from '../kube/manifest-yaml.js'
import type {KubeObject} from '../kube/release-manifest.js'
import {UsageError, XpkError} from '../errors.js'
import {XPK_NAMESPACE} from '../incluster/namespace.js'
import {Problems} from '../input.js'
import type {PersistentVolume, PersistentVolumeClaim, StorageClass} from '../manifests/k8s-types.js'
import {escapeInline} from '../text.js'
import type {StorageVolumeObject} from './manifests.js'
import {CSI_DRIVERS, storageObjectNames, type StorageType} from './types.js'

const FLAG = '--manifest'
const RFC1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/

/** The objects of a storage manifest, checked, in file order. */
export interface StorageManifest {
  readonly path: string
  readonly objects: readonly StorageVolumeObject[]
  readonly pv: string
  readonly pvc: string
}

/**
 * Parses and checks the text of `--manifest` for the storage `name` of `type`.
 * @throws UsageError or UsageErrors naming --manifest and the file
 */
export function readStorageManifest(text: string, path: string, name: string, type: StorageType): StorageManifest {
  let objects: KubeObject[]
  try {
    objects = parseManifest(text, path)
  } catch (error) {
    if (!(error instanceof XpkError)) throw error
    throw new UsageError(`${FLAG} ${error.message}`, {flag: FLAG, cause: error})
  }
  return checkStorageManifest(objects, path, name, type)
}

/** Checks the objects of a storage manifest (see the module comment). @throws UsageError or UsageErrors */
export function checkStorageManifest(
  objects: readonly KubeObject[],
  path: string,
  name: string,
  type: StorageType,
): StorageManifest {
  const problems = new Problems()
  const problem = (text: string, hints: readonly string[] = []) =>
    problems.add(`${FLAG} ${escapeInline(path)}: ${text}`, {flag: FLAG, hints})
  const of = (apiVersion: string, kind: string) => objects.filter((o) => o.apiVersion === apiVersion && o.kind === kind)
  const pvs = of('v1', 'PersistentVolume') as unknown as PersistentVolume[]
  const pvcs = of('v1', 'PersistentVolumeClaim') as unknown as PersistentVolumeClaim[]
  const classes = of('storage.k8s.io/v1', 'StorageClass') as unknown as StorageClass[]
  const known = new Set<unknown>([...pvs, ...pvcs, ...classes])
  const others = objects.filter((o) => !known.has(o))
  for (const other of others) {
    problem(
      `${escapeInline(other.apiVersion)} ${escapeInline(other.kind)} ${escapeInline(other.metadata.name)} is not part of a storage; ` +
        'a storage manifest holds a v1 PersistentVolume, a v1 PersistentVolumeClaim and, for Filestore, a storage.k8s.io/v1 StorageClass.',
    )
  }
  if (pvs.length !== 1 || pvcs.length !== 1) {
    problem(
      `it holds ${pvs.length} PersistentVolume${pvs.length === 1 ? '' : 's'} and ${pvcs.length} PersistentVolumeClaim${pvcs.length === 1 ? '' : 's'}; ` +
        'a storage is one of each.',
    )
  }
  const expectedClass = storageObjectNames(name).storageClass
  if (classes.length > 0 && type !== 'gcpfilestore') {
    problem(`a StorageClass belongs in a Filestore manifest only; ${type} volumes bind to their claim without one.`)
  } else if (classes.length > 1 || (classes.length === 1 && classes[0]!.metadata.name !== expectedClass)) {
    problem(
      `its StorageClass must be one, named ${expectedClass}: \`xpk storage detach ${name}\` removes it by that name.`,
    )
  }
  const [pv] = pvs
  const [pvc] = pvcs
  if (pv !== undefined && pvc !== undefined && pvs.length === 1 && pvcs.length === 1) {
    checkPair(pv, pvc, type, problem)
  }
  problems.throwIfAny()
  return {path, objects: objects as unknown as StorageVolumeObject[], pv: pv!.metadata.name, pvc: pvc!.metadata.name}
}

function checkPair(
  pv: PersistentVolume,
  pvc: PersistentVolumeClaim,
  type: StorageType,
  problem: (text: string, hints?: readonly string[]) => void,
): void {
  const pvName = pv.metadata.name
  const pvcName = pvc.metadata.name
  if (pvName.length > 63 || !RFC1123_LABEL.test(pvName)) {
    problem(
      `PersistentVolume "${escapeInline(pvName)}": its name also names the volume in every pod that mounts it, so it ` +
        'is an RFC 1123 label: lowercase letters, digits and hyphens, at most 63 characters.',
    )
  }
  const driver = (pv.spec as Partial<PersistentVolume['spec']> | undefined)?.csi?.driver
  if (driver !== CSI_DRIVERS[type]) {
    problem(
      `PersistentVolume ${escapeInline(pvName)} is ${driver === undefined ? 'not a CSI volume' : `mounted by ${escapeInline(String(driver))}`}; ` +
        `a --type ${type} volume is mounted by ${CSI_DRIVERS[type]} (spec.csi.driver).`,
    )
  }
  const namespace = pvc.metadata.namespace ?? XPK_NAMESPACE
  if (namespace !== XPK_NAMESPACE) {
    problem(
      `PersistentVolumeClaim ${escapeInline(pvcName)} is in namespace ${escapeInline(namespace)}; workloads run in ` +
        `${XPK_NAMESPACE} and mount claims of their own namespace.`,
      [`Write namespace: ${XPK_NAMESPACE}, or leave it out.`],
    )
  }
  const pvSpec = (pv.spec ?? {}) as Partial<PersistentVolume['spec']>
  const pvcSpec = (pvc.spec ?? {}) as Partial<PersistentVolumeClaim['spec']>
  const claimRef = pvSpec.claimRef
  const claimRefOk =
    claimRef === undefined || (claimRef.name === pvcName && (claimRef.namespace ?? namespace) === namespace)
  if (!claimRefOk) {
    problem(
      `PersistentVolume ${escapeInline(pvName)} is reserved for claim ${escapeInline(String(claimRef?.namespace ?? ''))}/${escapeInline(String(claimRef?.name))} ` +
        `(spec.claimRef), not for ${XPK_NAMESPACE}/${escapeInline(pvcName)}: the claim would never bind to it.`,
    )
  }
  const volumeName = pvcSpec.volumeName
  if (volumeName !== undefined && volumeName !== pvName) {
    problem(
      `PersistentVolumeClaim ${escapeInline(pvcName)} asks for volume ${escapeInline(String(volumeName))} (spec.volumeName), not ${escapeInline(pvName)}.`,
    )
  }
  if (volumeName === undefined && claimRef === undefined) {
    problem(
      `neither binds the claim to the volume: Kubernetes could bind ${escapeInline(pvcName)} to another volume, or make a new one.`,
      [`Write volumeName: ${pvName} in the claim's spec (or a claimRef to it in the volume's).`],
    )
  }
  const pvClass = pvSpec.storageClassName ?? ''
  const pvcClass = pvcSpec.storageClassName
  if (pvcClass === undefined) {
    problem(
      `PersistentVolumeClaim ${escapeInline(pvcName)} names no storage class, so the cluster's default class is given to it and it never binds to the volume.`,
      [`Write storageClassName: ${JSON.stringify(pvClass)} in the claim, as the volume has.`],
    )
  } else if (pvcClass !== pvClass) {
    problem(
      `the volume's storage class (${JSON.stringify(pvClass)}) and the claim's (${escapeInline(JSON.stringify(pvcClass))}) differ: the claim would never bind to it.`,
    )
  }
  const offered = new Set(pvSpec.accessModes ?? [])
  const missing = (pvcSpec.accessModes ?? []).filter((m) => !offered.has(m))
  if (missing.length > 0) {
    problem(
      `the claim asks for ${missing.map((m) => escapeInline(String(m))).join(', ')}, which the volume does not offer (spec.accessModes).`,
    )
  }
  const policy = pvSpec.persistentVolumeReclaimPolicy
  if (policy !== undefined && policy !== 'Retain') {
    problem(
      `PersistentVolume ${escapeInline(pvName)} says persistentVolumeReclaimPolicy: ${escapeInline(String(policy))}: ` +
        'the data would go with the claim when the storage is detached.',
      ['Write Retain, or leave it out (Retain is the default of a volume made by hand).'],
    )
  }
}
