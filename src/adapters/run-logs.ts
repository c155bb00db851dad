/** The {@link RunLogs} port on the local disk: one directory per run. */
import {createWriteStream} from 'node:fs'
import {mkdir, readFile, writeFile} from 'node:fs/promises'

import {XpkError} from '../core/errors.js'
import type {RunLogs} from '../ports/remote-shell.js'

export class RunLogFiles implements RunLogs {
  async open(dir: string): Promise<string> {
    try {
      await mkdir(dir, {recursive: true})
    } catch (error) {
      throw new XpkError('failed', `Cannot create the run directory ${dir}: ${(error as Error).message}`, {
        hints: ['Pass --log-dir with a directory you can write to.'],
        cause: error,
      })
    }
    return dir
  }

  writer(path: string): {write(chunk: Buffer): void; close(): Promise<void>} {
    const stream = createWriteStream(path)
    return {
      write: (chunk) => void stream.write(chunk),
      close: () => new Promise<void>((resolve) => stream.end(resolve)),
    }
  }

  async writeFile(path: string, text: string): Promise<void> {
    await writeFile(path, text)
  }

  async tail(path: string, lines: number): Promise<string[]> {
    try {
      const text = await readFile(path, 'utf8')
      return text.replace(/\n$/, '').split('\n').slice(-lines)
    } catch {
      return []
    }
  }
}
