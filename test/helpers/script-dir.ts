// Script directories for image-build tests, under the run's temporary root and removed after each test file.
import {mkdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'

import {tempDir} from './temp.js'

/** A new directory holding these files (paths may have subdirectories). */
export async function scriptDir(files: Record<string, string>): Promise<string> {
  const dir = tempDir('xpk-script-')
  await writeFiles(dir, files)
  return dir
}

/** Writes files into a directory, making subdirectories as needed. */
export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), {recursive: true})
    await writeFile(join(dir, path), content)
  }
}
