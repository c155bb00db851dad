// Bundles the CLI into dist/ with esbuild. One bundle keeps start-up fast (oclif alone is ~160 CommonJS
// modules when loaded file by file); the cloud SDKs stay external and are only imported lazily by adapters.
import {build} from 'esbuild'
import {readFile, rm, writeFile} from 'node:fs/promises'
import {createRequire} from 'node:module'
import {basename, dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

const external = [
  '@google-cloud/*',
  '@kubernetes/client-node',
  // dockerode is bundled (see DOCKERODE_RARELY_USED) but these native or proto-loading parts never are.
  'ssh2',
  'cpu-features',
  'google-auth-library',
  'google-gax',
  '@grpc/*',
  'tar-stream',
  // oclif only reaches for these to run TypeScript sources in development; never in the bundle.
  'typescript',
  'tsx',
  'ts-node',
]

/**
 * oclif requires these at load time but uses them rarely or never on our paths (plugin globbing, .oclifrc
 * search, plugin patterns, DEBUG=* tracing). Each is replaced by a stub with the same surface that loads the real
 * module, still bundled, on first use: about 20 ms less start-up for every command.
 */
const LAZY_PROXY = `module.exports = new Proxy(function lazy() {}, {
    get: (_, key) => (key === '__esModule' ? undefined : load()[key]),
    apply: (_, self, args) => load().apply(self, args),
    has: (_, key) => key in load(),
  })`
const LAZY = {
  // Colours, help layout, spinners, error formatting and templates: only needed when that output is produced.
  ansis: LAZY_PROXY,
  'cli-spinners': LAZY_PROXY,
  'wrap-ansi': LAZY_PROXY,
  'string-width': LAZY_PROXY,
  'widest-line': LAZY_PROXY,
  'indent-string': LAZY_PROXY,
  'clean-stack': LAZY_PROXY,
  ejs: LAZY_PROXY,
  // Probes the terminals and the environment as it loads; only colour output needs the answer.
  'supports-color': LAZY_PROXY,
  minimatch: 'module.exports = {minimatch: (...a) => load().minimatch(...a)}',
  tinyglobby: 'module.exports = {glob: (...a) => load().glob(...a), globSync: (...a) => load().globSync(...a)}',
  lilconfig:
    'module.exports = {lilconfig: (...a) => load().lilconfig(...a), lilconfigSync: (...a) => load().lilconfigSync(...a)}',
  // debug(namespace) is called while oclif loads; the real module is only needed once DEBUG is set.
  debug: `
    function createDebug(namespace) {
      let instance
      const get = () => (instance ??= load()(namespace))
      const log = (...args) => { if (process.env.DEBUG) get()(...args) }
      Object.defineProperty(log, 'enabled', {get: () => Boolean(process.env.DEBUG) && get().enabled, set: (v) => { get().enabled = v }})
      log.extend = (sub, delimiter = ':') => createDebug(namespace + delimiter + sub)
      log.namespace = namespace
      return log
    }
    module.exports = createDebug
    module.exports.enable = (ns) => load().enable(ns)
    module.exports.disable = () => load().disable()
    module.exports.enabled = (ns) => load().enabled(ns)`,
}

/**
 * Node built-ins oclif requires at load time for rare paths: Windows shell detection, flags read from stdin,
 * performance tracing (OCLIF_PERFORMANCE).
 */
const LAZY_BUILTINS = ['node:child_process', 'node:readline', 'node:perf_hooks']

/**
 * oclif asks wsl-utils whether it runs under WSL on every start, which loads that package and its dependencies
 * (child_process, dgram, worker_threads, ...): about 8 ms. The answer only labels config.platform; this stub gives
 * it from os.release() and /proc/version (is-wsl's own test, without its container check) and loads the real
 * package only for Windows PowerShell paths.
 */
const WSL_STUB = `
  import {release} from 'node:os'
  import {readFileSync} from 'node:fs'
  const mentionsMicrosoft = (text) => text.toLowerCase().includes('microsoft')
  export const isWsl =
    process.platform === 'linux' &&
    (mentionsMicrosoft(release()) || (() => { try { return mentionsMicrosoft(readFileSync('/proc/version', 'utf8')) } catch { return false } })())
  export const powerShellPath = async (...args) => (await import(REAL)).powerShellPath(...args)`

/**
 * dockerode loads a BuildKit session client (grpc-js and proto-loader) and docker-modem an SSH transport (ssh2)
 * on require: 120 ms of the 180 ms dockerode costs; its BuildKit progress decoder brings protobufjs. xpk builds with the classic builder over the local socket, so
 * dockerode is bundled and these two files load, from node_modules, only if ever called (BuildKit sessions,
 * ssh:// DOCKER_HOST). Loading them from the package keeps their own paths (session.js reads .proto files next
 * to itself).
 */
const DOCKERODE_RARELY_USED = {
  // `fromDisk` is require under another name, so esbuild leaves the call alone and Node resolves it at run time.
  './session': {importer: /[\\/]dockerode[\\/]lib[\\/]docker\.js$/, runtime: "fromDisk('dockerode/lib/session.js')"},
  './buildkit': {importer: /[\\/]dockerode[\\/]lib[\\/]docker\.js$/, runtime: "fromDisk('dockerode/lib/buildkit.js')"},
  './ssh': {
    importer: /[\\/]docker-modem[\\/]lib[\\/]modem\.js$/,
    runtime: "fromDisk('node:module').createRequire(fromDisk.resolve('dockerode'))('docker-modem/lib/ssh.js')",
  },
}

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
 * collation, about 11 ms. Command ids are ASCII, so plain code-point order is the same order. The build fails if
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
