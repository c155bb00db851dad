/**
 * Typed errors and the one exit-code table of xpk.
 *
 * Every failure a user can act on is an {@link XpkError} with a {@link ErrorKind}; the kind alone decides the
 * exit code, so scripts can rely on the table below (it is also printed in the README, and a test keeps the two
 * in step).
 */
import {redactCredentials} from './text.js'

/** What went wrong, from the user's point of view. */
export type ErrorKind =
  | 'failed'
  | 'declined'
  | 'usage'
  | 'auth'
  | 'permission'
  | 'not-found'
  | 'quota'
  | 'stockout'
  | 'conflict'
  | 'unavailable'
  | 'image'
  | 'timeout'
  | 'unsuccessful'
  | 'interrupted'
  | 'internal'

/** One row of the exit-code table. */
export interface ExitCodeRow {
  readonly code: number
  readonly kinds: readonly ErrorKind[]
  readonly meaning: string
}

/** The documented exit codes. Codes are stable: never renumber a row, only add new ones. */
export const EXIT_CODE_TABLE: readonly ExitCodeRow[] = [
  {code: 0, kinds: [], meaning: 'Success (including "nothing to do").'},
  {
    code: 1,
    kinds: ['failed', 'declined', 'internal'],
    meaning: 'The operation failed or only partly succeeded, or you declined a confirmation prompt.',
  },
  {
    code: 2,
    kinds: ['usage'],
    meaning: 'Bad input: a flag, argument, environment variable or file is invalid. Nothing was changed.',
  },
  {
    code: 3,
    kinds: ['auth', 'permission'],
    meaning: 'Credentials are missing or invalid, or they lack a permission (IAM role, registry access).',
  },
  {code: 4, kinds: ['not-found'], meaning: 'A project, location, cluster, node pool or image does not exist.'},
  {code: 5, kinds: ['quota', 'stockout'], meaning: 'Out of quota, or the zone has no capacity (stockout).'},
  {
    code: 6,
    kinds: ['conflict'],
    meaning: 'A conflicting operation is running or the resource is in a state that forbids the change.',
  },
  {
    code: 7,
    kinds: ['unavailable'],
    meaning: 'A service stayed unreachable or kept failing transiently after retries.',
  },
  {code: 8, kinds: ['image'], meaning: 'Building or pushing the container image failed.'},
  {code: 124, kinds: ['timeout'], meaning: 'Timed out waiting.'},
  {code: 125, kinds: ['unsuccessful'], meaning: 'The awaited workload finished unsuccessfully.'},
  {
    code: 130,
    kinds: ['interrupted'],
    meaning: 'Interrupted (Ctrl-C, SIGTERM or SIGHUP); re-running the same command resumes.',
  },
]

const codeByKind = new Map<ErrorKind, number>(EXIT_CODE_TABLE.flatMap((row) => row.kinds.map((k) => [k, row.code])))

/** The exit code for an error kind. */
export function exitCodeFor(kind: ErrorKind): number {
  return codeByKind.get(kind) ?? 1
}

/**
 * The kind that stands for several failures at once: their common exit code decides, so a stockout in one pool and
 * a quota error in another (both exit 5, "no capacity") stay exit 5; failures with different codes are exit 1.
 */
export function combinedKind(kinds: readonly ErrorKind[]): ErrorKind {
  const [first] = kinds
  if (first === undefined) return 'failed'
  return kinds.every((k) => exitCodeFor(k) === exitCodeFor(first)) ? first : 'failed'
}

/** Options shared by all typed errors. */
export interface XpkErrorOptions {
  /** Next steps for the user, one sentence each. */
  readonly hints?: readonly string[]
  /** The lower-level error, shown with --verbose. */
  readonly cause?: unknown
}

/** An error the user can act on. `message` says what happened; `hints` say what to do next. */
export class XpkError extends Error {
  readonly kind: ErrorKind
  readonly hints: readonly string[]

  constructor(kind: ErrorKind, message: string, options: XpkErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : {cause: options.cause})
    this.name = 'XpkError'
    this.kind = kind
    this.hints = options.hints ?? []
  }

  /** The exit code from the documented table. */
  get exitCode(): number {
    return exitCodeFor(this.kind)
  }
}

/** Bad input, found before anything was changed. `flag` names the offending flag (with its dashes). */
export class UsageError extends XpkError {
  readonly flag: string | undefined

  constructor(message: string, options: XpkErrorOptions & {flag?: string} = {}) {
    super('usage', message, options)
    this.name = 'UsageError'
    this.flag = options.flag
  }
}

/** Several usage problems at once, so the user can fix them all in one go. */
export class UsageErrors extends UsageError {
  readonly problems: readonly UsageError[]

  constructor(problems: readonly UsageError[]) {
    super(problems.map((p) => p.message).join('\n'), {hints: problems.flatMap((p) => p.hints)})
    this.name = 'UsageErrors'
    this.problems = problems
  }
}

/**
 * A failure reported by a cloud API, classified. `status` is the API's status name (gRPC code name such as
 * UNAVAILABLE); `retryable` says whether the same call may succeed if repeated after a pause.
 */
export class ApiError extends XpkError {
  readonly status: string
  readonly retryable: boolean

  constructor(
    kind: ErrorKind,
    message: string,
    options: XpkErrorOptions & {readonly status: string; readonly retryable: boolean},
  ) {
    super(kind, message, options)
    this.name = 'ApiError'
    this.status = options.status
    this.retryable = options.retryable
  }
}

/** Throws the collected problems: one as itself, several together. Does nothing for an empty list. */
export function throwIfProblems(problems: readonly UsageError[]): void {
  if (problems.length === 1) throw problems[0]
  if (problems.length > 1) throw new UsageErrors(problems)
}

/** The JSON shape of an error under `--json`. */
export interface ErrorJson {
  readonly error: {
    readonly kind: ErrorKind
    readonly exitCode: number
    readonly message: string
    readonly hints: readonly string[]
  }
}

/** Converts an error into its `--json` shape. */
export function errorToJson(error: XpkError): ErrorJson {
  const message = redactCredentials(error.message)
  const hints = error.hints.map(redactCredentials)
  return {error: {kind: error.kind, exitCode: error.exitCode, message, hints}}
}
