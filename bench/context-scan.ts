// The scan step of an image build (list the script directory after its .dockerignore, hash every file) over 40 MB in
// 10,000 files in 100 directories, as bench:image's unchanged re-run has it, in this process: with the digest cache
// an earlier scan left (an unchanged re-run) and without it (every file hashed), and the same directory with a
// .dockerignore of the usual kind (bytecode, logs, an exception, and a node_modules of 2,000 files the walk skips).
// COMPARE=dir times another checkout's FsBuildContextSource (dir/src/adapters/build-context.ts) in the same rounds,
// alternating, so both sides see the same load. Prints medians of RUNS rounds (default 9).
// Run with `npm run bench:scan`.
import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'

import {FsBuildContextSource} from '../src/adapters/build-context.js'

const RUNS = Number(process.env.RUNS ?? 9)
const FILES = 10_000
const BYTES = 40_000_000
const IGNORED_FILES = 2_000
const DOCKERIGNORE = ['**/__pycache__', '*.log', '**/*.pyc', '!keep.log', 'node_modules', '.git', 'data/raw'].join('\n')

type Source = new (options?: {digestCacheDir?: string}) => FsBuildContextSource
const builds: {label: string; Source: Source}[] = [{label: 'this checkout', Source: FsBuildContextSource}]
if (process.env.COMPARE) {
  const other = pathToFileURL(resolve(process.env.COMPARE, 'src/adapters/build-context.ts')).href
  builds.push({
    label: `COMPARE ${process.env.COMPARE}`,
    Source: ((await import(other)) as {FsBuildContextSource: Source}).FsBuildContextSource,
  })
}

/** Deterministic pseudo-random bytes, so every run scans the same directory. */
function content(seed: number, size: number): Buffer {
  const out = Buffer.alloc(size)
  let x = seed >>> 0 || 1
  for (let i = 0; i < size; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    out[i] = x & 0xff
  }
  return out
}

async function makeDir(withIgnore: boolean): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'xpk-bench-scan-'))
  for (let d = 0; d < 100; d++) await mkdir(join(dir, `pkg${d}`))
  for (let i = 0; i < FILES; i++) {
    await writeFile(join(dir, `pkg${i % 100}`, `mod${i}.py`), content(i + 7, BYTES / FILES))
  }
  if (withIgnore) {
    await writeFile(join(dir, '.dockerignore'), `${DOCKERIGNORE}\n`)
    for (let d = 0; d < 20; d++) await mkdir(join(dir, 'node_modules', `dep${d}`), {recursive: true})
    for (let i = 0; i < IGNORED_FILES; i++) await writeFile(join(dir, 'node_modules', `dep${i % 20}`, `f${i}.js`), '1')
    for (const name of ['a.log', 'keep.log', 'pkg1/x.pyc']) await writeFile(join(dir, name), '1')
  }
  return dir
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

async function seconds(Source: Source, dir: string, cacheDir?: string): Promise<{s: number; files: number}> {
  const started = performance.now()
  const scanned = await new Source(cacheDir ? {digestCacheDir: cacheDir} : {}).scan(dir)
  if ('missing' in scanned) throw new Error(`no script directory: ${scanned.missing}`)
  return {s: (performance.now() - started) / 1000, files: scanned.entries.filter((e) => e.type === 'file').length}
}

const made: string[] = []
try {
  console.log(`Scan of ${FILES} files (${BYTES / 1e6} MB): median of ${RUNS} rounds, builds alternating`)
  for (const withIgnore of [false, true]) {
    const dir = await makeDir(withIgnore)
    made.push(dir)
    const caches = builds.map((_, b) => join(dir, '..', `${dir.split('/').at(-1)}-cache-${b}`))
    made.push(...caches)
    // Warm-up: fills each build's digest cache and the page cache.
    for (const [b, build] of builds.entries()) await seconds(build.Source, dir, caches[b])
    const cached = builds.map((): number[] => [])
    const cold = builds.map((): number[] => [])
    const files = builds.map(() => 0)
    for (let r = 0; r < RUNS; r++) {
      for (const [b, build] of builds.entries()) {
        const warm = await seconds(build.Source, dir, caches[b])
        cached[b]!.push(warm.s)
        cold[b]!.push((await seconds(build.Source, dir)).s)
        files[b] = warm.files
      }
    }
    console.log(
      withIgnore ? `with a .dockerignore (${IGNORED_FILES} files in node_modules skipped):` : 'no .dockerignore:',
    )
    for (const [b, build] of builds.entries()) {
      console.log(
        `  ${build.label.padEnd(40)} ${median(cached[b]!).toFixed(3)} s with the digest cache, ` +
          `${median(cold[b]!).toFixed(3)} s without; ${files[b]} files`,
      )
    }
    if (new Set(files).size > 1) throw new Error(`the builds scanned different files: ${files.join(', ')}`)
  }
} finally {
  for (const dir of made) await rm(dir, {recursive: true, force: true})
}
