// What a workload mounts (src/core/storage/mounts.ts) and how the JobSet carries it (src/core/manifests/jobset.ts):
// the storages named and the auto-mount ones, a missing or unmountable one refused (exit 6) before anything is built,
// clashes refused, and for each kind of pod the volumes, mounts, annotations and service account.
import {describe, expect, it} from 'vitest'

import {XpkError} from '../../../src/core/errors.js'
import {buildJobSet} from '../../../src/core/manifests/jobset.js'
import type {JobSet} from '../../../src/core/manifests/k8s-types.js'
import {storagesToMount, type WorkloadStorage} from '../../../src/core/storage/mounts.js'
import type {ObservedStorage} from '../../../src/core/storage/observed.js'
import {MOUNTED} from '../../builders/storage.js'
import {aWorkloadSpec} from '../../builders/workload-spec.js'
import {thrown} from '../../helpers/thrown.js'

const observed = (name: string, patch: Partial<ObservedStorage> = {}): ObservedStorage => ({
  name,
  type: 'gcsfuse',
  cluster: 'demo',
  autoMount: false,
  mountPoint: `/mnt/${name}`,
  readonly: false,
  manifest: '',
  pv: `${name}-pv`,
  pvc: `${name}-pvc`,
  invalidFields: [],
  ...patch,
})

describe('storagesToMount', () => {
  const cluster = [
    observed('zeta', {autoMount: true}),
    observed('alpha'),
    observed('beta', {autoMount: true, type: 'gcpfilestore', readonly: true}),
    observed('gamma'),
  ]

  it('the storages named (by name), then every auto-mount one not named (by name)', () => {
    const mounts = storagesToMount(['gamma', 'alpha', 'zeta'], cluster, 'demo')
    expect(mounts.map((m) => `${m.name} ${m.by}`)).toEqual([
      'alpha --storage',
      'gamma --storage',
      'zeta --storage',
      'beta auto-mount',
    ])
    expect(mounts[3]).toEqual({
      name: 'beta',
      type: 'gcpfilestore',
      pv: 'beta-pv',
      pvc: 'beta-pvc',
      mountPoint: '/mnt/beta',
      readonly: true,
      by: 'auto-mount',
    })
  })

  it('without --storage: the auto-mount ones; on a cluster without storages: none', () => {
    expect(storagesToMount([], cluster, 'demo').map((m) => m.name)).toEqual(['beta', 'zeta'])
    expect(storagesToMount([], [], 'demo')).toEqual([])
  })

  it.each<[string, string[], ObservedStorage[], string]>([
    [
      'a named storage the cluster lacks: exit 6, listing those it has',
      ['ckpt', 'alpha', 'data'],
      cluster,
      'No storage named ckpt, data: cluster demo has alpha, beta, gamma, zeta. Nothing was submitted.',
    ],
    [
      'on a cluster with none',
      ['ckpt'],
      [],
      'No storage named ckpt: cluster demo has no storages. Nothing was submitted.',
    ],
    [
      'a storage without its claim or mount point (another tool wrote it)',
      ['alpha'],
      [observed('alpha', {pvc: null, mountPoint: null}), observed('beta', {autoMount: true, type: 'nfs'})],
      'Cluster demo has storages this workload cannot mount: alpha (--storage) lacks spec.pvc, spec.mount_point; ' +
        'beta (auto-mount) is of type "nfs", which xpk cannot mount. Nothing was submitted.',
    ],
    [
      'a volume name no pod volume can have, a relative mount point',
      [],
      [observed('a', {autoMount: true, pv: 'A.pv'}), observed('b', {autoMount: true, mountPoint: 'data'})],
      'Cluster demo has storages this workload cannot mount: a (auto-mount) names PersistentVolume "A.pv", which ' +
        'cannot name a pod\'s volume (an RFC 1123 label); b (auto-mount) mounts at "data", not an absolute path. Nothing was submitted.',
    ],
    [
      'two storages at one mount point, or on one volume',
      ['a'],
      [observed('a', {mountPoint: '/data'}), observed('b', {autoMount: true, mountPoint: '/data', pv: 'a-pv'})],
      'The storages this workload mounts clash on cluster demo: a and b both mount at /data; a and b both name volume a-pv.',
    ],
  ])('%s', (_what, requested, storages, message) => {
    const error = thrown(() => storagesToMount(requested, storages, 'demo'), XpkError)
    expect(error.exitCode).toBe(6)
    expect(error.message).toBe(message)
    expect(error.hints.join(' ')).toMatch(/xpk storage list|detach it/)
  })
})

const podOf = (jobSet: JobSet) => jobSet.spec.replicatedJobs[0]!.template.spec.template

describe('the JobSet of a workload with storages', () => {
  const storages: WorkloadStorage[] = [MOUNTED.datasets, MOUNTED.scratch]

  it.each(['v5p-8', 'n2-standard-32-4', 'l4-4', 'h100-80gb-8', 'h100-mega-80gb-8', 'b200-8', 'gb200-4'])(
    "%s: every main container mounts each storage, the pod claims it, carries the drivers' annotations and runs as xpk-sa",
    (type) => {
      const pod = podOf(buildJobSet(aWorkloadSpec({type}), {storages}))
      for (const container of pod.spec.containers) {
        expect(container.volumeMounts).toEqual(
          expect.arrayContaining([
            {name: 'datasets-pv', mountPath: '/data', readOnly: true},
            {name: 'xpk-parallelstore-pv', mountPath: '/scratch', readOnly: false},
          ]),
        )
      }
      expect(pod.spec.volumes).toEqual(
        expect.arrayContaining([
          {name: 'datasets-pv', persistentVolumeClaim: {claimName: 'datasets-pvc', readOnly: true}},
          {name: 'xpk-parallelstore-pv', persistentVolumeClaim: {claimName: 'xpk-parallelstore-pvc', readOnly: false}},
        ]),
      )
      expect(pod.metadata?.annotations).toMatchObject({
        'gke-gcsfuse/volumes': 'true',
        'gke-gcsfuse/cpu-limit': '0',
        'gke-gcsfuse/memory-limit': '0',
        'gke-gcsfuse/ephemeral-storage-limit': '0',
        'gke-parallelstore/volumes': 'true',
      })
      expect(pod.spec.serviceAccountName).toBe('xpk-sa')
    },
  )

  it('without storages nothing of it: no annotations, no service account on TPU pods', () => {
    const pod = podOf(buildJobSet(aWorkloadSpec({type: 'v5p-8'}), {storages: []}))
    expect(pod.metadata?.annotations).toBeUndefined()
    expect(pod.spec.serviceAccountName).toBeUndefined()
    expect(pod.spec.volumes!.map((v) => v.name)).toEqual(['dshm-2'])
  })

  it('a Filestore or disk storage needs no annotation (their drivers need none)', () => {
    const pod = podOf(buildJobSet(aWorkloadSpec({type: 'v5p-8'}), {storages: [MOUNTED.home, MOUNTED.disk]}))
    expect(pod.metadata?.annotations).toBeUndefined()
    expect(pod.spec.serviceAccountName).toBe('xpk-sa')
  })

  it.each<[string, string, Partial<WorkloadStorage>, RegExp]>([
    [
      'v5p-8',
      "xpk's shared memory",
      {mountPoint: '/dev/shm'},
      /datasets mounts at \/dev\/shm, where the container has dshm-2/,
    ],
    [
      'h200-141gb-8',
      'the GPU libraries',
      {mountPoint: '/usr/local/nvidia'},
      /where the container has library-dir-host/,
    ],
    ['h100-80gb-8', 'the tcpx socket at /tmp', {mountPoint: '/tmp'}, /where the container has tcpx-socket/],
    [
      'v5p-8',
      "the name of xpk's own volume",
      {pv: 'dshm-2'},
      /datasets's volume dshm-2 takes the name of the pod's own dshm-2/,
    ],
  ])('%s: a storage on %s is a conflict (exit 6)', (type, _what, patch, message) => {
    const error = thrown(
      () => buildJobSet(aWorkloadSpec({type}), {storages: [{...MOUNTED.datasets, ...patch}]}),
      XpkError,
    )
    expect(error.exitCode).toBe(6)
    expect(error.message).toMatch(message)
  })
})
