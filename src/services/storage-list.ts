import {storageListNoneFound} from '../core/messages/lists.js'
import {storageInvalidFields} from '../core/messages/storage.js'
import {TABLE_OUTPUT, type OutputChoice} from '../core/render/output-format.js'
import {storageListView, storageRows, type StorageRow} from '../core/storage/list.js'
import {
  readStorage,
  readVolume,
  servesStorage,
  STORAGE_API_VERSION,
  STORAGE_CRD_NAME,
  STORAGE_KIND,
  type ObservedVolume,
} from '../core/storage/observed.js'
import type {Timing} from '../core/timing.js'
import {retrying, withRetries, type RetryOptions} from '../executor/retry.js'
import type {Console} from '../ports/console.js'
import type {KubeClient} from '../ports/kube.js'
import {showOutput} from './show-output.js'
import {checkInput, listAll, reachCluster, type ClusterAccessDeps, type WorkloadTarget} from './workload-cluster.js'

export interface StorageListOptions extends WorkloadTarget {
  /** Retries of every read (timing.retry). */
  readonly timing: Pick<Timing, 'retry'>
  /** How the rows are printed (`-o`, `--no-headers`); the table by default. */
  readonly output?: OutputChoice
}

export interface StorageListDeps extends ClusterAccessDeps {
  readonly console: Console
}

export interface StorageListResult {
  /**
   * Whether the cluster serves the Storage kind (xpk.x-k8s.io/v1). False when it has no Storage CRD: no storage was
   * ever attached to it (every attach installs the CRD first).
   */
  readonly kindServed: boolean
  /** The storages, sorted by name. */
  readonly storages: readonly StorageRow[]
}

const CRD_REF = {apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: STORAGE_CRD_NAME}

/**
 * `xpk storage list`: every Storage object of the cluster (they are cluster-scoped), each page through the retry
 * policy, with the PersistentVolumes they name (read only when there is a storage to show). When there is none, the
 * Storage CRD says whether the cluster serves the kind at all; a cluster that does not is an empty list, not an
 * error. A Storage object that lacks spec fields is shown with what it has, and a warning names the fields.
 * @throws UsageErrors for a target GKE cannot find (no project, zone or cluster), before any request
 */
export async function listStorages(options: StorageListOptions, deps: StorageListDeps): Promise<StorageListResult> {
  checkInput(options, () => undefined)
  const retry: RetryOptions = {policy: options.timing.retry, clock: deps, signal: deps.signal}
  const {kube} = await reachCluster(options, deps, retry)
  const storages = (await listAll(kube, STORAGE_API_VERSION, STORAGE_KIND, {}, retry)).map(readStorage)
  const kindServed = storages.length > 0 || servesStorage(await withRetries(() => kube.get(CRD_REF), retry))
  const named = new Set(storages.flatMap((s) => (s.pv === null ? [] : [s.pv])))
  const volumes = named.size === 0 ? [] : await readVolumes(kube, named, retry)
  const rows = storageRows(storages, volumes)
  const {console} = deps
  const invalid = rows.filter((r) => r.invalidFields.length > 0)
  if (invalid.length > 0) {
    console.warn(storageInvalidFields({storages: invalid.map((r) => ({name: r.name, fields: [...r.invalidFields]}))}))
  }
  showOutput(console, options.output ?? TABLE_OUTPUT, storageListView, rows, () =>
    // Through a kubeconfig, the cluster setting does not name the cluster reached.
    storageListNoneFound({cluster: options.viaKubeconfig ? null : (options.cluster ?? null), kindServed}),
  )
  return {kindServed, storages: rows}
}

/**
 * The PersistentVolumes of these names, from every page of the cluster's volumes (one list instead of a read per
 * storage), each page reduced to the named ones as it arrives.
 */
async function readVolumes(kube: KubeClient, names: ReadonlySet<string>, retry: RetryOptions) {
  const found: ObservedVolume[] = []
  for await (const page of kube.listAll('v1', 'PersistentVolume', {retry: retrying(retry)})) {
    for (const item of page) if (names.has(item.metadata.name)) found.push(readVolume(item))
  }
  return found
}
