// The cached worker list of `xpk vm run`: read back only when well formed and fresh (src/core/vm/run-plan.ts).
import {describe, expect, it} from 'vitest'

import {freshPlan, planCacheKey, type RunWorker} from '../../../src/core/vm/run-plan.js'

const worker = (slice: number, w: number): RunWorker => ({
  slice,
  worker: w,
  nodeId: `p-${slice}`,
  identity: `p-${slice}/7/${w}`,
  host: `34.0.${slice}.${w}`,
  internalIp: `10.0.${slice}.${w}`,
})
const plan = {savedAt: 1000, numSlices: 2, workers: [worker(0, 0), worker(0, 1), worker(1, 0), worker(1, 1)]}

describe('freshPlan', () => {
  it('reads back a plan younger than the limit, and only its known fields', () => {
    const stored = JSON.parse(JSON.stringify({...plan, extra: 1, workers: plan.workers.map((w) => ({...w, x: 1}))}))
    expect(freshPlan(stored, 1999, 1000)).toEqual(plan)
    expect(freshPlan(plan, 2000, 1000)).toBeUndefined()
    // Saved "in the future" (a clock that went back): not trusted either.
    expect(freshPlan(plan, 999, 1000)).toBeUndefined()
  })

  it.each([
    ['not an object', 'x'],
    ['no workers', {...plan, workers: []}],
    ['a missing slice count', {...plan, numSlices: undefined}],
    ['fewer slices than counted', {...plan, numSlices: 3}],
    ['a gap in the workers', {...plan, workers: [worker(0, 0), worker(0, 2)]}],
    ['slices out of order', {...plan, workers: [worker(1, 0), worker(0, 0)]}],
    ['an empty host', {...plan, workers: [{...worker(0, 0), host: ''}, ...plan.workers.slice(1)]}],
    ['a number as identity', {...plan, workers: [{...worker(0, 0), identity: 7}, ...plan.workers.slice(1)]}],
  ])('ignores an entry with %s', (_, value) => {
    expect(freshPlan(value, 1500, 1000)).toBeUndefined()
  })
})

describe('planCacheKey', () => {
  it('tells apart every setting that changes who the workers are or how they are reached', () => {
    const base = {project: 'p', zone: 'z', tpuPrefix: 't', internalIp: false, sshUser: 'me', sshPort: 22}
    const keys = [
      base,
      {...base, project: 'q'},
      {...base, zone: 'y'},
      {...base, tpuPrefix: 'u'},
      {...base, internalIp: true},
      {...base, sshUser: 'you'},
      {...base, sshPort: 2222},
    ].map(planCacheKey)
    expect(new Set(keys).size).toBe(keys.length)
  })
})
