// The plans of `storage attach` and `storage detach` (src/core/storage/attach-plan.ts, detach-plan.ts): goldens of
// the text --dry-run shows and the JSON --json prints (test/golden/storage/plans/), for a fresh cluster, one set up
// by Python xpk, an offline dry run, a re-run that changes nothing, and detaches that keep the data; then the
// refusals: a bucket or instance that does not exist, objects of the name that differ.
import {describe, expect, it} from 'vitest'

import type {UpdateStep} from '../../../src/core/cluster/updates.js'
import {XpkError} from '../../../src/core/errors.js'
import type {KubeObject} from '../../../src/core/kube/release-manifest.js'
import {
  planStorageAttach,
  renderStorageAttachPlan,
  workloadPrincipal,
  type AttachPlanInputs,
} from '../../../src/core/storage/attach-plan.js'
import type {IamPolicy} from '../../../src/core/storage/backends.js'
import {storageCrd} from '../../../src/core/storage/crd.js'
import {
  planStorageDetach,
  renderStorageDetachPlan,
  type DetachPlanInputs,
} from '../../../src/core/storage/detach-plan.js'
import {readStorage, type ObservedStorage} from '../../../src/core/storage/observed.js'
import {attachRequestFromFlags, type AttachFlags} from '../../../src/core/storage/rules.js'
import {readStorageManifest} from '../../../src/core/storage/user-manifest.js'
import {
  attachObjects,
  CLUSTER,
  DATASETS_FLAGS,
  HOME_FLAGS,
  HOME_FS,
  PROJECT,
  USER_MANIFESTS,
} from '../../builders/storage.js'
import {expectGolden} from '../../helpers/golden.js'
import {PYTHON_STORAGE_CRD} from '../../helpers/storage-crd.js'
import {thrown} from '../../helpers/thrown.js'

const PROJECT_NUMBER = '123456789012'
const DATASETS = DATASETS_FLAGS
const HOME = HOME_FLAGS
const LUSTRE: AttachFlags = {
  name: 'scratch',
  type: 'lustre',
  autoMount: 'true',
  mountPoint: '/scratch',
  readonly: 'false',
  manifest: '/home/me/lustre.yaml',
  enableLegacyLustrePort: true,
}
const EMPTY_POLICY: IamPolicy = {
  version: 3,
  etag: 'BwX1',
  bindings: [{role: 'roles/storage.admin', members: ['user:me@example.com']}],
}
const BUCKET = {kind: 'bucket', bucket: {name: 'my-datasets', location: 'US-CENTRAL1', locationType: 'region'}} as const

function inputs(flags: AttachFlags, patch: Partial<AttachPlanInputs> = {}): AttachPlanInputs {
  const request = attachRequestFromFlags(flags)
  const source = request.source
  return {
    request,
    cluster: CLUSTER,
    project: PROJECT,
    projectNumber: PROJECT_NUMBER,
    network: 'default',
    backend:
      request.type === 'gcsfuse'
        ? {...BUCKET, policy: EMPTY_POLICY}
        : request.type === 'gcpfilestore'
          ? {kind: 'filestore', instance: HOME_FS}
          : {kind: 'none'},
    manifest:
      source.kind === 'manifest'
        ? readStorageManifest(USER_MANIFESTS[request.type as 'lustre'], source.path, request.name, request.type)
        : null,
    clusterUpdates: {steps: [], warnings: []},
    live: {crd: undefined, storage: undefined, objects: {}},
    ...patch,
  }
}

/** The cluster after an attach of `flags`: every object as sent, keyed as the plan looks them up. */
function attached(flags: AttachFlags): NonNullable<AttachPlanInputs['live']> {
  const objects = attachObjects(flags) as unknown as KubeObject[]
  const storage = objects.pop()!
  return {
    crd: storageCrd(),
    storage,
    objects: Object.fromEntries(objects.map((o) => [`${o.kind}/${o.metadata.name}`, o])),
  }
}

/** A golden: the command it stands for, the cluster's state, and the plan's inputs. */
/**
 * A cluster update step as the cluster side plans it (src/core/cluster/storage-needs.ts `planStorageClusterUpdates`,
 * whose steps the attach plan takes as they are): fixed here, so that these goldens show where they go.
 */
function clusterUpdate(action: 'update' | 'none', spec: object, reason: string, resource = 'clusterUpdate') {
  const name = resource === 'clusterUpdate' ? CLUSTER : 'demo-np-0'
  return {action, resource, name, reason, spec, wait: false} as UpdateStep
}
const POOL = `${PROJECT}.svc.id.goog`

interface PlanCase<Inputs> {
  readonly file: string
  readonly command: string
  readonly state: string
  readonly inputs: () => Inputs
}

const ATTACH_CASES: readonly PlanCase<AttachPlanInputs>[] = [
  {
    file: 'attach-gcsfuse-fresh-cluster',
    command:
      'datasets --type gcsfuse --auto-mount true --mount-point /data --readonly true --bucket my-datasets --size 64',
    state: 'no Workload Identity, no GCS FUSE driver, no Storage CRD, the bucket not granted',
    inputs: () =>
      inputs(DATASETS, {
        clusterUpdates: {
          steps: [
            clusterUpdate(
              'update',
              {kind: 'workloadIdentity', workloadPool: POOL},
              'not enabled yet (GCS FUSE needs it: --type gcsfuse)',
            ),
            clusterUpdate(
              'update',
              {kind: 'addons', enable: ['GcsFuseCsiDriver'], lustreLegacyPort: false},
              'not enabled yet (--type gcsfuse)',
            ),
            clusterUpdate(
              'update',
              {workloadMetadataMode: 'GKE_METADATA'},
              'its pods get Workload Identity only from the GKE metadata server (GCS FUSE needs it: --type gcsfuse); GKE recreates its nodes',
              'nodePoolUpdate',
            ),
          ],
          warnings: [],
        },
      }),
  },
  {
    file: 'attach-gcpfilestore-python-cluster',
    command:
      'home --type gcpfilestore --auto-mount false --mount-point /home/shared --readonly false --instance home-fs --vol vol1',
    state: "set up by Python xpk: the Filestore driver on, Python xpk's Storage CRD",
    inputs: () =>
      inputs(HOME, {
        clusterUpdates: {
          steps: [
            clusterUpdate(
              'none',
              {kind: 'addons', enable: ['GcpFilestoreCsiDriver'], lustreLegacyPort: false},
              'already enabled',
            ),
          ],
          warnings: [],
        },
        live: {crd: PYTHON_STORAGE_CRD ?? storageCrd(), storage: undefined, objects: {}},
      }),
  },
  {
    file: 'attach-lustre-offline',
    command:
      'scratch --type lustre --auto-mount true --mount-point /scratch --readonly false --manifest /home/me/lustre.yaml --enable-legacy-lustre-port --dry-run --offline',
    state: 'not read (--offline)',
    inputs: () => inputs(LUSTRE, {clusterUpdates: null, live: null}),
  },
  {
    file: 'attach-gcsfuse-again',
    command:
      'datasets --type gcsfuse --auto-mount true --mount-point /data --readonly true --bucket my-datasets --size 64',
    state: 'the same attach done before: everything in place',
    inputs: () =>
      inputs(DATASETS, {
        backend: {
          ...BUCKET,
          policy: {
            ...EMPTY_POLICY,
            bindings: [
              ...EMPTY_POLICY.bindings,
              {role: 'roles/storage.objectViewer', members: [workloadPrincipal(PROJECT, PROJECT_NUMBER)]},
            ],
          },
        },
        clusterUpdates: {
          steps: [
            clusterUpdate('none', {kind: 'workloadIdentity', workloadPool: POOL}, 'already enabled'),
            clusterUpdate(
              'none',
              {kind: 'addons', enable: ['GcsFuseCsiDriver'], lustreLegacyPort: false},
              'already enabled',
            ),
          ],
          warnings: ['node pool other-pool (not made by xpk) is not on the GKE metadata server'],
        },
        live: attached(DATASETS),
      }),
  },
]

const observed = (flags: AttachFlags): ObservedStorage =>
  readStorage(attachObjects(flags).at(-1) as unknown as KubeObject)

const DETACH_CASES: readonly PlanCase<DetachPlanInputs>[] = [
  {
    file: 'detach-gcsfuse',
    command: 'datasets',
    state: 'attached, mounted by no workload',
    inputs: () => ({
      cluster: CLUSTER,
      storage: observed(DATASETS),
      live: {claim: {usedBy: []}, volume: {reclaimPolicy: null}, storageClass: false},
      others: [],
    }),
  },
  {
    file: 'detach-gcpfilestore-in-use',
    command: 'home',
    state: 'mounted by two running workloads',
    inputs: () => ({
      cluster: CLUSTER,
      storage: observed(HOME),
      live: {claim: {usedBy: ['train-1', 'train-2']}, volume: {reclaimPolicy: 'Retain'}, storageClass: true},
      others: [observed(DATASETS)],
    }),
  },
  {
    file: 'detach-pd-delete-policy-half-detached',
    command: 'scratch',
    state: 'an interrupted detach left the volume (reclaim policy Delete, from the manifest) and the Storage',
    inputs: () => ({
      cluster: CLUSTER,
      storage: {...observed(LUSTRE), type: 'pd', pv: 'xpk-pd-pv', pvc: 'xpk-pd-pvc'},
      live: {claim: undefined, volume: {reclaimPolicy: 'Delete'}, storageClass: false},
      others: [],
    }),
  },
]

describe('storage plan goldens (text and JSON)', () => {
  it.each(ATTACH_CASES)('$file', (c) => {
    const plan = planStorageAttach(c.inputs())
    const header = `# xpk storage attach ${c.command} --cluster ${CLUSTER}\n# cluster: ${c.state}\n`
    expectGolden(`storage/plans/${c.file}.txt`, `${header}${renderStorageAttachPlan(plan)}\n`)
    expectGolden(`storage/plans/${c.file}.json`, `${JSON.stringify(plan, null, 2)}\n`)
  })

  it.each(DETACH_CASES)('$file', (c) => {
    const plan = planStorageDetach(c.inputs())
    const header = `# xpk storage detach ${c.command} --cluster ${CLUSTER}\n# cluster: ${c.state}\n`
    expectGolden(`storage/plans/${c.file}.txt`, `${header}${renderStorageDetachPlan(plan)}\n`)
    expectGolden(`storage/plans/${c.file}.json`, `${JSON.stringify(plan, null, 2)}\n`)
  })
})

describe('storage attach plan', () => {
  it('the Storage object is the last step, after the objects it names', () => {
    for (const c of ATTACH_CASES) {
      const steps = planStorageAttach(c.inputs()).steps
      expect(steps.at(-1)!.resource).toBe('storage')
      const kinds = steps.filter((s) => s.resource.startsWith('persistent') || s.resource === 'storageClass')
      expect(kinds.length).toBeGreaterThanOrEqual(2)
    }
  })

  it('grants read-write access to a writable bucket storage, once', () => {
    const steps = planStorageAttach(inputs({...DATASETS, readonly: 'false'})).steps
    expect(steps.find((s) => s.resource === 'bucketIam')).toMatchObject({
      action: 'update',
      spec: {bucket: 'my-datasets', role: 'roles/storage.objectUser', member: expect.stringContaining('/sa/xpk-sa')},
    })
  })

  it('a binding with a condition is not the grant: it may not apply', () => {
    const member = workloadPrincipal(PROJECT, PROJECT_NUMBER)
    const policy = {
      ...EMPTY_POLICY,
      bindings: [{role: 'roles/storage.objectViewer', members: [member], condition: {title: 't', expression: 'false'}}],
    }
    const steps = planStorageAttach(inputs(DATASETS, {backend: {...BUCKET, policy}})).steps
    expect(steps.find((s) => s.resource === 'bucketIam')?.action).toBe('update')
  })

  it('a bucket that does not exist is exit 4, naming it and how to make it', () => {
    const error = thrown(
      () => planStorageAttach(inputs(DATASETS, {backend: {kind: 'bucket', bucket: undefined, policy: null}})),
      XpkError,
    )
    expect(error.exitCode).toBe(4)
    expect(error.message).toBe('Bucket my-datasets does not exist, or your account cannot see it.')
    expect(error.hints[0]).toContain('gcloud storage buckets create gs://my-datasets')
  })

  it('a Filestore instance that does not exist is exit 4', () => {
    const error = thrown(
      () => planStorageAttach(inputs(HOME, {backend: {kind: 'filestore', instance: undefined}})),
      XpkError,
    )
    expect(error.exitCode).toBe(4)
    expect(error.message).toBe('Filestore instance home-fs does not exist in project my-project.')
  })

  it.each<[string, (live: NonNullable<AttachPlanInputs['live']>) => void, RegExp]>([
    [
      'a Storage object of the name with another mount point',
      (live) => ((live.storage!.spec as {mount_point: string}).mount_point = '/other'),
      /^Storage datasets exists and differs from what this attach writes \(spec\.mount_point\)\. Nothing was changed\.$/,
    ],
    [
      'a volume of the name for another bucket',
      (live) =>
        ((live.objects['PersistentVolume/datasets-pv']!.spec as {csi: {volumeHandle: string}}).csi.volumeHandle = 'b'),
      /^PersistentVolume datasets-pv exists and differs .*\(spec\.csi\.volumeHandle\)/,
    ],
    [
      'a claim of the name of another size',
      (live) =>
        ((
          live.objects['PersistentVolumeClaim/datasets-pvc']!.spec as {resources: {requests: {storage: string}}}
        ).resources.requests.storage = '1Gi'),
      /^PersistentVolumeClaim default\/datasets-pvc exists and differs .*\(spec\.resources\.requests\.storage\)/,
    ],
  ])('%s is a conflict (exit 6): detach first', (_what, change, message) => {
    const live = structuredClone(attached(DATASETS))
    change(live)
    const error = thrown(() => planStorageAttach(inputs(DATASETS, {live})), XpkError)
    expect(error.exitCode).toBe(6)
    expect(error.message).toMatch(message)
    expect(error.hints[0]).toContain('xpk storage detach datasets')
  })

  it('a Storage CRD that does not serve v1 is replaced by ours; a served one is left alone', () => {
    const older = {
      ...storageCrd(),
      spec: {...(storageCrd().spec as object), versions: [{name: 'v1alpha1', served: true, storage: true}]},
    }
    const stepOf = (crd: KubeObject | undefined) =>
      planStorageAttach(inputs(DATASETS, {live: {crd, storage: undefined, objects: {}}})).steps.find(
        (s) => s.resource === 'customResourceDefinition',
      )!
    expect(stepOf(older)).toMatchObject({action: 'update', spec: storageCrd()})
    expect(stepOf(storageCrd())).toMatchObject({action: 'none', spec: null})
    expect(stepOf(undefined)).toMatchObject({action: 'create', spec: storageCrd()})
  })
})

describe('storage detach plan', () => {
  it('keeps a claim and volume another Storage object names too', () => {
    const other = {...observed(DATASETS), name: 'datasets-again'}
    const plan = planStorageDetach({
      cluster: CLUSTER,
      storage: observed(DATASETS),
      live: {claim: {usedBy: []}, volume: {reclaimPolicy: null}, storageClass: false},
      others: [other],
    })
    expect(plan.steps.map((s) => `${s.action} ${s.resource} ${s.reason}`)).toEqual([
      'none persistentVolumeClaim kept: storage datasets-again names it too',
      'none persistentVolume kept: storage datasets-again names it too',
      'delete storage last: workloads no longer mount it',
    ])
  })

  it('a Storage object that names no volume or claim: only the object goes', () => {
    const plan = planStorageDetach({
      cluster: CLUSTER,
      storage: {...observed(DATASETS), pv: null, pvc: null},
      live: {claim: undefined, volume: undefined, storageClass: false},
      others: [],
    })
    expect(plan.steps).toEqual([
      {
        action: 'delete',
        resource: 'storage',
        name: 'datasets',
        reason: 'last: workloads no longer mount it (it names no claim and no volume: only the object goes)',
        spec: {apiVersion: 'xpk.x-k8s.io/v1', kind: 'Storage', name: 'datasets'},
      },
    ])
  })
})
