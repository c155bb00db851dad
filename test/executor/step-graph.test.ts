import {describe, expect, it} from 'vitest'

import {XpkError} from '../../src/core/errors.js'
import {planStep, runSteps, runStepsOrThrow, type GraphStep} from '../../src/executor/step-graph.js'
import {RecordingConsole} from '../helpers/recording-console.js'

/** A step that logs its start and end, takes `ms` of real time, and fails when told to. */
function step(id: string, log: string[], extra: Partial<GraphStep> & {fail?: boolean; ms?: number} = {}): GraphStep {
  const {fail, ms = 1, ...rest} = extra
  return {
    id,
    line: id,
    resource: 'thing',
    name: id,
    action: 'create',
    run: async () => {
      log.push(`start ${id}`)
      await new Promise((r) => setTimeout(r, ms))
      log.push(`end ${id}`)
      if (fail) throw new XpkError('failed', `${id} broke`)
    },
    ...rest,
  }
}

const run = (steps: GraphStep[], lanes?: Record<string, number>, signal = new AbortController().signal) => {
  const console = new RecordingConsole()
  const board = console.progress('Applying:')
  return runSteps(steps, {board, signal, now: Date.now, lanes}).then((outcomes) => ({outcomes, console}))
}

describe('runSteps', () => {
  it('hands the counts of a step to its line as current and total, apart from the detail text', async () => {
    const {console} = await run([
      {
        ...step('a', []),
        run: async (ctx) => {
          ctx.progress('applying', '9 objects', {current: 3, total: 9})
          ctx.progress('retrying', '503, again in 1.0s')
        },
      },
    ])
    const lines = console.boards[0]!.updates.map((u) => u.line).filter((l) => l.status === 'running')
    expect(lines[0]).toEqual({
      label: 'a',
      state: 'applying',
      status: 'running',
      detail: '9 objects',
      current: 3,
      total: 9,
    })
    expect(lines[1]).toEqual({label: 'a', state: 'retrying', status: 'running', detail: '503, again in 1.0s'})
  })

  it('starts a step only after what it needs and follows has finished', async () => {
    const log: string[] = []
    await run([
      step('b', log, {needs: [{id: 'a', because: 'a failed'}]}),
      step('c', log, {after: ['b']}),
      step('a', log, {ms: 5}),
    ])
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c'])
  })

  it('skips what needs a failed step, for its reason, through chains, but runs what only follows it', async () => {
    const log: string[] = []
    const {outcomes} = await run([
      step('a', log, {fail: true}),
      step('b', log, {needs: [{id: 'a', because: 'a is broken'}]}),
      step('c', log, {needs: [{id: 'b', because: 'b was skipped'}]}),
      step('d', log, {after: ['a']}),
    ])
    expect(outcomes.map((o) => [o.name, o.status, o.error?.message ?? null])).toEqual([
      ['a', 'failed', 'a broke'],
      ['b', 'skipped', 'Skipped b: a is broken.'],
      ['c', 'skipped', 'Skipped c: b was skipped.'],
      ['d', 'done', null],
    ])
    expect(log).toEqual(['start a', 'end a', 'start d', 'end d'])
  })

  it('leaves the report of a skipped preparing step to the step it prepares', async () => {
    const {outcomes} = await run([
      step('policy', [], {fail: true}),
      step('delete', [], {needs: [{id: 'policy', because: 'no policy'}], prepares: 'create'}),
      step('create', [], {
        needs: [
          {id: 'policy', because: 'kept: no policy'},
          {id: 'delete', because: 'its deletion failed'},
        ],
      }),
    ])
    expect(outcomes.map((o) => [o.name, o.status, o.error?.message])).toEqual([
      ['policy', 'failed', 'policy broke'],
      ['create', 'skipped', 'Skipped create: kept: no policy.'],
    ])
  })

  it.each([1, 2, 3])('runs at most %i steps of a lane at once, and other steps beside them', async (limit) => {
    let inLane = 0
    let most = 0
    const laneStep = (id: string): GraphStep => ({
      ...step(id, []),
      lane: 'pools',
      run: async () => {
        most = Math.max(most, ++inLane)
        await new Promise((r) => setTimeout(r, 3))
        inLane--
      },
    })
    const log: string[] = []
    const {outcomes} = await run([...['p1', 'p2', 'p3', 'p4', 'p5'].map(laneStep), step('free', log, {ms: 10})], {
      pools: limit,
    })
    expect(most).toBe(limit)
    expect(outcomes.every((o) => o.status === 'done')).toBe(true)
    expect(log[0]).toBe('start free')
  })

  it('starts nothing new after Ctrl-C; the running step ends interrupted and the rest have no outcome', async () => {
    const controller = new AbortController()
    const slow: GraphStep = {
      ...step('slow', []),
      run: (ctx) =>
        new Promise((_, reject) => {
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), {once: true})
          setTimeout(() => controller.abort(new XpkError('interrupted', 'Ctrl-C')), 2)
        }),
    }
    const {outcomes} = await run([slow, step('next', [], {after: ['slow']})], undefined, controller.signal)
    expect(outcomes.map((o) => [o.name, o.status])).toEqual([['slow', 'interrupted']])
  })

  it('keeps progress lines: waiting for announced steps, then the final state with the cause', async () => {
    const {console} = await run([step('a', [], {announce: true}), step('b', [], {announce: true, fail: true})])
    const lines = console.finalLines('Applying')
    expect(lines.get('a')).toMatchObject({state: 'created', status: 'done'})
    expect(lines.get('b')).toMatchObject({state: 'failed', status: 'failed', detail: 'b broke'})
    expect(console.boards[0].updates[0]).toMatchObject({id: 'a', line: {state: 'waiting'}})
  })

  it.each([
    ['an unknown step', [step('a', [], {needs: [{id: 'ghost', because: ''}]})], 'waits for ghost'],
    ['a cycle', [step('a', [], {after: ['b']}), step('b', [], {after: ['a']})], 'wait for each other: a -> b -> a'],
    ['a duplicate id', [step('a', []), step('a', [])], 'share the id a'],
  ])('refuses %s before running anything', async (_name, steps, message) => {
    await expect(run(steps)).rejects.toThrow(message)
  })

  it('turns an unexpected error into an internal failure, not a crash', async () => {
    const broken: GraphStep = {...step('x', []), run: () => Promise.reject(new TypeError('boom'))}
    const {outcomes} = await run([broken])
    expect(outcomes[0]).toMatchObject({status: 'failed', error: {kind: 'internal', message: 'Unexpected error: boom'}})
  })
})

describe('planStep and runStepsOrThrow: a plan whose steps must all succeed', () => {
  const shown = (name: string) => ({action: 'delete', resource: 'jobSet', name})

  it('a plan step keeps its action, resource and name, and needs only the steps the graph has', () => {
    const graph: GraphStep[] = [planStep(shown('a'), 'a', async () => {})]
    const b = planStep(shown('b'), 'b', async () => {}, ['a', 'not-planned'], graph)
    expect(b).toMatchObject({id: 'b', line: 'b', action: 'delete', resource: 'jobSet', name: 'b'})
    expect(b.needs).toEqual([{id: 'a', because: 'a did not succeed'}])
  })

  it('throws the failure of the first step that failed; what needs it does not run', async () => {
    const log: string[] = []
    const graph: GraphStep[] = [step('a', log, {fail: true})]
    graph.push(planStep(shown('b'), 'b', async () => void log.push('b ran'), ['a'], graph))
    await expect(
      runStepsOrThrow(graph, {board: undefined, signal: new AbortController().signal, now: Date.now}),
    ).rejects.toThrow('a broke')
    expect(log).toEqual(['start a', 'end a'])
  })

  it('throws the interruption when Ctrl-C stops the plan', async () => {
    const controller = new AbortController()
    const interrupted = new XpkError('interrupted', 'Interrupted.')
    const graph = [
      planStep(shown('a'), 'a', async () => controller.abort(interrupted)),
      planStep(shown('b'), 'b', async () => {}),
    ]
    await expect(runStepsOrThrow(graph, {board: undefined, signal: controller.signal, now: Date.now})).rejects.toBe(
      interrupted,
    )
  })
})
