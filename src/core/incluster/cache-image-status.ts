/**
 * How far `cluster cacheimage` has got, read from the DaemonSet's status and its pods: how many nodes have the
 * image, which are still pulling, and which failed to pull and why (the kubelet's waiting reason, with the message
 * of its last `Failed` event when the reason is only a back-off).
 */

/** The DaemonSet's rollout, from its status. */
export interface DaemonSetProgress {
  /** Nodes the DaemonSet should run on: every node of the accelerator's kind. */
  readonly desired: number
  /** Nodes whose pod is ready, i.e. has pulled the image and runs it. */
  readonly ready: number
  /** Nodes whose pod runs the current template (the image asked for). */
  readonly updated: number
  /** Whether the DaemonSet controller has seen the latest change (otherwise the counts are of the old image). */
  readonly observed: boolean
  /** Every node has the current image, ready. */
  readonly done: boolean
}

/** Reads a DaemonSet's status (an object as the API server returns it). */
export function daemonSetProgress(daemonSet: unknown): DaemonSetProgress {
  const o = daemonSet as {
    metadata?: {generation?: number}
    status?: {
      observedGeneration?: number
      desiredNumberScheduled?: number
      numberReady?: number
      updatedNumberScheduled?: number
    }
  }
  const status = o?.status ?? {}
  const observed = (status.observedGeneration ?? 0) >= (o?.metadata?.generation ?? 1)
  const desired = status.desiredNumberScheduled ?? 0
  const ready = status.numberReady ?? 0
  const updated = status.updatedNumberScheduled ?? 0
  return {desired, ready, updated, observed, done: observed && ready === desired && updated === desired}
}

/** Waiting reasons that mean the kubelet could not get the image. */
export const PULL_FAILURE_REASONS: ReadonlySet<string> = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'ErrImageNeverPull',
  'RegistryUnavailable',
  'SignatureValidationFailed',
])

/** One node's pod, as far as caching goes. */
export interface NodePull {
  readonly node: string
  readonly pod: string
  readonly state: 'ready' | 'pull-failed' | 'waiting'
  /** The kubelet's reason (`ErrImagePull`, `ContainerCreating`, `CrashLoopBackOff`...), when not ready. */
  readonly reason?: string
  readonly message?: string
}

/**
 * The state of one DaemonSet pod for `image`; undefined for a pod of another image (an older template that the
 * rolling update has not replaced yet) or one not yet bound to a node.
 */
export function nodePull(pod: unknown, image: string): NodePull | undefined {
  const p = pod as {
    metadata?: {name?: string}
    spec?: {nodeName?: string; containers?: {image?: string}[]}
    status?: {
      containerStatuses?: {
        image?: string
        ready?: boolean
        state?: {waiting?: {reason?: string; message?: string}; terminated?: {reason?: string; message?: string}}
      }[]
    }
  }
  const node = p.spec?.nodeName
  if (!node || !(p.spec?.containers ?? []).some((c) => c.image === image)) return undefined
  const name = p.metadata?.name ?? ''
  const statuses = p.status?.containerStatuses ?? []
  if (statuses.length > 0 && statuses.every((c) => c.ready)) return {node, pod: name, state: 'ready'}
  const stuck = statuses.map((c) => c.state?.waiting ?? c.state?.terminated).find((s) => s?.reason)
  if (!stuck) return {node, pod: name, state: 'waiting', reason: 'Pending'}
  return {
    node,
    pod: name,
    state: PULL_FAILURE_REASONS.has(stuck.reason!) ? 'pull-failed' : 'waiting',
    reason: stuck.reason,
    ...(stuck.message ? {message: stuck.message} : {}),
  }
}

/**
 * The pull states with a back-off's message replaced by the cause the kubelet reported in its last `Failed` event
 * for the pod (`Failed to pull image "...": ... not found`), when there is one. `events` are v1 Events as listed.
 */
export function withEventCauses(pulls: readonly NodePull[], events: readonly unknown[]): NodePull[] {
  const latest = new Map<string, {at: string; message: string}>()
  for (const e of events as {
    involvedObject?: {kind?: string; name?: string}
    reason?: string
    message?: string
    lastTimestamp?: string
    eventTime?: string
    metadata?: {creationTimestamp?: string}
  }[]) {
    if (e.involvedObject?.kind !== 'Pod' || e.reason !== 'Failed' || !e.message || !e.involvedObject.name) continue
    const at = e.lastTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp ?? ''
    const seen = latest.get(e.involvedObject.name)
    if (!seen || at >= seen.at) latest.set(e.involvedObject.name, {at, message: e.message})
  }
  return pulls.map((p) => {
    const cause = p.state === 'pull-failed' && p.reason === 'ImagePullBackOff' ? latest.get(p.pod) : undefined
    return cause ? {...p, message: cause.message} : p
  })
}

/** `node-a: ErrImagePull: manifest unknown` lines for up to `limit` nodes, then how many more. */
export function describePulls(pulls: readonly NodePull[], limit = 10): string[] {
  const lines = pulls
    .slice(0, limit)
    .map((p) => `${p.node}: ${p.reason ?? p.state}${p.message ? `: ${p.message}` : ''}`)
  if (pulls.length > limit) lines.push(`... and ${pulls.length - limit} more`)
  return lines
}
