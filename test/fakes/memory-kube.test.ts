// The in-memory Kubernetes API's own behaviour, so service tests can trust what it answers.
import {describe, expect, it} from 'vitest'

import {ApiError} from '../../src/core/errors.js'
import {MemoryKube, parseLabelSelector} from './memory-kube.js'
import {releaseObjects} from './memory-release-manifests.js'

const configMap = (data: Record<string, string>, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {name: 'settings', namespace: 'default', labels},
  data,
})
const CM = {apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'settings'}
const failure = async (p: Promise<unknown>) => (await p.catch((e: unknown) => e)) as ApiError

describe('MemoryKube', () => {
  it('creates on the first apply and stamps uid, resourceVersion, generation and the field manager', async () => {
    const kube = new MemoryKube()
    const created = await kube.apply(configMap({a: '1'}))
    expect(created.metadata).toMatchObject({
      uid: expect.any(String),
      resourceVersion: expect.any(String),
      generation: 1,
    })
    expect(created.metadata.managedFields).toEqual([{manager: 'xpk', operation: 'Apply'}])
    expect(kube.requests.map((r) => [r.verb, r.status, r.mutating])).toEqual([['apply', 201, true]])
  })

  it('an apply that changes nothing keeps resourceVersion and generation; a change bumps them', async () => {
    const kube = new MemoryKube()
    const first = await kube.apply(configMap({a: '1'}))
    const same = await kube.apply(configMap({a: '1'}))
    expect(same.metadata.resourceVersion).toBe(first.metadata.resourceVersion)
    const labelled = await kube.apply(configMap({a: '1'}, {team: 'ml'}))
    expect(labelled.metadata.resourceVersion).not.toBe(first.metadata.resourceVersion)
    expect(labelled.metadata.generation).toBe(1)
    const changed = await kube.apply(configMap({a: '2'}))
    expect(changed.metadata.generation).toBe(2)
    expect(changed.metadata.uid).toBe(first.metadata.uid)
  })

  it("replaces what xpk applied before and keeps other managers' fields", async () => {
    const kube = new MemoryKube()
    kube.seed(configMap({theirs: 'x'}, {'owner.example.com': 'helm'}), {manager: 'helm'})
    await kube.apply(configMap({a: '1', b: '2'}))
    await kube.apply(configMap({a: '1'}))
    expect(kube.peek(CM)).toMatchObject({
      data: {theirs: 'x', a: '1'},
      metadata: {labels: {'owner.example.com': 'helm'}},
    })
    expect((kube.peek(CM)?.data as Record<string, string>).b).toBeUndefined()
  })

  it("refuses to take another manager's field without force (409 Conflict), and takes it with force", async () => {
    const kube = new MemoryKube()
    kube.seed(configMap({a: 'theirs'}), {manager: 'kubectl'})
    const error = await failure(kube.apply(configMap({a: 'ours'})))
    expect(error).toBeInstanceOf(ApiError)
    expect([error.status, error.retryable]).toEqual(['CONFLICT', false])
    expect(error.message).toContain('conflict with "kubectl": .data.a')
    await kube.apply(configMap({a: 'ours'}), {force: true})
    expect(kube.peek(CM)?.data).toEqual({a: 'ours'})
  })

  it('merges lists of named items by name, like containers', async () => {
    const kube = new MemoryKube()
    const deployment = (containers: object[]) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {name: 'd', namespace: 'default'},
      spec: {template: {spec: {containers}}},
    })
    kube.seed(deployment([{name: 'sidecar', image: 'proxy:1'}]), {manager: 'istio'})
    await kube.apply(deployment([{name: 'manager', image: 'app:1'}]))
    const live = kube.peek({apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'd'})
    expect(
      (live?.spec as {template: {spec: {containers: {name: string}[]}}}).template.spec.containers.map((c) => c.name),
    ).toEqual(['sidecar', 'manager'])
  })

  it('needs the namespace of a namespaced object, and the CRD of a custom kind', async () => {
    const kube = new MemoryKube()
    const noNamespace = await failure(kube.apply({...configMap({}), metadata: {name: 'x', namespace: 'nowhere'}}))
    expect([noNamespace.status, noNamespace.message]).toEqual([
      'NOT_FOUND',
      'Applying ConfigMap nowhere/x failed: namespaces "nowhere" not found',
    ])
    const queue = {apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ClusterQueue', metadata: {name: 'q'}, spec: {}}
    // As the adapter says it (discovery finds no such kind): not an API error, nothing to retry.
    const notServed = await failure(kube.apply(queue))
    expect([notServed.kind, notServed.message]).toEqual([
      'failed',
      'Applying ClusterQueue q failed: the cluster does not serve ClusterQueue in kueue.x-k8s.io/v1beta2.',
    ])
    expect(await kube.list('kueue.x-k8s.io/v1beta2', 'ClusterQueue')).toEqual({items: []})
    expect(await kube.get({apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ClusterQueue', name: 'q'})).toBeUndefined()
    for (const o of releaseObjects('kueue').filter((x) => x.kind === 'CustomResourceDefinition')) kube.seed(o)
    await kube.apply(queue)
    // The same object is served in every version its CRD serves.
    expect(await kube.get({apiVersion: 'kueue.x-k8s.io/v1beta1', kind: 'ClusterQueue', name: 'q'})).toMatchObject({
      apiVersion: 'kueue.x-k8s.io/v1beta1',
    })
  })

  it('lookup tells a kind not served (no CRD, or not at that version) from a missing object, logged as a get', async () => {
    const kube = new MemoryKube()
    const queue = {apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ClusterQueue', name: 'q'}
    expect(await kube.lookup(queue)).toEqual({state: 'not-served'})
    expect(await kube.lookup({apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'x'})).toEqual({
      state: 'absent',
    })
    for (const o of releaseObjects('kueue').filter((x) => x.kind === 'CustomResourceDefinition')) kube.seed(o)
    expect(await kube.lookup(queue)).toEqual({state: 'absent'})
    expect(await kube.lookup({...queue, apiVersion: 'kueue.x-k8s.io/v1alpha9'})).toEqual({state: 'not-served'})
    kube.seed({apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ClusterQueue', metadata: {name: 'q'}, spec: {}})
    expect(await kube.lookup(queue)).toMatchObject({
      state: 'found',
      object: {kind: 'ClusterQueue', metadata: {name: 'q'}},
    })
    expect(kube.requests.map((r) => `${r.verb} ${r.kind} ${r.status}`)).toEqual([
      'get ClusterQueue 404',
      'get ConfigMap 404',
      'get ClusterQueue 404',
      'get ClusterQueue 404',
      'get ClusterQueue 200',
    ])
  })
  it('deleting a CRD deletes its objects; a lingering kind stays terminating for some requests', async () => {
    const kube = new MemoryKube({lingering: {CustomResourceDefinition: 2}})
    for (const o of releaseObjects('kueue').filter((x) => x.kind === 'CustomResourceDefinition')) kube.seed(o)
    await kube.apply({apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ClusterQueue', metadata: {name: 'q'}, spec: {}})
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      name: 'clusterqueues.kueue.x-k8s.io',
    }
    expect(await kube.delete(crd)).toBe('deleted')
    expect(kube.all('ClusterQueue')).toEqual([])
    expect((await kube.get(crd))?.metadata.deletionTimestamp).toEqual(expect.any(String))
    await kube.get(crd)
    expect(await kube.get(crd)).toBeUndefined()
    expect(await kube.delete(crd)).toBe('absent')
  })

  it('deleting an owner deletes its dependents and theirs in turn; a lingering dependent kind stays a while', async () => {
    const kube = new MemoryKube({lingering: {Pod: 2}})
    kube.seed({apiVersion: 'batch/v1', kind: 'Job', metadata: {name: 'j', namespace: 'default'}})
    const job = kube.peek({apiVersion: 'batch/v1', kind: 'Job', namespace: 'default', name: 'j'})!
    const owned = (o: {metadata: {name: string; uid?: unknown}}, kind: string) => [
      {apiVersion: 'v1', kind, name: o.metadata.name, uid: o.metadata.uid},
    ]
    kube.seed({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {name: 'c', namespace: 'default', ownerReferences: owned(job, 'Job')},
    })
    kube.seed({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {name: 'p', namespace: 'default', ownerReferences: owned(job, 'Job')},
    })
    const pod = kube.peek({apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'p'})!
    kube.seed({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {name: 's', namespace: 'default', ownerReferences: owned(pod, 'Pod')},
    })
    expect(await kube.delete({apiVersion: 'batch/v1', kind: 'Job', namespace: 'default', name: 'j'})).toBe('deleted')
    expect(kube.all('Job')).toEqual([])
    expect(kube.all('ConfigMap')).toEqual([])
    // The pod is terminating (its kind lingers); what it owns went with it at once.
    expect(kube.all('Secret')).toEqual([])
    const terminating = await kube.get({apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'p'})
    expect(terminating?.metadata.deletionTimestamp).toEqual(expect.any(String))
    await kube.get({apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'p'})
    expect(await kube.get({apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'p'})).toBeUndefined()
  })

  it('pages lists with limit and continue, and filters by label and field selectors', async () => {
    const kube = new MemoryKube()
    kube.addNodes(['n-1', 'n-2', 'n-3', 'n-4', 'n-5'], {pool: 'a'})
    kube.addNodes(['m-1'], {pool: 'b'})
    const first = await kube.list('v1', 'Node', {limit: 4})
    expect(first.items.map((n) => n.metadata.name)).toEqual(['m-1', 'n-1', 'n-2', 'n-3'])
    const rest = await kube.list('v1', 'Node', {limit: 4, continue: first.continue})
    expect([rest.items.map((n) => n.metadata.name), rest.continue]).toEqual([['n-4', 'n-5'], undefined])
    expect((await kube.list('v1', 'Node', {labelSelector: 'pool=b'})).items.map((n) => n.metadata.name)).toEqual([
      'm-1',
    ])
    expect((await kube.list('v1', 'Node', {fieldSelector: 'metadata.name=n-2'})).items).toHaveLength(1)
    expect((await failure(kube.list('v1', 'Node', {fieldSelector: 'spec.podCIDR=x'}))).status).toBe('INVALID_ARGUMENT')
  })

  it.each([
    ['a=1', true],
    ['a==1,b', true],
    ['a!=1', false],
    ['!c', true],
    ['a in (1,2),b notin (x)', true],
    ['b notin (2)', false],
  ])('label selector %s on {a: 1, b: 2} is %s', (selector, matches) => {
    expect(parseLabelSelector(selector)({a: '1', b: '2'})).toBe(matches)
  })

  it('fails the next matching requests with the status asked for, then answers again', async () => {
    const kube = new MemoryKube()
    kube.failNext(2, {verb: 'list', kind: 'Node'})
    for (let i = 0; i < 2; i++) expect((await failure(kube.list('v1', 'Node'))).retryable).toBe(true)
    await expect(kube.list('v1', 'Node')).resolves.toEqual({items: []})
    expect(kube.requests.map((r) => r.status)).toEqual([503, 503, 200])
  })

  it('a webhook whose controller is not Available turns applies of its group into 500s', async () => {
    const kube = new MemoryKube({autoAvailable: false})
    for (const o of releaseObjects('kueue')) await kube.apply(o)
    const queue = {apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ClusterQueue', metadata: {name: 'q'}, spec: {}}
    const error = await failure(kube.apply(queue))
    expect([error.status, error.retryable]).toEqual(['INTERNAL', true])
    expect(error.message).toContain('no endpoints available for service "kueue-system/kueue-webhook-service"')
    kube.setAvailable('kueue-system', 'kueue-controller-manager')
    await expect(kube.apply(queue)).resolves.toMatchObject({metadata: {name: 'q'}})
  })

  it('rolls Deployments out: at once with autoAvailable, else Available=False until the test says so', async () => {
    const deployment = releaseObjects('jobset').find((o) => o.kind === 'Deployment')!
    const ref = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      namespace: 'jobset-system',
      name: 'jobset-controller-manager',
    }
    const auto = new MemoryKube()
    for (const o of releaseObjects('jobset')) await auto.apply(o)
    expect(auto.peek(ref)?.status).toMatchObject({observedGeneration: 1, availableReplicas: 1, updatedReplicas: 1})
    const manual = new MemoryKube({autoAvailable: false})
    manual.seed({apiVersion: 'v1', kind: 'Namespace', metadata: {name: 'jobset-system'}})
    await manual.apply(deployment)
    expect(manual.peek(ref)?.status).toMatchObject({
      conditions: [{type: 'Available', status: 'False'}, {type: 'Progressing'}],
    })
    manual.setAvailable('jobset-system', 'jobset-controller-manager')
    expect(manual.peek(ref)?.status).toMatchObject({
      conditions: [{type: 'Available', status: 'True'}, {type: 'Progressing'}],
    })
  })

  it('runs a DaemonSet pod on each matching node; pulls finish per read, or fail with events', async () => {
    const kube = new MemoryKube({daemonSetPullsPerRead: 1})
    kube.addNodes(['tpu-1', 'tpu-2'], {accelerator: 'tpu'})
    kube.addNodes(['cpu-1'])
    kube.failPullOn('tpu-2', {reason: 'ErrImagePull', message: 'not found'})
    const ds = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: {name: 'cache', namespace: 'default'},
      spec: {
        selector: {matchLabels: {app: 'cache'}},
        template: {
          metadata: {labels: {app: 'cache'}},
          spec: {
            affinity: {
              nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: {
                  nodeSelectorTerms: [{matchExpressions: [{key: 'accelerator', operator: 'Exists'}]}],
                },
              },
            },
            containers: [{name: 'c', image: 'img:1'}],
          },
        },
      },
    }
    await kube.apply(ds)
    const ref = {apiVersion: 'apps/v1', kind: 'DaemonSet', namespace: 'default', name: 'cache'}
    expect((await kube.get(ref))?.status).toMatchObject({
      desiredNumberScheduled: 2,
      numberReady: 1,
      updatedNumberScheduled: 2,
    })
    await kube.get(ref)
    const states = kube
      .all('Pod')
      .map((p) => [
        (p.spec as {nodeName: string}).nodeName,
        (p.status as {containerStatuses: {state: object}[]}).containerStatuses[0]!.state,
      ])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])))
    expect(states).toEqual([
      ['tpu-1', {running: expect.any(Object)}],
      ['tpu-2', {waiting: {reason: 'ImagePullBackOff', message: 'Back-off pulling image "img:1"'}}],
    ])
    expect(kube.all('Event').map((e) => e.message)).toEqual(['Failed to pull image "img:1": not found'])
  })

  it('restarts a container (a fresh log, restartCount + 1) and ends followed logs when their pod is deleted', async () => {
    const kube = new MemoryKube()
    kube.seed({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {name: 'p', namespace: 'default'},
      spec: {containers: [{name: 'main', image: 'img'}]},
    })
    const POD = {apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'p'}
    const read: string[] = []
    const follow = () =>
      kube.logs('default', 'p', {follow: true, signal: new AbortController().signal}, (t) => read.push(t))
    kube.appendPodLog('default', 'p', 'old\n')
    const first = follow()
    kube.restartPodContainer('default', 'p')
    expect(await first).toBe('ended')
    kube.appendPodLog('default', 'p', 'new\n')
    const second = follow()
    expect(read).toEqual(['old\n', 'new\n'])
    expect((kube.peek(POD)?.status as {containerStatuses: object[]}).containerStatuses).toEqual([
      {
        name: 'main',
        restartCount: 1,
        state: {running: {startedAt: expect.any(String)}},
        lastState: {terminated: {exitCode: 1, reason: 'Error', finishedAt: expect.any(String)}},
      },
    ])
    kube.restartPodContainer('default', 'p')
    expect(
      (kube.peek(POD)?.status as {containerStatuses: {restartCount: number}[]}).containerStatuses[0]!.restartCount,
    ).toBe(2)
    expect(await second).toBe('ended')
    const third = follow()
    await kube.delete(POD)
    expect(await third).toBe('ended')
    expect(read).toEqual(['old\n', 'new\n'])
  })

  it('logs: timestamps before each line (not before a piece that continues one), sinceTime to the second, inclusive', async () => {
    const kube = new MemoryKube()
    kube.seed({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {name: 'p', namespace: 'default'},
      spec: {containers: [{name: 'main', image: 'img'}]},
      status: {phase: 'Running'},
    })
    const never = new AbortController().signal
    const read = async (options: {timestamps?: boolean; sinceTime?: string; tailLines?: number}) => {
      let text = ''
      await kube.logs('default', 'p', {...options, signal: never}, (t) => (text += t))
      return text
    }
    kube.appendPodLog('default', 'p', 'a\n')
    kube.setLogTime('2026-01-01T00:00:05.25Z')
    kube.appendPodLog('default', 'p', 'b\nc')
    kube.setLogTime('2026-01-01T00:00:06Z')
    kube.appendPodLog('default', 'p', 'ontinued\nd\n')
    expect(await read({})).toBe('a\nb\ncontinued\nd\n')
    // Default times are a millisecond apart from 2026-01-01, printed as Go's RFC3339Nano (trailing zeros cut).
    expect(await read({timestamps: true})).toBe(
      '2026-01-01T00:00:00.001Z a\n2026-01-01T00:00:05.25Z b\n2026-01-01T00:00:05.25Z continued\n2026-01-01T00:00:06Z d\n',
    )
    // sinceTime keeps the lines not before its second (the API server passes it on to the second).
    expect(await read({sinceTime: '2026-01-01T00:00:05.9Z'})).toBe('b\ncontinued\nd\n')
    expect(await read({sinceTime: '2026-01-01T00:00:06Z', timestamps: true})).toBe('2026-01-01T00:00:06Z d\n')
    expect(await read({sinceTime: '2026-01-01T00:00:07Z'})).toBe('')
    expect(await read({tailLines: 1})).toBe('d\n')
    expect(kube.requests.filter((r) => r.verb === 'logs').at(-1)?.logs).toEqual({tailLines: 1})
    const bad = await failure(read({sinceTime: 'soon'}))
    expect(bad.status).toBe('INVALID_ARGUMENT')
    // A follower gets the time before each new line only.
    const pieces: string[] = []
    const followed = kube.logs('default', 'p', {follow: true, timestamps: true, tailLines: 0, signal: never}, (t) =>
      pieces.push(t),
    )
    kube.setLogTime('2026-01-01T00:00:07Z')
    kube.appendPodLog('default', 'p', 'e')
    kube.appendPodLog('default', 'p', 'f\ng\n')
    // Cut: the stream ends, the log goes on (a new stream follows it).
    kube.cutPodLogs('default', 'p')
    expect(await followed).toBe('ended')
    expect(pieces.join('')).toBe('2026-01-01T00:00:07Z e' + 'f\n2026-01-01T00:00:07Z g\n')
    const again: string[] = []
    const reopened = kube.logs('default', 'p', {follow: true, tailLines: 0, signal: never}, (t) => again.push(t))
    kube.appendPodLog('default', 'p', 'h\n')
    // The container exits: the stream ends, and the status says it terminated.
    kube.exitPodContainer('default', 'p', 3)
    expect(await reopened).toBe('ended')
    expect(again).toEqual(['h\n'])
    const status = kube.peek({apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'p'})?.status as {
      phase: string
      containerStatuses: {state: object}[]
    }
    expect(status.phase).toBe('Failed')
    expect(status.containerStatuses[0]!.state).toEqual({
      terminated: {exitCode: 3, reason: 'Error', finishedAt: expect.any(String)},
    })
  })
})
