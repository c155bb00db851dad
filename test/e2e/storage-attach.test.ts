// `xpk storage attach`, `create`, `list`, `detach` and `delete`, the built CLI against the wire fakes (GKE, Kubernetes with the Storage
// kind's own CRD as attach installs it, Cloud Storage, Filestore): a bucket and a Filestore instance each attached
// (the cluster updated through GKE's API, the bucket granted through its IAM policy, every object validated by the
// Kubernetes fake), listed, attached again with nothing sent, and detached with their data left alone; a bucket
// that does not exist is exit 4 and bad input exit 2, both with zero mutating requests.
import {describe, expect, it} from 'vitest'

import type {StorageAttachResult} from '../../src/services/storage-attach.js'
import type {StorageCreateResult} from '../../src/services/storage-create.js'
import {FakeCloudStorage} from '../fakes/fake-cloud-storage.js'
import {FakeFilestore} from '../fakes/fake-filestore.js'
import type {FakeGke} from '../fakes/fake-gke.js'
import type {FakeKube} from '../fakes/fake-kube.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
import {markRequests, mutationsSince, type WireFakes} from '../helpers/mutations.js'
import {fakesForFile, seedDemoCluster, startKubeAndGke} from '../helpers/wire-fakes.js'

const PROJECT = 'e2e-project'
const ZONE = 'us-central2-b'
const PROJECT_NUMBER = '123456789012'

let gke: FakeGke
let kube: FakeKube
let storage: FakeCloudStorage
let filestore: FakeFilestore
let fakes: WireFakes

fakesForFile(
  async (wire) => {
    ;({kube, gke} = await startKubeAndGke(wire))
    storage = wire.add(await FakeCloudStorage.start())
    filestore = wire.add(await FakeFilestore.start())
    fakes = {gke, kube, storage, filestore}
  },
  {reset: false},
)

const env = () =>
  isolatedEnv({
    XPK_GKE_ENDPOINT: `http://${gke.endpoint}`,
    XPK_STORAGE_ENDPOINT: storage.endpoint,
    XPK_FILESTORE_ENDPOINT: filestore.endpoint,
    XPK_ACCESS_TOKEN: kube.token,
    XPK_PROJECT: PROJECT,
    XPK_ZONE: ZONE,
    XPK_CLUSTER: 'demo',
    XPK_POLL_INTERVAL_MS: '20',
  })
const xpk = (...argv: string[]) => runCli(argv, {env: env()})

const DATASETS = [
  ...['datasets', '--type', 'gcsfuse', '--bucket', 'my-datasets', '--size', '64'],
  ...['--project-number', PROJECT_NUMBER, '--auto-mount', 'true', '--mount-point', '/data', '--readonly', 'true'],
]
const HOME = [
  ...['home', '--type', 'gcpfilestore', '--instance', 'home-fs', '--vol', 'vol1'],
  ...['--auto-mount', 'false', '--mount-point', '/home/shared', '--readonly', 'false'],
]

function fresh(): void {
  gke.reset()
  kube.reset()
  storage.reset()
  filestore.reset()
  seedDemoCluster(gke, PROJECT)
}

describe('xpk storage attach, list, detach', () => {
  it('a bucket: the cluster updated, the bucket granted, the objects made; listed; a re-run sends nothing; detached', async () => {
    fresh()
    storage.seedBucket({name: 'my-datasets', project: PROJECT})
    const attach = await xpk('storage', 'attach', ...DATASETS, '--force', '--json')
    expect(attach.code, attach.stderr).toBe(0)
    const result = JSON.parse(attach.stdout) as StorageAttachResult
    expect(result.applied).toBe(true)
    expect(result.steps.map((s) => `${s.action} ${s.resource}`)).toEqual([
      'check bucket',
      'update clusterUpdate',
      'update clusterUpdate',
      'update bucketIam',
      'create customResourceDefinition',
      'create persistentVolume',
      'create persistentVolumeClaim',
      'create storage',
    ])
    expect(storage.calls.filter((c) => c.method === 'PUT').length).toBe(1)
    expect(kube.get({apiVersion: 'xpk.x-k8s.io/v1', kind: 'Storage', name: 'datasets'})).toBeDefined()

    const list = await xpk('storage', 'list')
    expect(list.code, list.stderr).toBe(0)
    expect(list.stdout).toMatch(/^datasets\s+gcsfuse\s+true\s+\/data\s+true\s+my-datasets$/m)

    const mark = markRequests(fakes)
    const again = await xpk('storage', 'attach', ...DATASETS)
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toContain('nothing needed changing')
    expect(mutationsSince(fakes, mark)).toEqual([])

    const detach = await xpk('storage', 'detach', 'datasets')
    expect(detach.code, detach.stderr).toBe(0)
    expect(kube.get({apiVersion: 'xpk.x-k8s.io/v1', kind: 'Storage', name: 'datasets'})).toBeUndefined()
    expect(kube.get({apiVersion: 'v1', kind: 'PersistentVolume', name: 'datasets-pv'})).toBeUndefined()
    const after = await xpk('storage', 'list')
    expect(after.stdout).toBe('')
  })

  it('a Filestore instance: class, volume and claim naming its address; listed; detached, the instance kept', async () => {
    fresh()
    filestore.seedInstance({project: PROJECT, location: ZONE, id: 'home-fs'})
    const attach = await xpk('storage', 'attach', ...HOME)
    expect(attach.code, attach.stderr).toBe(0)
    expect(kube.get({apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', name: 'home-sc'})).toBeDefined()
    const list = await xpk('storage', 'list')
    expect(list.stdout).toMatch(/^home\s+gcpfilestore\s+false\s+\/home\/shared\s+false\s+home-fs$/m)
    const mark = markRequests(fakes)
    expect((await xpk('storage', 'attach', ...HOME)).code).toBe(0)
    expect(mutationsSince(fakes, mark)).toEqual([])
    const detach = await xpk('storage', 'detach', 'home')
    expect(detach.code, detach.stderr).toBe(0)
    expect(kube.get({apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', name: 'home-sc'})).toBeUndefined()
    expect(filestore.calls.filter((c) => c.method !== 'GET')).toEqual([])
  })

  it('storage delete: a Filestore storage detached, then its instance deleted and waited for', async () => {
    fresh()
    filestore.seedInstance({project: PROJECT, location: ZONE, id: 'home-fs'})
    expect((await xpk('storage', 'attach', ...HOME)).code).toBe(0)
    const refused = await xpk('storage', 'delete', 'home')
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('--force')
    const deleted = await xpk('storage', 'delete', 'home', '--force')
    expect(deleted.code, deleted.stderr).toBe(0)
    expect(deleted.stderr).toContain('Deleted storage home and Filestore instance home-fs.')
    expect(kube.get({apiVersion: 'xpk.x-k8s.io/v1', kind: 'Storage', name: 'home'})).toBeUndefined()
    expect(filestore.calls.filter((c) => c.method === 'DELETE').length).toBe(1)
    const gone = await xpk('storage', 'list')
    expect(gone.stdout).toBe('')
  })

  it('storage create: the instance made on the cluster network and waited for, attached; listed; a re-run sends nothing; deleted', async () => {
    fresh()
    const CREATE = [...HOME, '--size', '1T', '--tier', 'ZONAL']
    const mark = markRequests(fakes)
    const dry = await xpk('storage', 'create', ...CREATE, '--dry-run')
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toMatch(/\+\s+create\s+filestore\s+home-fs\s+ZONAL in us-central2-b, share vol1 of 1024 GiB/)
    expect(mutationsSince(fakes, mark)).toEqual([])

    const created = await xpk('storage', 'create', ...CREATE, '--json')
    expect(created.code, created.stderr).toBe(0)
    const result = JSON.parse(created.stdout) as StorageCreateResult
    expect(result.steps.map((s) => `${s.action} ${s.resource}`).slice(0, 3)).toEqual([
      'create filestoreInstance',
      'wait filestoreInstance',
      'update clusterUpdate',
    ])
    const posted = filestore.calls.filter((c) => c.method === 'POST')
    expect(posted.map((c) => [c.path, c.query.instanceId])).toEqual([
      [`projects/${PROJECT}/locations/${ZONE}/instances`, 'home-fs'],
    ])
    expect(posted[0]!.body).toMatchObject({
      tier: 'ZONAL',
      fileShares: [{name: 'vol1', capacityGb: '1024'}],
      networks: [{network: 'default'}],
    })
    const pv = kube.get({apiVersion: 'v1', kind: 'PersistentVolume', name: 'home-pv'}) as {
      spec: {csi: {volumeAttributes: {ip: string}}}
    }
    expect(pv.spec.csi.volumeAttributes.ip).toMatch(/^10\.\d+\.\d+\.2$/)
    const list = await xpk('storage', 'list')
    expect(list.stdout).toMatch(/^home\s+gcpfilestore\s+false\s+\/home\/shared\s+false\s+home-fs$/m)

    expect(created.stderr).toContain(
      'Created Filestore instance home-fs and attached it as storage home to cluster demo.',
    )
    const again = markRequests(fakes)
    const rerun = await xpk('storage', 'create', ...CREATE)
    expect(rerun.code).toBe(0)
    expect(rerun.stderr).toContain('Filestore instance home-fs is attached as storage home to cluster demo.')
    expect(mutationsSince(fakes, again)).toEqual([])
    const differs = await xpk('storage', 'create', ...HOME, '--size', '2T', '--tier', 'ZONAL')
    expect(differs.code).toBe(6)
    expect(differs.stderr).toContain('capacity 1024 GiB, not 2048 GiB')
    expect(mutationsSince(fakes, again)).toEqual([])

    const deleted = await xpk('storage', 'delete', 'home', '--force')
    expect(deleted.code, deleted.stderr).toBe(0)
    expect(filestore.calls.filter((c) => c.method === 'DELETE').length).toBe(1)
    expect((await xpk('storage', 'list')).stdout).toBe('')
  })

  it('a bucket that does not exist is exit 4; bad input exit 2; neither sends a change', async () => {
    fresh()
    const mark = markRequests(fakes)
    const absent = await xpk('storage', 'attach', ...DATASETS)
    expect(absent.code, absent.stderr).toBe(4)
    expect(absent.stderr).toContain('Bucket my-datasets does not exist')
    const bad = await xpk('storage', 'attach', ...DATASETS, '--instance', 'x')
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--instance applies to --type gcpfilestore')
    const gone = await xpk('storage', 'detach', 'nothing-here')
    expect(gone.code).toBe(4)
    expect(mutationsSince(fakes, mark)).toEqual([])
  })
})
