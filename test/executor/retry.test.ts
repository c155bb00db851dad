import {describe, expect, it} from 'vitest'

import {gkeApiError} from '../../src/core/cluster/gke-errors.js'
import {ApiError, XpkError} from '../../src/core/errors.js'
import {
  DEFAULT_RETRY_POLICY,
  pollUntil,
  QUICK_END_MS,
  Reopening,
  retrying,
  startTimeLimit,
  withRetries,
  withRetriesIdempotent,
  type Clock,
} from '../../src/executor/retry.js'
import {manualClock} from '../helpers/manual-clock.js'
import {virtualClock} from '../helpers/virtual-clock.js'

const context = {action: 'read cluster c', project: 'p', location: 'us-central2'}
const fault = {
  unavailable: () => gkeApiError({code: 14, message: 'connection reset'}, context),
  deadline: () => gkeApiError({code: 4, message: 'deadline'}, context),
  rateLimit: () => gkeApiError({code: 8, message: 'Too many requests per minute'}, context),
  tooManyOperations: () => gkeApiError({code: 8, message: 'Too many operations in progress'}, context),
  busy: () => gkeApiError({code: 9, message: 'Cluster is running incompatible operation operation-1.'}, context),
  notFound: () => gkeApiError({code: 5, message: 'not found'}, context),
  alreadyExists: () => gkeApiError({code: 6, message: 'already exists'}, context),
  permission: () => gkeApiError({code: 7, message: 'denied'}, context),
}

function failing(errors: Array<() => Error>, result = 'ok') {
  let calls = 0
  return {
    call: async () => {
      const next = errors[calls++]
      if (next) throw next()
      return result
    },
    calls: () => calls,
  }
}

const options = (clock: Clock = virtualClock(), signal = new AbortController().signal) => ({
  policy: DEFAULT_RETRY_POLICY,
  clock,
  signal,
})

describe('withRetries: the one retry policy', () => {
  it.each([['unavailable'], ['deadline'], ['rateLimit'], ['tooManyOperations'], ['busy']] as const)(
    'retries a transient %s and then succeeds',
    async (kind) => {
      const clock = virtualClock()
      const seq = failing([fault[kind], fault[kind]])
      await expect(withRetries(seq.call, options(clock))).resolves.toBe('ok')
      expect(seq.calls()).toBe(3)
      expect(clock.sleeps).toHaveLength(2)
    },
  )

  it.each([['notFound'], ['alreadyExists'], ['permission']] as const)('does not retry %s', async (kind) => {
    const seq = failing([fault[kind]])
    await expect(withRetries(seq.call, options())).rejects.toBeInstanceOf(ApiError)
    expect(seq.calls()).toBe(1)
  })

  it.each([['unavailable'], ['deadline'], ['rateLimit']] as const)(
    'ends a %s that outlasts the attempts as "unavailable" (exit 7), however it started',
    async (kind) => {
      const seq = failing(Array(10).fill(fault[kind]))
      const error = (await withRetries(seq.call, options()).catch((e: unknown) => e)) as ApiError
      expect(seq.calls()).toBe(DEFAULT_RETRY_POLICY.attempts)
      expect([error.kind, error.exitCode, error.retryable]).toEqual(['unavailable', 7, false])
      expect(error.message).toMatch(/still failing after 6 attempts over \d+s/)
      expect(error.hints.join(' ')).not.toContain('xpk waits and retries')
    },
  )

  it('retries a busy cluster for the conflict budget, not the attempt count, then says it stayed busy (exit 6)', async () => {
    const clock = virtualClock()
    const seq = failing(Array(1000).fill(fault.busy))
    const error = (await withRetries(seq.call, options(clock)).catch((e: unknown) => e)) as ApiError
    expect(seq.calls()).toBeGreaterThan(DEFAULT_RETRY_POLICY.attempts)
    expect(clock.now()).toBeGreaterThanOrEqual(DEFAULT_RETRY_POLICY.conflictBudgetMs)
    expect([error.kind, error.exitCode]).toEqual(['conflict', 6])
  })

  it('waits with jittered exponential backoff, capped', async () => {
    const clock = virtualClock(1)
    await withRetries(failing(Array(5).fill(fault.unavailable)).call, options(clock))
    expect(clock.sleeps).toEqual([1000, 2000, 4000, 8000, 16000])
  })

  it('stops at once when the signal aborts, during a call or a wait, with the abort reason', async () => {
    const controller = new AbortController()
    const reason = new XpkError('interrupted', 'Interrupted.')
    const clock = virtualClock()
    let calls = 0
    const call = async () => {
      calls++
      controller.abort(reason)
      throw fault.unavailable()
    }
    await expect(withRetries(call, options(clock, controller.signal))).rejects.toBe(reason)
    expect([calls, clock.sleeps.length]).toEqual([1, 0])
  })

  it('ends a call that never answers the moment the signal aborts (a server that accepts and never replies)', async () => {
    const controller = new AbortController()
    const reason = new XpkError('timeout', 'Time is up.')
    let calls = 0
    const never = () => {
      calls++
      return new Promise<string>(() => undefined)
    }
    const ended = withRetries(never, options(virtualClock(), controller.signal))
    await new Promise((r) => setTimeout(r, 5))
    controller.abort(reason)
    await expect(ended).rejects.toBe(reason)
    expect(calls).toBe(1)
  })

  it('untilAborted: a wait under way retries a transient failure past the attempts, until it comes back', async () => {
    const outage = failing(Array.from({length: 20}, () => fault.unavailable))
    const clock = virtualClock()
    await expect(withRetries(outage.call, {...options(clock), untilAborted: true})).resolves.toBe('ok')
    expect(outage.calls()).toBe(21)
    // The backoff stops growing at the policy's cap.
    expect(Math.max(...clock.sleeps)).toBeLessThanOrEqual(DEFAULT_RETRY_POLICY.backoff.maxMs)
    // Without it, the same outage outlasts the attempts: exit 7.
    const short = failing(Array.from({length: 20}, () => fault.unavailable))
    await expect(withRetries(short.call, options())).rejects.toMatchObject({kind: 'unavailable', retryable: false})
    expect(short.calls()).toBe(DEFAULT_RETRY_POLICY.attempts)
  })

  describe('retryable and retryUntil: failures that are not ApiErrors (an SSH connection), for a while', () => {
    const refused = () => new XpkError('auth', 'SSH to 10.0.0.2 refused the key.')
    const hostKey = () => new XpkError('auth', 'The host key of 10.0.0.2 changed.')
    const retryable = (error: unknown) =>
      error instanceof XpkError && error.kind === 'auth' && !error.message.includes('host key')

    it('retries what `retryable` says with the policy’s backoff, then throws the failure itself', async () => {
      const clock = virtualClock()
      const seq = failing(Array.from({length: 10}, () => refused))
      const error = await withRetries(seq.call, {...options(clock), retryable}).catch((e: unknown) => e)
      // Not made an "unavailable" (exit 7) as an ApiError that outlasts the attempts is: it is no API's answer.
      expect(error).toMatchObject({kind: 'auth', message: 'SSH to 10.0.0.2 refused the key.'})
      expect(seq.calls()).toBe(DEFAULT_RETRY_POLICY.attempts)
      expect(clock.sleeps).toEqual([750, 1500, 3000, 6000, 12000])
      const other = failing([hostKey])
      await expect(withRetries(other.call, {...options(), retryable})).rejects.toThrow('host key')
      expect(other.calls()).toBe(1)
    })

    it('retryUntil keeps retrying past the attempts until that time, and not after', async () => {
      const clock = virtualClock()
      const seq = failing(Array.from({length: 100}, () => refused))
      const until = clock.now() + 60_000
      await expect(withRetries(seq.call, {...options(clock), retryable, retryUntil: until})).rejects.toThrow('refused')
      const waited = clock.sleeps.reduce((a, b) => a + b, 0)
      expect(seq.calls()).toBeGreaterThan(DEFAULT_RETRY_POLICY.attempts)
      expect(waited).toBeGreaterThanOrEqual(60_000)
      expect(waited - clock.sleeps.at(-1)!).toBeLessThan(60_000)
      // Once the failures stop, it succeeds like any retry.
      const brief = failing(Array.from({length: 8}, () => refused))
      await expect(
        withRetries(brief.call, {...options(), retryable, retryUntil: virtualClock().now() + 10 * 60_000}),
      ).resolves.toBe('ok')
    })

    it('Ctrl-C ends the wait between two tries with its reason', async () => {
      const controller = new AbortController()
      const reason = new XpkError('interrupted', 'Interrupted.')
      const clock = manualClock()
      const seq = failing(Array.from({length: 100}, () => refused))
      const trying = withRetries(seq.call, {...options(clock, controller.signal), retryable, retryUntil: 60_000})
      await clock.advance(0)
      expect(clock.sleeping).toBe(1)
      controller.abort(reason)
      await expect(trying).rejects.toBe(reason)
      expect(seq.calls()).toBe(1)
    })
  })

  it('retrying: the same policy as a function of the call (how a list sends each page)', async () => {
    const clock = virtualClock()
    const seq = failing([fault.unavailable, fault.rateLimit])
    await expect(retrying(options(clock))(seq.call)).resolves.toBe('ok')
    expect([seq.calls(), clock.sleeps.length]).toEqual([3, 2])
  })

  it('treats ALREADY_EXISTS or NOT_FOUND after a lost response as done', async () => {
    const create = failing([fault.unavailable, fault.alreadyExists])
    await expect(withRetriesIdempotent(create.call, 'ALREADY_EXISTS', options())).resolves.toBeUndefined()
    const remove = failing([fault.notFound])
    await expect(withRetriesIdempotent(remove.call, 'NOT_FOUND', options())).resolves.toBeUndefined()
    const other = failing([fault.notFound])
    await expect(withRetriesIdempotent(other.call, 'ALREADY_EXISTS', options())).rejects.toBeInstanceOf(ApiError)
  })
})

describe('pollUntil', () => {
  it('polls with growing intervals and rides out transient read failures', async () => {
    const clock = virtualClock()
    const answers = [false, false, true]
    let reads = 0
    const check = async () => {
      reads++
      if (reads === 2) throw fault.unavailable()
      return answers.shift()!
    }
    await pollUntil(check, {...options(clock), poll: {initialMs: 100, maxMs: 1000, factor: 2}})
    expect(reads).toBe(4)
    expect(clock.sleeps).toEqual([100, 750, 200])
  })
})

describe('startTimeLimit: a time limit over everything run under its signal', () => {
  const expired = () => new XpkError('timeout', 'Time is up.')

  it('aborts with the expired error when the time passes, reads in flight included', async () => {
    const clock = manualClock()
    const limit = startTimeLimit(new AbortController().signal, 3000, clock, expired)
    const read = withRetries(() => new Promise<string>(() => undefined), {...options(clock), signal: limit.signal})
    const ended = read.catch((e: unknown) => e)
    await clock.advance(2999)
    expect(limit.signal.aborted).toBe(false)
    await clock.advance(1)
    expect(await ended).toMatchObject({kind: 'timeout', exitCode: 124, message: 'Time is up.'})
    expect(limit.expired()).toBe(true)
    limit.dispose()
  })

  it("passes the command's own abort (Ctrl-C) through with its reason, and is then not expired", async () => {
    const clock = manualClock()
    const command = new AbortController()
    const limit = startTimeLimit(command.signal, 3000, clock, expired)
    const interrupted = new XpkError('interrupted', 'Interrupted.')
    command.abort(interrupted)
    expect(limit.signal.reason).toBe(interrupted)
    expect(limit.expired()).toBe(false)
    limit.dispose()
    expect(clock.sleeping).toBe(0)
  })

  it('stops counting while paused (a question waits for its answer) and counts the whole time anew after', async () => {
    const clock = manualClock()
    const limit = startTimeLimit(new AbortController().signal, 3000, clock, expired)
    await clock.advance(2000)
    limit.pause()
    await clock.advance(60_000)
    expect(limit.signal.aborted).toBe(false)
    limit.restart()
    await clock.advance(2999)
    expect(limit.signal.aborted).toBe(false)
    await clock.advance(1)
    expect(limit.expired()).toBe(true)
  })

  it('with a clock that has no timer (virtual time), never fires: waits check now() between polls instead', async () => {
    const limit = startTimeLimit(new AbortController().signal, 1, virtualClock(), expired)
    await new Promise((r) => setTimeout(r, 5))
    expect(limit.signal.aborted).toBe(false)
    limit.dispose()
  })
})

describe('Reopening: a stream opened again each time it ends (a watch, a followed log)', () => {
  it('opens again at once after a stream that carried something or lasted; spaces out quick empty ends', async () => {
    const clock = virtualClock()
    const reopening = new Reopening(options(clock))
    await reopening.ended(clock.now(), true)
    await reopening.ended(clock.now() - QUICK_END_MS, false)
    expect(clock.sleeps).toEqual([])
    for (let i = 0; i < 8; i++) await reopening.ended(clock.now(), false)
    // The policy's jittered backoff (random 0.5: three quarters of each ceiling), growing for six ends, then held.
    expect(clock.sleeps).toEqual([750, 1500, 3000, 6000, 12000, 22500, 22500, 22500])
    // One that carried something starts the count again.
    await reopening.ended(clock.now(), true)
    await reopening.ended(clock.now(), false)
    expect(clock.sleeps.at(-1)).toBe(750)
  })

  it('Ctrl-C during the pause ends it with the reason', async () => {
    const controller = new AbortController()
    const reason = new XpkError('interrupted', 'Interrupted.')
    const clock = manualClock()
    const reopening = new Reopening(options(clock, controller.signal))
    const pausing = reopening.ended(clock.now(), false)
    await clock.advance(0)
    expect(clock.sleeping).toBe(1)
    controller.abort(reason)
    await expect(pausing).rejects.toBe(reason)
  })
})
