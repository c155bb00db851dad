import {resolveAccelerator} from '../core/catalog/lookup.js'
import {throwIfProblems, UsageError, XpkError} from '../core/errors.js'
import {tryParseImageReference} from '../core/image/naming.js'
import {cacheImageDaemonSet, cacheKeyProblem, DEFAULT_CACHE_KEY} from '../core/incluster/cache-image.js'
import {
  daemonSetProgress,
  describePulls,
  nodePull,
  withEventCauses,
  type NodePull,
} from '../core/incluster/cache-image-status.js'
import {applyWouldChange} from '../core/incluster/live-diff.js'
import {collect} from '../core/kube/list-pages.js'
import type {DaemonSet} from '../core/manifests/k8s-types.js'
import {toYaml} from '../core/manifests/to-yaml.js'
import {clusterCacheimageApplied, clusterCacheimageDryRun, clusterCacheimageNoNodes} from '../core/messages/cluster.js'
import {escapeInline} from '../core/text.js'
import type {Timing} from '../core/timing.js'
import {pollUntil, retrying, startTimeLimit, withRetries, type RetryOptions} from '../executor/retry.js'
import type {Console, ProgressBoard} from '../ports/console.js'
import type {KubeClient, KubeObject, KubeRef} from '../ports/kube.js'
import {reachCluster, targetProblems, type ClusterAccessDeps} from './workload-cluster.js'

/** How long every pod not ready must have been failing to pull before xpk stops waiting for the kubelet's retries. */
export const DEFAULT_PULL_FAILURE_GRACE_MS = 60_000

export interface CacheImageOptions {
  /** Where the cluster is, for GKE; not needed with {@link viaKubeconfig}. */
  readonly project?: string
  readonly zone?: string
  readonly cluster?: string
  /** `--tpu-type` / `--device-type`: the nodes to cache the image on. */
  readonly tpuType?: string
  readonly deviceType?: string
  readonly dockerImage: string
  /** @default DEFAULT_CACHE_KEY */
  readonly cacheKey?: string
  /** Show the DaemonSet and stop, without any network call. */
  readonly dryRun: boolean
  /** `--kubeconfig` / `--context` reach the cluster: GKE is not asked where it is. */
  readonly viaKubeconfig: boolean
  /** Retries, and the wait for every node to pull the image (timing.cacheImage). */
  readonly timing: Pick<Timing, 'retry' | 'cacheImage'>
  /** @default DEFAULT_PULL_FAILURE_GRACE_MS */
  readonly pullFailureGraceMs?: number
}

export interface CacheImageDeps extends ClusterAccessDeps {
  readonly console: Console
}

export interface CacheImageResult {
  readonly image: string
  readonly daemonSet: {readonly namespace: string; readonly name: string}
  /** What the apply did; `dry-run` when nothing was sent. */
  readonly change: 'create' | 'update' | 'none' | 'dry-run'
  /** Nodes of the accelerator's kind (the DaemonSet's desired count); null in a dry run. */
  readonly nodes: number | null
  /** Of those, nodes that have pulled the image; null in a dry run. */
  readonly pulled: number | null
  /** The DaemonSet applied (or, in a dry run, that would be). */
  readonly manifest: DaemonSet
}

/**
 * `xpk cluster cacheimage`: applies a DaemonSet that pulls the image on every node of the accelerator's kind
 * (server-side apply, so a changed image rolls out and an unchanged one sends nothing), waits until every node has
 * it with progress, and fails naming each node that could not pull it and why.
 * @throws UsageErrors for bad input, before any request; XpkError `failed` when some nodes could not pull the
 * image, `timeout` when the pulls did not finish in time
 */
export async function cacheImage(options: CacheImageOptions, deps: CacheImageDeps): Promise<CacheImageResult> {
  const manifest = checkOptions(options)
  const ref: KubeRef = {
    apiVersion: manifest.apiVersion,
    kind: manifest.kind,
    namespace: manifest.metadata.namespace,
    name: manifest.metadata.name,
  }
  const base = {image: options.dockerImage, daemonSet: {namespace: ref.namespace!, name: ref.name}, manifest}
  const {console} = deps
  if (options.dryRun) {
    console.result(() => toYaml(manifest))
    console.info(clusterCacheimageDryRun())
    return {...base, change: 'dry-run', nodes: null, pulled: null}
  }
  // The time limit bounds the whole command, finding the cluster and the first reads included, so a server that
  // never answers cannot hold it longer.
  const limit = startTimeLimit(
    deps.signal,
    options.timing.cacheImage.timeoutMs,
    deps,
    () =>
      new XpkError(
        'timeout',
        `${options.dockerImage} was not cached within ${describeMinutes(options.timing.cacheImage.timeoutMs)}: the cluster did not answer in time.`,
        {hints: ['Check that the cluster answers (`xpk cluster describe`), then re-run the same command.']},
      ),
  )
  try {
    return await applyAndWait(options, manifest, ref, base, {...deps, signal: limit.signal})
  } finally {
    limit.dispose()
  }
}

async function applyAndWait(
  options: CacheImageOptions,
  manifest: DaemonSet,
  ref: KubeRef,
  base: Pick<CacheImageResult, 'image' | 'daemonSet' | 'manifest'>,
  deps: CacheImageDeps,
): Promise<CacheImageResult> {
  const {console} = deps
  const retry: RetryOptions = {policy: options.timing.retry, clock: deps, signal: deps.signal}
  const {kube} = await reachCluster(options, deps, retry)
  const live = await withRetries(() => kube.get(ref), retry)
  const change = live === undefined ? 'create' : applyWouldChange(manifest, live) ? 'update' : 'none'
  if (change !== 'none') {
    await withRetries(() => kube.apply(manifest as unknown as KubeObject, {force: true}), retry)
  }
  console.info(
    clusterCacheimageApplied({change, namespace: ref.namespace!, name: ref.name, image: options.dockerImage}),
  )
  const board = console.progress(`Caching ${options.dockerImage}`)
  try {
    const {nodes, pulled} = await awaitPulls(kube, ref, options, deps, board)
    const cached = nodes === 0 ? 'no node to cache it on yet' : `cached on ${pulled}/${nodes} nodes`
    console.result(`${options.dockerImage}: ${cached} (DaemonSet ${ref.namespace}/${ref.name}).`)
    return {...base, change, nodes, pulled}
  } finally {
    board.close()
  }
}

/** Every problem with the input at once, before any request; the DaemonSet to apply. */
function checkOptions(options: CacheImageOptions): DaemonSet {
  const problems: UsageError[] = []
  const cacheKey = options.cacheKey ?? DEFAULT_CACHE_KEY
  const keyProblem = cacheKeyProblem(cacheKey)
  if (keyProblem) {
    problems.push(new UsageError(`--cache-key "${escapeInline(cacheKey)}": ${keyProblem}.`, {flag: '--cache-key'}))
  }
  if (tryParseImageReference(options.dockerImage) === null) {
    problems.push(
      new UsageError(
        `--docker-image "${escapeInline(options.dockerImage)}" is not an image reference like us-docker.pkg.dev/PROJECT/REPO/IMAGE:TAG.`,
        {
          flag: '--docker-image',
          hints: ['Use [HOST[:PORT]/]PATH[:TAG][@sha256:DIGEST] in lowercase, e.g. python:3.10.'],
        },
      ),
    )
  }
  let accelerator
  try {
    accelerator = resolveAccelerator({tpuType: options.tpuType, deviceType: options.deviceType})
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    problems.push(error)
  }
  problems.push(...targetProblems(options))
  throwIfProblems(problems)
  return cacheImageDaemonSet({cacheKey, image: options.dockerImage, accelerator: accelerator!})
}

/**
 * Waits until every node has pulled the image (`numberReady == desiredNumberScheduled == updatedNumberScheduled`
 * for the DaemonSet's latest generation), showing `pulled on 37/64 nodes`. When the count stops moving, the pods
 * say why: once every pod not ready has been failing to pull for the grace period, waiting longer would only
 * watch the kubelet back off, so it stops and names those nodes.
 */
async function awaitPulls(
  kube: KubeClient,
  ref: KubeRef,
  options: CacheImageOptions,
  deps: CacheImageDeps,
  board: ProgressBoard,
): Promise<{nodes: number; pulled: number}> {
  const retry: RetryOptions = {
    policy: options.timing.retry,
    clock: deps,
    signal: deps.signal,
    onRetry: (error, delay) =>
      board.update('pull', {
        label: ref.name,
        state: 'retrying',
        status: 'running',
        detail: `${error.status}, again in ${(delay / 1000).toFixed(1)}s`,
      }),
  }
  const started = deps.now()
  const grace = options.pullFailureGraceMs ?? DEFAULT_PULL_FAILURE_GRACE_MS
  let lastReady = -1
  let failingSince: number | undefined
  let progress = daemonSetProgress(undefined)
  let pulls: NodePull[] = []
  let ended: 'done' | 'failed' | 'timeout' = 'done'
  /** The time limit passed during a wait or a read: no more reads, the last ones explain. */
  let cutShort = false
  await pollUntil(
    async () => {
      const daemonSet = await kube.get(ref)
      if (!daemonSet) {
        throw new XpkError('failed', `DaemonSet ${ref.namespace}/${ref.name} was deleted while the image was pulled.`, {
          hints: ['Something else deletes it; re-run the same command to apply it again.'],
        })
      }
      progress = daemonSetProgress(daemonSet)
      board.update('pull', {
        label: ref.name,
        state: 'pulling',
        status: 'running',
        current: progress.ready,
        total: progress.desired,
        detail: `pulled on ${progress.ready}/${progress.desired} nodes`,
      })
      if (progress.done) return true
      const timedOut = deps.now() - started >= options.timing.cacheImage.timeoutMs
      // While the count moves there is nothing to explain; listing every pod at each poll would cost more.
      if (!timedOut && (!progress.observed || progress.ready !== lastReady)) {
        if (progress.observed) lastReady = progress.ready
        failingSince = undefined
        return false
      }
      pulls = await listPulls(kube, ref, options.dockerImage)
      const failing = pulls.filter((p) => p.state === 'pull-failed').length
      const settled = progress.observed && failing > 0 && progress.ready + failing >= progress.desired
      failingSince = settled ? (failingSince ?? deps.now()) : undefined
      if (failingSince !== undefined && deps.now() - failingSince >= grace) ended = 'failed'
      else if (timedOut) ended = 'timeout'
      return ended !== 'done'
    },
    {...retry, poll: options.timing.cacheImage.poll},
  ).catch((error: unknown) => {
    const reason: unknown = deps.signal.reason
    if (!(deps.signal.aborted && reason instanceof XpkError && reason.kind === 'timeout')) throw error
    ended = 'timeout'
    cutShort = true
  })
  if (progress.desired === 0) {
    deps.console.warn(clusterCacheimageNoNodes({image: options.dockerImage}))
  }
  if (ended === 'done') {
    board.update('pull', {
      label: ref.name,
      state: 'cached',
      status: 'done',
      current: progress.ready,
      total: progress.desired,
      detail: `pulled on ${progress.ready}/${progress.desired} nodes`,
    })
    return {nodes: progress.desired, pulled: progress.ready}
  }
  const events = cutShort
    ? []
    : await collect(
        kube.listAll('v1', 'Event', {
          namespace: ref.namespace,
          fieldSelector: 'involvedObject.kind=Pod,reason=Failed',
          retry: retrying(retry),
        }),
      )
  const explained = withEventCauses(pulls, events)
  const failed = explained.filter((p) => p.state === 'pull-failed')
  board.update('pull', {
    label: ref.name,
    state: ended === 'failed' ? 'failed' : 'timed out',
    status: 'failed',
    current: progress.ready,
    total: progress.desired,
    detail: `pulled on ${progress.ready}/${progress.desired} nodes`,
  })
  const hints = [
    'Check that the image exists, and that the nodes may pull it: their service account needs read access to the repository (roles/artifactregistry.reader).',
    'Re-run the same command once it is fixed: nodes that pulled the image keep it.',
  ]
  if (ended === 'failed') {
    throw new XpkError(
      'failed',
      `${options.dockerImage} was pulled on ${progress.ready}/${progress.desired} nodes; ${failed.length} could not pull it:\n  ${describePulls(failed).join('\n  ')}`,
      {hints},
    )
  }
  const waiting = explained.filter((p) => p.state === 'waiting')
  throw new XpkError(
    'timeout',
    `${options.dockerImage} was pulled on ${progress.ready}/${progress.desired} nodes within ${describeMinutes(options.timing.cacheImage.timeoutMs)}.` +
      (failed.length > 0 ? `\nCould not pull it:\n  ${describePulls(failed).join('\n  ')}` : '') +
      (waiting.length > 0 ? `\nStill waiting:\n  ${describePulls(waiting).join('\n  ')}` : ''),
    {
      hints: [
        hints[0]!,
        'Large images take long: wait and re-run the same command, which picks up where the nodes are.',
      ],
    },
  )
}

/** "30 min", or "90 s" for a limit shorter than a minute (tests, XPK_CACHE_IMAGE_TIMEOUT_S). */
function describeMinutes(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`
}

/** The state of each node's pod of the DaemonSet for `image`, by node name. */
async function listPulls(kube: KubeClient, ref: KubeRef, image: string): Promise<NodePull[]> {
  const pods = await collect(
    kube.listAll('v1', 'Pod', {namespace: ref.namespace, labelSelector: `k8s-app=${ref.name}`}),
  )
  return pods
    .map((pod) => nodePull(pod, image))
    .filter((p): p is NodePull => p !== undefined)
    .sort((a, b) => a.node.localeCompare(b.node))
}
