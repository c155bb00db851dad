import {describe, expect, it} from 'vitest'

import {jitteredDelay, pollDelay, type Backoff} from '../../src/core/retry.js'

const backoff: Backoff = {initialMs: 1000, maxMs: 30_000, factor: 2}

describe('jitteredDelay', () => {
  it.each([
    {attempt: 0, ceiling: 1000},
    {attempt: 1, ceiling: 2000},
    {attempt: 2, ceiling: 4000},
    {attempt: 3, ceiling: 8000},
    {attempt: 4, ceiling: 16_000},
    {attempt: 5, ceiling: 30_000},
    {attempt: 6, ceiling: 30_000},
    {attempt: 50, ceiling: 30_000},
  ])('attempt $attempt stays within [$ceiling/2, $ceiling]', ({attempt, ceiling}) => {
    for (const random of [0, 0.001, 0.25, 0.5, 0.75, 0.999, 0.999_999_999]) {
      const delay = jitteredDelay(attempt, backoff, random)
      expect(delay).toBeGreaterThanOrEqual(ceiling / 2)
      expect(delay).toBeLessThanOrEqual(ceiling)
      expect(Number.isInteger(delay)).toBe(true)
    }
    expect(jitteredDelay(attempt, backoff, 0)).toBe(ceiling / 2)
    expect(jitteredDelay(attempt, backoff, 0.5)).toBe((ceiling * 3) / 4)
  })

  it('grows exponentially with the factor until the cap', () => {
    const delays = Array.from({length: 8}, (_, attempt) => jitteredDelay(attempt, backoff, 0))
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 15_000, 15_000, 15_000])
  })

  it('uses the factor given', () => {
    const triple: Backoff = {initialMs: 100, maxMs: 10_000, factor: 3}
    expect([0, 1, 2, 3, 4, 5].map((a) => jitteredDelay(a, triple, 0))).toEqual([50, 150, 450, 1350, 4050, 5000])
  })

  it('spreads clients: different random numbers give different delays', () => {
    const delays = new Set([0, 0.2, 0.4, 0.6, 0.8].map((r) => jitteredDelay(3, backoff, r)))
    expect(delays.size).toBe(5)
  })

  it('is monotonic in the random number', () => {
    const delays = [0, 0.1, 0.3, 0.6, 0.9].map((r) => jitteredDelay(4, backoff, r))
    expect([...delays].sort((a, b) => a - b)).toEqual(delays)
  })
})

describe('pollDelay', () => {
  it.each([
    {poll: 0, delay: 1000},
    {poll: 1, delay: 2000},
    {poll: 4, delay: 16_000},
    {poll: 5, delay: 30_000},
    {poll: 100, delay: 30_000},
  ])('poll $poll -> $delay ms', ({poll, delay}) => {
    expect(pollDelay(poll, backoff)).toBe(delay)
  })

  it('rounds fractional growth to whole milliseconds', () => {
    expect([0, 1, 2, 3].map((p) => pollDelay(p, {initialMs: 1000, maxMs: 10_000, factor: 1.5}))).toEqual([
      1000, 1500, 2250, 3375,
    ])
    expect(pollDelay(1, {initialMs: 333, maxMs: 10_000, factor: 1.5})).toBe(500)
  })

  it('never exceeds the cap', () => {
    const slow: Backoff = {initialMs: 5000, maxMs: 7000, factor: 1.3}
    for (let poll = 0; poll < 20; poll++) expect(pollDelay(poll, slow)).toBeLessThanOrEqual(7000)
  })
})
