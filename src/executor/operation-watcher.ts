/**
 * Waits for many long-running operations at once with one list call per tick, so the cost of waiting does not grow
 * with the number of operations in flight. It knows nothing of the API behind it: GKE operations today; Compute
 * Engine, Kubernetes and Cloud TPU operations plug in through an {@link OperationSource}. Every call goes through
 * the retry policy and every wait ends when the abort signal fires.
 */
import {pollDelay, type Backoff} from '../core/retry.js'
import {withRetries, type RetryOptions} from './retry.js'

/** How to read the operations of one API. */
export interface OperationSource<Op> {
  /** Recent operations, including finished ones: one call to learn about all of them. */
  list(): Promise<readonly Op[]>
  /** One operation, for those the list no longer shows. */
  get(name: string): Promise<Op>
  name(op: Op): string
  isDone(op: Op): boolean
}

export interface WatchOptions extends RetryOptions {
  /** Ticks come every `initialMs` for the first `fastForMs` (quick operations finish with little lag), then back off. */
  readonly poll: Backoff & {readonly fastForMs: number}
  /** Told when watching fails for good (say, no permission to list operations); waiters then get no verdict. */
  readonly onWatchFailure?: (error: Error) => void
}

export class OperationWatcher<Op> {
  private readonly waiters = new Map<string, (op: Op | null) => void>()
  private watching: Promise<void> | undefined

  constructor(
    private readonly source: OperationSource<Op>,
    private readonly options: WatchOptions,
  ) {}

  /**
   * Resolves with the finished operation, or null when operations cannot be watched (callers then check the
   * resource itself, so one failing watch call never fails every step). Rejects with the abort reason on abort.
   */
  async wait(operation: Op): Promise<Op | null> {
    if (this.source.isDone(operation)) return operation
    const done = await new Promise<Op | null>((resolve) => {
      this.waiters.set(this.source.name(operation), resolve)
      this.watching ??= this.watch().finally(() => (this.watching = undefined))
    })
    if (this.options.signal.aborted) throw this.options.signal.reason
    return done
  }

  private async watch(): Promise<void> {
    const {clock, poll, signal} = this.options
    const started = clock.now()
    let slowTicks = 0
    while (this.waiters.size > 0) {
      try {
        const fast = clock.now() - started < poll.fastForMs
        await clock.sleep(fast ? poll.initialMs : pollDelay(slowTicks++, poll), signal)
        const listed = await withRetries(() => this.source.list(), this.options)
        const byName = new Map(listed.map((op) => [this.source.name(op), op]))
        for (const [name, resolve] of [...this.waiters]) {
          const op = byName.get(name) ?? (await withRetries(() => this.source.get(name), this.options))
          if (this.source.isDone(op)) {
            this.waiters.delete(name)
            resolve(op)
          }
        }
      } catch (error) {
        if (!signal.aborted) this.options.onWatchFailure?.(error as Error)
        for (const resolve of this.waiters.values()) resolve(null)
        this.waiters.clear()
      }
    }
  }
}
