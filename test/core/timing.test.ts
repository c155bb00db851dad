// One timing for every wait, read from the environment once per command: which variables it reads (exactly the
// listed ones, each in the environment table and so in the README), what each changes, and that a set but invalid
// value is bad input naming it.
import {describe, expect, it} from 'vitest'

import {ENVIRONMENT, type VariableDefinition, type VariableName} from '../../src/core/environment.js'
import {UsageError} from '../../src/core/errors.js'
import {DEFAULT_TIMING, readTiming, TIMING_VARIABLES, type Timing} from '../../src/core/timing.js'

const integers = Object.entries(ENVIRONMENT as Record<string, VariableDefinition>)
  .filter(([, def]) => def.kind === 'integer')
  .map(([name, def]) => ({name: name as VariableName, def}))

/** Every poll of the timing, by where it is. */
const polls = (t: Timing) => ({
  operations: t.operations,
  controllers: t.controllers.poll,
  cacheImage: t.cacheImage.poll,
  workloadGone: t.workloadGone.poll,
})

describe('readTiming', () => {
  it('is the defaults when no variable is set', () => {
    expect(readTiming({})).toEqual(DEFAULT_TIMING)
    expect(readTiming({HOME: '/home/me', XPK_PROJECT: 'p'})).toEqual(DEFAULT_TIMING)
  })

  it('reads exactly the listed variables: each one changes it, every other integer variable does not', () => {
    const changing = integers.filter(({name, def}) => {
      const value = def.range!.min === Number(def.default) ? def.range!.min + 1 : def.range!.min
      return JSON.stringify(readTiming({[name]: String(value)})) !== JSON.stringify(DEFAULT_TIMING)
    })
    expect(changing.map((v) => v.name).sort()).toEqual([...TIMING_VARIABLES].sort())
  })

  it.each(TIMING_VARIABLES)('%s is an integer variable of the environment table (so the README lists it)', (name) => {
    expect(ENVIRONMENT[name].kind).toBe('integer')
  })

  it.each(TIMING_VARIABLES.flatMap((name) => ['', 'soon', '-5', '1.5'].map((value) => ({name, value}))))(
    '$name=$value is refused by name (exit 2)',
    ({name, value}) => {
      let error: unknown
      try {
        readTiming({[name]: value})
      } catch (caught) {
        error = caught
      }
      expect(error).toBeInstanceOf(UsageError)
      expect((error as UsageError).exitCode).toBe(2)
      expect((error as UsageError).message).toMatch(new RegExp(`^${name}[ :]`))
    },
  )

  it('XPK_POLL_INTERVAL_MS is the first wait of every poll, each keeping its own cap and growth', () => {
    const tuned = readTiming({XPK_POLL_INTERVAL_MS: '7'})
    for (const [where, poll] of Object.entries(polls(tuned))) {
      const base = polls(DEFAULT_TIMING)[where as keyof ReturnType<typeof polls>]
      expect(poll, where).toEqual({...base, initialMs: 7})
    }
    expect(tuned.retry).toEqual(DEFAULT_TIMING.retry)
  })

  it('XPK_RETRY_INTERVAL_MS is the first wait of the retry policy, nothing else of it', () => {
    expect(readTiming({XPK_RETRY_INTERVAL_MS: '3'})).toEqual({
      ...DEFAULT_TIMING,
      retry: {...DEFAULT_TIMING.retry, backoff: {...DEFAULT_TIMING.retry.backoff, initialMs: 3}},
    })
  })

  it.each([
    ['XPK_CONTROLLER_TIMEOUT_S', (t: Timing) => t.controllers.timeoutMs, 11_000],
    ['XPK_CACHE_IMAGE_TIMEOUT_S', (t: Timing) => t.cacheImage.timeoutMs, 11_000],
    ['XPK_WORKLOAD_DELETE_TIMEOUT_S', (t: Timing) => t.workloadGone.timeoutMs, 11_000],
    ['XPK_SSH_HANDSHAKE_TIMEOUT_MS', (t: Timing) => t.ssh.handshakeMs, 11],
    ['XPK_CLUSTER_LOCK_STALE_S', (t: Timing) => t.lockStaleSeconds, 11],
  ] as const)('%s=11 is its one wait', (name, read, expected) => {
    const tuned = readTiming({[name]: '11'})
    expect(read(tuned)).toBe(expected)
    expect(read(DEFAULT_TIMING)).not.toBe(expected)
  })
})
