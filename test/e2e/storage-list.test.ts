// `xpk storage list` as a user runs it, through the built CLI: the GKE fake finds cluster demo and hands out the
// Kubernetes fake's endpoint and CA, where the Storage CRD is installed (Python xpk's own from ../shared when the
// checkout has it, so the fake validates every Storage object against it; else ours, the same schema) with Storage objects
// and their PersistentVolumes as an attach leaves them. The table, --json (held to its schema by the CLI helper),
// what goes over the wire, a cluster that never had a storage attached, --dry-run's note, and --kubeconfig.
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeEach, describe, expect, it} from 'vitest'

import type {StorageListResult} from '../../src/services/storage-list.js'
import type {FakeGke} from '../fakes/fake-gke.js'
import type {FakeKube, Obj} from '../fakes/fake-kube.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
import {markRequests, mutationsSince} from '../helpers/mutations.js'
import {PYTHON_STORAGE_CRD, STORAGE_CRD} from '../helpers/storage-crd.js'
import {tempDir} from '../helpers/temp.js'
import {fakesForFile, seedDemoCluster, startKubeAndGke} from '../helpers/wire-fakes.js'

const PROJECT = 'e2e-project'
const ZONE = 'us-central2-b'

let gke: FakeGke
let kube: FakeKube

fakesForFile(
  async (wire) => {
    ;({kube, gke} = await startKubeAndGke(wire))
    seedDemoCluster(gke, PROJECT)
    if (!PYTHON_STORAGE_CRD) process.stderr.write('storage-list e2e: our Storage CRD (no ../shared/crds)\n')
  },
  {reset: false},
)
beforeEach(() => {
  kube.reset()
})

const env = () => isolatedEnv({XPK_GKE_ENDPOINT: `http://${gke.endpoint}`, XPK_ACCESS_TOKEN: kube.token})
const list = (...args: string[]) =>
  runCli(['storage', 'list', '--project', PROJECT, '--zone', ZONE, '--cluster', 'demo', ...args], {env: env()})

/** A Storage object as Python xpk's `storage attach` writes it, and its PersistentVolume. */
function attached(name: string, type: string, volumeHandle: string, spec: Record<string, unknown> = {}): Obj[] {
  const driver = type === 'gcsfuse' ? 'gcsfuse.csi.storage.gke.io' : 'filestore.csi.storage.gke.io'
  return [
    {
      apiVersion: 'xpk.x-k8s.io/v1',
      kind: 'Storage',
      metadata: {name},
      spec: {
        type,
        cluster: 'demo',
        auto_mount: true,
        mount_point: `/mnt/${name}`,
        readonly: false,
        manifest: `xpkclusters/storage-manifests/${PROJECT}-${ZONE}-demo-${name}-manifest.yaml`,
        pv: `${name}-pv`,
        pvc: `${name}-pvc`,
        ...spec,
      },
    },
    {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: {name: `${name}-pv`},
      spec: {
        capacity: {storage: '64Gi'},
        accessModes: ['ReadWriteMany'],
        persistentVolumeReclaimPolicy: 'Retain',
        csi: {driver, volumeHandle},
      },
    },
  ]
}

function seedStorages(): void {
  kube.seed(STORAGE_CRD as unknown as Obj)
  kube.seed(
    ...attached('datasets', 'gcsfuse', 'my-datasets', {auto_mount: false, readonly: true}),
    ...attached('checkpoints', 'gcsfuse', 'my-checkpoints'),
    ...attached('home', 'gcpfilestore', `projects/${PROJECT}/locations/${ZONE}/instances/home-fs/volumes/vol1`),
  )
}

describe('xpk storage list', () => {
  it('prints the table of the Storage objects, sorted by name, reading one page of each kind', async () => {
    seedStorages()
    const mark = markRequests({gke, kube})
    const result = await list()
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe(
      [
        'NAME          TYPE           AUTO MOUNT   MOUNT POINT        READONLY   BUCKET/INSTANCE',
        'checkpoints   gcsfuse        true         /mnt/checkpoints   false      my-checkpoints',
        'datasets      gcsfuse        false        /mnt/datasets      true       my-datasets',
        'home          gcpfilestore   true         /mnt/home          false      home-fs',
        '',
      ].join('\n'),
    )
    expect(result.stderr).toBe('')
    // Discovery of the Storage kind's group version, then one list of each kind.
    expect(kube.requestCount({verb: 'list', resource: 'storages'})).toBe(1)
    expect(kube.requestCount({verb: 'list', resource: 'persistentvolumes'})).toBe(1)
    expect(kube.requestCount({resource: 'customresourcedefinitions'})).toBe(0)
    expect(mutationsSince({gke, kube}, mark)).toEqual([])
  })

  it('--json: the result as data, every field of each storage', async () => {
    seedStorages()
    const result = await list('--json')
    expect(result.code, result.stderr).toBe(0)
    const json = JSON.parse(result.stdout) as StorageListResult
    expect(json.kindServed).toBe(true)
    expect(json.storages.map((s) => s.name)).toEqual(['checkpoints', 'datasets', 'home'])
    expect(json.storages[2]).toEqual({
      name: 'home',
      type: 'gcpfilestore',
      cluster: 'demo',
      autoMount: true,
      mountPoint: '/mnt/home',
      readonly: false,
      manifest: `xpkclusters/storage-manifests/${PROJECT}-${ZONE}-demo-home-manifest.yaml`,
      pv: 'home-pv',
      pvc: 'home-pvc',
      invalidFields: [],
      volumeHandle: `projects/${PROJECT}/locations/${ZONE}/instances/home-fs/volumes/vol1`,
      bucketOrInstance: 'home-fs',
    })
  })

  it('a cluster without the Storage CRD: exit 0, nothing on stdout, a note that no storage was ever attached', async () => {
    const result = await list()
    expect({code: result.code, stdout: result.stdout}).toEqual({code: 0, stdout: ''})
    expect(result.stderr.trim()).toBe(
      'No storages found: cluster demo has no Storage kind (CRD storages.xpk.x-k8s.io), so no storage was ever attached to it.',
    )
    expect(kube.requestCount({verb: 'list', resource: 'persistentvolumes'})).toBe(0)
    const json = await list('--json')
    expect(JSON.parse(json.stdout)).toEqual({kindServed: false, storages: []})
  })

  it('the CRD installed and no Storage object: the plain note', async () => {
    kube.seed(STORAGE_CRD as unknown as Obj)
    const result = await list()
    expect({code: result.code, stdout: result.stdout}).toEqual({code: 0, stdout: ''})
    expect(result.stderr.trim()).toBe('No storages found in cluster demo.')
  })

  it('--dry-run: runs as usual, and says it changes nothing', async () => {
    seedStorages()
    const plain = await list()
    const dry = await list('--dry-run')
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toBe(plain.stdout)
    expect(dry.stderr).toContain('--dry-run: xpk storage list changes nothing, so it runs as usual.')
  })

  it('--kubeconfig reaches the cluster without asking GKE', async () => {
    seedStorages()
    const kubeconfig = join(tempDir('xpk-kubeconfig-'), 'config')
    writeFileSync(kubeconfig, kube.kubeconfig())
    const result = await runCli(['storage', 'list', '--kubeconfig', kubeconfig, '-o', 'name'], {
      env: isolatedEnv({XPK_GKE_ENDPOINT: 'http://127.0.0.1:9'}),
    })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe('checkpoints\ndatasets\nhome\n')
  })
})
