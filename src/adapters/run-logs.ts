/** The {@link RunLogs} port on the local disk: one directory per run under a base directory. */
import {createWriteStream} from 'node:fs'
import {mkdir, readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'

import type {RunLogs} from '../ports/remote-shell.js'

export class RunLogFiles implements RunLogs {
  constructor(private readonly baseDir: string) {}

  async open(runName: string): Promise<string> {
    const dir = join(this.baseDir, runName)
    await mkdir(dir, {recursive: true})
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
