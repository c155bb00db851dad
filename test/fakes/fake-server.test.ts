// The one way every wire fake takes, counts and plays injected faults (fake-server.ts): the fakes' own tests check
// each fake's matching and answers; these check the order and counting they all share.
import {describe, expect, it} from 'vitest'

import {Running, serveWithFaults, takeFault, Timers, type Fault} from './fake-server.js'

type TestFault = Fault & {name: string; status?: number}

const request = (faults: TestFault[], serve: () => string, extra: {latencyMs?: number; stopped?: boolean} = {}) => {
  const timers = new Timers()
  return {
    timers,
    outcome: serveWithFaults({
      faults,
      fits: (f) => f.name === 'hit',
      answers: (f) => f.status !== undefined,
      latencyMs: extra.latencyMs ?? 0,
      timers,
      stopped: () => extra.stopped ?? false,
      serve,
    }),
  }
}

describe('takeFault', () => {
  it('takes the first fitting fault with uses left, counts it down and removes it at 0 (default once)', () => {
    const faults: TestFault[] = [{name: 'miss'}, {name: 'hit', times: 2}, {name: 'hit'}]
    const fits = (f: TestFault) => f.name === 'hit'
    expect(takeFault(faults, fits)).toBe(faults[1])
    expect(faults.map((f) => f.times)).toEqual([undefined, 1, undefined])
    takeFault(faults, fits)
    expect(faults).toEqual([{name: 'miss'}, {name: 'hit'}])
    takeFault(faults, fits)
    expect(faults).toEqual([{name: 'miss'}])
    expect(takeFault(faults, fits)).toBeUndefined()
  })

  it('keeps a fault of Infinity uses, and passes over one of none left', () => {
    const lasting: TestFault = {name: 'hit', times: Infinity}
    const spent: TestFault = {name: 'hit', times: 0}
    const faults = [spent, lasting]
    for (let i = 0; i < 5; i++) expect(takeFault(faults, () => true)).toBe(lasting)
    expect(faults).toEqual([spent, lasting])
  })
})

describe('serveWithFaults', () => {
  it('without a fault or a delay, serves in the caller’s tick', async () => {
    const order: string[] = []
    const {outcome} = request([], () => (order.push('served'), 'answer'))
    order.push('after the call')
    expect(await outcome).toEqual({kind: 'served', value: 'answer', fault: undefined})
    expect(order).toEqual(['served', 'after the call'])
  })

  it('a fault with an answer answers instead of the request, which is never served', async () => {
    let served = 0
    const fault: TestFault = {name: 'hit', status: 503}
    const {outcome} = request([fault], () => (served++, 'answer'))
    expect(await outcome).toEqual({kind: 'fault', fault})
    expect(served).toBe(0)
  })

  it('afterApply serves the request, then the fault answers instead of its answer', async () => {
    let served = 0
    const fault: TestFault = {name: 'hit', status: 504, afterApply: true}
    const {outcome} = request([fault], () => (served++, 'answer'))
    expect(await outcome).toEqual({kind: 'fault', fault, applied: {value: 'answer'}})
    expect(served).toBe(1)
  })

  it('waits the latency plus the fault’s delay before serving; a delay-only fault is told with the answer', async () => {
    const fault: TestFault = {name: 'hit', delayMs: 60}
    const started = Date.now()
    const {outcome} = request([fault], () => 'answer', {latencyMs: 40})
    expect(await outcome).toEqual({kind: 'served', value: 'answer', fault})
    expect(Date.now() - started).toBeGreaterThanOrEqual(95)
  })

  it('a request held back by a delay while the fake stopped is not served', async () => {
    let served = 0
    const {outcome} = request([{name: 'hit', delayMs: 5}], () => (served++, 'answer'), {stopped: true})
    expect(await outcome).toEqual({kind: 'stopped'})
    expect(served).toBe(0)
  })

  it('a fault match that throws (a bug in the test) rejects, naming it', async () => {
    const outcome = serveWithFaults<TestFault, string>({
      faults: [{name: 'x'}],
      fits: () => {
        throw new Error('boom')
      },
      answers: () => true,
      latencyMs: 0,
      timers: new Timers(),
      stopped: () => false,
      serve: () => 'answer',
    })
    await expect(outcome).rejects.toThrow('fault match threw: Error: boom')
  })
})

describe('Running', () => {
  it('ends each item when its time comes; settled() resolves once none runs', async () => {
    const running = new Running<string>()
    const ended: string[] = []
    const end = (item: string) => (running.end(item), ended.push(item))
    running.start('slow', 40, end)
    running.start('fast', 10, end)
    running.start('held', Infinity, end)
    expect(running.all()).toEqual(['slow', 'fast', 'held'])
    let settled = false
    const waiting = running.settled().then(() => (settled = true))
    await new Promise((resolve) => setTimeout(resolve, 60))
    expect([ended, settled]).toEqual([['fast', 'slow'], false])
    expect(running.end('held')).toBe(true)
    expect(running.end('held')).toBe(false)
    await waiting
    expect(settled).toBe(true)
  })

  it('clear() forgets what runs without ending it (its timers never fire) and releases waiters', async () => {
    const running = new Running<string>()
    const ended: string[] = []
    running.start('a', 5, (item) => ended.push(item))
    const waiting = running.settled()
    running.clear()
    await waiting
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect([ended, running.size]).toEqual([[], 0])
  })

  it('after stop(), settled() resolves at once even while something is started', async () => {
    const running = new Running<string>()
    running.stop()
    running.start('x', Infinity, () => {})
    await running.settled()
    expect(running.has('x')).toBe(true)
  })
})
