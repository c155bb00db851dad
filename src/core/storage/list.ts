/**
 * `xpk storage list`: one row per Storage object, joined with its PersistentVolume for what it holds (the bucket or
 * the instance), sorted by name, and the table that shows them.
 */
import {listView, renderColumns, PLAIN_TABLE, type Column, type TableStyle} from '../render/output.js'
import type {ObservedStorage, ObservedVolume} from './observed.js'

/** A storage as `storage list` shows it (and prints it under --json). */
export interface StorageRow extends ObservedStorage {
  /**
   * Its PersistentVolume's CSI volume handle (what Python xpk calls the storage's bucket); null when the storage
   * names no PersistentVolume, the volume does not exist, or it is not a CSI volume.
   */
  readonly volumeHandle: string | null
  /** What the volume handle names: see {@link bucketOrInstance}. */
  readonly bucketOrInstance: string | null
}

/**
 * The name a user knows a volume handle by. A handle that is a resource name of an instance or a disk (Filestore as
 * xpk attaches it: `projects/P/locations/L/instances/I/volumes/V`; a persistent disk: `projects/P/zones/Z/disks/D`)
 * gives that instance's or disk's name; any other (a Cloud Storage bucket, whose name cannot hold a slash, and the
 * handles of Parallelstore and Lustre manifests) is shown as it is.
 */
export function bucketOrInstance(volumeHandle: string | null): string | null {
  if (volumeHandle === null) return null
  return /(?:^|\/)(?:instances|disks)\/([^/]+)/.exec(volumeHandle)?.[1] ?? volumeHandle
}

/** Every storage with what its PersistentVolume says, sorted by name (code points, as kubectl sorts). */
export function storageRows(storages: readonly ObservedStorage[], volumes: readonly ObservedVolume[]): StorageRow[] {
  const byName = new Map(volumes.map((v) => [v.name, v]))
  return storages
    .map((storage) => {
      const volumeHandle = (storage.pv === null ? undefined : byName.get(storage.pv))?.volumeHandle ?? null
      return {...storage, volumeHandle, bucketOrInstance: bucketOrInstance(volumeHandle)}
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

/** Text from the cluster in a cell (the table puts it on one line, escaped); empty or unknown is "-". */
const cell = (value: string | null): string | null => (value === null || value === '' ? null : value)
const flag = (value: boolean | null): string | null => (value === null ? null : String(value))

/**
 * Python xpk's columns (NAME TYPE AUTO MOUNT MOUNT POINT READONLY MANIFEST), with the bucket or instance in place of
 * the manifest: the manifest is a path on the machine that attached the storage, which says nothing to anyone else.
 * `-o wide` adds the PersistentVolume and its claim, the full volume handle, and the manifest last (a long path).
 */
const STORAGE_COLUMNS: readonly Column<StorageRow>[] = [
  {header: 'Name', cell: (r) => cell(r.name)},
  {header: 'Type', cell: (r) => cell(r.type)},
  {header: 'Auto Mount', cell: (r) => flag(r.autoMount)},
  {header: 'Mount Point', cell: (r) => cell(r.mountPoint)},
  {header: 'Readonly', cell: (r) => flag(r.readonly)},
  {header: 'Bucket/Instance', cell: (r) => cell(r.bucketOrInstance)},
  {header: 'PV', cell: (r) => cell(r.pv), wide: true},
  {header: 'PVC', cell: (r) => cell(r.pvc), wide: true},
  {header: 'Volume Handle', cell: (r) => cell(r.volumeHandle), wide: true},
  {header: 'Manifest', cell: (r) => cell(r.manifest), wide: true},
]

/** The `xpk storage list` table of these rows. */
export function renderStorageList(rows: readonly StorageRow[], style: TableStyle = PLAIN_TABLE): string {
  return renderColumns(STORAGE_COLUMNS, rows, style)
}

/** `xpk storage list`: `-o name` prints the names workloads and the other storage commands take. */
export const storageListView = listView(renderStorageList, (r) => r.name)
