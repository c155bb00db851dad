// followChanges: waiting by watching, resumed whenever the stream ends, over the in-memory Kubernetes API.
import {describe, expect, it} from 'vitest'

import {ApiError, XpkError} from '../../src/core/errors.js'
import {DEFAULT_RETRY_POLICY} from '../../src/executor/retry.js'
import {followChanges, type ObjectChange} from '../../src/executor/watch.js'
import type {KubeClient, KubeWatchEvent} from '../../src/ports/kube.js'
import {MemoryKube} from '../fakes/memory-kube.js'
import {virtualClock} from '../helpers/virtual-clock.js'

const cm = (name: string, v: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {name, namespace: 'default'},
  data: {v},
})

const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

/** Follows ConfigMaps until stopped; `result` settles with what followChanges rejected with. */
function follow(kube: KubeClient, resourceVersion?: string) {
  const changes: string[] = []
  const controller = new AbortController()
  const clock = virtualClock()
  const result = followChanges(
    kube,
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'default',
      resourceVersion,
      policy: DEFAULT_RETRY_POLICY,
      clock,
      signal: controller.signal,
    },
    (c: ObjectChange) =>
      changes.push(`${c.type} ${c.object.metadata.name}=${String((c.object.data as {v: string}).v)}`),
  ).catch((error: unknown) => error)
  return {
    changes,
    clock,
    result,
    stop: (reason: unknown = new XpkError('interrupted', 'stop')) => controller.abort(reason),
  }
}

describe('followChanges', () => {
  it('sees the current objects, then every change, across streams the server ends, none twice', async () => {
    const kube = new MemoryKube()
    await kube.apply(cm('a', '1'))
    const f = follow(kube)
    await settle()
    await kube.apply(cm('a', '2'))
    await settle()
    kube.endWatches()
    // Written while no stream is open: the next one, resumed from the last resourceVersion, brings it.
    await kube.apply(cm('b', '1'))
    await settle()
    await kube.apply(cm('a', '3'))
    await settle()
    expect(f.changes).toEqual(['ADDED a=1', 'MODIFIED a=2', 'ADDED b=1', 'MODIFIED a=3'])
    const watches = kube.requests.filter((r) => r.verb === 'watch')
    expect(watches.map((r) => r.watch?.resourceVersion)).toEqual([undefined, expect.any(String)])
    f.stop()
    expect(await f.result).toMatchObject({kind: 'interrupted'})
    expect(kube.openWatches()).toBe(0)
  })

  it('starts after the resourceVersion it is given', async () => {
    const kube = new MemoryKube()
    const read = await kube.apply(cm('a', '1'))
    const f = follow(kube, String(read.metadata.resourceVersion))
    await kube.apply(cm('a', '2'))
    await settle()
    expect(f.changes).toEqual(['MODIFIED a=2'])
    f.stop()
  })

  it('starts over from the current objects when its resourceVersion has expired (410)', async () => {
    const kube = new MemoryKube()
    await kube.apply(cm('a', '1'))
    const f = follow(kube)
    await settle()
    kube.failWatches(410)
    await settle()
    expect(f.changes).toEqual(['ADDED a=1', 'ADDED a=1'])
    expect(kube.requests.filter((r) => r.verb === 'watch').map((r) => r.watch?.resourceVersion)).toEqual([
      undefined,
      undefined,
    ])
    f.stop()
  })

  it('retries a watch that cannot start, with the policy backoff', async () => {
    const kube = new MemoryKube()
    kube.failNext(2, {verb: 'watch'}, 503)
    await kube.apply(cm('a', '1'))
    const f = follow(kube)
    await settle()
    expect(f.changes).toEqual(['ADDED a=1'])
    expect(f.clock.sleeps).toHaveLength(2)
    f.stop()
  })

  it('a watch that keeps failing ends as the policy says (exit 7: unavailable)', async () => {
    const kube = new MemoryKube()
    kube.failNext(DEFAULT_RETRY_POLICY.attempts, {verb: 'watch'}, 503)
    const f = follow(kube)
    const error = (await f.result) as ApiError
    expect(error).toBeInstanceOf(ApiError)
    expect(error.kind).toBe('unavailable')
    expect(error.message).toContain(`after ${DEFAULT_RETRY_POLICY.attempts} attempts`)
  })

  it('a stream dropped after delivering events resumes without using up the retry attempts', async () => {
    const kube = new MemoryKube()
    const f = follow(kube)
    await settle()
    for (let i = 1; i <= DEFAULT_RETRY_POLICY.attempts + 2; i++) {
      await kube.apply(cm('a', String(i)))
      await settle()
      kube.failWatches(503, 'connection reset')
      await settle()
    }
    expect(f.changes).toHaveLength(DEFAULT_RETRY_POLICY.attempts + 2)
    expect(f.clock.sleeps).toEqual([])
    f.stop()
    expect(await f.result).toMatchObject({kind: 'interrupted'})
  })

  it('spaces out streams that end at once with nothing in them, instead of spinning', async () => {
    let watches = 0
    const controller = new AbortController()
    const quiet = {
      watch: async () => {
        if (++watches === 5) controller.abort(new XpkError('interrupted', 'enough'))
      },
    } as unknown as KubeClient
    const clock = virtualClock()
    const error = await followChanges(
      quiet,
      {apiVersion: 'v1', kind: 'ConfigMap', policy: DEFAULT_RETRY_POLICY, clock, signal: controller.signal},
      () => undefined,
    ).catch((e: unknown) => e)
    expect(error).toMatchObject({kind: 'interrupted'})
    expect(clock.sleeps).toHaveLength(4)
    // Growing as the policy's backoff does (jitter fixed at 0.5 by the virtual clock).
    expect(clock.sleeps[1]!).toBeGreaterThan(clock.sleeps[0]!)
  })

  it('moves its resourceVersion on with bookmarks, so a quiet watch resumes from a recent point', async () => {
    const versions: (string | undefined)[] = []
    let calls = 0
    const controller = new AbortController()
    const bookmarking = {
      watch: async (
        _v: string,
        _k: string,
        options: {resourceVersion?: string},
        onEvent: (e: KubeWatchEvent) => void,
      ) => {
        versions.push(options.resourceVersion)
        if (++calls === 3) return controller.abort(new XpkError('interrupted', 'enough'))
        onEvent({type: 'BOOKMARK', resourceVersion: String(100 * calls)})
      },
    } as unknown as KubeClient
    await followChanges(
      bookmarking,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        resourceVersion: '7',
        policy: DEFAULT_RETRY_POLICY,
        clock: virtualClock(),
        signal: controller.signal,
      },
      () => undefined,
    ).catch(() => undefined)
    expect(versions).toEqual(['7', '100', '200'])
  })

  it('ends with what the caller threw', async () => {
    const kube = new MemoryKube()
    await kube.apply(cm('a', '1'))
    const controller = new AbortController()
    const boom = new Error('handler failed')
    const error = await followChanges(
      kube,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        policy: DEFAULT_RETRY_POLICY,
        clock: virtualClock(),
        signal: controller.signal,
      },
      () => {
        throw boom
      },
    ).catch((e: unknown) => e)
    expect(error).toBe(boom)
  })
})

describe('followChanges starting over (onRelist)', () => {
  function relisting(kube: KubeClient) {
    const seen: string[] = []
    const controller = new AbortController()
    const result = followChanges(
      kube,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: 'default',
        policy: DEFAULT_RETRY_POLICY,
        clock: virtualClock(),
        signal: controller.signal,
        onRelist: (phase) => seen.push(`relist ${phase}`),
      },
      (c) => seen.push(`${c.type} ${c.object.metadata.name}`),
    ).catch((error: unknown) => error)
    return {seen, result, stop: () => controller.abort(new XpkError('interrupted', 'stop'))}
  }

  it('says when a 410 starts it over and when every current object has come (the next bookmark)', async () => {
    const kube = new MemoryKube()
    await kube.apply(cm('a', '1'))
    await kube.apply(cm('b', '1'))
    const f = relisting(kube)
    await settle()
    // b is deleted while no watch is open: no DELETED comes, and it does not come again.
    kube.forgetHistory()
    kube.failWatches(410)
    await kube.delete({apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'b'})
    await settle()
    kube.bookmarkWatches()
    await settle()
    await kube.apply(cm('a', '2'))
    await settle()
    expect(f.seen).toEqual(['ADDED a', 'ADDED b', 'relist start', 'ADDED a', 'relist end', 'MODIFIED a'])
    f.stop()
    expect(await f.result).toMatchObject({kind: 'interrupted'})
  })

  it('a change or a clean end of the stream ends it too; a stream dropped before then starts over again', async () => {
    const kube = new MemoryKube()
    await kube.apply(cm('a', '1'))
    const f = relisting(kube)
    await settle()
    kube.failWatches(410)
    await settle()
    // Dropped after one object came: it starts over again, and says so once.
    kube.failWatches(503, 'connection reset')
    await settle()
    kube.endWatches()
    await settle()
    await kube.apply(cm('a', '2'))
    await settle()
    expect(f.seen).toEqual(['ADDED a', 'relist start', 'ADDED a', 'ADDED a', 'relist end', 'MODIFIED a'])
    const watches = kube.requests.filter((r) => r.verb === 'watch').map((r) => r.watch?.resourceVersion)
    expect(watches.slice(0, 3)).toEqual([undefined, undefined, undefined])
    expect(watches[3]).toEqual(expect.any(String))
    kube.failWatches(410)
    await settle()
    await kube.apply(cm('a', '3'))
    await settle()
    expect(f.seen.slice(6)).toEqual(['relist start', 'ADDED a', 'relist end', 'MODIFIED a'])
    f.stop()
  })
})
