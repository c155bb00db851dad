// One temporary root per test run: workers, and the CLI subprocesses they start, get it as TMPDIR, so whatever a
// test leaves behind stays inside it. The root is removed at the end, and the run fails if anything was left in
// it: every test must remove what it creates (test/helpers/temp.ts does it for you).
import {mkdtempSync, readdirSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

/** Entries of the root that are shared on purpose by all the tests of a run, and removed with it. */
export const SHARED_TEMP_ENTRIES: readonly string[] = [
  // XDG_CACHE_HOME of the CLI subprocesses (test/helpers/cli.ts): their compile cache stays warm for the whole run.
  '.cache',
]

export default function setup(): () => void {
  const saved = process.env.TMPDIR
  const root = mkdtempSync(join(tmpdir(), 'xpk-test-'))
  process.env.TMPDIR = root
  return () => {
    const left = readdirSync(root).filter((name) => !SHARED_TEMP_ENTRIES.includes(name))
    rmSync(root, {recursive: true, force: true})
    if (saved === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = saved
    if (left.length > 0) {
      throw new Error(
        `The tests left ${left.length} entr${left.length === 1 ? 'y' : 'ies'} in the temporary directory ` +
          `(${left.slice(0, 10).join(', ')}${left.length > 10 ? ', ...' : ''}). ` +
          'Every test must remove what it creates: use tempDir() from test/helpers/temp.ts.',
      )
    }
  }
}
