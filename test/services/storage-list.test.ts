// `xpk storage list` in process, over the in-memory GKE and Kubernetes ports: every Storage object from one list per
// page (each through the retry policy), joined with the PersistentVolumes they name (read only when there is one),
// a cluster without the Storage kind as an empty list with its own note, a malformed object shown with what it has
// and a warning, the output forms, and input checked before any request.
import {describe, expect, it} from 'vitest'

import type {ObservedCluster} from '../../src/core/cluster/observed.js'
import {UsageErrors, type XpkError} from '../../src/core/errors.js'
import type {OutputChoice} from '../../src/core/render/output-format.js'
import {DEFAULT_RETRY_POLICY} from '../../src/executor/retry.js'
import type {KubeObject} from '../../src/ports/kube.js'
import {listStorages, type StorageListOptions} from '../../src/services/storage-list.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {MemoryKube} from '../fakes/memory-kube.js'
import {RecordingConsole} from '../helpers/recording-console.js'
import {MINIMAL_STORAGE_CRD, STORAGE_CRD} from '../helpers/storage-crd.js'
import {virtualClock} from '../helpers/virtual-clock.js'

/** A Storage object as `storage attach` writes it (Python xpk's spec), with `spec` changes. */
function storage(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'xpk.x-k8s.io/v1',
    kind: 'Storage',
    metadata: {name},
    spec: {
      type: 'gcsfuse',
      cluster: 'demo',
      auto_mount: true,
      mount_point: `/mnt/${name}`,
      readonly: false,
      manifest: `xpkclusters/storage-manifests/p-z-demo-${name}-manifest.yaml`,
      pv: `${name}-pv`,
      pvc: `${name}-pvc`,
      ...spec,
    },
  }
}

/** The PersistentVolume of a storage: a CSI volume with this handle. */
function volume(name: string, volumeHandle: string, driver = 'gcsfuse.csi.storage.gke.io'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {name},
    spec: {capacity: {storage: '64Gi'}, accessModes: ['ReadWriteMany'], csi: {driver, volumeHandle}},
  }
}

/** A cluster that serves the Storage kind (its CRD, the real one when ../shared has it), holding `objects`. */
function aCluster(...objects: KubeObject[]): MemoryKube {
  const kube = new MemoryKube()
  kube.seed(STORAGE_CRD)
  for (const object of objects) kube.seed(object)
  return kube
}

const options = (overrides: Partial<StorageListOptions> = {}): StorageListOptions => ({
  project: 'test-project',
  zone: 'us-central2-b',
  cluster: 'demo',
  viaKubeconfig: false,
  timing: {retry: DEFAULT_RETRY_POLICY},
  ...overrides,
})

function run(kube: MemoryKube, overrides: Partial<StorageListOptions> = {}, gke = new MemoryGke()) {
  const console = new RecordingConsole()
  const reached: Array<ObservedCluster | undefined> = []
  let connections = 0
  const done = listStorages(options(overrides), {
    gke: async () => (connections++, gke),
    kube: async (cluster) => (reached.push(cluster), kube),
    console,
    signal: new AbortController().signal,
    ...virtualClock(),
  })
  return {done, console, reached, gke, connections: () => connections}
}

const failure = async (p: Promise<unknown>) => (await p.catch((e: unknown) => e)) as XpkError
/** The requests the fake got, as `verb Kind` (and `status` when it was not 200). */
const requests = (kube: MemoryKube) =>
  kube.requests.map((r) => `${r.verb} ${r.kind}${r.name ? ` ${r.name}` : ''}${r.status === 200 ? '' : ` ${r.status}`}`)

describe('listStorages', () => {
  it('lists every Storage with its PersistentVolume: one list of each, sorted by name, the table printed', async () => {
    const kube = aCluster(
      storage('datasets', {auto_mount: false, readonly: true}),
      storage('checkpoints'),
      storage('home', {type: 'gcpfilestore'}),
      volume('datasets-pv', 'my-datasets'),
      volume('checkpoints-pv', 'my-checkpoints'),
      volume(
        'home-pv',
        'projects/p/locations/us-central2-b/instances/home-fs/volumes/vol1',
        'filestore.csi.storage.gke.io',
      ),
      volume('unrelated-pv', 'someone-elses-bucket'),
    )
    const {done, console, reached} = run(kube)
    const result = await done
    expect(result.kindServed).toBe(true)
    expect(result.storages.map((s) => [s.name, s.type, s.autoMount, s.readonly, s.bucketOrInstance])).toEqual([
      ['checkpoints', 'gcsfuse', true, false, 'my-checkpoints'],
      ['datasets', 'gcsfuse', false, true, 'my-datasets'],
      ['home', 'gcpfilestore', true, false, 'home-fs'],
    ])
    expect(result.storages[2]).toEqual({
      name: 'home',
      type: 'gcpfilestore',
      cluster: 'demo',
      autoMount: true,
      mountPoint: '/mnt/home',
      readonly: false,
      manifest: 'xpkclusters/storage-manifests/p-z-demo-home-manifest.yaml',
      pv: 'home-pv',
      pvc: 'home-pvc',
      invalidFields: [],
      volumeHandle: 'projects/p/locations/us-central2-b/instances/home-fs/volumes/vol1',
      bucketOrInstance: 'home-fs',
    })
    expect(reached.map((c) => c?.name)).toEqual(['demo'])
    // Cluster-scoped, both: listed without a namespace, a page of 500 at a time.
    expect(requests(kube)).toEqual(['list Storage', 'list PersistentVolume'])
    expect(kube.requests.map((r) => r.list)).toEqual([{limit: 500}, {limit: 500}])
    expect(kube.mutatingRequests()).toEqual([])
    expect(console.results).toHaveLength(1)
    expect(console.results[0]!.split('\n')).toEqual([
      'NAME          TYPE           AUTO MOUNT   MOUNT POINT        READONLY   BUCKET/INSTANCE',
      'checkpoints   gcsfuse        true         /mnt/checkpoints   false      my-checkpoints',
      'datasets      gcsfuse        false        /mnt/datasets      true       my-datasets',
      'home          gcpfilestore   true         /mnt/home          false      home-fs',
    ])
    expect(console.messages).toEqual([])
  })

  it('reads every page, each through the retry policy: a page that fails is asked for again, not the ones before', async () => {
    const names = Array.from({length: 1201}, (_, i) => `s-${String(i).padStart(4, '0')}`)
    const kube = aCluster(...names.flatMap((n) => [storage(n), volume(`${n}-pv`, `${n}-bucket`)]))
    kube.failNext(1, {verb: 'list', kind: 'Storage'})
    kube.failNext(1, {verb: 'list', kind: 'PersistentVolume'}, 429, 'too many requests')
    const result = await run(kube).done
    expect(result.storages.map((s) => s.name)).toEqual(names)
    expect(result.storages.every((s) => s.bucketOrInstance === `${s.name}-bucket`)).toBe(true)
    // Three pages of each kind, and the first of each once more.
    expect(requests(kube)).toEqual([
      ...['list Storage 503', 'list Storage', 'list Storage', 'list Storage'],
      ...['list PersistentVolume 429', 'list PersistentVolume', 'list PersistentVolume', 'list PersistentVolume'],
    ])
  })

  it('a storage whose PersistentVolume is gone, or names none: shown without a bucket, no volume read for none', async () => {
    const kube = aCluster(storage('orphan'), storage('nameless', {pv: undefined}))
    const result = await run(kube).done
    expect(result.storages.map((s) => [s.name, s.pv, s.volumeHandle, s.bucketOrInstance])).toEqual([
      ['nameless', null, null, null],
      ['orphan', 'orphan-pv', null, null],
    ])
    const only = aCluster(storage('nameless', {pv: undefined}))
    await run(only).done
    expect(requests(only)).toEqual(['list Storage'])
  })

  it('a malformed Storage is shown with what it has, "-" for the rest, and a warning names its fields', async () => {
    // Written by another tool or version: the minimal CRD takes any object, as an older or looser CRD would.
    const kube = new MemoryKube()
    kube.seed(MINIMAL_STORAGE_CRD)
    kube.seed(storage('good'))
    kube.seed(storage('bad', {mount_point: undefined, readonly: 'yes', type: 7}))
    kube.seed({apiVersion: 'xpk.x-k8s.io/v1', kind: 'Storage', metadata: {name: 'empty'}})
    kube.seed(volume('good-pv', 'good-bucket'))
    const {done, console} = run(kube)
    const result = await done
    expect(result.storages.map((s) => [s.name, s.invalidFields])).toEqual([
      ['bad', ['spec.type', 'spec.mount_point', 'spec.readonly']],
      [
        'empty',
        [
          'spec.type',
          'spec.cluster',
          'spec.auto_mount',
          'spec.mount_point',
          'spec.readonly',
          'spec.manifest',
          'spec.pv',
          'spec.pvc',
        ],
      ],
      ['good', []],
    ])
    expect(console.results[0]!.split('\n').slice(1)).toEqual([
      'bad     -         true         -             -          -',
      'empty   -         -            -             -          -',
      'good    gcsfuse   true         /mnt/good     false      good-bucket',
    ])
    const warning = console.the('storage.invalid-fields')
    expect(console.codes('warn')).toEqual(['storage.invalid-fields'])
    expect(warning.data).toEqual({
      storages: [
        {name: 'bad', fields: ['spec.type', 'spec.mount_point', 'spec.readonly']},
        {name: 'empty', fields: result.storages[1]!.invalidFields},
      ],
    })
    expect(warning.text).toBe(
      'Storage objects lack fields (or hold them with another type), shown as "-": bad (spec.type, spec.mount_point, ' +
        'spec.readonly); empty (spec.type, spec.cluster, spec.auto_mount, spec.mount_point, spec.readonly, ' +
        'spec.manifest, spec.pv, spec.pvc).',
    )
  })

  it('none, where the kind is served: nothing on stdout, the note on stderr; the CRD read, no volume', async () => {
    const kube = aCluster()
    const {done, console} = run(kube)
    expect(await done).toEqual({kindServed: true, storages: []})
    expect(console.results).toEqual([])
    expect(console.the('storage.list.none-found')).toMatchObject({
      text: 'No storages found in cluster demo.',
      data: {cluster: 'demo', kindServed: true},
    })
    expect(requests(kube)).toEqual(['list Storage', 'get CustomResourceDefinition storages.xpk.x-k8s.io'])
  })

  it('a cluster without the Storage CRD: an empty list (not an error), and a note that none was ever attached', async () => {
    const kube = new MemoryKube()
    const {done, console} = run(kube)
    expect(await done).toEqual({kindServed: false, storages: []})
    expect(console.results).toEqual([])
    expect(console.the('storage.list.none-found')).toMatchObject({
      text: 'No storages found: cluster demo has no Storage kind (CRD storages.xpk.x-k8s.io), so no storage was ever attached to it.',
      data: {cluster: 'demo', kindServed: false},
    })
    expect(requests(kube)).toEqual(['list Storage 404', 'get CustomResourceDefinition storages.xpk.x-k8s.io 404'])
  })

  it('through a kubeconfig: GKE is not asked, and the note names no cluster', async () => {
    const kube = new MemoryKube()
    const {done, console, connections, reached} = run(kube, {viaKubeconfig: true, project: undefined, zone: undefined})
    await done
    expect(connections()).toBe(0)
    expect(reached).toEqual([undefined])
    expect(console.the('storage.list.none-found').text).toBe(
      'No storages found: the cluster has no Storage kind (CRD storages.xpk.x-k8s.io), so no storage was ever attached to it.',
    )
  })

  it.each<[string, OutputChoice, string[]]>([
    ['-o name', {format: 'name', headers: true}, ['a\nb']],
    [
      '--no-headers',
      {format: 'table', headers: false},
      ['a   gcsfuse   true   /mnt/a   false   a-bucket\nb   gcsfuse   true   /mnt/b   false   b-bucket'],
    ],
    ['-o json (printed by the command, from the result)', {format: 'json', headers: true}, []],
    ['-o yaml (the same)', {format: 'yaml', headers: true}, []],
  ])('%s', async (_, output, printed) => {
    const kube = aCluster(storage('b'), storage('a'), volume('a-pv', 'a-bucket'), volume('b-pv', 'b-bucket'))
    const {done, console} = run(kube, {output})
    expect((await done).storages).toHaveLength(2)
    expect(console.results).toEqual(printed)
  })

  it('as data, an empty list is the empty result and no note', async () => {
    const {done, console} = run(new MemoryKube(), {output: {format: 'json', headers: true}})
    expect(await done).toEqual({kindServed: false, storages: []})
    expect(console.messages).toEqual([])
  })

  it('a read the policy does not retry (403) stops the command after one request', async () => {
    const kube = aCluster(storage('a'))
    kube.failNext(1, {verb: 'list', kind: 'Storage'}, 403, 'storages.xpk.x-k8s.io is forbidden')
    const error = await failure(run(kube).done)
    expect(error.message).toContain('storages.xpk.x-k8s.io is forbidden')
    expect(requests(kube)).toEqual(['list Storage 403'])
  })

  it('a target GKE cannot find: every missing flag at once, before any request', async () => {
    const kube = aCluster(storage('a'))
    const {done, connections, reached} = run(kube, {project: undefined, zone: undefined, cluster: undefined})
    const error = await failure(done)
    expect(error).toBeInstanceOf(UsageErrors)
    expect((error as UsageErrors).problems.map((p) => p.flag)).toEqual(['--project', '--zone', '--cluster'])
    expect(connections()).toBe(0)
    expect(reached).toEqual([])
    expect(kube.requests).toEqual([])
  })
})
