import {
  isGpuNetworkStep,
  type ClusterUpdateStep,
  type GpuNetworkStep,
  type NodePoolStep,
  type NodePoolUpdateStep,
  type PlacementPolicyStep,
  type Plan,
} from '../core/cluster/plan.js'
import {describeClusterUpdate} from '../core/cluster/render-plan.js'
import type {
  ClusterSpec,
  ClusterUpdate,
  NodePoolSpec,
  NodePoolUpdate,
  WorkloadPolicySpec,
} from '../core/cluster/spec.js'
import {clusterHas} from '../core/cluster/updates.js'
import {XpkError} from '../core/errors.js'
import type {Timing} from '../core/timing.js'
import type {Console, ProgressBoard} from '../ports/console.js'
import type {ComputeClient} from '../ports/compute.js'
import type {ClusterRef, GkeClient, GkeOperation, ObservedCluster, ObservedNodePool} from '../ports/gke.js'
import {pollUntil, withRetries, withRetriesIdempotent, type Clock, type RetryOptions} from './retry.js'
import {OperationWatcher} from './operation-watcher.js'
import {runSteps, type GraphStep, type StepOutcome} from './step-graph.js'
import {createWorkloadPolicy} from './workload-policy.js'
import {applyGpuNetworkStep} from './gpu-networks.js'

/** How the apply runs. */
export interface ApplyOptions {
  /** Node-pool operations in flight at once. */
  readonly concurrency: number
  /**
   * Polling of long-running operations (one ListOperations call per tick watches every operation in flight) and
   * retries of calls that failed transiently: the command's timing (src/core/timing.ts).
   */
  readonly timing: Pick<Timing, 'operations' | 'retry'>
  readonly signal: AbortSignal
  /**
   * Steps that run inside the cluster once it is ready (JobSet, Kueue, their configuration; a storage's objects):
   * each also needs the cluster step and follows the cluster updates, and they run beside the node-pool operations.
   */
  readonly inCluster?: readonly GraphStep[]
  /**
   * Called when the plan's CreateCluster finds the cluster already there, with the cluster as GKE reports it then:
   * throws unless the cluster is this run's (the cluster lock it was created with; an earlier attempt's answer was
   * lost). Without it, an existing cluster counts as made by an earlier attempt or run.
   */
  readonly claimCluster?: (found: ObservedCluster | undefined) => void
}

export interface ApplyDeps extends Clock {
  readonly gke: GkeClient
  /**
   * Connects to Compute Engine: only a plan that makes a workload placement policy needs it (`cluster create` for
   * some types; a `cluster delete` plan never does).
   */
  readonly compute?: () => Promise<ComputeClient>
  readonly console: Console
}

export type {StepOutcome} from './step-graph.js'

export interface ApplyResult {
  readonly outcomes: readonly StepOutcome[]
  /** Node pools this run had to create (create and recreate steps), and how many it did. */
  readonly poolsWanted: number
  readonly poolsCreated: number
  /** Of those, pools whose first create request found them made already (by a concurrent or an earlier run). */
  readonly poolsFound: number
  readonly interrupted: boolean
  /** Whether any create, delete or update request reached GKE. */
  readonly sentChanges: boolean
}

/**
 * Applies a cluster plan: the cluster first, then every deletion (including the delete half of recreates) while
 * the workload placement policy is made, then every creation, each phase running up to `concurrency` node-pool
 * operations at once. Transient failures
 * are retried with jittered backoff; a failing pool does not stop the others. Idempotent by construction: a
 * create that finds the pool already there, or a delete that finds it gone, counts as done.
 */
/** The lane of node-pool operations, limited to {@link ApplyOptions.concurrency}. */
const POOL_LANE = 'gke-node-pools'

/**
 * The ids of the node-pool steps {@link applyClusterPlan} makes of `plan` (creations, deletions, waits): what
 * in-cluster steps that must follow every node-pool step name as `after`.
 */
export function nodePoolStepIds(plan: Plan): string[] {
  const pools = plan.steps.filter((s): s is NodePoolStep => s.resource === 'nodePool' && s.managed)
  return [
    ...pools.filter((p) => p.action === 'delete' || p.action === 'recreate').map((p) => `delete:${p.name}`),
    ...pools.filter((p) => p.action === 'create' || p.action === 'recreate').map((p) => `create:${p.name}`),
    ...pools.filter((p) => p.action === 'none' && p.wait).map((p) => `wait:${p.name}`),
    ...poolUpdates(plan).map((p) => `update:${p.name}`),
  ]
}

function clusterUpdates(plan: Plan): ClusterUpdateStep[] {
  return plan.steps.filter((s): s is ClusterUpdateStep => s.resource === 'clusterUpdate' && s.action === 'update')
}

function poolUpdates(plan: Plan): NodePoolUpdateStep[] {
  return plan.steps.filter((s): s is NodePoolUpdateStep => s.resource === 'nodePoolUpdate' && s.action === 'update')
}

export async function applyClusterPlan(plan: Plan, deps: ApplyDeps, options: ApplyOptions): Promise<ApplyResult> {
  const runner = new Runner(plan, deps, options)
  return runner.run()
}

class Runner {
  private readonly ref: ClusterRef
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
        poll: options.timing.operations,
        onWatchFailure: (error) =>
          deps.console.debug(`Watching GKE operations failed (${error.message}); checking resources instead.`),
      },
    )
  }

  async run(): Promise<ApplyResult> {
    const poolSteps = this.plan.steps.filter((s): s is NodePoolStep => s.resource === 'nodePool' && s.managed)
    const wanted = poolSteps.filter((s) => s.action === 'create' || s.action === 'recreate').length
    this.board = this.deps.console.progress(`Applying the plan to cluster ${this.plan.cluster}:`)
    try {
      const outcomes = await runSteps(this.graph(poolSteps), {
        board: this.board,
        signal: this.options.signal,
        now: this.deps.now,
        lanes: {[POOL_LANE]: this.options.concurrency},
      })
      return this.result(outcomes, wanted)
    } finally {
      this.board.close()
    }
  }

  /**
   * The plan as steps: the cluster first; then its updates (Workload Identity, addons), one at a time; then every
   * deletion (the delete half of a recreate too) while the workload placement policy is made; then every creation,
   * once all deletions have freed their quota, and the pools' own updates. A pool to be recreated with the policy is
   * deleted only once the policy exists, so a policy failure does not also cost the old pool. At most `concurrency`
   * node-pool operations run at once.
   */
  private graph(poolSteps: readonly NodePoolStep[]): GraphStep[] {
    const clusterStep = this.plan.steps.find((s) => s.resource === 'cluster')
    const networkSteps = this.plan.steps.filter(isGpuNetworkStep).filter((s) => s.action !== 'none')
    if (clusterStep?.action === 'delete' || networkSteps.some((s) => s.action === 'delete')) {
      return [
        ...(clusterStep?.action === 'delete'
          ? [this.step('cluster', clusterStep.name, 'delete', () => this.deleteCluster(clusterStep.wait))]
          : []),
        ...this.networkDeletions(networkSteps, clusterStep?.action === 'delete'),
      ]
    }
    const steps: GraphStep[] = []
    const needsCluster: {id: string; because: string}[] = []
    if (clusterStep && (clusterStep.action === 'create' || clusterStep.wait)) {
      steps.push(
        this.step('cluster', clusterStep.name, clusterStep.action, () =>
          this.ensureCluster(clusterStep.action === 'create' ? clusterStep.spec : null),
        ),
      )
      needsCluster.push({id: 'cluster', because: 'the cluster is not ready'})
    }
    // GKE runs one cluster update at a time and refuses it beside node-pool operations (and those beside it): the
    // updates go one after the other, before any node-pool operation starts. Pools that ask for the GKE metadata
    // server need Workload Identity on the cluster first.
    const updates: string[] = []
    let identity: {id: string; because: string}[] = []
    for (const u of clusterUpdates(this.plan)) {
      const id = `update:${u.spec.kind}`
      const line = describeClusterUpdate(u.spec)
      steps.push({
        ...this.step('clusterUpdate', line, 'update', () => this.updateCluster(line, u.spec), id),
        announce: true,
        needs: needsCluster,
        after: [...updates],
      })
      updates.push(id)
      if (u.spec.kind === 'workloadIdentity') {
        identity = [{id, because: 'Workload Identity could not be enabled on the cluster'}]
      }
    }
    const needsIdentity = (spec: NodePoolSpec | null) => (spec?.workloadMetadataMode === 'GKE_METADATA' ? identity : [])
    const policyStep = this.plan.steps.find(
      (s): s is PlacementPolicyStep => s.resource === 'placementPolicy' && s.action === 'create',
    )
    if (policyStep) {
      const spec = policyStep.spec as WorkloadPolicySpec
      steps.push({
        ...this.step('placementPolicy', policyStep.name, 'create', () => this.createPolicy(spec)),
        needs: needsCluster,
      })
    }
    // The GPU networks need nothing of the cluster: they are made while it is created. A subnetwork or firewall rule
    // follows its network; pools that attach the networks follow all of them.
    const networkIds: {id: string; because: string}[] = []
    for (const s of networkSteps) {
      const id = `${s.resource}:${s.name}`
      const network = s.resource === 'network' ? undefined : (s.spec as {network: string} | null)?.network
      const parent = networkSteps.some((n) => n.resource === 'network' && n.name === network)
      steps.push({
        ...this.step(s.resource, s.name, 'create', () => this.applyNetworkStep(s), id),
        announce: true,
        needs: parent ? [{id: `network:${network}`, because: `network ${network} could not be created`}] : [],
      })
      networkIds.push({
        id,
        because: `its GPU ${s.resource === 'firewall' ? 'firewall rule' : s.resource} ${s.name} could not be created`,
      })
    }
    const needsNetworks = (spec: NodePoolSpec | null) => (spec?.additionalNodeNetworks?.length ? networkIds : [])
    const usesPolicy = (s: NodePoolStep) =>
      policyStep !== undefined && s.spec?.placementPolicy?.type === 'workload-policy'
    const deletions: string[] = []
    for (const s of poolSteps.filter((p) => p.action === 'delete' || p.action === 'recreate')) {
      const recreate = s.action === 'recreate'
      const id = `delete:${s.name}`
      deletions.push(id)
      steps.push({
        ...this.step('nodePool', s.name, 'delete', () => this.deletePool(s.name, recreate), id),
        lane: POOL_LANE,
        announce: !recreate,
        prepares: recreate ? `create:${s.name}` : undefined,
        needs: [
          ...needsCluster,
          ...(recreate && usesPolicy(s)
            ? [{id: 'placementPolicy', because: 'kept as it is: the placement policy could not be created'}]
            : []),
          ...(recreate ? needsIdentity(s.spec) : []),
        ],
        after: updates,
      })
    }
    for (const s of poolSteps.filter((p) => p.action === 'create' || p.action === 'recreate')) {
      steps.push({
        ...this.step('nodePool', s.name, 'create', () => this.createPool(s), `create:${s.name}`),
        lane: POOL_LANE,
        announce: true,
        needs: [
          ...needsCluster,
          ...(usesPolicy(s)
            ? [
                {
                  id: 'placementPolicy',
                  because:
                    s.action === 'recreate'
                      ? 'kept as it is: the placement policy could not be created'
                      : 'its placement policy could not be created',
                },
              ]
            : []),
          ...(s.action === 'recreate' ? [{id: `delete:${s.name}`, because: 'its deletion failed'}] : []),
          ...needsIdentity(s.spec),
          ...needsNetworks(s.spec),
        ],
        after: [...deletions, ...updates],
      })
    }
    const waits = new Set<string>()
    for (const s of poolSteps.filter((p) => p.action === 'none' && p.wait)) {
      waits.add(s.name)
      steps.push({
        ...this.step(
          'nodePool',
          s.name,
          'wait',
          async () => {
            await this.awaitPool(s.name)
          },
          `wait:${s.name}`,
        ),
        lane: POOL_LANE,
        announce: true,
        needs: needsCluster,
        after: [...deletions, ...updates],
      })
    }
    for (const u of poolUpdates(this.plan)) {
      steps.push({
        ...this.step('nodePoolUpdate', u.name, 'update', () => this.updatePool(u.name, u.spec), `update:${u.name}`),
        lane: POOL_LANE,
        announce: true,
        needs: [...needsCluster, ...identity],
        after: [...updates, ...(waits.has(u.name) ? [`wait:${u.name}`] : [])],
      })
    }
    for (const s of this.options.inCluster ?? []) {
      steps.push({...s, needs: [...needsCluster, ...(s.needs ?? [])], after: [...(s.after ?? []), ...updates]})
    }
    return steps
  }

  /**
   * `cluster delete`'s GPU network steps: firewall rules and subnetworks once the cluster is gone (its nodes used
   * them), then each network once nothing on it is left (Compute refuses to delete a network in use).
   */
  private networkDeletions(networkSteps: readonly GpuNetworkStep[], afterCluster: boolean): GraphStep[] {
    const needsCluster = afterCluster ? [{id: 'cluster', because: 'the cluster could not be deleted'}] : []
    const users = networkSteps.filter((s) => s.resource !== 'network')
    const userIds = users.map((s) => ({
      id: `${s.resource}:${s.name}`,
      because: `${s.resource === 'firewall' ? 'firewall rule' : 'subnetwork'} ${s.name} could not be deleted`,
    }))
    return [
      ...users.map((s) => ({
        ...this.step(s.resource, s.name, 'delete', () => this.applyNetworkStep(s), `${s.resource}:${s.name}`),
        announce: true,
        needs: needsCluster,
      })),
      ...networkSteps
        .filter((s) => s.resource === 'network')
        .map((s) => ({
          ...this.step(s.resource, s.name, 'delete', () => this.applyNetworkStep(s), `network:${s.name}`),
          announce: true,
          needs: [...needsCluster, ...userIds],
        })),
    ]
  }

  /** Creates or deletes a GPU network, subnetwork or firewall rule and waits for its operation. */
  private async applyNetworkStep(step: GpuNetworkStep): Promise<void> {
    this.progress(step.name, step.action === 'create' ? 'creating' : 'deleting')
    if (!this.deps.compute) {
      throw new XpkError(
        'failed',
        `${step.resource} ${step.name} cannot be changed: Compute Engine is not reachable here.`,
      )
    }
    const compute = await this.deps.compute()
    this.sentChanges = true
    await applyGpuNetworkStep(compute, this.plan.project, step, {
      ...this.retryOptions(step.name),
      poll: this.options.timing.operations,
    })
  }

  private step(resource: string, name: string, action: string, run: () => Promise<void>, id = resource): GraphStep {
    return {id, line: name, resource, name, action, run}
  }

  private result(outcomes: readonly StepOutcome[], poolsWanted: number): ApplyResult {
    const created = outcomes.filter((o) => o.resource === 'nodePool' && o.action === 'create' && o.status === 'done')
    return {
      outcomes,
      poolsWanted,
      poolsCreated: created.filter((o) => !this.found.has(o.name)).length,
      poolsFound: created.filter((o) => this.found.has(o.name)).length,
      interrupted: this.options.signal.aborted,
      sentChanges: this.sentChanges,
    }
  }

  private progress(name: string, state: string, detail?: string): void {
    this.board?.update(name, {label: name, state, status: 'running', detail})
  }

  /** Creates the cluster when `create` (the plan step's spec) is given, then waits until it is RUNNING. */
  private async ensureCluster(create: ClusterSpec | null): Promise<void> {
    const name = this.plan.cluster
    const current = await this.retrying(name, () => this.deps.gke.getCluster(this.ref))
    if (current?.status === 'STOPPING') {
      this.progress(name, 'waiting for deletion')
      await this.until(name, async () => (await this.deps.gke.getCluster(this.ref)) === undefined)
    }
    // Planned as new, but there when the apply starts: made since the plan was read (whose is for claimCluster).
    if (create !== null && current !== undefined && current.status !== 'STOPPING') this.options.claimCluster?.(current)
    if (create !== null && (current === undefined || current.status === 'STOPPING')) {
      this.progress(name, 'creating')
      this.sentChanges = true
      const operation = await this.retrying(name, () => this.deps.gke.createCluster(create), {
        alreadyDone: 'ALREADY_EXISTS',
      })
      if (operation) await this.waitFor(operation)
      else this.options.claimCluster?.(await this.retrying(name, () => this.deps.gke.getCluster(this.ref)))
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
    if (!this.deps.compute) {
      throw new XpkError('failed', `Workload policy ${spec.name} cannot be made: Compute Engine is not reachable here.`)
    }
    const compute = await this.deps.compute()
    this.sentChanges = true
    await createWorkloadPolicy(compute, spec, {...this.retryOptions(spec.name), poll: this.options.timing.operations})
  }

  /**
   * Deletes the cluster (or, when GKE is already at it, only waits) until GKE no longer has it. A cluster that
   * stops being deleted without going away (GKE gave up: RUNNING, ERROR, DEGRADED) is a failure; one PROVISIONING is
   * a new cluster of that name, made by another run once this one was gone.
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
    // A cluster being provisioned is not the one deleted (GKE never turns a deletion back into a creation): another
    // run made one of the same name once this one was gone (cluster create waits for a deletion it finds under way).
    if (status === 'PROVISIONING') this.progress(name, 'deleted', 'a new cluster of this name is being created')
    else if (status !== 'GONE') {
      throw new XpkError('failed', `Cluster ${name} is ${status}, not deleted.`, {
        hints: ['Run `xpk cluster delete` again, or look at the cluster in the Cloud Console.'],
      })
    }
  }

  /**
   * Sends one cluster update and waits until GKE has applied it. Also when the operation cannot be watched: the
   * cluster leaves RECONCILING, and must then show the change.
   */
  private async updateCluster(line: string, update: ClusterUpdate): Promise<void> {
    this.progress(line, 'updating')
    this.sentChanges = true
    const operation = await this.retrying(line, () => this.deps.gke.updateCluster(this.ref, update))
    if (operation) await this.waitFor(operation)
    let cluster: ObservedCluster | undefined
    await this.until(line, async () => {
      cluster = await this.deps.gke.getCluster(this.ref)
      return cluster?.status !== 'RECONCILING'
    })
    if (cluster === undefined || !clusterHas(cluster, update)) {
      throw new XpkError(
        'failed',
        `Cluster ${this.plan.cluster} is ${cluster?.status ?? 'gone'} without ${line} after the update.`,
        {hints: ['`xpk cluster describe` shows its state; the GKE console shows the reason.']},
      )
    }
  }

  /** Switches a pool in place (GKE recreates its nodes) and waits until it is RUNNING with the change. */
  private async updatePool(name: string, update: NodePoolUpdate): Promise<void> {
    this.progress(name, 'updating')
    this.sentChanges = true
    const operation = await this.retrying(name, () => this.deps.gke.updateNodePool(this.ref, name, update))
    if (operation) await this.waitFor(operation)
    const pool = await this.awaitPool(name)
    if (pool.workloadMetadataMode !== update.workloadMetadataMode) {
      throw new XpkError(
        'failed',
        `Node pool ${name} has workload metadata ${pool.workloadMetadataMode ?? 'unset'}, not ${update.workloadMetadataMode}, after the update.`,
      )
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
  private async awaitPool(name: string): Promise<ObservedNodePool> {
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
    return pool
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
    await pollUntil(check, {...this.retryOptions(name), poll: this.options.timing.operations})
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
      policy: this.options.timing.retry,
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
