import {mkdir, readFile, rename, writeFile} from 'node:fs/promises'
import {dirname, resolve} from 'node:path'

import {XpkError} from '../core/errors.js'
import type {LocalFiles} from '../ports/files.js'

/** {@link LocalFiles} on the real file system. */
export class NodeFiles implements LocalFiles {
  async readText(path: string): Promise<string | undefined> {
    try {
      return await readFile(path, 'utf8')
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT') return undefined
      throw new XpkError('failed', `Cannot read ${path}: ${(error as Error).message}`, {cause: error})
    }
  }

  async writeText(path: string, text: string): Promise<void> {
    const target = resolve(path)
    try {
      await mkdir(dirname(target), {recursive: true})
      const temporary = `${target}.${process.pid}.tmp`
      await writeFile(temporary, text)
      await rename(temporary, target)
    } catch (error) {
      throw new XpkError('failed', `Cannot write ${path}: ${(error as Error).message}`, {cause: error})
    }
  }
}
