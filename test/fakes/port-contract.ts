// A port's contract, held by every implementation the tests rely on: one table of cases, each a sequence of port
// calls with what each must answer (a value, or a failure as the port classifies it), run against each subject: the
// in-memory fake the service tests use, and the real adapter talking to the wire-level fake. A memory fake that passes
// tells a service nothing the adapter over the wire would not; where they part, the table says which one is wrong.
//
// One file per port, of one form: kube-contract.test.ts, gke-contract.test.ts, compute-contract.test.ts (and the
// Cloud TPU one the same way): its `Given` (the state a case starts from, and the faults it injects, in the port's
// own terms), its subjects (each turns a Given into a port over fresh state), its cases, and `portContract(...)`.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {ApiError, XpkError} from '../../src/core/errors.js'

/** A failure as a port reports it. Fields left out are not compared. */
export interface Failure {
  readonly kind?: string
  /** ApiError's status name (NOT_FOUND, ALREADY_EXISTS, UNAVAILABLE, ...); null for an XpkError that is not one. */
  readonly status?: string | null
  readonly retryable?: boolean
  readonly exitCode?: number
  /** The whole message, or a pattern it matches. */
  readonly message?: string | RegExp
  readonly hints?: readonly string[]
}

/** One port call and what it must answer. */
export interface Step<Port> {
  /** What is called, as the failure report names the step (e.g. `getCluster(demo)`). */
  readonly call: string
  /**
   * Makes the call; `got` holds earlier steps' answers by their `as` names, `seen` what the subject saw (its log
   * of changes asked for, when it keeps one).
   */
  readonly run: (port: Port, got: Readonly<Record<string, unknown>>, seen: Seen) => Promise<unknown>
  /** The answer, compared with toEqual (asymmetric matchers such as expect.objectContaining work). */
  readonly gives?: unknown
  /** The failure it must end in. A step with neither `gives` nor `fails` must only not fail. */
  readonly fails?: Failure
  /** Keeps the answer for later steps under this name. */
  readonly as?: string
}

export interface ContractCase<Port, Given> {
  readonly name: string
  /** The state and faults the case starts from; the subject's default world when left out. */
  readonly given?: Given
  readonly steps: readonly Step<Port>[]
}

/** What a subject saw of the calls made to it. */
export interface Seen {
  /** The changes asked for so far, one line each (`create JobSet run-1 201`), in the order they came. */
  readonly writes: () => readonly string[]
}

/** One implementation under the contract. */
export interface Subject<Port, Given> {
  readonly name: string
  /** Its log of changes asked for, in the contract's words (the subject made last). */
  readonly writes?: () => readonly string[]
  /** Once for the file (a wire fake's server). */
  readonly start?: () => Promise<void>
  readonly stop?: () => Promise<void>
  /** A port over fresh state as `given` describes it. */
  readonly make: (given: Given | undefined) => Promise<Port>
}

/** The failure an error is, in the terms of {@link Failure}; anything but an XpkError is a crash, rethrown. */
export function failureOf(error: unknown): Required<Omit<Failure, 'message'>> & {message: string} {
  if (!(error instanceof XpkError)) throw error
  return {
    kind: error.kind,
    status: error instanceof ApiError ? error.status : null,
    retryable: error instanceof ApiError ? error.retryable : false,
    exitCode: error.exitCode,
    message: error.message,
    hints: [...error.hints],
  }
}

/** The failure to compare `got` with: the fields `want` names, a pattern as a matcher. */
function expectedFailure(want: Failure): Record<string, unknown> {
  const {message, ...rest} = want
  return {
    ...rest,
    ...(message === undefined ? {} : {message: typeof message === 'string' ? message : expect.stringMatching(message)}),
  }
}

/** Runs every case against every subject, each subject in a describe block of its own. */
export function portContract<Port, Given>(
  port: string,
  subjects: readonly Subject<Port, Given>[],
  cases: readonly ContractCase<Port, Given>[],
): void {
  for (const subject of subjects) {
    describe(`${port}, ${subject.name}`, () => {
      if (subject.start) beforeAll(subject.start)
      if (subject.stop) afterAll(subject.stop)
      it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, contractCase) => {
        const target = await subject.make(contractCase.given)
        const got: Record<string, unknown> = {}
        const seen: Seen = {
          writes: () => {
            if (!subject.writes) throw new Error(`${subject.name} keeps no log of writes`)
            return subject.writes()
          },
        }
        for (const [index, step] of contractCase.steps.entries()) {
          const where = `step ${index + 1}, ${step.call}`
          let answer: unknown
          try {
            answer = await step.run(target, got, seen)
          } catch (error) {
            const failure = failureOf(error)
            expect(step.fails, `${where} failed: ${failure.message}`).toBeDefined()
            expect(failure, where).toMatchObject(expectedFailure(step.fails!))
            continue
          }
          expect(step.fails, `${where} answered, where it must fail`).toBeUndefined()
          if ('gives' in step) expect(answer, where).toEqual(step.gives)
          if (step.as) got[step.as] = answer
        }
      })
    })
  }
}

/** Calls `read` until `done` holds for its answer (a memory fake counts reads, a wire fake takes time). */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, tries = 400): Promise<T> {
  for (let i = 0; ; i++) {
    const value = await read()
    if (done(value) || i >= tries) return value
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}
