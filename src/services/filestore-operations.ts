/** The Filestore API's long-running operations, as `storage create` and `storage delete` wait for them. */
import type {Timing} from '../core/timing.js'
import {pollUntil, type RetryOptions} from '../executor/retry.js'
import type {FilestoreClient, FilestoreOperation} from '../ports/filestore.js'

/** What a step on a Filestore instance works with: the API, the polls, the retry policy, and its progress line. */
export interface InstanceWork {
  readonly filestore: FilestoreClient
  readonly timing: Pick<Timing, 'operations'>
  readonly retry: RetryOptions
  readonly progress: (state: string) => void
}

/**
 * Reads the operation (each read through the retry policy, polled as GKE's are) until the API says it is done.
 * @returns its error, if it ended with one
 */
export async function finishedOperation(work: InstanceWork, name: string): Promise<FilestoreOperation['error']> {
  let failed: FilestoreOperation['error']
  await pollUntil(
    async () => {
      const op = await work.filestore.getOperation(name)
      failed = op.error
      return op.done
    },
    {...work.retry, poll: work.timing.operations},
  )
  return failed
}
