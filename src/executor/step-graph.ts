import {XpkError} from '../core/errors.js'
import type {ProgressBoard} from '../ports/console.js'

/**
 * One unit of work of an applied plan: a GKE call and its wait, an object applied inside the cluster, a command on
 * a TPU VM. Plans of every kind are turned into these and run by {@link runSteps}, so ordering, concurrency,
 * skipping what depends on a failure, progress lines, outcomes and Ctrl-C behave the same everywhere.
 */
export interface GraphStep {
  /** Unique within one run. */
  readonly id: string
  /** The progress line this step drives; steps may share one (the delete and create halves of a recreate). */
  readonly line: string
  readonly resource: string
  readonly name: string
  /** What the step does, as reported in its outcome (create, delete, wait, apply, ...). */
  readonly action: string
  /** Steps that must succeed first. When one fails or is skipped, this step is skipped, for the reason given. */
  readonly needs?: readonly {readonly id: string; readonly because: string}[]
  /** Steps that must have finished first, whether or not they succeeded: order only. */
  readonly after?: readonly string[]
  /** Steps sharing a lane run at most {@link RunStepsOptions.lanes}[lane] at a time; others are not limited. */
  readonly lane?: string
  /** Show the step's line as "waiting" from the start. */
  readonly announce?: boolean
  /**
   * The id of the step this one prepares (the delete half of a recreate prepares its create): when this one is
   * skipped, that step is skipped for the same reason and reports it, so the skip is not told twice.
   */
  readonly prepares?: string
  /** Does the work, reporting its state on the step's line; throws to fail the step. */
  readonly run: (step: StepContext) => Promise<void>
}

export interface StepContext {
  /**
   * Sets the step's line to a running state, e.g. "creating", "retrying". Counts go in `count`, not in `detail`:
   * a terminal draws them as a bar, and a log (no terminal) prints a line only when the state or detail changes.
   */
  progress(state: string, detail?: string, count?: {readonly current: number; readonly total: number}): void
  readonly signal: AbortSignal
}

/** What happened to one step. Steps never started because of Ctrl-C have no outcome. */
export interface StepOutcome {
  readonly resource: string
  readonly name: string
  readonly action: string
  readonly status: 'done' | 'failed' | 'interrupted' | 'skipped'
  readonly error: XpkError | null
  readonly seconds: number
}

export interface RunStepsOptions {
  readonly board: ProgressBoard | undefined
  readonly signal: AbortSignal
  readonly now: () => number
  /** Concurrency of each lane. */
  readonly lanes?: Readonly<Record<string, number>>
}

/**
 * Runs steps as soon as what they need and follow has finished, in the order given among those ready, within
 * their lane's concurrency. A failing step never stops unrelated ones; Ctrl-C (the signal) stops starting new
 * steps, and the running ones end through the signal. Never throws for a step's failure: outcomes tell, in the
 * order steps finished.
 * @throws XpkError (internal) when a step names an unknown step or the steps wait on each other in a cycle
 */
export async function runSteps(steps: readonly GraphStep[], options: RunStepsOptions): Promise<StepOutcome[]> {
  checkGraph(steps)
  const outcomes: StepOutcome[] = []
  const finished = new Map<string, StepOutcome['status']>()
  const running = new Map<string, number>()
  const pending = [...steps]
  const {board, signal} = options
  for (const s of steps) if (s.announce) board?.update(s.line, {label: s.line, state: 'waiting', status: 'waiting'})

  return new Promise((resolve) => {
    let inFlight = 0
    const pump = (): void => {
      for (let i = 0; i < pending.length && !signal.aborted;) {
        const step = pending[i]
        const blocker = step.needs?.find((n) => finished.has(n.id) && finished.get(n.id) !== 'done')
        if (blocker) {
          pending.splice(i, 1)
          skip(step, blocker.because)
          // A skip can settle steps passed over earlier in this sweep: look again from the start.
          i = 0
          continue
        }
        const waiting = [...(step.needs ?? []).map((n) => n.id), ...(step.after ?? [])].some((id) => !finished.has(id))
        const laneFull = step.lane !== undefined && (running.get(step.lane) ?? 0) >= (options.lanes?.[step.lane] ?? 1)
        if (waiting || laneFull) {
          i++
          continue
        }
        pending.splice(i, 1)
        start(step)
      }
      if (inFlight === 0) resolve(outcomes)
    }
    const skip = (step: GraphStep, why: string): void => {
      finished.set(step.id, 'skipped')
      if (step.prepares !== undefined) return
      const outcome: StepOutcome = {
        resource: step.resource,
        name: step.name,
        action: step.action,
        status: 'skipped',
        error: new XpkError('failed', `Skipped ${step.name}: ${why}.`),
        seconds: 0,
      }
      outcomes.push(outcome)
      board?.update(step.line, {label: step.line, state: 'skipped', status: 'failed', detail: why})
    }
    const start = (step: GraphStep): void => {
      inFlight++
      if (step.lane !== undefined) running.set(step.lane, (running.get(step.lane) ?? 0) + 1)
      void track(step, options).then((outcome) => {
        inFlight--
        if (step.lane !== undefined) running.set(step.lane, (running.get(step.lane) ?? 1) - 1)
        outcomes.push(outcome)
        finished.set(step.id, outcome.status)
        pump()
      })
    }
    pump()
  })
}

/**
 * The graph step that applies one step of a plan (its action, resource and name, as the plan shows it): `id` must
 * be unique; `needs` lists ids of steps that must succeed first (ids not in the graph are left out, so a plan
 * without that step needs nothing of it).
 */
export function planStep(
  step: {readonly action: string; readonly resource: string; readonly name: string},
  id: string,
  run: (context: StepContext) => Promise<void>,
  needs: readonly string[] = [],
  graph: readonly GraphStep[] = [],
): GraphStep {
  const present = needs.filter((need) => graph.some((g) => g.id === need))
  return {
    id,
    line: step.name,
    resource: step.resource,
    name: step.name,
    action: step.action,
    needs: present.map((need) => ({id: need, because: `${need} did not succeed`})),
    run,
  }
}

/**
 * Runs the steps ({@link runSteps}) of a plan whose steps all must succeed: throws the first step's failure (or its
 * interruption), and the signal's reason when Ctrl-C came between steps.
 */
export async function runStepsOrThrow(steps: readonly GraphStep[], options: RunStepsOptions): Promise<StepOutcome[]> {
  const outcomes = await runSteps(steps, options)
  const failed = outcomes.find((o) => o.status === 'failed' || o.status === 'interrupted')
  if (failed?.error) throw failed.error
  options.signal.throwIfAborted()
  return outcomes
}

/** Runs one step, keeping its progress line current. Never throws. */
async function track(step: GraphStep, options: RunStepsOptions): Promise<StepOutcome> {
  const {board, signal, now} = options
  const started = now()
  const seconds = () => Math.round((now() - started) / 100) / 10
  const context: StepContext = {
    progress: (state, detail, count) =>
      board?.update(step.line, {label: step.line, state, status: 'running', detail, ...count}),
    signal,
  }
  const base = {resource: step.resource, name: step.name, action: step.action}
  try {
    if (signal.aborted) throw signal.reason
    await step.run(context)
    board?.update(step.line, {label: step.line, state: doneWord(step.action), status: 'done'})
    return {...base, status: 'done', error: null, seconds: seconds()}
  } catch (error) {
    const interrupted = signal.aborted
    const typed =
      error instanceof XpkError
        ? error
        : new XpkError('internal', `Unexpected error: ${(error as Error).message}`, {cause: error})
    board?.update(step.line, {
      label: step.line,
      state: interrupted ? 'interrupted' : 'failed',
      status: 'failed',
      detail: interrupted ? undefined : typed.message,
    })
    return {...base, status: interrupted ? 'interrupted' : 'failed', error: typed, seconds: seconds()}
  }
}

function checkGraph(steps: readonly GraphStep[]): void {
  const ids = new Set<string>()
  for (const s of steps) {
    if (ids.has(s.id)) throw new XpkError('internal', `Two plan steps share the id ${s.id}.`)
    ids.add(s.id)
  }
  const edges = new Map(steps.map((s) => [s.id, [...(s.needs ?? []).map((n) => n.id), ...(s.after ?? [])]]))
  for (const [id, deps] of edges) {
    const unknown = deps.find((d) => !ids.has(d))
    if (unknown) throw new XpkError('internal', `Plan step ${id} waits for ${unknown}, which is not in the plan.`)
  }
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (id: string, path: string[]): void => {
    if (state.get(id) === 'done') return
    if (state.get(id) === 'visiting') {
      throw new XpkError('internal', `Plan steps wait for each other: ${[...path, id].join(' -> ')}.`)
    }
    state.set(id, 'visiting')
    for (const d of edges.get(id) ?? []) visit(d, [...path, id])
    state.set(id, 'done')
  }
  for (const id of ids) visit(id, [])
}

function doneWord(action: string): string {
  return (
    {
      create: 'created',
      delete: 'deleted',
      wait: 'ready',
      none: 'ready',
      apply: 'applied',
      update: 'updated',
      install: 'installed',
      upgrade: 'upgraded',
      resize: 'resized',
      repair: 'repaired',
      connect: 'connected',
    }[action] ?? 'done'
  )
}
