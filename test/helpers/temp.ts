// Temporary directories that are removed after the test file that made them (test/setup.ts registers the hook).
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

const made: string[] = []

/** A new empty directory under the run's temporary root; removed when the current test file ends. */
export function tempDir(prefix = 'xpk-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.push(dir)
  return dir
}

/** Removes every directory {@link tempDir} made so far. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, {recursive: true, force: true})
}
