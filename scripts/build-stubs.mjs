// The stubs scripts/build.mjs puts in the bundle in place of modules the CLI loads but rarely uses, each loading the
// real module on first use. Apart from the build so that test/e2e/build-stubs.test.ts can hold each one to what it
// stands for: the paths that reach them run on the built CLI, and their surface is checked against what the installed
// oclif and dockerode use, so an upgrade that needs more of a module fails a test instead of a user's command.

/**
 * oclif requires these at load time but uses them rarely or never on our paths (plugin globbing, .oclifrc
 * search, plugin patterns, DEBUG=* tracing). Each is replaced by a stub with the same surface that loads the real
 * module, still bundled, on first use, so no command pays for loading them before it needs them (README, Speed).
 */
export const LAZY_PROXY = `module.exports = new Proxy(function lazy() {}, {
    get: (_, key) => (key === '__esModule' ? undefined : load()[key]),
    apply: (_, self, args) => load().apply(self, args),
    has: (_, key) => key in load(),
  })`
export const LAZY = {
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
export const LAZY_BUILTINS = ['node:child_process', 'node:readline', 'node:perf_hooks']

/**
 * oclif asks wsl-utils whether it runs under WSL on every start, which loads that package and its dependencies
 * (child_process, dgram, worker_threads, ...). The answer only labels config.platform; this stub gives
 * it from os.release() and /proc/version (is-wsl's own test, without its container check) and loads the real
 * package only for Windows PowerShell paths.
 */
export const WSL_STUB = `
  import {release} from 'node:os'
  import {readFileSync} from 'node:fs'
  const mentionsMicrosoft = (text) => text.toLowerCase().includes('microsoft')
  export const isWsl =
    process.platform === 'linux' &&
    (mentionsMicrosoft(release()) || (() => { try { return mentionsMicrosoft(readFileSync('/proc/version', 'utf8')) } catch { return false } })())
  export const powerShellPath = async (...args) => (await import(REAL)).powerShellPath(...args)`

/**
 * dockerode loads a BuildKit session client (grpc-js and proto-loader) and docker-modem an SSH transport (ssh2)
 * on require, most of what loading dockerode costs; its BuildKit progress decoder brings protobufjs. xpk builds with the classic builder over the local socket, so
 * dockerode is bundled and these two files load, from node_modules, only if ever called (BuildKit sessions,
 * ssh:// DOCKER_HOST). Loading them from the package keeps their own paths (session.js reads .proto files next
 * to itself).
 */
export const DOCKERODE_RARELY_USED = {
  // `fromDisk` is require under another name, so esbuild leaves the call alone and Node resolves it at run time.
  './session': {importer: /[\\/]dockerode[\\/]lib[\\/]docker\.js$/, runtime: "fromDisk('dockerode/lib/session.js')"},
  './buildkit': {importer: /[\\/]dockerode[\\/]lib[\\/]docker\.js$/, runtime: "fromDisk('dockerode/lib/buildkit.js')"},
  './ssh': {
    importer: /[\\/]docker-modem[\\/]lib[\\/]modem\.js$/,
    runtime: "fromDisk('node:module').createRequire(fromDisk.resolve('dockerode'))('docker-modem/lib/ssh.js')",
  },
}
