// The in-cluster half of `cluster create` in process: read the cluster, plan, and run the plan's steps with the
// executor over the in-memory Kubernetes API, with a recording console and the virtual clock.
import {describe, expect, it} from 'vitest'

import {ApiError, XpkError} from '../../src/core/errors.js'
import {kueueControllerPatch, jobSetControllerPatch} from '../../src/core/incluster/controller-sizing.js'
import {MANAGED_BY_LABEL} from '../../src/core/incluster/install-decision.js'
import {desiredObjects, planInCluster, sizedController, type InClusterInputs} from '../../src/core/incluster/plan.js'
import {findControllerDeployment, summarizeCrd, type KubeObject} from '../../src/core/kube/release-manifest.js'
import {KUEUE_API_GROUP} from '../../src/core/versions.js'
import {DEFAULT_TIMING} from '../../src/core/timing.js'
import {DEFAULT_RETRY_POLICY, withRetries, type Clock} from '../../src/executor/retry.js'
import {runSteps} from '../../src/executor/step-graph.js'
import {
  inClusterSteps,
  memoizedManifests,
  readInCluster,
  type InClusterApplyOptions,
  type ReleaseLoader,
} from '../../src/services/in-cluster.js'
import {aClusterShape} from '../core/incluster/cluster-shapes.js'
import {MemoryKube, type MemoryKubeOptions} from '../fakes/memory-kube.js'
import {KUEUE_CRD_NAMES, MemoryReleaseManifests, releaseObjects} from '../fakes/memory-release-manifests.js'
import {CRDS} from '../helpers/crds.js'
import {SKIP_CRD_TESTS, validateAgainstCrd} from '../helpers/crd-schema.js'
import {RecordingConsole} from '../helpers/recording-console.js'
import {countRounds} from '../helpers/request-rounds.js'
import {virtualClock} from '../helpers/virtual-clock.js'

const KUEUE = {apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'kueue-system', name: 'kueue-controller-manager'}
const JOBSET = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  namespace: 'jobset-system',
  name: 'jobset-controller-manager',
}
const TEN_MINUTES = 10 * 60_000

const inputs = (numSlices = 2, expectedNodes = 4): InClusterInputs => ({
  shape: aClusterShape({numSlices}),
  xpkVersion: '1.2.3',
  expectedNodes,
  placement: {compactPlacementPool: false},
})

/** A cluster with `nodes` TPU nodes and nothing installed. */
function aCluster(nodes = 4, options: MemoryKubeOptions = {}): MemoryKube {
  const kube = new MemoryKube(options)
  kube.addNodes(
    Array.from({length: nodes}, (_, i) => `gke-demo-np-${i}`),
    {'cloud.google.com/gke-tpu-accelerator': 'tpu-v5p-slice'},
  )
  return kube
}

/** Puts a release in place as `kubectl apply` (or another manager) left it, its controller Available. */
function installed(kube: MemoryKube, component: 'jobset' | 'kueue', version: string, manager = 'kubectl'): void {
  for (const o of releaseObjects(component, version)) kube.seed(o, {manager, available: o.kind === 'Deployment'})
}

interface Converge {
  readonly manifests?: MemoryReleaseManifests
  readonly clock?: Clock & {readonly sleeps?: number[]}
  readonly options?: Partial<InClusterApplyOptions>
}

/** Reads, plans and runs the in-cluster steps once, as `cluster create` does. */
async function converge(kube: MemoryKube, wanted: InClusterInputs, given: Converge = {}) {
  const clock = given.clock ?? virtualClock()
  const manifests = given.manifests ?? new MemoryReleaseManifests()
  const signal = new AbortController().signal
  const retry = {policy: DEFAULT_RETRY_POLICY, clock, signal}
  const console = new RecordingConsole()
  const options = {
    manifestOverrides: {},
    availableTimeoutMs: TEN_MINUTES,
    poll: DEFAULT_TIMING.operations,
    ...given.options,
  }
  // As cluster create does: one load of each manifest serves the plan and the install.
  const memo = memoizedManifests(manifests)
  const observed = await readInCluster(kube, wanted, retry, loader(memo, options.manifestOverrides))
  const plan = planInCluster(wanted, observed)
  const steps = inClusterSteps(plan, {kube: async () => kube, manifests: memo, retry}, options)
  const outcomes = await runSteps(steps, {board: console.progress('Inside the cluster'), signal, now: clock.now})
  return {plan, outcomes, console, manifests, failed: outcomes.filter((o) => o.status !== 'done')}
}

function loader(
  manifests: MemoryReleaseManifests | ReturnType<typeof memoizedManifests> = new MemoryReleaseManifests(),
  overrides: InClusterApplyOptions['manifestOverrides'] = {},
): ReleaseLoader {
  return (component) => manifests.load(component, {override: overrides[component]})
}

const applied = (kube: MemoryKube) => kube.requests.filter((r) => r.verb === 'apply')
const containerOf = (deployment: KubeObject | undefined) =>
  (
    deployment?.spec as {template: {spec: {containers: {name: string; image: string; resources: unknown}[]}}}
  ).template.spec.containers.find((c) => c.name === 'manager')

describe('in-cluster steps on a fresh cluster', () => {
  it('install JobSet and Kueue, sized for the nodes, and apply every object', async () => {
    const kube = aCluster(4)
    const {outcomes, failed} = await converge(kube, inputs(2, 4))
    expect(failed).toEqual([])
    expect(outcomes.length).toBeGreaterThan(0)
    expect(containerOf(kube.peek(JOBSET))?.image).toBe('registry.k8s.io/jobset/jobset:v0.10.1')
    expect(containerOf(kube.peek(KUEUE))?.image).toBe('registry.k8s.io/kueue/kueue:v0.17.1')
    expect(containerOf(kube.peek(KUEUE))?.resources).toEqual(
      kueueControllerPatch(4).body.spec.template.spec.containers[0]!.resources,
    )
    for (const o of desiredObjects(inputs(2, 4))) {
      const live = kube.peek({
        apiVersion: o.apiVersion,
        kind: o.kind,
        name: o.metadata.name,
        namespace: o.metadata.namespace,
      })
      expect(live, `${o.kind} ${o.metadata.name}`).toMatchObject(JSON.parse(JSON.stringify(o)))
    }
  })

  it('never sends a request the API server refuses: Kueue objects wait until Kueue serves its webhooks', async () => {
    // Kueue's pod becomes ready only after a few polls, so an apply sent too early would meet its webhook down.
    const kube = aCluster(4, {autoAvailable: false})
    const clock = virtualClock()
    let polls = 0
    const sleep: Clock['sleep'] = async (ms, signal) => {
      if (++polls === 3) for (const d of [KUEUE, JOBSET]) kube.setAvailable(d.namespace, d.name)
      return clock.sleep(ms, signal)
    }
    const {failed} = await converge(kube, inputs(), {clock: {...clock, sleep}})
    expect(failed).toEqual([])
    expect(kube.requests.filter((r) => r.status >= 400 && r.verb !== 'get' && r.verb !== 'list')).toEqual([])
    // An apply sent before Kueue served its webhooks would be in the log with a 500, retried or not.
    expect(applied(kube).filter((r) => r.apiVersion.startsWith('kueue.x-k8s.io/'))).toHaveLength(4)
  })

  it('loads each release manifest once', async () => {
    const {manifests} = await converge(aCluster(), inputs())
    expect(manifests.loads).toEqual([{component: 'jobset'}, {component: 'kueue'}])
  })

  it('passes --jobset-manifest / --kueue-manifest to the manifest source', async () => {
    const manifests = new MemoryReleaseManifests({}, {'/air-gapped/kueue.yaml': releaseObjects('kueue')})
    const {failed} = await converge(aCluster(), inputs(), {
      manifests,
      options: {manifestOverrides: {kueue: '/air-gapped/kueue.yaml'}},
    })
    expect(failed).toEqual([])
    expect(manifests.loads).toEqual([{component: 'jobset'}, {component: 'kueue', override: '/air-gapped/kueue.yaml'}])
  })

  describe.skipIf(SKIP_CRD_TESTS)("against Kueue's CRDs", () => {
    /** The shared copy of Kueue's CRDs lacks ProvisioningRequestConfig (core-objects.test.ts checks it by hand). */
    const defined = (kind: string) =>
      CRDS.components.some((c) =>
        c.crds().some((crd) => summarizeCrd(crd).group === KUEUE_API_GROUP && summarizeCrd(crd).kind === kind),
      )

    it('every Kueue object applied validates', async () => {
      const kube = aCluster()
      await converge(kube, inputs())
      const sent = applied(kube).filter((r) => r.apiVersion.startsWith(`${KUEUE_API_GROUP}/`))
      expect(sent.map((r) => r.kind).sort()).toEqual([
        'ClusterQueue',
        'LocalQueue',
        'ProvisioningRequestConfig',
        'ResourceFlavor',
      ])
      const checked = sent.filter((r) => defined(r.kind))
      expect(checked.length).toBeGreaterThanOrEqual(3)
      for (const r of checked) expect(validateAgainstCrd(r.body), `${r.kind} ${r.name}`).toEqual([])
    })
  })
})

describe('rounds of requests (issue 19): a round is what is sent once the answers to the one before are in', () => {
  // The longest chain of requests that must wait for one another on a fresh cluster: the lists -> the Namespaces
  // (CRDs and cluster-wide RBAC alongside) -> the namespaced objects -> each controller's Deployment read Available
  // -> the Kueue configuration.
  const CHAIN = 5
  const verbs = (round: readonly string[]) => [...new Set(round.map((r) => r.split(' ')[0]))].sort()

  it('a fresh install sends its requests in as many rounds as that chain is long', async () => {
    const kube = aCluster(4)
    const lockstep = countRounds(kube)
    const {failed} = await converge(kube, inputs(2, 4))
    lockstep.stop()
    expect(failed).toEqual([])
    expect(lockstep.rounds).toHaveLength(CHAIN)
    expect(verbs(lockstep.rounds[0]!)).toEqual(['list'])
    expect(lockstep.rounds[1]).toEqual(expect.arrayContaining(['apply Namespace jobset-system']))
    expect(lockstep.rounds[2]).toEqual(expect.arrayContaining(['apply Deployment kueue-controller-manager']))
    expect(lockstep.rounds[3]).toEqual([
      'get Deployment jobset-controller-manager',
      'get Deployment kueue-controller-manager',
    ])
    expect(lockstep.rounds[4]).toEqual(expect.arrayContaining(['apply ClusterQueue cluster-queue']))
  })

  it('an unchanged re-run is one round of reads', async () => {
    const kube = aCluster(4)
    await converge(kube, inputs(2, 4))
    const lockstep = countRounds(kube)
    const {failed} = await converge(kube, inputs(2, 4))
    lockstep.stop()
    expect(failed).toEqual([])
    expect(lockstep.rounds).toHaveLength(1)
    expect(verbs(lockstep.rounds[0]!)).toEqual(['list'])
  })
})

describe('a release stopped half-way', () => {
  // Every object of both releases, one at a time: what a run killed or failed mid-install can leave out.
  const table = (['jobset', 'kueue'] as const).flatMap((component) =>
    releaseObjects(component).map((o) => ({
      name: `${component}: ${o.kind} ${o.metadata.name}`,
      ref: {apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace},
    })),
  )

  /** Every object a converged run leaves: both releases and xpk's configuration. */
  const everything = () =>
    [...releaseObjects('jobset'), ...releaseObjects('kueue'), ...desiredObjects(inputs())].map((o) => ({
      apiVersion: o.apiVersion,
      kind: o.kind,
      name: o.metadata.name,
      namespace: o.metadata.namespace,
    }))

  it.each(table)(
    '$name missing: a re-run applies what went with it and nothing else, then converges',
    async ({ref}) => {
      const kube = aCluster()
      await converge(kube, inputs())
      await kube.delete(ref)
      // A Namespace takes what lives in it along, a CRD its objects: those are missing too.
      const gone = everything().filter((o) => kube.peek(o) === undefined)
      expect(gone).toContainEqual(ref)
      kube.clearLog()
      const {failed} = await converge(kube, inputs())
      expect(failed).toEqual([])
      const sent = kube.mutatingRequests().map((r) => `${r.verb} ${r.kind} ${r.name}`)
      expect(sent.sort()).toEqual(gone.map((o) => `apply ${o.kind} ${o.name}`).sort())
      expect(everything().filter((o) => kube.peek(o) === undefined)).toEqual([])
      kube.clearLog()
      await converge(kube, inputs())
      expect(kube.mutatingRequests()).toEqual([])
    },
  )

  it('a Kueue whose CRDs are gone is repaired before the queues that need them are applied', async () => {
    const kube = aCluster()
    await converge(kube, inputs())
    for (const name of KUEUE_CRD_NAMES) {
      await kube.delete({apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name})
    }
    kube.clearLog()
    const {plan, failed} = await converge(kube, inputs())
    expect(failed).toEqual([])
    expect(plan.steps.find((s) => s.kind === 'install')?.reason).toMatch(
      /^repair Kueue v0\.17\.1: 7 of 15 objects missing \(CustomResourceDefinition admissionchecks\.kueue\.x-k8s\.io, .* and 4 more\)$/,
    )
    const order = kube.mutatingRequests().map((r) => `${r.verb} ${r.kind}`)
    expect(order.lastIndexOf('apply CustomResourceDefinition')).toBeLessThan(order.indexOf('apply ClusterQueue'))
    expect(kube.all('ClusterQueue').map((q) => q.metadata.name)).toEqual(['cluster-queue'])
  })
})

describe('a release manifest that cannot be read when planning', () => {
  const offline = (component: 'jobset' | 'kueue') =>
    new XpkError(
      'unavailable',
      `Cannot download the ${component} release manifest from https://example.test: the host name does not resolve (ENOTFOUND).`,
    )

  it('leaves that release uncompared, with a note, and plans the rest', async () => {
    const kube = aCluster()
    await converge(kube, inputs())
    kube.clearLog()
    const observed = await readInCluster(
      kube,
      inputs(),
      {policy: DEFAULT_RETRY_POLICY, clock: virtualClock(), signal: new AbortController().signal},
      async (component) => {
        if (component === 'kueue') throw offline(component)
        return new MemoryReleaseManifests().load(component)
      },
    )
    expect(observed.releasesUnread).toEqual({kueue: expect.stringContaining('Cannot download the kueue release')})
    const plan = planInCluster(inputs(), observed)
    expect(plan.notes).toEqual([
      "Kueue's objects were not compared with its release (Cannot download the kueue release manifest from " +
        'https://example.test: the host name does not resolve (ENOTFOUND)), so any that are missing stay missing: ' +
        're-run once the manifest can be read, or pass --kueue-manifest.',
    ])
    expect(plan.steps.filter((s) => s.kind !== 'apply' || s.change !== 'none')).toEqual([])
  })

  it('a --kueue-manifest that is not there fails the plan, before anything is changed', async () => {
    const kube = aCluster()
    const error = await readInCluster(
      kube,
      inputs(),
      {policy: DEFAULT_RETRY_POLICY, clock: virtualClock(), signal: new AbortController().signal},
      loader(new MemoryReleaseManifests(), {kueue: '/nowhere/kueue.yaml'}),
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(XpkError)
    expect((error as XpkError).kind).toBe('usage')
    expect(kube.mutatingRequests()).toEqual([])
  })
})

describe('a re-run', () => {
  it('plans nothing to change, sends no mutating request and reads each kind at most once', async () => {
    const kube = aCluster()
    await converge(kube, inputs())
    kube.clearLog()
    const {plan, outcomes, manifests} = await converge(kube, inputs())
    expect(plan.steps.filter((s) => s.kind !== 'apply' || s.change !== 'none')).toEqual([])
    expect(outcomes).toEqual([])
    expect(kube.mutatingRequests()).toEqual([])
    const reads = [...kube.readsByKind()]
    expect(reads.filter(([, count]) => count > 1)).toEqual([])
    // xpk's configuration, and every kind of the two releases (each of their objects is compared with what is live).
    expect(reads.map(([kind]) => kind).sort()).toEqual([
      'ClusterQueue',
      'ClusterRole',
      'ClusterRoleBinding',
      'ConfigMap',
      'CustomResourceDefinition',
      'Deployment',
      'LocalQueue',
      'MutatingWebhookConfiguration',
      'Namespace',
      'Node',
      'PriorityClass',
      'ProvisioningRequestConfig',
      'ResourceFlavor',
      'Service',
      'ServiceAccount',
      'ValidatingWebhookConfiguration',
    ])
    expect(manifests.loads).toEqual([{component: 'jobset'}, {component: 'kueue'}])
  })

  it('2 -> 4 slices updates the quota, applies only what changed, then deletes the flavor of 2 slices', async () => {
    const kube = aCluster()
    await converge(kube, inputs(2))
    kube.clearLog()
    const {plan, failed} = await converge(kube, inputs(4))
    expect(failed).toEqual([])
    expect(plan.steps.filter((s) => s.kind === 'apply' && s.change !== 'none').map((s) => s.reason)).toEqual([
      'create ResourceFlavor 4xv5p-16',
      'update ClusterQueue cluster-queue: quota 16 -> 32',
      'update ConfigMap demo-resources-configmap',
    ])
    expect(
      kube
        .mutatingRequests()
        .map((r) => `${r.verb} ${r.kind} ${r.name}`)
        .sort(),
    ).toEqual([
      'apply ClusterQueue cluster-queue',
      'apply ConfigMap demo-resources-configmap',
      'apply ResourceFlavor 4xv5p-16',
      'delete ResourceFlavor 2xv5p-16',
    ])
    // Kueue holds a flavor a queue names: the delete comes only after the queue stopped naming it.
    const order = kube.mutatingRequests().map((r) => `${r.verb} ${r.kind} ${r.name}`)
    expect(order.indexOf('delete ResourceFlavor 2xv5p-16')).toBeGreaterThan(
      order.indexOf('apply ClusterQueue cluster-queue'),
    )
    const queue = kube.peek({apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ClusterQueue', name: 'cluster-queue'})
    expect(queue?.spec).toMatchObject({
      resourceGroups: [{flavors: [{name: '4xv5p-16', resources: [{name: 'google.com/tpu', nominalQuota: 32}]}]}],
    })
    expect(kube.all('ResourceFlavor').map((f) => f.metadata.name)).toEqual(['4xv5p-16'])
    // The object was updated in place: same uid, next generation.
    expect(queue?.metadata.generation).toBe(2)
  })
})

describe('an installed Kueue', () => {
  it('an older one is upgraded in place', async () => {
    const kube = aCluster()
    installed(kube, 'jobset', 'v0.10.1')
    installed(kube, 'kueue', 'v0.16.0')
    const {plan, failed} = await converge(kube, inputs())
    expect(failed).toEqual([])
    expect(plan.steps.find((s) => s.kind === 'install')?.reason).toBe('upgrade Kueue v0.16.0 -> v0.17.1')
    expect(containerOf(kube.peek(KUEUE))?.image).toBe('registry.k8s.io/kueue/kueue:v0.17.1')
    expect(kube.mutatingRequests().filter((r) => r.verb === 'delete')).toEqual([])
  })

  it('an upgraded controller counts as ready only once its new pod is, not while the old one still serves', async () => {
    const kube = aCluster(4, {autoAvailable: false})
    installed(kube, 'jobset', 'v0.10.1')
    installed(kube, 'kueue', 'v0.16.0')
    const {failed} = await converge(kube, inputs())
    expect(failed.map((o) => `${o.name} ${o.status}`)).toEqual(expect.arrayContaining(['Kueue failed']))
    const kueue = failed.find((o) => o.name === 'Kueue')
    expect(kueue?.error?.kind).toBe('timeout')
    expect(kueue?.error?.message).toMatch(/within 600 s: 1 old replica still running\. Its conditions: Available=True/)
  })

  it.each([
    {name: 'a newer one is left alone', version: 'v0.18.0', manager: 'kubectl', note: /newer than the v0.17.1/},
    {name: 'one Helm manages is left alone', version: 'v0.16.0', manager: 'Helm', note: /Helm manages it/},
  ])('$name, with a note, and still configured', async ({version, manager, note}) => {
    const kube = aCluster()
    installed(kube, 'jobset', 'v0.10.1')
    installed(kube, 'kueue', version, manager)
    if (manager === 'Helm') {
      const deployment = kube.peek(KUEUE)!
      kube.seed({...deployment, metadata: {...deployment.metadata, labels: {[MANAGED_BY_LABEL]: 'Helm'}}}, {manager})
    }
    const {plan, failed} = await converge(kube, inputs())
    expect(failed).toEqual([])
    expect(plan.notes).toEqual([expect.stringMatching(note)])
    expect(containerOf(kube.peek(KUEUE))?.image).toBe(`registry.k8s.io/kueue/kueue:${version}`)
    expect(
      kube.mutatingRequests().filter((r) => r.namespace === 'kueue-system' || r.kind === 'CustomResourceDefinition'),
    ).toEqual([])
    expect(applied(kube).map((r) => r.kind)).toContain('ClusterQueue')
  })

  it('one older than v0.15 is destructive: its objects, CRDs and Deployment are deleted, then it is installed', async () => {
    // CRDs wait for their objects' finalizers on a real cluster: they stay terminating for 40 requests here.
    const kube = aCluster(4, {lingering: {CustomResourceDefinition: 40}})
    installed(kube, 'jobset', 'v0.10.1')
    installed(kube, 'kueue', 'v0.14.2')
    kube.seed({apiVersion: 'kueue.x-k8s.io/v1beta1', kind: 'ClusterQueue', metadata: {name: 'old-queue'}, spec: {}})
    kube.seed({
      apiVersion: 'kueue.x-k8s.io/v1beta1',
      kind: 'Workload',
      metadata: {name: 'job-a', namespace: 'default'},
      spec: {queueName: 'multislice-queue'},
    })
    const {plan, failed} = await converge(kube, inputs())
    expect(plan.destructive).toBe(true)
    expect(failed).toEqual([])

    const kueueRequests = kube.requests.filter(
      (r) =>
        r.mutating &&
        (r.namespace === 'kueue-system' ||
          r.apiVersion.startsWith('kueue.x-k8s.io/') ||
          r.name?.endsWith('.kueue.x-k8s.io') ||
          (r.kind.endsWith('WebhookConfiguration') && r.name?.startsWith('kueue'))),
    )
    const firstApply = kueueRequests.findIndex((r) => r.verb === 'apply')
    const deletions = kueueRequests.slice(0, firstApply).map((r) => `${r.kind} ${r.name}`)
    expect(deletions).toEqual([
      ...KUEUE_CRD_NAMES.flatMap((crd) => {
        const objects =
          crd === 'clusterqueues.kueue.x-k8s.io'
            ? ['ClusterQueue old-queue']
            : crd === 'workloads.kueue.x-k8s.io'
              ? ['Workload job-a']
              : []
        return [...objects, `CustomResourceDefinition ${crd}`]
      }),
      'Deployment kueue-controller-manager',
    ])
    expect(kueueRequests.slice(firstApply).every((r) => r.verb === 'apply')).toBe(true)
    // What is left is the new release, serving v1beta2, with xpk's configuration and none of the old objects.
    expect(containerOf(kube.peek(KUEUE))?.image).toBe('registry.k8s.io/kueue/kueue:v0.17.1')
    const crds = kube.all('CustomResourceDefinition').filter((c) => c.metadata.name.endsWith('.kueue.x-k8s.io'))
    expect(crds.map((c) => c.metadata.name)).toEqual([...KUEUE_CRD_NAMES].sort())
    expect(crds.filter((c) => c.metadata.deletionTimestamp)).toEqual([])
    expect(kube.all('ClusterQueue').map((q) => q.metadata.name)).toEqual(['cluster-queue'])
    expect(kube.all('Workload')).toEqual([])
  })
})

describe('reading the cluster', () => {
  it.each([
    ['tagged', 'registry.k8s.io/kueue/kueue:v0.14.2'],
    ['tagged and pinned by digest', `registry.k8s.io/kueue/kueue:v0.14.2@sha256:${'b'.repeat(64)}`],
    ['tagged without a v', 'registry.k8s.io/kueue/kueue:0.14.2'],
  ])('lists the Kueue CRDs to delete when the Kueue is older than v0.15 (%s)', async (_, image) => {
    const kube = aCluster()
    for (const o of releaseObjects('kueue', 'v0.14.2')) {
      const container =
        o.kind === 'Deployment' ? (o.spec as {template: {spec: {containers: {image: string}[]}}}) : undefined
      if (container) container.template.spec.containers[0]!.image = image
      kube.seed(o, {available: o.kind === 'Deployment'})
    }
    const signal = new AbortController().signal
    const observed = await readInCluster(
      kube,
      inputs(),
      {policy: DEFAULT_RETRY_POLICY, clock: virtualClock(), signal},
      loader(),
    )
    expect([...observed.kueueCrds].sort()).toEqual([...KUEUE_CRD_NAMES].sort())
    // From the one list of CRDs the releases are compared with: no second list for the deletions.
    expect(kube.requests.filter((r) => r.kind === 'CustomResourceDefinition')).toHaveLength(1)
  })

  it('names no CRD to delete for a Kueue that can be upgraded in place', async () => {
    const kube = aCluster()
    installed(kube, 'kueue', 'v0.15.0')
    const signal = new AbortController().signal
    const observed = await readInCluster(
      kube,
      inputs(),
      {policy: DEFAULT_RETRY_POLICY, clock: virtualClock(), signal},
      loader(),
    )
    expect(observed.kueueCrds).toEqual([])
    expect(kube.requests.filter((r) => r.kind === 'CustomResourceDefinition').map((r) => r.verb)).toEqual(['list'])
  })
})

describe('waiting for the controllers', () => {
  it('a controller that never becomes Available times out, naming the Deployment and its conditions', async () => {
    const kube = aCluster(4, {autoAvailable: false})
    const {failed} = await converge(kube, inputs())
    const kueue = failed.find((o) => o.name === 'Kueue' && o.action === 'wait')
    expect(kueue?.error?.kind).toBe('timeout')
    expect(kueue?.error?.message).toBe(
      'Deployment kueue-system/kueue-controller-manager (Kueue) did not become Available within 600 s: ' +
        '0 of 1 updated replicas available. Its conditions: ' +
        'Available=False (MinimumReplicasUnavailable: Deployment does not have minimum availability.); ' +
        'Progressing=True (ReplicaSetUpdated: ReplicaSet is progressing.).',
    )
    // What needs Kueue is skipped for that reason; what needs only the API server is applied.
    const skipped = failed.filter((o) => o.status === 'skipped')
    expect(skipped.map((o) => o.name).sort()).toEqual([
      'ClusterQueue/cluster-queue',
      'LocalQueue/multislice-queue',
      'ProvisioningRequestConfig/dws-config',
      'ResourceFlavor/2xv5p-16',
    ])
    expect(skipped.every((o) => o.error?.message.endsWith('Kueue is not Available.'))).toBe(true)
    expect(kube.all('PriorityClass')).toHaveLength(5)
  })

  it('the controller is resized when the node count grows, by applying the whole release Deployment', async () => {
    const kube = aCluster(4)
    await converge(kube, inputs(2, 4))
    kube.addNodes(Array.from({length: 4000}, (_, i) => `gke-demo-big-${i}`))
    kube.clearLog()
    const {plan, failed} = await converge(kube, inputs(2, 4))
    expect(failed).toEqual([])
    expect(plan.steps.filter((s) => s.kind === 'resize').map((s) => s.reason)).toEqual([
      "resize JobSet's controller for 4004 nodes",
      "resize Kueue's controller for 4004 nodes",
    ])
    const sent = applied(kube).filter((r) => r.kind === 'Deployment')
    expect(sent.map((r) => r.body)).toEqual([
      sizedController(findControllerDeployment(releaseObjects('jobset'), 'jobset')!, jobSetControllerPatch(4004)),
      sizedController(findControllerDeployment(releaseObjects('kueue'), 'kueue')!, kueueControllerPatch(4004)),
    ])
    expect(containerOf(kube.peek(KUEUE))?.resources).toEqual({
      requests: {cpu: '17', memory: '128128Mi'},
      limits: {cpu: '17', memory: '128128Mi'},
    })
  })
})

describe("the JobSet controller's CPU request (1000m, as Python xpk sets it)", () => {
  it("a JobSet an earlier xpk sized at the release's 500m is resized once; the re-run after sends nothing", async () => {
    const kube = aCluster(4)
    installed(kube, 'jobset', 'v0.10.1', 'xpk')
    installed(kube, 'kueue', 'v0.17.1', 'xpk')
    const before = containerOf(kube.peek(JOBSET))?.resources as {requests: {cpu: string}}
    expect(before.requests.cpu).toBe('500m')
    const first = await converge(kube, inputs(2, 4))
    expect(first.failed).toEqual([])
    expect(first.plan.steps.filter((s) => s.kind === 'resize').map((s) => s.component)).toContain('jobset')
    expect(containerOf(kube.peek(JOBSET))?.resources).toEqual({
      requests: {cpu: '1000m', memory: '128Mi'},
      limits: {memory: '4096Mi'},
    })
    kube.clearLog()
    const again = await converge(kube, inputs(2, 4))
    expect(again.plan.steps.filter((s) => s.kind === 'resize' || s.kind === 'install')).toEqual([])
    expect(kube.mutatingRequests()).toEqual([])
  })
})

describe('CoreDNS in place of kube-dns (cluster create, as Python xpk)', () => {
  const KUBE_DNS = {apiVersion: 'v1', namespace: 'kube-system', name: 'kube-dns'}
  /** A GKE cluster as it starts: kube-dns and its autoscaler, its Service and ConfigMap. */
  function withKubeDns(kube: MemoryKube): MemoryKube {
    for (const name of ['kube-dns', 'kube-dns-autoscaler']) {
      kube.seed(
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: {name, namespace: 'kube-system'},
          spec: {
            replicas: 2,
            selector: {matchLabels: {'k8s-app': name}},
            template: {metadata: {labels: {'k8s-app': name}}, spec: {containers: [{name, image: `${name}:1`}]}},
          },
        },
        {manager: 'addon-manager', available: true},
      )
    }
    kube.seed(
      {
        ...KUBE_DNS,
        kind: 'Service',
        metadata: {name: 'kube-dns', namespace: 'kube-system', labels: {'k8s-app': 'kube-dns'}},
        spec: {
          selector: {'k8s-app': 'kube-dns'},
          clusterIP: '10.8.0.10',
          ports: [{name: 'dns', port: 53, protocol: 'UDP'}],
        },
      },
      {manager: 'addon-manager'},
    )
    kube.seed(
      {
        ...KUBE_DNS,
        kind: 'ConfigMap',
        metadata: {name: 'kube-dns', namespace: 'kube-system'},
        data: {
          upstreamNameservers: '["8.8.8.8", "8.8.4.4"]',
          stubDomains: '{"corp.example": ["10.1.0.2", "10.1.0.3"]}',
        },
      },
      {manager: 'addon-manager'},
    )
    return kube
  }
  const withDns = (replicas = 6): InClusterInputs => ({...inputs(2, 4), coreDns: {replicas}})
  const replicasOf = (kube: MemoryKube, name: string) =>
    (
      kube.peek({apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'kube-system', name})?.spec as {
        replicas?: number
      }
    )?.replicas

  it("installs CoreDNS with kube-dns's IP, upstreams and stub domains, scales kube-dns down, waits; a re-run does nothing", async () => {
    const kube = withKubeDns(aCluster(4))
    const {plan, failed} = await converge(kube, withDns(6))
    expect(failed).toEqual([])
    expect(plan.steps.filter((s) => s.kind === 'coredns').map((s) => s.reason)).toEqual([
      "install CoreDNS (6 replicas, kube-dns's IP 10.8.0.10): kube-system has no coredns Deployment",
      'scale kube-dns-autoscaler and kube-dns to 0 replicas: CoreDNS answers in their place',
      'wait until CoreDNS is Available',
    ])
    expect(replicasOf(kube, 'coredns')).toBe(6)
    expect(replicasOf(kube, 'kube-dns')).toBe(0)
    expect(replicasOf(kube, 'kube-dns-autoscaler')).toBe(0)
    const service = kube.peek({...KUBE_DNS, kind: 'Service'}) as unknown as {
      spec: {clusterIP: string; selector: object}
    }
    expect(service.spec.clusterIP).toBe('10.8.0.10')
    expect(service.spec.selector).toMatchObject({'k8s-app': 'kube-dns', 'app.kubernetes.io/name': 'coredns'})
    const corefile = (
      kube.peek({...KUBE_DNS, kind: 'ConfigMap', name: 'coredns'}) as unknown as {data: {Corefile: string}}
    ).data.Corefile
    expect(corefile).toContain('forward . 8.8.8.8 8.8.4.4 {')
    expect(corefile).toContain('corp.example:53 {')
    expect(corefile).toContain('forward . 10.1.0.2 {')
    kube.clearLog()
    const again = await converge(kube, withDns(6))
    expect(again.plan.steps.filter((s) => s.kind === 'coredns')).toEqual([])
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('a fresh install with CoreDNS takes no more rounds than one without (kube-dns read with the lists)', async () => {
    const kube = withKubeDns(aCluster(4))
    const lockstep = countRounds(kube)
    const {failed} = await converge(kube, withDns(6))
    lockstep.stop()
    expect(failed).toEqual([])
    // The lists, then CoreDNS's objects all at once, then both kube-dns Deployments read and scaled down together,
    // then CoreDNS read Available: beside the install's own chain of five rounds.
    expect(lockstep.rounds).toHaveLength(5)
    expect(lockstep.rounds[0]!.filter((r) => !r.startsWith('list '))).toEqual([])
    expect(lockstep.rounds[1]).toEqual(
      expect.arrayContaining(['apply ConfigMap coredns', 'apply Deployment coredns', 'apply Service kube-dns']),
    )
    expect(lockstep.rounds[2]).toEqual(
      expect.arrayContaining(['get Deployment kube-dns-autoscaler', 'get Deployment kube-dns']),
    )
    expect(lockstep.rounds[3]).toEqual(
      expect.arrayContaining(['apply Deployment kube-dns-autoscaler', 'apply Deployment kube-dns']),
    )
    expect(lockstep.rounds[4]).toEqual(expect.arrayContaining(['get Deployment coredns']))
    // Without kube-dns (nothing to replace) the same: no get of it after the lists.
    const bare = aCluster(4)
    const again = countRounds(bare)
    await converge(bare, withDns(6))
    again.stop()
    expect(again.rounds).toHaveLength(5)
    expect(again.rounds.flat().filter((r) => r.startsWith('get ') && r.includes('kube-dns'))).toEqual([])
  })

  it('plans nothing where kube-system has no kube-dns Service, and says why', async () => {
    const {plan} = await converge(aCluster(4), withDns(3))
    expect(plan.steps.filter((s) => s.kind === 'coredns')).toEqual([])
    expect(plan.notes.join('\n')).toMatch(/neither a coredns Deployment nor a kube-dns Service/)
  })

  it('a cluster not yet up is planned as if it had kube-dns, and checked again when the step runs', async () => {
    const plan = planInCluster(withDns(2), null)
    expect(plan.steps.filter((s) => s.kind === 'coredns').map((s) => [s.action, s.objects])).toEqual([
      ['install', null],
      ['scale-down', null],
      ['await', null],
    ])
    const kube = withKubeDns(aCluster(4))
    const lockstep = countRounds(kube)
    const clock = virtualClock()
    const retry = {policy: DEFAULT_RETRY_POLICY, clock, signal: new AbortController().signal}
    const steps = inClusterSteps(
      plan,
      {kube: async () => kube, manifests: new MemoryReleaseManifests(), retry},
      {manifestOverrides: {}, availableTimeoutMs: TEN_MINUTES, poll: DEFAULT_TIMING.operations},
    )
    const outcomes = await runSteps(steps, {
      board: new RecordingConsole().progress('Inside the cluster'),
      signal: retry.signal,
      now: clock.now,
    })
    lockstep.stop()
    expect(outcomes.filter((o) => o.status !== 'done')).toEqual([])
    expect(replicasOf(kube, 'coredns')).toBe(2)
    expect(replicasOf(kube, 'kube-dns')).toBe(0)
    // Checked at run time: coredns and kube-dns read together, then CoreDNS applied, kube-dns's Deployments read
    // and scaled down, CoreDNS read Available (the install's own chain is four rounds here: nothing is listed).
    expect(lockstep.rounds).toHaveLength(5)
    expect(lockstep.rounds[0]).toEqual(
      expect.arrayContaining(['get Deployment coredns', 'get Service kube-dns', 'get ConfigMap kube-dns']),
    )
    expect(lockstep.rounds.at(-1)).toEqual(['get Deployment coredns'])
  })
})

describe('transient failures', () => {
  it('a 503 on a read, an apply and a wait is retried, and the run succeeds', async () => {
    const kube = aCluster()
    kube.failNext(1, {verb: 'list', kind: 'Node'})
    kube.failNext(2, {verb: 'apply', kind: 'ClusterQueue'})
    kube.failNext(1, {verb: 'get', kind: 'Deployment', name: KUEUE.name})
    const clock = virtualClock()
    const {failed} = await converge(kube, inputs(), {clock})
    expect(failed).toEqual([])
    const queueApplies = kube.requests
      .filter((r) => r.verb === 'apply' && r.kind === 'ClusterQueue')
      .map((r) => r.status)
    expect(queueApplies).toEqual([503, 503, 201])
    expect(kube.requests.filter((r) => r.status === 503)).toHaveLength(4)
    expect(clock.sleeps.length).toBeGreaterThanOrEqual(4)
  })

  it('a manifest download that fails transiently is loaded again by the retry, not answered from the memo', async () => {
    const source = new MemoryReleaseManifests()
    let failures = 1
    const flaky = {
      load: (component: Parameters<typeof source.load>[0], options?: Parameters<typeof source.load>[1]) => {
        if (failures-- > 0)
          return Promise.reject(
            new ApiError('unavailable', 'connection reset', {status: 'UNAVAILABLE', retryable: true}),
          )
        return source.load(component, options)
      },
    }
    const memo = memoizedManifests(flaky)
    const clock = virtualClock()
    const retry = {policy: DEFAULT_RETRY_POLICY, clock, signal: new AbortController().signal}
    const manifest = await withRetries(() => memo.load('kueue'), retry)
    expect(manifest.objects.length).toBeGreaterThan(0)
    expect(source.loadsOf('kueue')).toBe(1)
    // Once loaded, it is kept: a second use costs nothing.
    await memo.load('kueue')
    expect(source.loadsOf('kueue')).toBe(1)
  })

  it('a failure that is not transient fails its step once, without retries', async () => {
    const kube = aCluster()
    kube.failNext(1, {verb: 'apply', kind: 'PriorityClass', name: 'high'}, 403, 'priorityclasses is forbidden')
    const {failed} = await converge(kube, inputs())
    expect(failed.map((o) => [o.name, o.error?.kind])).toEqual([['PriorityClass/high', 'permission']])
    expect(
      kube.requests.filter((r) => r.kind === 'PriorityClass' && r.name === 'high' && r.verb === 'apply'),
    ).toHaveLength(1)
  })
})

describe('a GPU cluster where topology-aware scheduling is possible', () => {
  const gpu = (capacity: 'flex' | 'reservation', compactPools: string[] = []): InClusterInputs => ({
    shape: aClusterShape({type: 'h200-141gb-8', capacity, numNodes: 2}),
    xpkVersion: '1.2.3',
    expectedNodes: 8,
    placement: {compactPlacementPool: compactPools.length > 0, compactPools},
  })
  const topologyWrites = (kube: MemoryKube) =>
    kube
      .mutatingRequests()
      .filter((r) => r.kind === 'Topology' || r.kind === 'ResourceFlavor')
      .map((r) => `${r.verb} ${r.kind} ${r.name}`)

  it('a fresh flex cluster gets the gke-default Topology and a flavor naming it', async () => {
    const kube = aCluster()
    const {failed} = await converge(kube, gpu('flex'))
    expect(failed).toEqual([])
    expect(topologyWrites(kube).sort()).toEqual(['apply ResourceFlavor 1xh200-141gb-8', 'apply Topology gke-default'])
    const flavor = applied(kube).find((r) => r.kind === 'ResourceFlavor')?.body as unknown as {
      spec: {topologyName?: string}
    }
    expect(flavor.spec.topologyName).toBe('gke-default')
  })

  it.skipIf(SKIP_CRD_TESTS)("the Topology and the flavor naming it validate against Kueue's CRDs", async () => {
    const kube = aCluster()
    await converge(kube, gpu('reservation', ['a3u-compact']))
    const sent = applied(kube).filter((r) => r.kind === 'Topology' || r.kind === 'ResourceFlavor')
    expect(sent).toHaveLength(2)
    for (const r of sent) expect(validateAgainstCrd(r.body), `${r.kind} ${r.name}`).toEqual([])
  })

  it('a re-run sends no mutating request and reads Topologies once', async () => {
    const kube = aCluster()
    await converge(kube, gpu('flex'))
    kube.clearLog()
    const {plan} = await converge(kube, gpu('flex'))
    expect(plan.steps.filter((s) => s.kind !== 'apply' || s.change !== 'none')).toEqual([])
    expect(kube.mutatingRequests()).toEqual([])
    expect(kube.readsByKind().get('Topology')).toBe(1)
  })

  it('a COMPACT pool added later: the Topology is created and the flavor updated to name it', async () => {
    const kube = aCluster()
    await converge(kube, gpu('reservation'))
    expect(topologyWrites(kube)).toEqual(['apply ResourceFlavor 1xh200-141gb-8'])
    kube.clearLog()
    const {failed} = await converge(kube, gpu('reservation', ['a3u-compact']))
    expect(failed).toEqual([])
    expect(topologyWrites(kube).sort()).toEqual(['apply ResourceFlavor 1xh200-141gb-8', 'apply Topology gke-default'])
  })

  it('the COMPACT pools gone: nothing is sent (Kueue would refuse removing topologyName), a note says why', async () => {
    const kube = aCluster()
    await converge(kube, gpu('reservation', ['a3u-compact']))
    kube.clearLog()
    const {plan, failed} = await converge(kube, gpu('reservation'))
    expect(failed).toEqual([])
    expect(kube.mutatingRequests()).toEqual([])
    expect(plan.notes).toEqual([expect.stringContaining('keeps Topology gke-default')])
  })
})
