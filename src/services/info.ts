import {queueInfo, queueKindsAsked, type QueueInfo} from '../core/insight/queues.js'
import {infoNoneFound} from '../core/messages/insight.js'
import {TABLE_OUTPUT, type OutputChoice} from '../core/render/output-format.js'
import {queueInfoView} from '../core/render/info.js'
import type {Timing} from '../core/timing.js'
import {KUEUE_API_VERSION} from '../core/versions.js'
import type {RetryOptions} from '../executor/retry.js'
import type {Console} from '../ports/console.js'
import {showOutput} from './show-output.js'
import {checkInput, listAll, reachCluster, type ClusterAccessDeps, type WorkloadTarget} from './workload-cluster.js'

export type {QueueInfo} from '../core/insight/queues.js'

export interface InfoOptions extends WorkloadTarget {
  /** `--clusterqueue`: only the ClusterQueues' table. */
  readonly clusterqueue?: boolean
  /** `--localqueue`: only the LocalQueues' table. */
  readonly localqueue?: boolean
  /** Retries of every read (timing.retry). */
  readonly timing: Pick<Timing, 'retry'>
  /** How it is printed (`-o`, `--no-headers`); the tables by default. */
  readonly output?: OutputChoice
}

export interface InfoDeps extends ClusterAccessDeps {
  readonly console: Console
}

/**
 * `xpk info`: Kueue's queues and their usage, from two lists (every ClusterQueue, and every LocalQueue of every
 * namespace), read at once and changing nothing. The ClusterQueues are read for the LocalQueues' quota even when
 * only the LocalQueues are shown, as Python xpk does.
 * @throws UsageErrors for a missing target, before any request
 */
export async function info(options: InfoOptions, deps: InfoDeps): Promise<QueueInfo> {
  const asked = checkInput(options, () => queueKindsAsked(options))
  const retry: RetryOptions = {policy: options.timing.retry, clock: deps, signal: deps.signal}
  const {kube} = await reachCluster(options, deps, retry)
  const [clusterQueues, localQueues] = await Promise.all([
    listAll(kube, KUEUE_API_VERSION, 'ClusterQueue', {}, retry),
    asked.local ? listAll(kube, KUEUE_API_VERSION, 'LocalQueue', {}, retry) : Promise.resolve([]),
  ])
  const result = queueInfo(asked, clusterQueues, localQueues)
  showOutput(deps.console, options.output ?? TABLE_OUTPUT, queueInfoView, result, () =>
    infoNoneFound({
      // Through a kubeconfig, the cluster setting does not name the cluster reached.
      cluster: options.viaKubeconfig ? null : (options.cluster ?? null),
      kinds: [...(asked.local ? ['LocalQueue'] : []), ...(asked.cluster ? ['ClusterQueue'] : [])],
    }),
  )
  return result
}
