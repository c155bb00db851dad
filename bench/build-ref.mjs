// Builds the CLI as it was at a git commit, for a benchmark to run beside this checkout's: the commit's tree (git
// archive) in a temporary directory, with this checkout's node_modules linked in, built with its own
// scripts/build.mjs. Returns the directory (its CLI is dir/bin/run.js) and a function that removes it.
import {execFileSync} from 'node:child_process'
import {mkdtempSync, realpathSync, rmSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

export function buildRef(ref) {
  const dir = mkdtempSync(join(tmpdir(), 'xpk-ref-'))
  try {
    execFileSync('sh', ['-c', 'git -C "$1" archive "$2" | tar -x -C "$3"', 'build-ref', root, ref, dir], {
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    symlinkSync(realpathSync(join(root, 'node_modules')), join(dir, 'node_modules'))
    execFileSync(process.execPath, ['scripts/build.mjs'], {cwd: dir, stdio: 'inherit'})
  } catch (error) {
    rmSync(dir, {recursive: true, force: true})
    throw new Error(`Cannot build ${ref} (is it a commit of this repository?): ${error.message}`, {cause: error})
  }
  return {dir, remove: () => rmSync(dir, {recursive: true, force: true})}
}
