import {describe, expect, it} from 'vitest'

import {gkeApiError} from '../../src/core/cluster/gke-errors.js'
import {DEFAULT_RETRY_POLICY} from '../../src/executor/retry.js'
import {OperationWatcher, type OperationSource} from '../../src/executor/operation-watcher.js'
import {virtualClock} from '../helpers/virtual-clock.js'

interface Op {
  readonly name: string
  readonly done: boolean
}

/** Operations that finish after `ticks` list calls; `listed` says which ones the list still shows. */
function source(ticks: Record<string, number>, listed = (_name: string) => true) {
  const calls = {list: 0, get: [] as string[]}
  const state = (name: string): Op => ({name, done: calls.list >= (ticks[name] ?? Infinity)})
  const src: OperationSource<Op> = {
    list: async () => (calls.list++, Object.keys(ticks).filter(listed).map(state)),
    get: async (name) => (calls.get.push(name), state(name)),
    name: (op) => op.name,
    isDone: (op) => op.done,
  }
  return {src, calls}
}

const options = (clock = virtualClock(), signal = new AbortController().signal) => ({
  policy: DEFAULT_RETRY_POLICY,
  clock,
  signal,
  poll: {initialMs: 100, maxMs: 1000, factor: 2, fastForMs: 250},
})

describe('OperationWatcher', () => {
  it('waits for many operations with one list call per tick', async () => {
    const names = Array.from({length: 50}, (_, i) => `op-${i}`)
    const {src, calls} = source(Object.fromEntries(names.map((n, i) => [n, 1 + (i % 4)])))
    const watcher = new OperationWatcher(src, options())
    const done = await Promise.all(names.map((name) => watcher.wait({name, done: false})))
    expect(done.every((op) => op?.done)).toBe(true)
    expect(calls.list).toBe(4)
    expect(calls.get).toEqual([])
  })

  it('asks for an operation the list no longer shows, and backs off once past the fast period', async () => {
    const clock = virtualClock()
    const {src, calls} = source({old: 5}, (name) => name !== 'old')
    await expect(new OperationWatcher(src, options(clock)).wait({name: 'old', done: false})).resolves.toEqual({
      name: 'old',
      done: true,
    })
    expect(calls.get).toHaveLength(5)
    expect(clock.sleeps).toEqual([100, 100, 100, 100, 200])
  })

  it('gives no verdict (null) to every waiter when operations cannot be watched, and says why', async () => {
    const denied = gkeApiError(
      {code: 7, message: 'container.operations.list denied'},
      {action: 'list', project: 'p', location: 'l'},
    )
    const failures: string[] = []
    const watcher = new OperationWatcher<Op>(
      {
        list: async () => Promise.reject(denied),
        get: async () => Promise.reject(denied),
        name: (o) => o.name,
        isDone: (o) => o.done,
      },
      {...options(), onWatchFailure: (e) => failures.push(e.message)},
    )
    await expect(
      Promise.all([watcher.wait({name: 'a', done: false}), watcher.wait({name: 'b', done: false})]),
    ).resolves.toEqual([null, null])
    expect(failures).toHaveLength(1)
  })

  it('stops waiting when the signal aborts, with its reason', async () => {
    const controller = new AbortController()
    const {src} = source({never: Infinity})
    const clock = virtualClock()
    const sleep = clock.sleep
    let ticks = 0
    const watcher = new OperationWatcher(src, {
      ...options(
        {
          ...clock,
          sleep: async (ms, signal) => (++ticks === 3 && controller.abort(new Error('Ctrl-C')), sleep(ms, signal)),
        },
        controller.signal,
      ),
    })
    await expect(watcher.wait({name: 'never', done: false})).rejects.toThrow('Ctrl-C')
  })

  it('returns a finished operation at once', async () => {
    const {src, calls} = source({})
    await expect(new OperationWatcher(src, options()).wait({name: 'x', done: true})).resolves.toEqual({
      name: 'x',
      done: true,
    })
    expect(calls.list).toBe(0)
  })
})
