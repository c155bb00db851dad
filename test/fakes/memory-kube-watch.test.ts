// The in-memory Kubernetes API's watches, so the services that wait by watching can trust them: initial ADDED
// events, resuming from a resourceVersion, selectors moving objects in and out, the server ending streams, errors
// and compaction.
import {describe, expect, it} from 'vitest'

import {ApiError} from '../../src/core/errors.js'
import type {KubeWatchEvent, KubeWatchOptions} from '../../src/ports/kube.js'
import {MemoryKube} from './memory-kube.js'

const cm = (name: string, data: Record<string, string>, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {name, namespace: 'default', labels},
  data,
})

/** Starts a watch and records what it sees; `ended` settles with 'end' or the error. */
function watching(kube: MemoryKube, options: Omit<KubeWatchOptions, 'signal'> = {}) {
  const events: KubeWatchEvent[] = []
  const controller = new AbortController()
  const ended = kube
    .watch('v1', 'ConfigMap', {...options, signal: controller.signal}, (e) => events.push(e))
    .then(
      () => 'end' as const,
      (error: unknown) => error,
    )
  const seen = () => events.map((e) => (e.type === 'BOOKMARK' ? 'BOOKMARK' : `${e.type} ${e.object.metadata.name}`))
  return {events, seen, ended, stop: () => controller.abort()}
}

/** Lets queued watch deliveries run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

describe('MemoryKube watches', () => {
  it('start with the current objects as ADDED, then follow changes in order', async () => {
    const kube = new MemoryKube()
    await kube.apply(cm('b', {v: '1'}))
    await kube.apply(cm('a', {v: '1'}))
    const w = watching(kube, {namespace: 'default'})
    await settle()
    await kube.apply(cm('a', {v: '2'}))
    await kube.delete({apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'b'})
    kube.seed(cm('c', {v: '1'}))
    await settle()
    expect(w.seen()).toEqual(['ADDED a', 'ADDED b', 'MODIFIED a', 'DELETED b', 'ADDED c'])
    // An apply that changes nothing is no event.
    await kube.apply(cm('a', {v: '2'}))
    await settle()
    expect(w.events).toHaveLength(5)
    w.stop()
    expect(await w.ended).toBe('end')
    expect(kube.openWatches()).toBe(0)
  })

  it('from a resourceVersion, replay what happened after it and nothing before', async () => {
    const kube = new MemoryKube()
    const first = await kube.apply(cm('a', {v: '1'}))
    await kube.apply(cm('a', {v: '2'}))
    await kube.apply(cm('b', {v: '1'}))
    const w = watching(kube, {resourceVersion: String(first.metadata.resourceVersion)})
    await settle()
    expect(w.seen()).toEqual(['MODIFIED a', 'ADDED b'])
    expect(w.events.map((e) => (e.type === 'BOOKMARK' ? '' : e.object.data))).toEqual([{v: '2'}, {v: '1'}])
    w.stop()
  })

  it('a change that moves an object into or out of the label selector is ADDED or DELETED', async () => {
    const kube = new MemoryKube()
    await kube.apply(cm('a', {v: '1'}))
    const w = watching(kube, {labelSelector: 'team=ml'})
    await kube.apply(cm('a', {v: '1'}, {team: 'ml'}))
    await kube.apply(cm('a', {v: '2'}, {team: 'ml'}))
    await kube.apply(cm('a', {v: '2'}, {team: 'web'}))
    await settle()
    expect(w.seen()).toEqual(['ADDED a', 'MODIFIED a', 'DELETED a'])
    w.stop()
  })

  it('selects by field (metadata.name) and refuses fields the server cannot select by', async () => {
    const kube = new MemoryKube()
    const w = watching(kube, {fieldSelector: 'metadata.name=b'})
    await kube.apply(cm('a', {v: '1'}))
    await kube.apply(cm('b', {v: '1'}))
    await settle()
    expect(w.seen()).toEqual(['ADDED b'])
    w.stop()
    const bad = watching(kube, {fieldSelector: 'data.v=1'})
    expect(await bad.ended).toMatchObject({status: 'INVALID_ARGUMENT', message: expect.stringContaining('field label')})
  })

  it('endWatches closes streams cleanly; failWatches ends them with an error', async () => {
    const kube = new MemoryKube()
    const a = watching(kube)
    kube.endWatches()
    expect(await a.ended).toBe('end')
    const b = watching(kube)
    kube.failWatches(410)
    const error = await b.ended
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({status: 'EXPIRED', retryable: false})
  })

  it('a resourceVersion older than the retained history is 410 Expired, as after compaction', async () => {
    const kube = new MemoryKube({watchHistory: 2})
    const first = await kube.apply(cm('a', {v: '1'}))
    await kube.apply(cm('a', {v: '2'}))
    await kube.apply(cm('a', {v: '3'}))
    await kube.apply(cm('a', {v: '4'}))
    const old = watching(kube, {resourceVersion: String(first.metadata.resourceVersion)})
    expect(await old.ended).toMatchObject({status: 'EXPIRED'})
    const latest = (await kube.get({apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'a'}))!
    kube.forgetHistory()
    const afterCompaction = watching(kube, {resourceVersion: String(latest.metadata.resourceVersion)})
    await kube.apply(cm('a', {v: '5'}))
    await settle()
    // The newest version is still a valid place to start: only what came before it is forgotten.
    expect(afterCompaction.seen()).toEqual(['MODIFIED a'])
    afterCompaction.stop()
  })

  it('logs each watch as a request, and injected faults hit it', async () => {
    const kube = new MemoryKube()
    kube.failNext(1, {verb: 'watch'}, 503)
    const failed = watching(kube, {namespace: 'default'})
    expect(await failed.ended).toMatchObject({status: 'UNAVAILABLE', retryable: true})
    const ok = watching(kube, {namespace: 'default', resourceVersion: '1'})
    ok.stop()
    expect(kube.requests.map((r) => [r.verb, r.status, r.mutating, r.watch?.resourceVersion])).toEqual([
      ['watch', 503, false, undefined],
      ['watch', 200, false, '1'],
    ])
  })

  it('an unknown kind cannot be watched (404)', async () => {
    const kube = new MemoryKube()
    const error = await kube
      .watch('kueue.x-k8s.io/v1beta2', 'Workload', {signal: new AbortController().signal}, () => undefined)
      .catch((e: unknown) => e)
    expect(error).toMatchObject({status: 'NOT_FOUND'})
  })

  it('what the watcher throws ends its watch with that error', async () => {
    const kube = new MemoryKube()
    await kube.apply(cm('a', {v: '1'}))
    const boom = new Error('handler failed')
    const ended = kube
      .watch('v1', 'ConfigMap', {signal: new AbortController().signal}, () => {
        throw boom
      })
      .catch((e: unknown) => e)
    expect(await ended).toBe(boom)
    expect(kube.openWatches()).toBe(0)
  })

  it('bookmarkWatches sends every open watch a BOOKMARK with the newest resourceVersion', async () => {
    const kube = new MemoryKube()
    const written = await kube.apply(cm('a', {v: '1'}))
    const w = watching(kube, {namespace: 'default'})
    await settle()
    kube.bookmarkWatches()
    await settle()
    expect(w.seen()).toEqual(['ADDED a', 'BOOKMARK'])
    expect(w.events[1]).toEqual({type: 'BOOKMARK', resourceVersion: written.metadata.resourceVersion})
    w.stop()
  })
})
