// Bundles the CLI into dist/ with esbuild. One bundle keeps start-up fast (oclif alone is ~160 CommonJS
// modules when loaded file by file); the SDKs stay external and are only imported lazily by adapters. The Google
// APIs (GKE, Compute Engine, Cloud TPU) are spoken to over REST by xpk's own adapters: no Google client library is
// imported at run time (their message types are dev dependencies).
import {build} from 'esbuild'
import {readFile, rm, writeFile} from 'node:fs/promises'
import {createRequire} from 'node:module'
import {basename, dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

import {DOCKERODE_RARELY_USED, LAZY, LAZY_BUILTINS, LAZY_PROXY, WSL_STUB} from './build-stubs.mjs'

const external = [
  '@kubernetes/client-node',
  // dockerode is bundled (see DOCKERODE_RARELY_USED) but these native or proto-loading parts never are.
  'ssh2',
  'cpu-features',
  'google-auth-library',
  '@grpc/*',
  'tar-stream',
  // oclif only reaches for these to run TypeScript sources in development; never in the bundle.
  'typescript',
  'tsx',
  'ts-node',
]

const lazyModules = {
  name: 'lazy-modules',
  setup(builder) {
    builder.onResolve({filter: /^\.\/(session|buildkit|ssh)$/}, (args) => {
      const lazy = DOCKERODE_RARELY_USED[args.path]
      if (!lazy?.importer.test(args.importer)) return undefined
      return {path: args.path, namespace: 'lazy-dockerode'}
    })
    builder.onLoad({filter: /.*/, namespace: 'lazy-dockerode'}, (args) => ({
      contents: `const fromDisk = require; let real; const load = () => (real ??= ${DOCKERODE_RARELY_USED[args.path].runtime});\n${LAZY_PROXY}`,
      loader: 'js',
    }))
    builder.onResolve({filter: /^wsl-utils$/}, async (args) => {
      if (args.pluginData?.real || !/[\\/]@oclif[\\/]core[\\/]/.test(args.importer)) return undefined
      const real = await builder.resolve('wsl-utils', {
        kind: args.kind,
        resolveDir: args.resolveDir,
        pluginData: {real: true},
      })
      return {path: real.path, namespace: 'wsl-stub'}
    })
    builder.onLoad({filter: /.*/, namespace: 'wsl-stub'}, (args) => ({
      contents: WSL_STUB.replace('REAL', JSON.stringify(args.path)),
      resolveDir: dirname(args.path),
      loader: 'js',
    }))
    builder.onResolve({filter: /^node:(child_process|readline|perf_hooks)$/}, (args) => {
      if (!/[\\/]@oclif[\\/]core[\\/]/.test(args.importer) || !LAZY_BUILTINS.includes(args.path)) return undefined
      return {path: args.path, namespace: 'lazy-builtin'}
    })
    builder.onLoad({filter: /.*/, namespace: 'lazy-builtin'}, (args) => ({
      contents: `let real; const load = () => (real ??= require(${JSON.stringify(args.path)}));\n${LAZY_PROXY}`,
      loader: 'js',
    }))
    const names = Object.keys(LAZY).map((n) => n.replace(/[-/]/g, (c) => `\\${c}`))
    builder.onResolve({filter: new RegExp(`^(${names.join('|')})$`)}, (args) => {
      const real = createRequire(args.importer).resolve(args.path)
      return {path: args.path, namespace: 'lazy', pluginData: {real}}
    })
    builder.onLoad({filter: /.*/, namespace: 'lazy'}, (args) => ({
      contents: `let real; const load = () => (real ??= require(${JSON.stringify(args.pluginData.real)}));\n${LAZY[args.path]}`,
      resolveDir: dirname(args.pluginData.real),
      loader: 'js',
    }))
  },
}

/**
 * oclif sorts the command list with String#localeCompare on every start; the first call initialises ICU
 * collation. Command ids are ASCII, so plain code-point order is the same order. The build fails if
 * the line changes in a new oclif, so the patch cannot silently stop applying or apply to the wrong code.
 */
const OCLIF_SORT = '.sort((a, b) => a.id.localeCompare(b.id));'
const asciiCommandSort = {
  name: 'ascii-command-sort',
  setup(builder) {
    builder.onLoad({filter: /@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin\.js$/}, async (args) => {
      const source = await readFile(args.path, 'utf8')
      if (!source.includes(OCLIF_SORT)) throw new Error(`ascii-command-sort: "${OCLIF_SORT}" not found in ${args.path}`)
      return {
        contents: source.replace(OCLIF_SORT, '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));'),
        loader: 'js',
      }
    })
  },
}

/**
 * What a topic module (src/cli/<topic>.ts) imports lazily loads as one chunk. A topic module imports its services
 * and adapters with `import()` when a command runs; esbuild makes every module named in an `import()` an entry of
 * its own and splits the code they share into chunks by which entries reach it, which cut one command's code into
 * 30-40 files, and each file costs Node about 0.2 ms to load (40 small modules took 7 ms of CPU more than the same
 * code in one). So every `import('./x.js')` of a topic module is compiled as `import('xpk-lazy:<topic>')` followed by
 * picking x's exports, where xpk-lazy:<topic> re-exports every module the topic imports lazily: one entry per topic,
 * and esbuild still decides how the entries share chunks. wiring.ts is not a topic: GKE, a cluster's Kubernetes API
 * and Google credentials are connected to separately (`cluster list` needs GKE only), so each stays an entry of its
 * own. The source keeps plain `import()` calls (tests and type-checking see them as written); this only groups them.
 */
const LAZY_IMPORT = /(?<!typeof\s+)\bimport\('(\.[^']+)'\)/g
const lazyGroups = {
  name: 'lazy-groups',
  setup(builder) {
    const groups = new Map()
    builder.onLoad({filter: /[\\/]src[\\/]cli[\\/][\w-]+\.ts$/}, async (args) => {
      const group = basename(args.path, '.ts')
      if (group === 'wiring') return undefined
      const source = await readFile(args.path, 'utf8')
      const modules = []
      const contents = source.replace(LAZY_IMPORT, (_, specifier) => {
        const path = resolve(dirname(args.path), specifier.replace(/\.js$/, '.ts'))
        const index = modules.includes(path) ? modules.indexOf(path) : modules.push(path) - 1
        return `import('xpk-lazy:${group}').then((group) => group.m${index})`
      })
      if (modules.length === 0) return undefined
      groups.set(group, modules)
      return {contents, loader: 'ts'}
    })
    builder.onResolve({filter: /^xpk-lazy:/}, (args) => ({
      path: args.path.slice('xpk-lazy:'.length),
      namespace: 'xpk-lazy',
    }))
    builder.onLoad({filter: /.*/, namespace: 'xpk-lazy'}, (args) => ({
      contents: groups
        .get(args.path)
        .map((path, index) => `export * as m${index} from ${JSON.stringify(path)}`)
        .join('\n'),
      loader: 'js',
      resolveDir: '/',
    }))
  },
}

const root = fileURLToPath(new URL('..', import.meta.url))
const manifest = join(root, 'oclif.manifest.json')
await rm(new URL('../dist', import.meta.url), {recursive: true, force: true})
await rm(manifest, {force: true})
await build({
  entryPoints: {xpk: 'src/index.ts'},
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  sourcemap: 'linked',
  external,
  plugins: [lazyGroups, lazyModules, asciiCommandSort],
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
  // Bundled CommonJS dependencies call require() for Node built-ins.
  banner: {
    js: "import {createRequire as __xpkCreateRequire} from 'node:module'; const require = __xpkCreateRequire(import.meta.url);",
  },
})

/**
 * oclif's command manifest: every command's flags, arguments and help, as oclif caches them. Without it, oclif loads
 * and describes all twenty commands on every start, to list them; with it, it reads this file (built here from
 * the bundle, so it cannot go stale against it) and loads the one command that runs: about 3 ms of CPU less for every
 * command, 5% of `xpk version`.
 */
const {Config} = await import('@oclif/core')
// No plugins: only xpk's own commands are described, and no plugin of the building user's runs here.
const config = await Config.load({root, ignoreManifest: true, userPlugins: false, devPlugins: false})
const pjson = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'))
await writeFile(manifest, `${JSON.stringify(config.plugins.get(pjson.name).manifest)}\n`)
