// `xpk workload create` and `xpk workload delete` as whole processes against the GKE fake and the Kubernetes fake
// (HTTPS, the unmodified client-node client). The fake validates every JobSet against the real JobSet CRD when the
// tests can find it (CI always does), so a submitted JobSet that the API server would reject fails here too; with
// storages too (--storage and the auto-mount ones).
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeEach, describe, expect, it} from 'vitest'

import type {FakeGke} from '../fakes/fake-gke.js'
import type {FakeKube, Obj} from '../fakes/fake-kube.js'
import {isolatedEnv, runCli, startCli} from '../helpers/cli.js'
import {jobSetCrd} from '../helpers/release-files.js'
import {markRequests, mutationsSince} from '../helpers/mutations.js'
import {tempDir} from '../helpers/temp.js'
import {fakesForFile, seedDemoCluster, startKubeAndGke} from '../helpers/wire-fakes.js'
import {resourcesConfigMap, submitReadyKueueObjects} from '../builders/workload-cluster.js'
import {attachObjects, DATASETS_FLAGS, HOME_FLAGS} from '../builders/storage.js'
import {STORAGE_CRD} from '../helpers/storage-crd.js'
import type {PodSpec} from '../../src/core/manifests/k8s-types.js'

const PROJECT = 'e2e-project'
const ZONE = 'us-central2-b'
const IMAGE = `us-docker.pkg.dev/e2e-project/repo/trainer@sha256:${'c'.repeat(64)}`
const JOBSET = 'jobset.x-k8s.io/v1alpha2'

let gke: FakeGke
let kube: FakeKube

fakesForFile(
  async (wire) => {
    ;({kube, gke} = await startKubeAndGke(wire))
    seedDemoCluster(gke, PROJECT)
  },
  {reset: false},
)
beforeEach(() => setUpCluster())

/** The cluster as `cluster create` leaves it, but for the objects of the kinds in `without`. */
function setUpCluster(without: readonly string[] = []) {
  kube.reset()
  // The real JobSet CRD when it can be found: the fake then validates every JobSet against it. Then what the JobSet
  // names: the LocalQueue and the PriorityClasses.
  kube.seed(
    jobSetCrd() as unknown as Obj,
    resourcesConfigMap('demo', {'v5p-16': '8'}) as unknown as Obj,
    ...(submitReadyKueueObjects().filter((o) => !without.includes(o.kind)) as unknown as Obj[]),
  )
  gke.calls.length = 0
}

const env = () =>
  isolatedEnv({
    XPK_GKE_ENDPOINT: `http://${gke.endpoint}`,
    XPK_ACCESS_TOKEN: kube.token,
    XPK_PROJECT: PROJECT,
    XPK_ZONE: ZONE,
  })

const create = (name: string, ...extra: string[]) =>
  runCli(
    [
      ...['workload', 'create', '--cluster', 'demo', '--workload', name, '--tpu-type', 'v5p-16'],
      // Two slices unless the test asks for another number.
      ...(extra.includes('--num-slices') ? [] : ['--num-slices', '2']),
      ...['--docker-image', IMAGE, '--command', 'python3 train.py', ...extra],
    ],
    {env: env()},
  )
const del = (...args: string[]) => runCli(['workload', 'delete', '--cluster', 'demo', ...args], {env: env()})

/** API requests (not discovery) the fake received, as `verb resource name`. */
const apiRequests = () =>
  kube.requests.filter((r) => r.verb !== 'discovery').map((r) => `${r.verb} ${r.resource}${r.name ? ` ${r.name}` : ''}`)

describe('workload create against the fakes', () => {
  it('submits a JobSet the API server accepts, with the RBAC objects, and prints where to follow it', async () => {
    const result = await create('run-1')
    expect(result.stderr).not.toMatch(/^Error/m)
    expect(result.code).toBe(0)
    const jobSet = kube.get({apiVersion: JOBSET, kind: 'JobSet', namespace: 'default', name: 'run-1'}) as {
      metadata: {labels: Record<string, string>; managedFields: {manager: string; operation: string}[]}
      spec: {replicatedJobs: {replicas: number}[]}
    }
    expect(jobSet.metadata.labels['kueue.x-k8s.io/queue-name']).toBe('multislice-queue')
    expect(jobSet.spec.replicatedJobs[0]!.replicas).toBe(2)
    // Created (a POST by the field manager xpk), not applied: a name another submit holds is never overwritten.
    expect(jobSet.metadata.managedFields).toContainEqual(expect.objectContaining({manager: 'xpk', operation: 'Update'}))
    expect(kube.get({apiVersion: 'v1', kind: 'ServiceAccount', namespace: 'default', name: 'xpk-sa'})).toBeDefined()
    expect(
      kube.get({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        namespace: 'default',
        name: 'xpk-sa-pod-reader-binding',
      }),
    ).toBeDefined()
    expect(result.stdout).toContain(
      'Submitted workload run-1 on cluster demo: JobSet default/run-1, 2 slices of v5p-16',
    )
    expect(result.stdout).toContain(
      `Follow it: https://console.cloud.google.com/kubernetes/service/us-central2/demo/default/run-1/details?project=${PROJECT}`,
    )
    expect(result.stdout).toContain('xpk workload logs --cluster demo run-1')
    expect(kube.mutatingRequests().map((r) => `${r.verb} ${r.resource} ${r.name}`)).toEqual(
      expect.arrayContaining(['create jobsets undefined', 'apply serviceaccounts xpk-sa', 'apply roles pod-reader']),
    )
    expect(kube.mutatingRequests()).toHaveLength(5)
  })

  it('a second submit sends only its JobSet: six Kubernetes requests, no discovery, and one GKE request', async () => {
    expect((await create('run-1')).code).toBe(0)
    kube.requests.length = 0
    gke.calls.length = 0
    const result = await create('run-2')
    expect(result.code, result.stderr).toBe(0)
    expect(kube.mutatingRequests().map((r) => `${r.verb} ${r.resource}`)).toEqual(['create jobsets'])
    // The JobSet and Kueue kinds are known without discovery. The name is not read first: the create is
    // create-if-absent, so a taken name is its 409 (then read, to say when it was created).
    expect(kube.requests.filter((r) => r.verb === 'discovery')).toEqual([])
    expect(apiRequests().sort()).toEqual([
      'create jobsets',
      'get configmaps demo-resources-configmap',
      'get localqueues multislice-queue',
      'get priorityclasses medium',
      'get serviceaccounts xpk-sa',
      // The Storage objects: a storage named with --storage, and every auto-mount one, is mounted.
      'list storages',
    ])
    expect(gke.calls.map((c) => c.method)).toEqual(['GetCluster'])
  })

  it('--json gives the object names, the image and the links', async () => {
    const result = await create('run-1', '--json')
    expect(result.code, result.stderr).toBe(0)
    const json = JSON.parse(result.stdout) as Record<string, unknown>
    expect(json).toMatchObject({
      workload: 'run-1',
      submitted: true,
      jobSet: {namespace: 'default', name: 'run-1'},
      image: {source: 'given', reference: IMAGE},
      links: {console: expect.stringContaining('/kubernetes/service/us-central2/demo/default/run-1/details')},
      next: ['xpk workload list --cluster demo --filter-by-job run-1', 'xpk workload logs --cluster demo run-1'],
    })
    expect((json.rbac as {change: string}[]).map((r) => r.change)).toEqual(['create', 'create', 'create', 'create'])
  })

  it('a taken name is exit 6; --replace deletes the old JobSet and submits the new one', async () => {
    expect((await create('run-1')).code).toBe(0)
    const oldUid = (kube.get({apiVersion: JOBSET, kind: 'JobSet', namespace: 'default', name: 'run-1'}) as Obj)
      .metadata as {uid: string}
    const again = await create('run-1')
    expect(again.code).toBe(6)
    expect(again.stderr).toContain('Workload run-1 already exists on cluster demo')
    expect(again.stderr).toContain('--replace')
    // Replacing deletes a workload that may be running: asked first, so with no terminal it needs --force.
    const mark = markRequests({gke, kube})
    const unasked = await create('run-1', '--replace')
    expect(unasked.code).toBe(2)
    expect(unasked.stderr).toMatch(/Replace workload run-1 on cluster demo\? Its JobSet default\/run-1 \(created /)
    expect(unasked.stderr).toContain('--force')
    expect(mutationsSince({gke, kube}, mark)).toEqual([])
    const planned = await create('run-1', '--replace', '--dry-run', '--json')
    expect(planned.code, planned.stderr).toBe(0)
    expect(JSON.parse(planned.stdout)).toMatchObject({
      submitted: false,
      replaced: false,
      replaces: {namespace: 'default', name: 'run-1', uid: oldUid.uid},
    })
    expect(planned.stderr).toContain('Dry run: --replace would delete workload run-1 on cluster demo')
    expect(mutationsSince({gke, kube}, mark)).toEqual([])
    const replaced = await create('run-1', '--replace', '--force')
    expect(replaced.code, replaced.stderr).toBe(0)
    // Only the JobSet that was read is deleted: its uid is the delete's precondition.
    const deletion = kube.requests.find((r) => r.verb === 'delete' && r.resource === 'jobsets')!
    expect(deletion.body).toMatchObject({preconditions: {uid: oldUid.uid}})
    expect(replaced.stdout).toContain('Replaced workload run-1')
    const now = kube.get({apiVersion: JOBSET, kind: 'JobSet', namespace: 'default', name: 'run-1'}) as Obj
    expect((now.metadata as {uid: string}).uid).not.toBe(oldUid.uid)
  })

  it('two submits of one name at once (two processes): exactly one is submitted, the other is exit 6 "already exists"', async () => {
    // The first JobSet create to arrive is held back, so the other process reads the name as free too and both
    // create: the API server takes one and answers the other 409 AlreadyExists.
    kube.faults.push({verb: 'create', path: /\/jobsets$/, delayMs: 4000})
    const start = (n: number) =>
      startCli(
        [
          ...['workload', 'create', '--cluster', 'demo', '--workload', 'run-1', '--tpu-type', 'v5p-16'],
          ...['--num-slices', '2', '--docker-image', IMAGE, '--command', `python3 train.py --run=${n}`],
        ],
        {env: env()},
      ).done
    const results = await Promise.all([start(1), start(2)])
    expect(results.map((r) => r.code).sort(), results.map((r) => r.stderr).join('\n')).toEqual([0, 6])
    const winner = results.findIndex((r) => r.code === 0)
    const loser = results[1 - winner]!
    expect(results[winner]!.stdout).toContain('Submitted workload run-1 on cluster demo')
    expect(loser.stdout).toBe('')
    expect(loser.stderr).toContain(
      'Workload run-1 already exists on cluster demo: JobSet default/run-1 was created by another submit after the name was read as free.',
    )
    expect(loser.stderr).toContain('--replace')
    expect(loser.stderr).toContain('xpk workload delete --cluster demo --workload run-1')
    // Both reached the create; the JobSet is the winner's, untouched by the loser.
    const creates = kube.requests.filter((r) => r.verb === 'create' && r.resource === 'jobsets')
    expect(creates.map((r) => r.status).sort()).toEqual([201, 409])
    expect(kube.requests.filter((r) => r.resource === 'jobsets' && r.mutating && r.verb !== 'create')).toEqual([])
    const jobSet = kube.get({apiVersion: JOBSET, kind: 'JobSet', namespace: 'default', name: 'run-1'})
    expect(JSON.stringify(jobSet)).toContain(`python3 train.py --run=${winner + 1}`)
    expect(JSON.stringify(jobSet)).not.toContain(`python3 train.py --run=${2 - winner}`)
  })

  it('--kubeconfig reaches the cluster without GKE; there are no Cloud Console links then', async () => {
    const kubeconfig = join(tempDir('xpk-kubeconfig-'), 'config')
    writeFileSync(kubeconfig, kube.kubeconfig())
    const result = await create('run-1', '--kubeconfig', kubeconfig, '--json')
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({submitted: true, links: null})
    expect(gke.calls).toEqual([])
    expect(kube.get({apiVersion: JOBSET, kind: 'JobSet', namespace: 'default', name: 'run-1'})).toBeDefined()
  })

  it.each<[string, string[], number, RegExp]>([
    ['a malformed name', ['--workload', 'Run_1'], 2, /--workload/],
    ['more slices than the cluster has', ['--num-slices', '5'], 2, /cluster demo has 8 VMs \(4 slices\)/],
  ])('%s: exit 2 and no request that changes anything', async (_name, extra, code, stderr) => {
    const name = extra[0] === '--workload' ? extra[1]! : 'run-1'
    const rest = extra[0] === '--workload' ? [] : extra
    const result = await create(name, ...rest)
    expect(result.stderr).toMatch(stderr)
    expect(result.code).toBe(code)
    expect(kube.mutatingRequests()).toEqual([])
    if (extra[0] === '--workload') {
      // Found before anything is asked of GKE or the cluster.
      expect(kube.requests).toEqual([])
      expect(gke.calls).toEqual([])
    }
  })

  it.each<[string, string, string[]]>([
    ['the LocalQueue', 'localqueues', ['LocalQueue default/multislice-queue']],
    ['the PriorityClass of --priority', 'priorityclasses', ['PriorityClass medium']],
  ])('a cluster without %s: exit 6 naming it and cluster create, nothing sent', async (_name, resource, named) => {
    setUpCluster([resource === 'localqueues' ? 'LocalQueue' : 'PriorityClass'])
    const result = await create('run-1')
    expect(result.code, result.stderr).toBe(6)
    for (const text of named) expect(result.stderr).toContain(`no ${text}`)
    expect(result.stderr).toContain('Nothing was submitted.')
    expect(result.stderr).toContain('xpk cluster create --cluster demo --tpu-type v5p-16')
    expect(kube.mutatingRequests()).toEqual([])
    // Found in the one round of reads.
    expect(apiRequests()).toContain(`get ${resource} ${resource === 'localqueues' ? 'multislice-queue' : 'medium'}`)
  })

  it('a cluster without JobSet: exit 6 naming its CRD, told by the 404 of the read of the name', async () => {
    kube.reset()
    kube.seed(
      resourcesConfigMap('demo', {'v5p-16': '8'}) as unknown as Obj,
      ...(submitReadyKueueObjects() as unknown as Obj[]),
    )
    const result = await create('run-1')
    expect(result.code, result.stderr).toBe(6)
    expect(result.stderr).toContain(
      'Cluster demo is not set up for workloads: it has no CustomResourceDefinition jobsets.jobset.x-k8s.io ' +
        '(JobSet is not installed, so the API server cannot take a JobSet). Nothing was submitted.',
    )
    expect(kube.mutatingRequests()).toEqual([])
    expect(kube.requests.filter((r) => r.verb === 'discovery')).toEqual([])
    // The CRD is read only after the read of the name found JobSets not served (the fake, not serving the group,
    // records that request by its path alone).
    const paths = kube.requests.map((r) => `${r.method} ${r.path} ${r.status}`)
    expect(paths).toContain('GET /apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets/run-1 404')
    expect(paths.at(-1)).toBe('GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/jobsets.jobset.x-k8s.io 404')
    // The round of five reads (the Storage list among them: 404, no Storage CRD); as xpk-sa is missing (RBAC to
    // apply before the JobSet), the name with the Role and RoleBindings; then the CRD.
    expect(paths).toHaveLength(9)
  })

  it('--dry-run reports a missing LocalQueue the same way, sending nothing', async () => {
    setUpCluster(['LocalQueue'])
    const result = await create('run-1', '--dry-run')
    expect(result.code, result.stderr).toBe(6)
    expect(result.stderr).toContain('no LocalQueue default/multislice-queue')
    expect(result.stdout).toBe('')
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('a cluster without the resources ConfigMap: exit 6 with the command that sets it up', async () => {
    kube.reset()
    kube.seed(jobSetCrd() as unknown as Obj)
    const result = await create('run-1')
    expect(result.code).toBe(6)
    expect(result.stderr).toContain('not set up by `xpk cluster create`')
    expect(kube.mutatingRequests()).toEqual([])
  })
})

describe('workload create with storages against the fakes', () => {
  /** The Storage CRD (Python xpk's when ../shared has it, else ours) and storages as an attach leaves them. */
  function seedStorages(): void {
    kube.seed(STORAGE_CRD as unknown as Obj)
    for (const flags of [DATASETS_FLAGS, {...HOME_FLAGS, autoMount: 'true'}]) {
      kube.seed(attachObjects(flags).at(-1)!)
    }
  }

  it('--storage and the auto-mount storages: the JobSet the API server takes mounts both, its pods run as xpk-sa', async () => {
    seedStorages()
    const result = await create('run-1', '--storage', 'datasets', '--json')
    expect(result.code, result.stderr).toBe(0)
    const steps = (JSON.parse(result.stdout) as {steps: {resource: string; name: string}[]}).steps
    expect(steps.filter((s) => s.resource === 'storage').map((s) => s.name)).toEqual(['datasets', 'home'])
    const jobSet = kube.get({apiVersion: JOBSET, kind: 'JobSet', namespace: 'default', name: 'run-1'}) as Obj
    const pod = (jobSet.spec as {replicatedJobs: {template: {spec: {template: {spec: PodSpec}}}}[]}).replicatedJobs[0]!
      .template.spec.template.spec
    expect(pod.serviceAccountName).toBe('xpk-sa')
    expect(pod.containers[0]!.volumeMounts!.map((m) => `${m.name} ${m.mountPath} ${m.readOnly}`)).toEqual([
      'dshm-2 /dev/shm undefined',
      'datasets-pv /data true',
      'home-pv /home/shared false',
    ])
    // workload list says what it mounts: -o wide's Storages column, and `storages` under --json.
    const listed = await runCli(['workload', 'list', '--cluster', 'demo', '--json'], {env: env()})
    const row = (JSON.parse(listed.stdout) as {workloads: {name: string; storages: string[]}[]}).workloads
    expect(row.find((w) => w.name === 'run-1')?.storages).toEqual(['datasets', 'home'])
    const wide = await runCli(['workload', 'list', '--cluster', 'demo', '-o', 'wide'], {env: env()})
    expect(wide.stdout).toMatch(/^run-1 .* datasets,home /m)
  })

  it('a storage the cluster lacks: exit 6 naming those it has, and no request that changes anything', async () => {
    seedStorages()
    const mark = markRequests({kube, gke})
    const result = await create('run-1', '--storage', 'checkpoints')
    expect(result.code, result.stderr).toBe(6)
    expect(result.stderr).toContain(
      'No storage named checkpoints: cluster demo has datasets, home. Nothing was submitted.',
    )
    expect(mutationsSince({kube, gke}, mark)).toEqual([])
  })

  it('--dry-run shows the mounts', async () => {
    seedStorages()
    const result = await create('run-1', '--storage', 'datasets', '--dry-run')
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(
      /check +storage +datasets +gcsfuse, claim datasets-pvc mounted at \/data read-only \(named by --storage\)/,
    )
    expect(result.stdout).toContain(
      '- name: datasets-pv\n                      mountPath: /data\n                      readOnly: true\n',
    )
    expect(kube.mutatingRequests()).toEqual([])
  })
})

describe('workload delete against the fakes', () => {
  const seedPods = (jobSetName: string) => {
    const jobSet = kube.get({apiVersion: JOBSET, kind: 'JobSet', namespace: 'default', name: jobSetName}) as Obj
    const {uid} = jobSet.metadata as {uid: string}
    kube.seed({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `${jobSetName}-slice-job-0-0-abcde`,
        namespace: 'default',
        labels: {'jobset.sigs.k8s.io/jobset-name': jobSetName},
        ownerReferences: [{apiVersion: JOBSET, kind: 'JobSet', name: jobSetName, uid, controller: true}],
      },
      spec: {containers: [{name: 'jax-tpu', image: IMAGE}]},
    })
  }

  it('deletes one by name and --wait returns once it and its pods are gone; deleting it again is a note', async () => {
    expect((await create('run-1')).code).toBe(0)
    seedPods('run-1')
    const result = await del('--workload', 'run-1', '--wait')
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('Deleted JobSet default/run-1.')
    expect(result.stdout).toContain('run-1 is gone, with its pods.')
    expect(kube.list(JOBSET, 'JobSet', 'default')).toEqual([])
    expect(kube.list('v1', 'Pod', 'default')).toEqual([])
    const again = await del('--workload', 'run-1')
    expect(again.code).toBe(0)
    expect(again.stderr).toContain('Workload run-1 is not in cluster demo (already deleted)')
  })

  it('a filter without --force and without a terminal deletes nothing (exit 2); with --force it deletes the matches', async () => {
    for (const name of ['sweep-1', 'sweep-2', 'other']) expect((await create(name)).code).toBe(0)
    kube.requests.length = 0
    const refused = await del('--filter-by-job', 'sweep-')
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('sweep-1')
    expect(refused.stderr).toContain('--force')
    expect(kube.mutatingRequests()).toEqual([])
    const forced = await del('--filter-by-job', 'sweep-', '--force', '--json')
    expect(forced.code, forced.stderr).toBe(0)
    expect(JSON.parse(forced.stdout)).toMatchObject({deleted: ['sweep-1', 'sweep-2'], alreadyGone: []})
    expect(kube.list(JOBSET, 'JobSet', 'default').map((j) => (j.metadata as {name: string}).name)).toEqual(['other'])
  })

  it('--filter-by-status with an unknown state is exit 2 naming the valid ones, before any request', async () => {
    const result = await del('--filter-by-status', 'done', '--force')
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--filter-by-status "done" is not a status filter')
    expect(kube.requests).toEqual([])
  })

  it('--workload with --filter-by-job is a usage error naming both, before any request', async () => {
    const result = await del('--workload', 'run-1', '--filter-by-job', 'run')
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/--workload|--filter-by-job/)
    expect(kube.requests).toEqual([])
  })
})
