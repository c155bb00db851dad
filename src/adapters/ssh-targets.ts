/**
 * The workers (SSH targets) `xpk vm run` found for each TPU prefix when it last listed them, as small JSON files in
 * the user's cache (`$XDG_CACHE_HOME/xpk/vm-workers/`), one per key. Best effort: a cache that cannot be read or
 * written is no cache. What is read is unchecked JSON; the service checks it (src/core/vm/run-plan.ts, freshPlan).
 */
import {createHash} from 'node:crypto'
import {mkdir, readFile, rename, writeFile} from 'node:fs/promises'
import {join} from 'node:path'

export class WorkerListFiles {
  constructor(private readonly dir: string) {}

  private path(key: string): string {
    return join(this.dir, `${createHash('sha256').update(key).digest('hex').slice(0, 32)}.json`)
  }

  /** The value stored under `key` (unchecked JSON), or undefined. */
  async read(key: string): Promise<unknown> {
    try {
      return JSON.parse(await readFile(this.path(key), 'utf8'))
    } catch {
      return undefined
    }
  }

  /** Stores `value` under `key`, replacing the file at once (a concurrent run reads the old or the new one). */
  async write(key: string, value: unknown): Promise<void> {
    const path = this.path(key)
    const temp = `${path}.${process.pid}.tmp`
    try {
      await mkdir(this.dir, {recursive: true, mode: 0o700})
      await writeFile(temp, `${JSON.stringify(value)}\n`, {mode: 0o600})
      await rename(temp, path)
    } catch {
      // No cache this time; the next run lists the workers first, as without one.
    }
  }
}
