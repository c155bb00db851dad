/** The Filestore API's long-running operations, as `storage create` and `storage delete` wait for them. */
import type {Timing} from '../core/timing.js'
import {pollUntil, type RetryOptions} from '../executor/retry.js'
import type {FilestoreClient, FilestoreOperation} from '../ports/filestore.js'

/**
 * Reads the operation (each read through the retry policy, polled as GKE's are) until the API says it is done.
 * @returns its error, if it ended with one
 */
export async function finishedOperation(
  filestore: FilestoreClient,
  name: string,
  timing: Pick<Timing, 'operations'>,
  retry: RetryOptions,
): Promise<FilestoreOperation['error']> {
  let failed: FilestoreOperation['error']
  await pollUntil(
    async () => {
      const op = await filestore.getOperation(name)
      failed = op.error
      return op.done
    },
    {...retry, poll: timing.operations},
  )
  return failed
}
