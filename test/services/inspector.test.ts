// `xpk inspector` in process, over the in-memory GKE and Kubernetes ports: every section in Python's order, the
// reads it makes (only the allowed kinds, never a Secret, nothing changed), a Secret's value and a credential-named
// variable's literal value never in the file, a controller's log tail, a section that cannot be read (the others
// still written, a warning), a missing workload, a bad workload name (no request), the kubeconfig case (no GKE).
import {describe, expect, it} from 'vitest'

import {INSPECTED_KINDS} from '../../src/core/insight/inspector.js'
import {UsageError, XpkError} from '../../src/core/errors.js'
import {DEFAULT_RETRY_POLICY} from '../../src/executor/retry.js'
import {inspector, type InspectorOptions} from '../../src/services/inspector.js'
import {CLUSTER_QUEUE_CRD, JOBSET_CRD, KUEUE_WORKLOAD_CRD, LOCAL_QUEUE_CRD} from '../builders/workload-cluster.js'
import {at, jobsetStatus, kueueStatus, kueueWorkloadFor, submittedJobSet} from '../builders/workload-states.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {MemoryKube} from '../fakes/memory-kube.js'
import {RecordingConsole} from '../helpers/recording-console.js'
import {virtualClock} from '../helpers/virtual-clock.js'

const SECRET_VALUE = 'hf_s3cr3t-value-never-in-the-file'
const LITERAL_TOKEN = 'literal-token-typed-in-env-file'

function aCluster(): MemoryKube {
  const kube = new MemoryKube()
  for (const crd of [JOBSET_CRD, KUEUE_WORKLOAD_CRD, LOCAL_QUEUE_CRD, CLUSTER_QUEUE_CRD])
    kube.seed(crd, {manager: 'xpk'})
  kube.seed({
    apiVersion: 'kueue.x-k8s.io/v1beta2',
    kind: 'ClusterQueue',
    metadata: {name: 'cluster-queue'},
    spec: {resourceGroups: [{flavors: [{name: '1xv5p-16', resources: [{name: 'google.com/tpu', nominalQuota: 16}]}]}]},
  })
  kube.seed({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {name: 'hf', namespace: 'default'},
    data: {token: Buffer.from(SECRET_VALUE).toString('base64')},
    stringData: {plain: SECRET_VALUE},
  })
  kube.seed({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {name: 'gke-demo-np-0-a', labels: {'cloud.google.com/gke-nodepool': 'demo-np-0'}},
    status: {conditions: [{type: 'Ready', status: 'True'}]},
  })
  kube.seed({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {name: 'kueue-controller-manager', namespace: 'kueue-system'},
    spec: {
      selector: {matchLabels: {'control-plane': 'controller-manager'}},
      template: {spec: {containers: [{name: 'manager', image: 'registry.k8s.io/kueue/kueue:v0.17.1'}]}},
    },
    status: {conditions: [{type: 'Available', status: 'True'}]},
  })
  kube.seed({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'kueue-controller-manager-abc',
      namespace: 'kueue-system',
      labels: {'control-plane': 'controller-manager'},
    },
    spec: {containers: [{name: 'manager', image: 'registry.k8s.io/kueue/kueue:v0.17.1'}]},
  })
  kube.appendPodLog('kueue-system', 'kueue-controller-manager-abc', 'admitted run-1\nreconciled\n', 'manager')
  return kube
}

/** run-1, its Workload and a pod whose environment names the Secret and holds a credential typed as a literal. */
function seedRun1(kube: MemoryKube): void {
  const js = submittedJobSet('run-1', 'high', at(0))
  kube.seed(js, {manager: 'xpk', status: jobsetStatus.running(5)})
  const uid = String(
    kube.peek({apiVersion: js.apiVersion, kind: 'JobSet', namespace: 'default', name: 'run-1'})!.metadata.uid,
  )
  kube.seed(kueueWorkloadFor({...js, metadata: {...js.metadata, uid}}, at(0)), {
    manager: 'kueue',
    status: kueueStatus.running(5),
  })
  kube.seed(
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'run-1-slice-job-0-0-abcde',
        namespace: 'default',
        labels: {'jobset.sigs.k8s.io/jobset-name': 'run-1'},
      },
      spec: {
        containers: [
          {
            name: 'jax-tpu',
            image: 'trainer',
            env: [
              {name: 'HF_TOKEN', valueFrom: {secretKeyRef: {name: 'hf', key: 'token'}}},
              {name: 'WANDB_API_KEY', value: LITERAL_TOKEN},
              {name: 'LIBTPU_INIT_ARGS', value: '--xla_tpu_enable_flag=true'},
            ],
            envFrom: [{secretRef: {name: 'hf'}}],
          },
        ],
        nodeName: 'gke-demo-np-0-a',
      },
    },
    {manager: 'kubelet', status: {phase: 'Running'}},
  )
  kube.seed({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {name: 'run-1.1', namespace: 'default'},
    involvedObject: {kind: 'JobSet', name: 'run-1', namespace: 'default'},
    reason: 'SuccessfulCreate',
    message: 'created Job run-1-slice-job-0',
    type: 'Normal',
    count: 1,
    lastTimestamp: at(1),
  })
}

function run(kube: MemoryKube, overrides: Partial<InspectorOptions> = {}, gke = new MemoryGke()) {
  const console = new RecordingConsole()
  const written = new Map<string, string>()
  const done = inspector(
    {
      project: 'test-project',
      zone: 'us-central2-b',
      cluster: 'demo',
      viaKubeconfig: false,
      timing: {retry: DEFAULT_RETRY_POLICY},
      local: {
        xpkVersion: '9.9.9',
        nodeVersion: 'v24.0.0',
        platform: 'linux x64',
        settings: [{key: 'project', value: 'test-project', origin: '--project'}],
      },
      directory: '/tmp/inspect',
      ...overrides,
    },
    {
      gke: async () => gke,
      kube: async () => kube,
      console,
      files: {writeText: async (path, text) => void written.set(path, text)},
      signal: new AbortController().signal,
      ...virtualClock(),
      now: () => Date.parse('2026-03-01T10:20:30Z'),
    },
  )
  return {done, console, written}
}

const TITLES = [
  'Local Setup: xpk version',
  'Local Setup: Project / Zone / Region',
  'GKE: Cluster and Node pool Details',
  'GKE: Cluster Metadata ConfigMap Details',
  'GKE: Cluster Resources ConfigMap Details',
  'Kubernetes: Nodes, and Nodes per Node Pool',
  'Kueue: Queues usage (xpk info)',
  'Kueue: ResourceFlavor and Topology Details',
  'Kueue: Deployment Details',
  'Kueue Manager Logs',
  'Jobset: Deployment Details',
  'Jobset Manager Logs',
  'xpk workload list --filter-by-status=EVERYTHING',
]
const WORKLOAD_TITLES = [
  'xpk workload describe run-1',
  'Jobset config for run-1',
  'Workload config for run-1',
  'Pods of run-1',
  'Events of run-1',
]

describe('inspector', () => {
  it('writes every section in order and the links; prints the links and the path; reads only the allowed kinds', async () => {
    const kube = aCluster()
    seedRun1(kube)
    const {done, console, written} = run(kube, {workload: 'run-1'})
    const result = await done
    expect(result.file).toBe('/tmp/inspect/xpk-inspector-demo-20260301T102030Z.txt')
    expect(result.sections.map((s) => s.title)).toEqual([...TITLES, ...WORKLOAD_TITLES])
    expect(result.sections.filter((s) => s.error !== null)).toEqual([])
    expect(result.links).toHaveLength(5)
    const text = written.get(result.file)!
    expect(text.startsWith('==================\nXPK inspector OUTPUT:\n==================\nxpk 9.9.9 inspector')).toBe(
      true,
    )
    for (const title of [...TITLES, ...WORKLOAD_TITLES]) expect(text).toContain(`\nDescription: ${title}\n`)
    expect(text).toContain('[pod/kueue-controller-manager-abc/manager] admitted run-1')
    expect(text).toContain('Not installed: no Deployment jobset-system/jobset-controller-manager.')
    expect(text).toContain('created Job run-1-slice-job-0')
    expect(console.results.at(-1)!.split('\n')).toEqual([
      ...result.links.map((l) => `${l.description}: ${l.url}`),
      `Find xpk inspector output file: ${result.file}`,
    ])
    expect(kube.mutatingRequests()).toEqual([])
    const allowed = new Set(Object.values(INSPECTED_KINDS).flat())
    expect(kube.requests.filter((r) => !allowed.has(r.kind))).toEqual([])
  })

  it('never holds a Secret or its value: references stay references, credential-named literals are hidden', async () => {
    const kube = aCluster()
    seedRun1(kube)
    const {done, written} = run(kube, {workload: 'run-1'})
    const text = written.get((await done).file)!
    expect(kube.requests.filter((r) => r.kind === 'Secret')).toEqual([])
    for (const leak of [SECRET_VALUE, Buffer.from(SECRET_VALUE).toString('base64'), LITERAL_TOKEN]) {
      expect(text).not.toContain(leak)
    }
    expect(text).toContain(`<hidden by xpk inspector: ${LITERAL_TOKEN.length} characters>`)
    expect(text).toContain('secretKeyRef:')
    expect(text).toContain('--xla_tpu_enable_flag=true')
    expect(text).not.toContain('managedFields')
  })

  it('--print-to-terminal: the file on stdout too', async () => {
    const {done, console, written} = run(aCluster(), {printToTerminal: true})
    const result = await done
    expect(console.results[0]).toBe(written.get(result.file)!.trimEnd())
  })

  it('a section that cannot be read says why in the file; the others are written; a warning lists it', async () => {
    const kube = aCluster()
    kube.failNext(10, {verb: 'list', kind: 'Node'}, 403)
    const {done, console, written} = run(kube)
    const result = await done
    const unread = result.sections.filter((s) => s.error !== null).map((s) => s.title)
    expect(unread).toEqual(['Kubernetes: Nodes, and Nodes per Node Pool'])
    expect(written.get(result.file)).toMatch(
      /Description: Kubernetes: Nodes, and Nodes per Node Pool\n\nCould not be read: /,
    )
    expect(console.the('inspector.sections-unread').text).toContain('1 section could not be read (Kubernetes: Nodes')
  })

  it.each([
    ['an XpkError (the control plane down): the GKE sections written, every inside one says why', true],
    ['a bug (not an XpkError): thrown, no file', false],
  ])('connecting fails with %s', async (_, asXpk) => {
    const console = new RecordingConsole()
    const written = new Map<string, string>()
    const done = inspector(
      {
        ...{project: 'test-project', zone: 'us-central2-b', cluster: 'demo', viaKubeconfig: false},
        timing: {retry: DEFAULT_RETRY_POLICY},
        local: {xpkVersion: '9.9.9', nodeVersion: 'v24', platform: 'linux', settings: []},
        directory: '/tmp',
      },
      {
        gke: async () => new MemoryGke(),
        kube: async () => {
          throw asXpk ? new XpkError('unavailable', 'no route to the control plane') : new TypeError('a bug')
        },
        console,
        files: {writeText: async (path, text) => void written.set(path, text)},
        signal: new AbortController().signal,
        ...virtualClock(),
      },
    )
    if (!asXpk) {
      await expect(done).rejects.toThrow('a bug')
      expect(written.size).toBe(0)
      return
    }
    const result = await done
    const unread = result.sections.filter((s) => s.error !== null)
    expect(result.sections.filter((s) => s.error === null).map((s) => s.title)).toEqual(TITLES.slice(0, 3))
    expect(unread.map((s) => s.error)).toEqual(
      unread.map(() => 'The cluster could not be reached: no route to the control plane'),
    )
    expect(written.get(result.file)).toContain('Description: GKE: Cluster and Node pool Details')
  })

  it('a workload that does not exist: its sections say so, the rest is written', async () => {
    const {done} = run(aCluster(), {workload: 'nope'})
    const result = await done
    expect(result.sections.filter((s) => s.error !== null).map((s) => [s.title, s.error])).toEqual(
      WORKLOAD_TITLES.map((t) => [t.replace('run-1', 'nope'), 'Workload nope does not exist in namespace default.']),
    )
  })

  it('a bad workload name: exit 2 naming it, before any request', async () => {
    const kube = aCluster()
    const gke = new MemoryGke()
    const error = await run(kube, {workload: 'Bad_Name'}, gke).done.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UsageError)
    expect(kube.requests).toEqual([])
    expect(gke.calls).toEqual([])
  })

  it('through a kubeconfig: GKE is not asked, no links, the inside is', async () => {
    const gke = new MemoryGke()
    const {done, written} = run(
      aCluster(),
      {viaKubeconfig: true, project: undefined, zone: undefined, cluster: undefined},
      gke,
    )
    const result = await done
    expect(gke.calls).toEqual([])
    expect(result.links).toEqual([])
    expect(result.file).toBe('/tmp/inspect/xpk-inspector-kubeconfig-20260301T102030Z.txt')
    expect(written.get(result.file)).toContain('Not asked: the cluster is reached through a kubeconfig.')
  })
})
