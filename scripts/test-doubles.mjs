// Loads TypeScript modules of test/ (the fakes, the Kueue stand-in, test helpers) into a plain Node script (the
// README's demo, the benchmarks). They use constructs Node's type stripping does not take (parameter properties), so
// they are bundled with esbuild into one scratch module; its bare imports (@grpc/grpc-js, the Google protos,
// selfsigned) resolve through a node_modules link beside it.
import {mkdtempSync, rmSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

import {build} from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))

/**
 * Bundles `exports` (lines such as `export {FakeKube} from './test/fakes/fake-kube.ts'`, relative to the repository
 * root) and imports the result. `cleanup()` removes the scratch directory.
 */
export async function loadTestModules(exports) {
  const dir = mkdtempSync(join(tmpdir(), 'xpk-test-doubles-'))
  try {
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir')
    const outfile = join(dir, 'modules.mjs')
    await build({
      stdin: {contents: exports.join('\n'), resolveDir: root, loader: 'ts'},
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      outfile,
      logLevel: 'warning',
    })
    const modules = await import(pathToFileURL(outfile).href)
    return {modules, cleanup: () => rmSync(dir, {recursive: true, force: true})}
  } catch (err) {
    rmSync(dir, {recursive: true, force: true})
    throw err
  }
}
