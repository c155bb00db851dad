import {type NodePoolStep, type PlacementPolicyStep, type Plan, type PlanStep} from '../core/cluster/plan.js'
import type {ClusterSpec, NodePoolSpec, WorkloadPolicySpec} from '../core/cluster/spec.js'
import {XpkError} from '../core/errors.js'
import {DEFAULT_APPLY_CONCURRENCY, type Backoff} from '../core/retry.js'
import type {Console, ProgressBoard} from '../ports/console.js'
import type {ComputeClient} from '../ports/compute.js'
import type {ClusterRef, GkeClient, GkeOperation, ObservedNodePool} from '../ports/gke.js'
import {
  DEFAULT_RETRY_POLICY,
  pollUntil,
  withRetries,
  withRetriesIdempotent,
  type RetryOptions,
  type RetryPolicy,
} from './retry.js'
import {OperationWatcher} from './operation-watcher.js'
import {createWorkloadPolicy} from './workload-policy.js'

/** Tuning of the apply; the defaults suit real GKE, tests shorten the waits. */
export interface ApplyOptions {
  /** Node-pool operations in flight at once. */
  readonly concurrency: number
  /**
   * Polling of long-running operations: one ListOperations call per tick watches every operation in flight. Ticks
   * come every `initialMs` for the first `fastForMs` (quick operations finish with little lag), then back off.
   */
  readonly poll: Backoff & {readonly fastForMs: number}
  /** Retries of calls that failed transiently: the one policy of src/executor/retry.ts. */
  readonly retry: RetryPolicy
  readonly signal: AbortSignal
}

export const DEFAULT_APPLY_OPTIONS: Omit<ApplyOptions, 'signal'> = {
  concurrency: DEFAULT_APPLY_CONCURRENCY,
  poll: {initialMs: 250, maxMs: 10_000, factor: 1.5, fastForMs: 30_000},
  retry: DEFAULT_RETRY_POLICY,
}

export interface ApplyDeps {
  readonly gke: GkeClient
  /** Connects to Compute Engine; called only when the plan creates a workload placement policy. */
  readonly compute: () => Promise<ComputeClient>
  readonly console: Console
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts. */
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>
  readonly random: () => number
  readonly now: () => number
}

/** What happened to one step. */
export interface StepOutcome {
  readonly resource: PlanStep['resource']
  readonly name: string
  readonly action: string
  readonly status: 'done' | 'failed' | 'interrupted' | 'skipped'
  readonly error: XpkError | null
  readonly seconds: number
}

export interface ApplyResult {
  readonly outcomes: readonly StepOutcome[]
  /** Node pools this run had to create (create and recreate steps), and how many it did. */
  readonly poolsWanted: number
  readonly poolsCreated: number
  /** Of those, pools whose first create request found them made already (by a concurrent or an earlier run). */
  readonly poolsFound: number
  readonly interrupted: boolean
  /** Whether any create or delete request reached GKE. */
  readonly sentChanges: boolean
}

/**
 * Applies a cluster plan: the cluster first, then every deletion (including the delete half of recreates) while
 * the workload placement policy is made, then every creation, each phase running up to `concurrency` node-pool
 * operations at once. Transient failures
 * are retried with jittered backoff; a failing pool does not stop the others. Idempotent by construction: a
 * create that finds the pool already there, or a delete that finds it gone, counts as done.
 */
export async function applyClusterPlan(plan: Plan, deps: ApplyDeps, options: ApplyOptions): Promise<ApplyResult> {
  const runner = new Runner(plan, deps, options)
  return runner.run()
}

class Runner {
  private readonly ref: ClusterRef
  private readonly outcomes: StepOutcome[] = []
  private board: ProgressBoard | undefined
  /** Operations being waited for, by full name. */
  /** Every GKE operation in flight, watched with one ListOperations call per tick. */
  private readonly watcher: OperationWatcher<GkeOperation>
  private sentChanges = false
  /** Pools a create found already there on its first request. */
  private readonly found = new Set<string>()

  constructor(
    private readonly plan: Plan,
    private readonly deps: ApplyDeps,
    private readonly options: ApplyOptions,
  ) {
    this.ref = {project: plan.project, location: plan.location, name: plan.cluster}
    const {project, location} = plan
    this.watcher = new OperationWatcher(
      {
        list: () => deps.gke.listOperations(project, location),
        get: (name) => deps.gke.getOperation(project, location, name),
        name: (op) => op.name,
        isDone: (op) => op.status === 'DONE',
      },
      {
        ...this.retryOptions(undefined),
        poll: options.poll,
        onWatchFailure: (error) =>
          deps.console.debug(`Watching GKE operations failed (${error.message}); checking resources instead.`),
      },
    )
  }

  async run(): Promise<ApplyResult> {
    const poolSteps = this.plan.steps.filter((s): s is NodePoolStep => s.resource === 'nodePool' && s.managed)
    const toCreate = poolSteps.filter((s) => s.action === 'create' || s.action === 'recreate')
    const toDelete = poolSteps.filter((s) => s.action === 'delete' || s.action === 'recreate')
    const toAwait = poolSteps.filter((s) => s.action === 'none' && s.wait)
    const clusterStep = this.plan.steps.find((s) => s.resource === 'cluster')
    const policyStep = this.plan.steps.find(
      (s): s is PlacementPolicyStep => s.resource === 'placementPolicy' && s.action === 'create',
    )
    this.board = this.deps.console.progress(`Applying the plan to cluster ${this.plan.cluster}:`)
    try {
      if (clusterStep?.action === 'delete') {
        await this.track('cluster', clusterStep.name, 'delete', () => this.deleteCluster(clusterStep.wait))
        return this.result(0)
      }
      if (clusterStep && (clusterStep.action === 'create' || clusterStep.wait)) {
        const ok = await this.track('cluster', clusterStep.name, clusterStep.action, () =>
          this.ensureCluster(clusterStep.action === 'create' ? clusterStep.spec : null),
        )
        if (!ok) {
          for (const s of poolSteps.filter((p) => p.action !== 'none')) this.skip(s, 'the cluster is not ready')
          return this.result(toCreate.length)
        }
      }
      for (const s of [...toCreate, ...toAwait])
        this.board.update(s.name, {label: s.name, state: 'waiting', status: 'waiting'})
      for (const s of toDelete.filter((d) => d.action === 'delete')) {
        this.board.update(s.name, {label: s.name, state: 'waiting', status: 'waiting'})
      }

      const deleted = new Set<string>()
      const deleteAll = (steps: readonly NodePoolStep[]) =>
        this.eachConcurrently(steps, async (step) => {
          const ok = await this.track('nodePool', step.name, 'delete', () =>
            this.deletePool(step.name, step.action === 'recreate'),
          )
          if (ok) deleted.add(step.name)
        })
      const needsPolicy = (s: NodePoolStep) => s.spec?.placementPolicy?.type === 'workload-policy'
      let policyReady = true
      if (policyStep) {
        // The policy takes seconds: make it alongside plain deletions, but delete a pool that is to be recreated
        // with it only once it exists, so a policy failure does not also cost the old pool.
        const spec = policyStep.spec as WorkloadPolicySpec
        ;[policyReady] = await Promise.all([
          this.track('placementPolicy', policyStep.name, 'create', () => this.createPolicy(spec)),
          deleteAll(toDelete.filter((s) => s.action === 'delete')),
        ])
        await deleteAll(toDelete.filter((s) => s.action === 'recreate' && (policyReady || !needsPolicy(s))))
      } else {
        await deleteAll(toDelete)
      }
      const creatable: NodePoolStep[] = []
      for (const s of toCreate) {
        if (!policyReady && needsPolicy(s)) {
          this.skip(
            s,
            s.action === 'recreate'
              ? 'kept as it is: the placement policy could not be created'
              : 'its placement policy could not be created',
          )
        } else if (s.action === 'recreate' && !deleted.has(s.name)) this.skip(s, 'its deletion failed')
        else creatable.push(s)
      }
      await this.eachConcurrently([...creatable, ...toAwait], (step) =>
        this.track('nodePool', step.name, step.action === 'none' ? 'wait' : 'create', () =>
          step.action === 'none' ? this.awaitPool(step.name) : this.createPool(step),
        ).then(() => undefined),
      )
      return this.result(toCreate.length)
    } finally {
      this.board.close()
    }
  }

  private result(poolsWanted: number): ApplyResult {
    const created = this.outcomes.filter(
      (o) => o.resource === 'nodePool' && o.action === 'create' && o.status === 'done',
    )
    return {
      outcomes: this.outcomes,
      poolsWanted,
      poolsCreated: created.filter((o) => !this.found.has(o.name)).length,
      poolsFound: created.filter((o) => this.found.has(o.name)).length,
      interrupted: this.options.signal.aborted,
      sentChanges: this.sentChanges,
    }
  }

  private skip(step: NodePoolStep, why: string): void {
    this.outcomes.push({
      resource: 'nodePool',
      name: step.name,
      action: step.action === 'recreate' ? 'create' : step.action,
      status: 'skipped',
      error: new XpkError('failed', `Skipped ${step.name}: ${why}.`),
      seconds: 0,
    })
    this.board?.update(step.name, {label: step.name, state: 'skipped', status: 'failed', detail: why})
  }

  /** Runs one step, records its outcome and keeps its progress line current. Never throws. */
  private async track(
    resource: PlanStep['resource'],
    name: string,
    action: string,
    work: () => Promise<void>,
  ): Promise<boolean> {
    const started = this.deps.now()
    const seconds = () => Math.round((this.deps.now() - started) / 100) / 10
    try {
      if (this.options.signal.aborted) throw this.options.signal.reason
      await work()
      this.outcomes.push({resource, name, action, status: 'done', error: null, seconds: seconds()})
      this.board?.update(name, {label: name, state: doneWord(action), status: 'done'})
      return true
    } catch (error) {
      const interrupted = this.options.signal.aborted
      const typed =
        error instanceof XpkError
          ? error
          : new XpkError('internal', `Unexpected error: ${(error as Error).message}`, {cause: error})
      this.outcomes.push({
        resource,
        name,
        action,
        status: interrupted ? 'interrupted' : 'failed',
        error: typed,
        seconds: seconds(),
      })
      this.board?.update(name, {
        label: name,
        state: interrupted ? 'interrupted' : 'failed',
        status: 'failed',
        detail: interrupted ? undefined : typed.message,
      })
      return false
    }
  }

  private progress(name: string, state: string, detail?: string): void {
    this.board?.update(name, {label: name, state, status: 'running', detail})
  }

  private async eachConcurrently<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
    let next = 0
    const worker = async () => {
      while (next < items.length && !this.options.signal.aborted) await work(items[next++])
    }
    await Promise.all(Array.from({length: Math.min(this.options.concurrency, items.length)}, worker))
  }

  /** Creates the cluster when `create` (the plan step's spec) is given, then waits until it is RUNNING. */
  private async ensureCluster(create: ClusterSpec | null): Promise<void> {
    const name = this.plan.cluster
    const current = await this.retrying(name, () => this.deps.gke.getCluster(this.ref))
    if (current?.status === 'STOPPING') {
      this.progress(name, 'waiting for deletion')
      await this.until(name, async () => (await this.deps.gke.getCluster(this.ref)) === undefined)
    }
    if (create !== null && (current === undefined || current.status === 'STOPPING')) {
      this.progress(name, 'creating')
      this.sentChanges = true
      const operation = await this.retrying(name, () => this.deps.gke.createCluster(create), {
        alreadyDone: 'ALREADY_EXISTS',
      })
      if (operation) await this.waitFor(operation)
    }
    this.progress(name, 'provisioning')
    let status = ''
    await this.until(name, async () => {
      const cluster = await this.deps.gke.getCluster(this.ref)
      status = cluster?.status ?? 'MISSING'
      return status !== 'PROVISIONING'
    })
    if (status !== 'RUNNING' && status !== 'RECONCILING') {
      throw new XpkError('failed', `Cluster ${name} is ${status} instead of RUNNING.`, {
        hints: ['`xpk cluster describe` shows its state; the GKE console shows the reason.'],
      })
    }
  }

  /** Creates the workload policy and waits until pools may name it (src/executor/workload-policy.ts). */
  private async createPolicy(spec: WorkloadPolicySpec): Promise<void> {
    this.progress(spec.name, 'creating')
    const compute = await this.deps.compute()
    this.sentChanges = true
    await createWorkloadPolicy(compute, spec, {...this.retryOptions(spec.name), poll: this.options.poll})
  }

  /**
   * Deletes the cluster (or, when GKE is already at it, only waits) until GKE no longer has it. A cluster that
   * stops being deleted without going away (GKE gave up) is a failure.
   */
  private async deleteCluster(alreadyDeleting: boolean): Promise<void> {
    const name = this.plan.cluster
    this.progress(name, alreadyDeleting ? 'waiting for deletion' : 'deleting')
    if (!alreadyDeleting) {
      this.sentChanges = true
      const operation = await this.retrying(name, () => this.deps.gke.deleteCluster(this.ref), {
        alreadyDone: 'NOT_FOUND',
      })
      if (operation) await this.waitFor(operation)
    }
    let status = 'GONE'
    await this.until(name, async () => {
      const cluster = await this.deps.gke.getCluster(this.ref)
      status = cluster?.status ?? 'GONE'
      return status !== 'STOPPING'
    })
    if (status !== 'GONE') {
      throw new XpkError('failed', `Cluster ${name} is ${status}, not deleted.`, {
        hints: ['Run `xpk cluster delete` again, or look at the cluster in the Cloud Console.'],
      })
    }
  }

  private async deletePool(name: string, forRecreate: boolean): Promise<void> {
    this.progress(name, forRecreate ? 'deleting (to recreate)' : 'deleting')
    this.sentChanges = true
    const operation = await this.retrying(name, () => this.deps.gke.deleteNodePool(this.ref, name), {
      alreadyDone: 'NOT_FOUND',
    })
    if (operation) await this.waitFor(operation)
    await this.until(name, async () => (await this.deps.gke.getNodePool(this.ref, name)) === undefined)
  }

  private async createPool(step: NodePoolStep): Promise<void> {
    const spec = step.spec as NodePoolSpec
    const name = spec.name
    if (step.afterDeletion) {
      this.progress(name, 'waiting for the old pool to be deleted')
      await this.until(name, async () => (await this.deps.gke.getNodePool(this.ref, name)) === undefined)
    }
    this.progress(name, 'creating')
    this.sentChanges = true
    let attempts = 0
    const create = () => (attempts++, this.deps.gke.createNodePool(this.ref, spec))
    const operation = await this.retrying(name, create, {alreadyDone: 'ALREADY_EXISTS'})
    // ALREADY_EXISTS on a retry is most likely our own lost response; on the first request, someone else's work.
    if (operation === undefined && attempts === 1) this.found.add(name)
    if (operation) await this.waitFor(operation)
    await this.awaitPool(name)
  }

  /** Waits until a pool leaves PROVISIONING/RECONCILING; fails unless it is then RUNNING. */
  private async awaitPool(name: string): Promise<void> {
    let pool: ObservedNodePool | undefined
    await this.until(name, async () => {
      pool = await this.deps.gke.getNodePool(this.ref, name)
      return pool === undefined || (pool.status !== 'PROVISIONING' && pool.status !== 'RECONCILING')
    })
    if (pool === undefined) throw new XpkError('failed', `Node pool ${name} disappeared while being created.`)
    if (pool.status !== 'RUNNING' && pool.status !== 'RUNNING_WITH_ERROR') {
      throw new XpkError(
        'failed',
        `Node pool ${name} is ${pool.status}${pool.statusMessage ? `: ${pool.statusMessage}` : ''}`,
        {
          hints: ['Re-run `xpk cluster create` with the same flags to recreate it.'],
        },
      )
    }
  }

  /**
   * Waits until an operation is DONE and throws its error, if any. When operations cannot be watched (a custom
   * IAM role without container.operations.list, say), it returns without a verdict: every caller then checks the
   * resource itself (the pool's or cluster's status), so one failing watch call never fails every step.
   */
  private async waitFor(operation: GkeOperation): Promise<void> {
    const done = await this.watcher.wait(operation)
    if (done?.error) throw done.error
  }

  /** Polls `check` with the poll backoff until it returns true; each check goes through the retry policy. */
  private async until(name: string, check: () => Promise<boolean>): Promise<void> {
    await pollUntil(check, {...this.retryOptions(name), poll: this.options.poll})
  }

  /**
   * Calls the API through the retry policy. With `alreadyDone` (ALREADY_EXISTS for creates, NOT_FOUND for
   * deletes), a failure with that status means an earlier attempt or run got there: it resolves undefined.
   */
  private async retrying<T>(
    name: string | undefined,
    call: () => Promise<T>,
    options: {alreadyDone?: 'ALREADY_EXISTS' | 'NOT_FOUND'} = {},
  ): Promise<T | undefined> {
    const retry = this.retryOptions(name)
    return options.alreadyDone ? withRetriesIdempotent(call, options.alreadyDone, retry) : withRetries(call, retry)
  }

  private retryOptions(name: string | undefined): RetryOptions {
    return {
      policy: this.options.retry,
      clock: this.deps,
      signal: this.options.signal,
      onRetry:
        name === undefined
          ? undefined
          : (error, delay) =>
              this.progress(name, 'retrying', `${error.status}, again in ${(delay / 1000).toFixed(1)}s`),
    }
  }
}

function doneWord(action: string): string {
  return {create: 'created', delete: 'deleted', wait: 'ready', none: 'ready'}[action] ?? 'done'
}
