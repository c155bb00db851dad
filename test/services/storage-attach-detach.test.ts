// `xpk storage attach` and `xpk storage detach` in process, over the in-memory GKE, Kubernetes, Cloud Storage and
// Filestore ports: every type attached (the cluster updates it needs, the bucket grant, the CRD, the objects, the
// Storage object last), a re-run that sends nothing, the refusals (bad input before any request, an absent bucket or
// instance exit 4, an object of the name that differs exit 6, nodes GKE would recreate asked about), --dry-run, and
// detach keeping the data and what another storage names.
import {describe, expect, it} from 'vitest'

import {XpkError} from '../../src/core/errors.js'
import {storageCrd} from '../../src/core/storage/crd.js'
import type {AttachFlags} from '../../src/core/storage/rules.js'
import type {TextFileRead} from '../../src/core/text-file.js'
import {DEFAULT_RETRY_POLICY} from '../../src/executor/retry.js'
import {DEFAULT_TIMING} from '../../src/core/timing.js'
import type {KubeObject} from '../../src/ports/kube.js'
import {attachStorage, type StorageAttachOptions} from '../../src/services/storage-attach.js'
import {createStorage} from '../../src/services/storage-create.js'
import type {CreateFlags} from '../../src/core/storage/create-plan.js'
import {deleteStorage} from '../../src/services/storage-delete.js'
import {detachStorage} from '../../src/services/storage-detach.js'
import {DATASETS_FLAGS, HOME_FLAGS, USER_MANIFESTS} from '../builders/storage.js'
import {anObservedPool} from '../builders/observed.js'
import {MemoryCloudStorage} from '../fakes/memory-cloud-storage.js'
import {MemoryFilestore} from '../fakes/memory-filestore.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {MemoryKube} from '../fakes/memory-kube.js'
import {RecordingConsole, type PromptAnswer} from '../helpers/recording-console.js'
import {virtualClock} from '../helpers/virtual-clock.js'

const PROJECT = 'my-project'
const ZONE = 'us-central2-b'
const PROJECT_NUMBER = '123456789012'
const PRINCIPAL =
  `principal://iam.googleapis.com/projects/${PROJECT_NUMBER}/locations/global/workloadIdentityPools/` +
  `${PROJECT}.svc.id.goog/subject/ns/default/sa/xpk-sa`

/** The ports of one cluster and the services behind its storages. */
class World {
  readonly gke: MemoryGke
  readonly kube = new MemoryKube()
  readonly storage = new MemoryCloudStorage()
  readonly filestore = new MemoryFilestore()
  readonly files = new Map<string, string>()

  constructor(gke = new MemoryGke()) {
    this.gke = gke
  }

  deps(answer: PromptAnswer = 'unexpected', controller = new AbortController()) {
    const console = new RecordingConsole(answer)
    return {
      console,
      gke: async () => this.gke,
      kube: async () => this.kube,
      cloudStorage: async () => this.storage,
      filestore: async () => this.filestore,
      files: {
        readText: async (path: string): Promise<TextFileRead> => {
          const text = this.files.get(path)
          return text === undefined ? {kind: 'missing'} : {kind: 'text', text}
        },
      },
      signal: controller.signal,
      ...virtualClock(),
    }
  }

  attach(flags: AttachFlags, extra: Partial<StorageAttachOptions> = {}, answer: PromptAnswer = 'unexpected') {
    const deps = this.deps(answer)
    const options: StorageAttachOptions = {
      project: PROJECT,
      zone: ZONE,
      cluster: 'demo',
      viaKubeconfig: false,
      flags,
      projectNumber: flags.type === 'gcsfuse' ? PROJECT_NUMBER : undefined,
      dryRun: false,
      timing: {retry: DEFAULT_RETRY_POLICY, operations: DEFAULT_TIMING.operations},
      ...extra,
    }
    return {done: attachStorage(options, deps), console: deps.console}
  }

  create(flags: CreateFlags, dryRun = false, controller?: AbortController) {
    const deps = this.deps('unexpected', controller)
    const done = createStorage(
      {
        ...{project: PROJECT, zone: ZONE, cluster: 'demo', viaKubeconfig: false, flags, dryRun},
        timing: {retry: DEFAULT_RETRY_POLICY, operations: DEFAULT_TIMING.operations},
      },
      deps,
    )
    return {done, console: deps.console}
  }

  detach(name: string, dryRun = false, answer: PromptAnswer = 'unexpected') {
    const deps = this.deps(answer)
    const done = detachStorage(
      {
        project: PROJECT,
        zone: ZONE,
        cluster: 'demo',
        viaKubeconfig: false,
        name,
        dryRun,
        timing: {retry: DEFAULT_RETRY_POLICY},
      },
      deps,
    )
    return {done, console: deps.console}
  }

  delete(name: string, dryRun = false, answer: PromptAnswer = 'yes') {
    const deps = this.deps(answer)
    const done = deleteStorage(
      {
        ...{project: PROJECT, zone: ZONE, cluster: 'demo', viaKubeconfig: false, name, dryRun},
        timing: {retry: DEFAULT_RETRY_POLICY, operations: DEFAULT_TIMING.operations},
      },
      deps,
    )
    return {done, console: deps.console}
  }

  /** Every request that changed something, of every port. */
  mutations(): string[] {
    return [
      ...this.kube.mutatingRequests().map((r) => `kube ${r.verb} ${r.kind} ${r.name ?? ''}`.trim()),
      ...this.storage.mutations().map((m) => `storage ${m}`),
      ...this.filestore.mutations().map((m) => `filestore ${m}`),
      ...this.gke.calls.filter((c) => /^(update|create|delete|set)/.test(c)).map((c) => `gke ${c}`),
    ]
  }

  object(kind: string, name: string, namespace?: string): KubeObject | undefined {
    const apiVersion = kind === 'Storage' ? 'xpk.x-k8s.io/v1' : kind === 'StorageClass' ? 'storage.k8s.io/v1' : 'v1'
    return this.kube.peek({apiVersion, kind, name, ...(namespace ? {namespace} : {})})
  }
}

const failure = async (p: Promise<unknown>) => {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(XpkError)
  return error as XpkError
}

const MANIFEST_FLAGS = (type: 'parallelstore' | 'pd' | 'lustre'): AttachFlags => ({
  name: `my-${type}`,
  type,
  autoMount: 'false',
  mountPoint: `/mnt/${type}`,
  readonly: 'false',
  manifest: `/home/me/${type}.yaml`,
})

describe('storage attach', () => {
  it('gcsfuse on a fresh cluster: Workload Identity and the driver, the grant, the CRD, PV, claim, Storage last', async () => {
    const world = new World()
    world.storage.addBucket('my-datasets', {project: PROJECT})
    const {done, console} = world.attach(DATASETS_FLAGS)
    const result = await done
    expect(result.applied).toBe(true)
    expect(world.gke.workloadPool).toBe(`${PROJECT}.svc.id.goog`)
    expect(world.gke.csiDrivers).toContain('GcsFuseCsiDriver')
    expect(
      world.storage.policy('my-datasets').bindings.find((b) => b.role === 'roles/storage.objectViewer')?.members,
    ).toEqual([PRINCIPAL])
    expect(world.object('PersistentVolume', 'datasets-pv')).toBeDefined()
    expect(world.object('PersistentVolumeClaim', 'datasets-pvc', 'default')).toBeDefined()
    expect(world.object('Storage', 'datasets')?.spec).toMatchObject({
      type: 'gcsfuse',
      auto_mount: true,
      pv: 'datasets-pv',
    })
    // The Storage object is the last thing written.
    const kubeWrites = world.kube.mutatingRequests().map((r) => r.kind)
    expect(kubeWrites.at(-1)).toBe('Storage')
    expect(kubeWrites[0]).toBe('CustomResourceDefinition')
    expect(console.codes('info')).toContain('storage.attach.done')
  })

  it('a second attach of the same storage sends nothing', async () => {
    const world = new World()
    world.storage.addBucket('my-datasets', {project: PROJECT})
    await world.attach(DATASETS_FLAGS).done
    const before = world.mutations().length
    const again = await world.attach(DATASETS_FLAGS).done
    expect(world.mutations().slice(before)).toEqual([])
    expect(again.steps.every((s) => s.action === 'none' || s.action === 'check')).toBe(true)
  })

  it('gcpfilestore: the instance read in the zone, else the region; class, volume, claim, Storage', async () => {
    const world = new World()
    world.filestore.seedInstance({project: PROJECT, location: 'us-central2'}, {id: 'home-fs', tier: 'REGIONAL'})
    const result = await world.attach(HOME_FLAGS).done
    expect(result.applied).toBe(true)
    expect(world.gke.csiDrivers).toEqual(['GcpFilestoreCsiDriver'])
    expect(world.gke.workloadPool).toBeNull()
    expect(world.object('StorageClass', 'home-sc')).toBeDefined()
    expect(world.object('PersistentVolume', 'home-pv')).toBeDefined()
    expect(world.object('Storage', 'home')?.spec).toMatchObject({type: 'gcpfilestore', readonly: false})
    const before = world.mutations().length
    await world.attach(HOME_FLAGS).done
    expect(world.mutations().slice(before)).toEqual([])
  })

  it.each(['parallelstore', 'pd', 'lustre'] as const)(
    '%s from a --manifest: its objects and its driver',
    async (type) => {
      const world = new World()
      const flags = MANIFEST_FLAGS(type)
      world.files.set(flags.manifest!, USER_MANIFESTS[type])
      const result = await world.attach(flags).done
      expect(result.applied).toBe(true)
      const driver = {
        parallelstore: 'ParallelstoreCsiDriver',
        pd: 'GcePersistentDiskCsiDriver',
        lustre: 'LustreCsiDriver',
      }
      expect(world.gke.csiDrivers).toEqual([driver[type]])
      expect(world.object('PersistentVolume', `xpk-${type}-pv`)).toBeDefined()
      expect(world.object('Storage', `my-${type}`)?.spec).toMatchObject({type, pv: `xpk-${type}-pv`})
      // Nothing is read of a bucket or a Filestore instance.
      expect(world.storage.calls).toEqual([])
      const before = world.mutations().length
      await world.attach(flags).done
      expect(world.mutations().slice(before)).toEqual([])
    },
  )

  it('lustre with --enable-legacy-lustre-port turns the legacy port on', async () => {
    const world = new World()
    const flags = {...MANIFEST_FLAGS('lustre'), enableLegacyLustrePort: true}
    world.files.set(flags.manifest!, USER_MANIFESTS.lustre)
    await world.attach(flags).done
    expect(world.gke.lustreLegacyPort).toBe(true)
  })

  it('a bucket that does not exist is exit 4, and nothing is sent', async () => {
    const world = new World()
    const error = await failure(world.attach(DATASETS_FLAGS).done)
    expect(error.exitCode).toBe(4)
    expect(error.message).toContain('Bucket my-datasets does not exist')
    expect(world.mutations()).toEqual([])
  })

  it('a Filestore instance found in neither the zone nor the region is exit 4, and nothing is sent', async () => {
    const world = new World()
    const error = await failure(world.attach(HOME_FLAGS).done)
    expect(error.exitCode).toBe(4)
    expect(world.filestore.calls).toEqual(['getInstance us-central2-b/home-fs', 'getInstance us-central2/home-fs'])
    expect(world.mutations()).toEqual([])
  })

  it('a volume of the name that differs is a conflict (exit 6), and nothing is sent', async () => {
    const world = new World()
    world.storage.addBucket('my-datasets', {project: PROJECT})
    world.kube.seed({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: {name: 'datasets-pv'},
      spec: {capacity: {storage: '1Gi'}, accessModes: ['ReadWriteOnce'], csi: {driver: 'x', volumeHandle: 'y'}},
    })
    const error = await failure(world.attach(DATASETS_FLAGS).done)
    expect(error.exitCode).toBe(6)
    expect(error.message).toContain('PersistentVolume datasets-pv exists and differs')
    expect(world.mutations()).toEqual([])
  })

  const BAD: readonly [string, AttachFlags, string | undefined, string][] = [
    ['a bad name', {...DATASETS_FLAGS, name: 'Data_Sets'}, PROJECT_NUMBER, 'NAME'],
    ['--readonly yes', {...DATASETS_FLAGS, readonly: 'yes'}, PROJECT_NUMBER, '--readonly'],
    ['no --project-number for gcsfuse', DATASETS_FLAGS, undefined, '--project-number'],
    ['a --project-number that is not a number', DATASETS_FLAGS, 'my-project', '--project-number'],
    ['--project-number with gcpfilestore', HOME_FLAGS, PROJECT_NUMBER, '--project-number'],
    ['--bucket with gcpfilestore', {...HOME_FLAGS, bucket: 'b-1'}, undefined, '--bucket'],
    ['lustre without --manifest', {...MANIFEST_FLAGS('lustre'), manifest: undefined}, undefined, '--manifest'],
    ['a --manifest that is not there', {...MANIFEST_FLAGS('pd'), manifest: '/nowhere.yaml'}, undefined, '--manifest'],
    ['--size 0', {...DATASETS_FLAGS, size: '0'}, PROJECT_NUMBER, '--size'],
    ['--mount-point relative', {...DATASETS_FLAGS, mountPoint: 'data'}, PROJECT_NUMBER, '--mount-point'],
  ]
  it.each(BAD)('bad input (%s) is exit 2 naming the flag, before any request', async (_, flags, number, flag) => {
    const world = new World()
    world.storage.addBucket('my-datasets', {project: PROJECT})
    const error = await failure(world.attach(flags, {projectNumber: number}).done)
    expect(error.exitCode).toBe(2)
    expect(error.message).toContain(flag)
    expect(world.gke.calls).toEqual([])
    expect(world.kube.requests).toEqual([])
    expect(world.storage.calls).toEqual([])
    expect(world.filestore.calls).toEqual([])
  })

  it('--dry-run reads, shows the plan and sends nothing', async () => {
    const world = new World()
    world.storage.addBucket('my-datasets', {project: PROJECT})
    const {done, console} = world.attach(DATASETS_FLAGS, {dryRun: true})
    const result = await done
    expect(result.applied).toBe(false)
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
    expect(console.results.join('\n')).toContain('Plan for storage datasets on cluster demo:')
    expect(world.mutations()).toEqual([])
  })

  it("asks before GKE recreates the nodes of xpk's pools; no terminal and no --force is exit 2 with nothing sent", async () => {
    const pool = anObservedPool({name: 'demo-np-0'})
    const world = new World(new MemoryGke([pool]))
    world.storage.addBucket('my-datasets', {project: PROJECT})
    const error = await failure(world.attach(DATASETS_FLAGS, {}, 'no-terminal').done)
    expect(error.exitCode).toBe(2)
    expect(error.message).toContain('demo-np-0')
    expect(world.mutations()).toEqual([])
    const {done, console} = world.attach(DATASETS_FLAGS, {}, 'yes')
    await done
    expect(console.questions.map((q) => q.code)).toEqual(['storage.attach.confirm-recreate-nodes'])
    expect(world.gke.pools.get('demo-np-0')?.workloadMetadataMode).toBe('GKE_METADATA')
  })

  it('a grant raced by another writer of the bucket policy is read and written again', async () => {
    const world = new World()
    world.storage.addBucket('my-datasets', {project: PROJECT})
    const set = world.storage.setBucketIamPolicy.bind(world.storage)
    let raced = false
    world.storage.setBucketIamPolicy = async (name, policy) => {
      if (!raced) {
        raced = true
        world.storage.changePolicy(name, [{role: 'roles/storage.admin', members: ['user:other@example.com']}])
      }
      return set(name, policy)
    }
    await world.attach(DATASETS_FLAGS).done
    const bindings = world.storage.policy('my-datasets').bindings
    expect(bindings).toContainEqual({role: 'roles/storage.admin', members: ['user:other@example.com']})
    expect(bindings).toContainEqual({role: 'roles/storage.objectViewer', members: [PRINCIPAL]})
  })
})

describe('storage detach', () => {
  it('deletes the claim, the volume and the Storage object last; the bucket and its grant stay', async () => {
    const world = new World()
    world.storage.addBucket('my-datasets', {project: PROJECT})
    await world.attach(DATASETS_FLAGS).done
    const policy = world.storage.policy('my-datasets')
    world.kube.clearLog()
    const result = await world.detach('datasets').done
    expect(result.steps.map((s) => `${s.action} ${s.resource}`)).toEqual([
      'delete persistentVolumeClaim',
      'delete persistentVolume',
      'delete storage',
    ])
    expect(world.kube.mutatingRequests().map((r) => `${r.verb} ${r.kind}`)).toEqual([
      'delete PersistentVolumeClaim',
      'delete PersistentVolume',
      'delete Storage',
    ])
    expect(world.object('Storage', 'datasets')).toBeUndefined()
    expect(world.storage.policy('my-datasets')).toEqual(policy)
    const again = await failure(world.detach('datasets').done)
    expect(again.exitCode).toBe(4)
  })

  it('gcpfilestore: the class goes too; the instance is not touched', async () => {
    const world = new World()
    world.filestore.seedInstance({project: PROJECT, location: ZONE}, {id: 'home-fs'})
    await world.attach(HOME_FLAGS).done
    await world.detach('home').done
    expect(world.object('StorageClass', 'home-sc')).toBeUndefined()
    expect(world.filestore.mutations()).toEqual([])
  })

  it('--dry-run shows the plan and deletes nothing', async () => {
    const world = new World()
    world.storage.addBucket('my-datasets', {project: PROJECT})
    await world.attach(DATASETS_FLAGS).done
    world.kube.clearLog()
    const {done, console} = world.detach('datasets', true)
    await done
    expect(console.results.join('\n')).toContain('Plan for detaching storage datasets')
    expect(world.kube.mutatingRequests()).toEqual([])
  })

  it('names the workloads still mounting it and asks; no terminal is exit 2 with nothing deleted', async () => {
    const world = new World()
    world.storage.addBucket('my-datasets', {project: PROJECT})
    await world.attach(DATASETS_FLAGS).done
    world.kube.seed({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {name: 'run-1-slice-0-0', namespace: 'default', labels: {'jobset.sigs.k8s.io/jobset-name': 'run-1'}},
      spec: {
        containers: [{name: 'c', image: 'i'}],
        volumes: [{name: 'datasets-pv', persistentVolumeClaim: {claimName: 'datasets-pvc'}}],
      },
      status: {phase: 'Running'},
    })
    world.kube.clearLog()
    const error = await failure(world.detach('datasets', false, 'no-terminal').done)
    expect(error.exitCode).toBe(2)
    expect(error.message).toContain('run-1')
    expect(world.kube.mutatingRequests()).toEqual([])
  })

  it('a volume whose reclaim policy is Delete is set to Retain before its claim goes; one another storage names stays', async () => {
    const world = new World()
    world.kube.seed(storageCrd())
    const storage = (name: string, pv: string, pvc: string) => ({
      apiVersion: 'xpk.x-k8s.io/v1',
      kind: 'Storage',
      metadata: {name},
      spec: {type: 'pd', cluster: 'demo', auto_mount: false, mount_point: '/d', readonly: false, manifest: '', pv, pvc},
    })
    world.kube.seed(storage('disk', 'disk-pv', 'disk-pvc'))
    world.kube.seed(storage('disk-too', 'disk-pv', 'other-pvc'))
    world.kube.seed({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: {name: 'disk-pv'},
      spec: {
        capacity: {storage: '10Gi'},
        accessModes: ['ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Delete',
        csi: {driver: 'pd.csi.storage.gke.io', volumeHandle: 'projects/p/zones/z/disks/disk'},
      },
    })
    world.kube.seed({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {name: 'disk-pvc', namespace: 'default'},
      spec: {accessModes: ['ReadWriteOnce'], volumeName: 'disk-pv', resources: {requests: {storage: '10Gi'}}},
    })
    world.kube.clearLog()
    const result = await world.detach('disk').done
    expect(result.steps.map((s) => `${s.action} ${s.resource} ${s.name}`)).toEqual([
      'delete persistentVolumeClaim default/disk-pvc',
      'none persistentVolume disk-pv',
      'delete storage disk',
    ])
    expect(world.object('PersistentVolume', 'disk-pv')).toBeDefined()
    expect(world.object('Storage', 'disk-too')).toBeDefined()

    // Alone, the volume is set to Retain first, then deleted after its claim.
    const alone = new World()
    alone.kube.seed(storageCrd())
    alone.kube.seed(storage('disk', 'disk-pv', 'disk-pvc'))
    alone.kube.seed({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: {name: 'disk-pv'},
      spec: {
        capacity: {storage: '10Gi'},
        accessModes: ['ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Delete',
        csi: {driver: 'pd.csi.storage.gke.io', volumeHandle: 'projects/p/zones/z/disks/disk'},
      },
    })
    alone.kube.clearLog()
    await alone.detach('disk').done
    expect(alone.kube.mutatingRequests().map((r) => `${r.verb} ${r.kind}`)).toEqual([
      'apply PersistentVolume',
      'delete PersistentVolume',
      'delete Storage',
    ])
    expect(alone.kube.mutatingRequests()[0]!.body?.spec).toEqual({persistentVolumeReclaimPolicy: 'Retain'})
  })

  it('the Storage object is not made when the cluster cannot get the driver it needs: the attach fails', async () => {
    const world = new World()
    world.storage.addBucket('my-datasets', {project: PROJECT})
    world.gke.failNextOperation('UPDATE_CLUSTER', {status: 'INTERNAL', message: 'the update broke'})
    const error = await failure(world.attach(DATASETS_FLAGS).done)
    expect(error.message).toContain('the update broke')
    expect(world.object('Storage', 'datasets')).toBeUndefined()
    // What does not depend on the driver was done, and a re-run finishes the rest.
    expect(world.object('PersistentVolume', 'datasets-pv')).toBeDefined()
  })

  it('a bad name is exit 2 before any request', async () => {
    const world = new World()
    const error = await failure(world.detach('Bad_Name').done)
    expect(error.exitCode).toBe(2)
    expect(world.gke.calls).toEqual([])
    expect(world.kube.requests).toEqual([])
  })
})

describe('storage delete', () => {
  async function attachedHome() {
    const world = new World()
    world.filestore.seedInstance({project: PROJECT, location: ZONE}, {id: 'home-fs'})
    await world.attach(HOME_FLAGS).done
    world.kube.clearLog()
    return world
  }

  it('asks, detaches (the Storage object last), then deletes the instance and waits until it is gone', async () => {
    const world = await attachedHome()
    const {done, console} = world.delete('home')
    const result = await done
    expect(console.questions.map((q) => q.code)).toEqual(['storage.delete.confirm'])
    expect(result.steps.map((s) => `${s.action} ${s.resource}`)).toEqual([
      'delete persistentVolumeClaim',
      'delete persistentVolume',
      'delete storageClass',
      'delete storage',
      'delete filestoreInstance',
    ])
    expect(world.kube.mutatingRequests().map((r) => `${r.verb} ${r.kind}`)).toEqual([
      'delete PersistentVolumeClaim',
      'delete PersistentVolume',
      'delete StorageClass',
      'delete Storage',
    ])
    expect(world.filestore.mutations()).toEqual([`deleteInstance ${ZONE}/home-fs`])
    expect(await world.filestore.getInstance({project: PROJECT, location: ZONE}, 'home-fs')).toBeUndefined()
  })

  it('no terminal and no --force is exit 2 with nothing deleted; --dry-run deletes nothing', async () => {
    const world = await attachedHome()
    const error = await failure(world.delete('home', false, 'no-terminal').done)
    expect(error.exitCode).toBe(2)
    const {done, console} = world.delete('home', true, 'unexpected')
    await done
    expect(console.results.join('\n')).toContain('delete   filestore')
    expect(world.mutations().filter((m) => !m.startsWith('gke') && !m.startsWith('storage'))).toEqual([])
  })

  it('refuses a storage of another type and one that workloads mount (exit 6), deleting nothing', async () => {
    const world = new World()
    world.storage.addBucket('my-datasets', {project: PROJECT})
    await world.attach(DATASETS_FLAGS).done
    const before = world.mutations().length
    const other = await failure(world.delete('datasets').done)
    expect(other.exitCode).toBe(6)
    expect(other.message).toContain('Filestore instances only')

    const home = await attachedHome()
    home.kube.seed({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {name: 'run-1-0', namespace: 'default', labels: {'jobset.sigs.k8s.io/jobset-name': 'run-1'}},
      spec: {
        containers: [{name: 'c', image: 'i'}],
        volumes: [{name: 'v', persistentVolumeClaim: {claimName: 'home-pvc'}}],
      },
      status: {phase: 'Running'},
    })
    const mounted = await failure(home.delete('home').done)
    expect(mounted.exitCode).toBe(6)
    expect(mounted.message).toContain('run-1')
    expect(world.mutations().length).toBe(before)
    expect(home.kube.mutatingRequests()).toEqual([])
    expect(home.filestore.mutations()).toEqual([])
  })

  it('an instance already gone is none: the storage is still detached', async () => {
    const world = await attachedHome()
    await world.filestore.deleteInstance({project: PROJECT, location: ZONE}, 'home-fs')
    for (let i = 0; i < 5; i++) await world.filestore.getInstance({project: PROJECT, location: ZONE}, 'home-fs')
    const before = world.filestore.mutations().length
    const result = await world.delete('home').done
    expect(result.steps.at(-1)).toMatchObject({action: 'none', reason: 'already gone'})
    expect(world.filestore.mutations().length).toBe(before)
    expect(world.object('Storage', 'home')).toBeUndefined()
  })
})

/** `storage create home`: a ZONAL instance (in the zone) of 1 TiB, share vol1, attached as HOME_FLAGS attaches. */
const CREATE_FLAGS: CreateFlags = {...HOME_FLAGS, size: '1T', tier: 'zonal'}

describe('storage create', () => {
  it('creates the instance on the cluster network, waits until READY, then attaches it; a re-run sends nothing', async () => {
    const world = new World()
    world.gke.network = 'team-vpc'
    const {done, console} = world.create(CREATE_FLAGS)
    const result = await done
    expect(result.steps.map((s) => `${s.action} ${s.resource}`)).toEqual([
      'create filestoreInstance',
      'wait filestoreInstance',
      'update clusterUpdate',
      'create customResourceDefinition',
      'create storageClass',
      'create persistentVolume',
      'create persistentVolumeClaim',
      'create storage',
    ])
    expect(world.filestore.mutations()).toEqual([`createInstance ${ZONE}/home-fs`])
    const instance = await world.filestore.getInstance({project: PROJECT, location: ZONE}, 'home-fs')
    expect(instance).toMatchObject({
      state: 'READY',
      tier: 'ZONAL',
      network: 'team-vpc',
      fileShares: [{name: 'vol1', capacityGb: 1024}],
    })
    expect(world.gke.csiDrivers).toEqual(['GcpFilestoreCsiDriver'])
    // The volume names the address Filestore gave the instance; the class, the cluster's network.
    const pv = world.object('PersistentVolume', 'home-pv') as unknown as {spec: {csi: {volumeAttributes: {ip: string}}}}
    expect(pv.spec.csi.volumeAttributes.ip).toBe(instance!.ipAddress)
    expect(world.object('StorageClass', 'home-sc')).toMatchObject({
      parameters: {tier: 'ZONAL', network: `projects/${PROJECT}/global/networks/team-vpc`},
    })
    expect(
      world.kube
        .mutatingRequests()
        .map((r) => r.kind)
        .at(-1),
    ).toBe('Storage')
    expect(console.codes('info')).toEqual(['storage.create.plan', 'storage.create.done'])
    expect(console.printed('Filestore instance home-fs')).toEqual(
      expect.arrayContaining([expect.stringContaining('creating'), expect.stringContaining('created')]),
    )

    const before = world.mutations().length
    const again = await world.create(CREATE_FLAGS).done
    expect(world.mutations().slice(before)).toEqual([])
    expect(again.steps.every((s) => s.action === 'none' || s.action === 'check')).toBe(true)
  })

  it('--dry-run shows every step, the address pending, and sends nothing', async () => {
    const world = new World()
    const {done, console} = world.create({...CREATE_FLAGS, tier: 'REGIONAL'}, true)
    const result = await done
    expect(result.instance).toEqual({project: PROJECT, location: 'us-central2', id: 'home-fs'})
    const shown = console.results.join('\n')
    expect(shown).toContain('create   filestore')
    expect(shown).toContain('wait     filestore')
    expect(shown).toContain('REGIONAL in us-central2, share vol1 of 1024 GiB, on network default')
    expect(JSON.stringify(result.steps)).toContain('<the address Filestore gives the instance>')
    expect(world.mutations()).toEqual([])
  })

  it('an instance of the id that differs is exit 6 naming the differences, and nothing is sent', async () => {
    const world = new World()
    world.filestore.seedInstance(
      {project: PROJECT, location: ZONE},
      {id: 'home-fs', tier: 'BASIC_HDD', fileShares: [{name: 'vol1', capacityGb: 2048}]},
    )
    const error = await failure(world.create({...CREATE_FLAGS, tier: 'BASIC_HDD', size: '1024'}).done)
    expect(error.exitCode).toBe(6)
    expect(error.message).toContain('capacity 2048 GiB, not 1024 GiB')
    const tier = await failure(world.create({...CREATE_FLAGS, tier: 'ZONAL', size: '2048'}).done)
    expect(tier.exitCode).toBe(6)
    expect(tier.message).toContain('tier BASIC_HDD, not ZONAL')
    expect(world.mutations()).toEqual([])
  })

  it('a create whose operation fails: its error, and nothing attached', async () => {
    const world = new World()
    world.filestore.failNextOperation('create', {status: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded for zonal'})
    const error = await failure(world.create(CREATE_FLAGS).done)
    expect(error.message).toContain('Creating Filestore instance home-fs failed: Quota exceeded for zonal')
    expect(world.kube.mutatingRequests()).toEqual([])
    expect(world.gke.csiDrivers).toEqual([])
  })

  it.each([
    [{size: undefined}, '--size'],
    [{size: '512'}, '--size'],
    [{tier: 'GOLD'}, '--tier'],
    [{type: 'gcsfuse'}, '--type'],
    [{vol: 'a_share_name_of_20ch', tier: 'BASIC_HDD', size: '1024'}, '--vol'],
    [{mountOptions: 'ro'}, '--mount-options'],
    [{name: 'Home'}, 'NAME'],
  ] as const)('bad input %j is exit 2 naming %s, with zero requests', async (change, flag) => {
    const world = new World()
    const error = await failure(world.create({...CREATE_FLAGS, ...change}).done)
    expect(error.exitCode).toBe(2)
    expect(error.message).toContain(flag)
    expect(world.filestore.calls).toEqual([])
    expect(world.gke.calls).toEqual([])
    expect(world.mutations()).toEqual([])
  })

  it('Ctrl-C while the instance is created stops the wait with nothing attached; a re-run finishes it', async () => {
    const world = new World()
    world.filestore.ticks = 5
    const controller = new AbortController()
    const getOperation = world.filestore.getOperation.bind(world.filestore)
    world.filestore.getOperation = async (name) => {
      controller.abort(new XpkError('interrupted', 'Interrupted.'))
      return getOperation(name)
    }
    const error = await failure(world.create(CREATE_FLAGS, false, controller).done)
    expect(error.kind).toBe('interrupted')
    expect(world.filestore.mutations()).toEqual([`createInstance ${ZONE}/home-fs`])
    expect(world.kube.mutatingRequests()).toEqual([])

    world.filestore.getOperation = getOperation
    const result = await world.create(CREATE_FLAGS).done
    expect(result.steps.slice(0, 2).map((s) => `${s.action} ${s.resource}`)).toEqual([
      'wait filestoreInstance',
      'update clusterUpdate',
    ])
    expect(world.filestore.mutations()).toEqual([`createInstance ${ZONE}/home-fs`])
    expect(world.object('Storage', 'home')).toBeDefined()
  })
})
