/**
 * Waiting on Kubernetes objects by watching them rather than polling: one long request streams every change, and
 * the stream is resumed where it stopped whenever it ends. The waits of the one retry policy (retry.ts) are used
 * for reconnecting, and every wait ends at once when the signal aborts.
 */
import {ApiError} from '../core/errors.js'
import type {KubeClient, KubeObject, KubeWatchOptions} from '../ports/kube.js'
import {Reopening, withRetries, type RetryOptions} from './retry.js'

/** A change to one object, as {@link followChanges} hands it over. */
export interface ObjectChange {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'
  readonly object: KubeObject
}

export interface FollowOptions extends RetryOptions, Omit<KubeWatchOptions, 'signal'> {
  readonly apiVersion: string
  readonly kind: string
  /**
   * Told when following starts over after a 410 (`start`, before the first object comes again as ADDED) and when
   * every current object has come (`end`), so a caller keeping objects can drop those that did not come again: they
   * were deleted while no watch was open, and no DELETED will say so. The end is the first event that is not
   * ADDED (a BOOKMARK, which the API server sends after the current objects and then about once a minute, or a
   * change), or the stream ending cleanly; a stream dropped before that starts over again.
   */
  readonly onRelist?: (phase: 'start' | 'end') => void
}

/**
 * Follows changes to objects of a kind until `options.signal` aborts (then rejects with its reason), calling
 * `onChange` for each, in order. Starting without a resourceVersion, the current objects come first as ADDED.
 *
 * - A stream the server ends (they all do, sooner or later) is watched again from the last resourceVersion seen,
 *   bookmarks included, so no change is missed or repeated.
 * - A resourceVersion too old to resume from (410 Expired: the server no longer keeps that history) starts over
 *   without one: every current object comes again as ADDED (objects deleted meanwhile just do not come:
 *   `onRelist` tells a caller when to look for them).
 * - A watch that cannot start goes through the retry policy (a stream that dropped after delivering events counts
 *   as ended, not as a failure, so hours of watching never use up the attempts). Streams that keep ending at once
 *   with nothing in them are spaced out by the policy's backoff instead of reconnecting in a tight loop.
 * @throws what `onChange` throws, and ApiErrors that are not retryable or outlast the policy
 */
export async function followChanges(
  kube: KubeClient,
  options: FollowOptions,
  onChange: (change: ObjectChange) => void,
): Promise<never> {
  const {apiVersion, kind, namespace, labelSelector, fieldSelector, signal, onRelist} = options
  let resourceVersion = options.resourceVersion
  const reopening = new Reopening(options)
  /** Starting over after a 410: the current objects are coming again as ADDED. */
  let relisting = false
  const relisted = () => {
    relisting = false
    onRelist?.('end')
  }
  for (;;) {
    if (signal.aborted) throw signal.reason
    const started = options.clock.now()
    let delivered = 0
    let dropped = false
    try {
      await withRetries(async () => {
        const before = delivered
        try {
          await kube.watch(
            apiVersion,
            kind,
            {namespace, labelSelector, fieldSelector, resourceVersion, signal},
            (e) => {
              delivered++
              if (relisting && e.type !== 'ADDED') relisted()
              if (e.type === 'BOOKMARK') {
                resourceVersion = e.resourceVersion
                return
              }
              resourceVersion = (e.object.metadata.resourceVersion as string | undefined) ?? resourceVersion
              onChange(e)
            },
          )
        } catch (error) {
          // Dropped mid-stream after it delivered something: resume like after a clean end.
          if (delivered > before && error instanceof ApiError && error.retryable) {
            dropped = true
            return
          }
          throw error
        }
      }, options)
    } catch (error) {
      if (signal.aborted) throw signal.reason
      if (!(error instanceof ApiError) || error.status !== 'EXPIRED') throw error
      resourceVersion = undefined
      if (!relisting) {
        relisting = true
        onRelist?.('start')
      }
      continue
    }
    if (signal.aborted) throw signal.reason
    if (relisting) {
      // Dropped while the current objects were coming: some may not have come yet, so they all come again.
      if (dropped) resourceVersion = undefined
      else relisted()
    }
    await reopening.ended(started, delivered > 0)
  }
}
