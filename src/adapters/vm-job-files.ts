/** The {@link VmJobStore} port on the local disk: `<root>/<id>/` per job, JSON written atomically under a lock. */
import {createWriteStream, mkdirSync} from 'node:fs'
import {appendFile, mkdir, open, readdir, readFile, rename, rm, unlink, writeFile} from 'node:fs/promises'
import {join} from 'node:path'

import {XpkError} from '../core/errors.js'
import {nextJobId, type VmJobAccess, type VmJobEvent, type VmJobRecord} from '../core/vmjob/record.js'
import type {VmJobSpec} from '../core/vmjob/spec.js'
import type {VmJobStore} from '../ports/vm-jobs.js'

/** How long a lock is waited for before giving up: far longer than any holder keeps it (one small write). */
const LOCK_WAIT_MS = 10_000

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Holds `path` as a lock file (created exclusively, holding the holder's pid) while `use` runs. A lock whose holder
 * is dead (killed mid-write) is taken over.
 */
async function withLock<T>(path: string, use: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + LOCK_WAIT_MS
  for (;;) {
    try {
      const handle = await open(path, 'wx')
      await handle.writeFile(String(process.pid))
      await handle.close()
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const holder = Number((await readFile(path, 'utf8').catch(() => '')).trim())
      if (holder > 0 && !alive(holder)) {
        await unlink(path).catch(() => {})
        continue
      }
      if (Date.now() > deadline) {
        throw new XpkError('conflict', `The lock ${path} is held by process ${holder || '?'}.`, {
          hints: ['Another xpk process is changing this job; try again. Remove the file if no xpk process runs.'],
        })
      }
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20))
    }
  }
  try {
    return await use()
  } finally {
    await unlink(path).catch(() => {})
  }
}

/** Writes a file whole: a reader sees the old text or the new one, never a part. */
async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`
  await writeFile(temporary, text)
  await rename(temporary, path)
}

export class VmJobFiles implements VmJobStore {
  constructor(readonly root: string) {}

  private dir(id: string): string {
    return join(this.root, id)
  }

  async create(
    spec: VmJobSpec,
    access: VmJobAccess,
    configText: string | undefined,
    now: number,
  ): Promise<VmJobRecord> {
    await mkdir(this.root, {recursive: true})
    return withLock(join(this.root, '.lock'), async () => {
      // The counter only grows: an id is never given again, even after its job's records were removed.
      const counter = join(this.root, 'next-id')
      const recorded = (await readFile(counter, 'utf8').catch(() => '')).trim()
      const id = nextJobId([...(await this.ids()), ...(/^\d+$/.test(recorded) ? [String(Number(recorded) - 1)] : [])])
      await writeAtomically(counter, `${Number(id) + 1}\n`)
      const dir = this.dir(id)
      await mkdir(join(dir, 'logs'), {recursive: true})
      const record: VmJobRecord = {
        id,
        spec,
        access,
        status: 'QUEUEING',
        createdAt: now,
        updatedAt: now,
        recoveries: 0,
        attempt: 0,
      }
      if (configText !== undefined) await writeFile(join(dir, 'config.yaml'), configText)
      await writeAtomically(join(dir, 'job.json'), `${JSON.stringify(record, null, 2)}\n`)
      return record
    })
  }

  private async ids(): Promise<string[]> {
    const entries = await readdir(this.root).catch(() => [] as string[])
    return entries.filter((name) => /^\d{6,}$/.test(name))
  }

  async read(id: string): Promise<VmJobRecord | undefined> {
    try {
      return JSON.parse(await readFile(join(this.dir(id), 'job.json'), 'utf8')) as VmJobRecord
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw new XpkError('failed', `Cannot read the record of job ${id}: ${(error as Error).message}`, {
        hints: [`Its directory is ${this.dir(id)}.`],
        cause: error,
      })
    }
  }

  async list(): Promise<VmJobRecord[]> {
    const records = await Promise.all((await this.ids()).sort().map((id) => this.read(id)))
    return records.filter((r): r is VmJobRecord => r !== undefined)
  }

  async update(
    id: string,
    change: (current: VmJobRecord) => VmJobRecord | undefined,
    now: number,
  ): Promise<VmJobRecord> {
    return withLock(join(this.dir(id), 'lock'), async () => {
      const current = await this.read(id)
      if (!current) throw new XpkError('not-found', `There is no job ${id}.`)
      const next = change(current)
      if (!next) return current
      const written = {...next, updatedAt: now}
      await writeAtomically(join(this.dir(id), 'job.json'), `${JSON.stringify(written, null, 2)}\n`)
      return written
    })
  }

  async appendEvent(id: string, event: VmJobEvent): Promise<void> {
    // One write of one line under O_APPEND: lines of concurrent writers never interleave.
    await appendFile(join(this.dir(id), 'events.jsonl'), `${JSON.stringify(event)}\n`)
  }

  async events(id: string): Promise<VmJobEvent[]> {
    const text = await readFile(join(this.dir(id), 'events.jsonl'), 'utf8').catch(() => '')
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as VmJobEvent)
  }

  logPath(id: string, name: string): string {
    return join(this.dir(id), 'logs', `${name}.log`)
  }

  appendLog(id: string, name: string): {write(chunk: Buffer): void; close(): Promise<void>} {
    mkdirSync(join(this.dir(id), 'logs'), {recursive: true})
    const stream = createWriteStream(this.logPath(id, name), {flags: 'a'})
    return {
      write: (chunk) => void stream.write(chunk),
      close: () => new Promise<void>((resolve) => stream.end(resolve)),
    }
  }

  async logs(id: string): Promise<string[]> {
    const names = await readdir(join(this.dir(id), 'logs')).catch(() => [] as string[])
    return names
      .filter((n) => n.endsWith('.log'))
      .map((n) => n.slice(0, -4))
      .sort()
  }

  async readLog(id: string, name: string, offset: number): Promise<Buffer> {
    try {
      const handle = await open(this.logPath(id, name), 'r')
      try {
        const {size} = await handle.stat()
        if (size <= offset) return Buffer.alloc(0)
        const buffer = Buffer.alloc(size - offset)
        await handle.read(buffer, 0, buffer.length, offset)
        return buffer
      } finally {
        await handle.close()
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0)
      throw error
    }
  }

  async remove(id: string): Promise<void> {
    await rm(this.dir(id), {recursive: true, force: true})
  }
}
