#!/usr/bin/env -S node --min-semi-space-size=16 --
// The `--` above matters: Node scans the whole command line for its own --env-file option, even after the script
// path, so `xpk workload create --env-file f` would otherwise be swallowed (and fail) inside Node itself.
// A 16 MB young generation from the start spares the garbage collector about ten scavenges (~10 ms) while the
// CLI loads; it only raises the young generation's starting size, not what the process may use.
// Plain JavaScript that any Node can parse, so an old Node reaches the version check instead of a syntax error.
import {mkdirSync} from 'node:fs'
import module from 'node:module'
import {homedir} from 'node:os'
import {join} from 'node:path'

// Ctrl-C, SIGTERM and SIGHUP end xpk with exit 130 and one line from here on, as the exit-code table says, instead of
// killing the process by the signal while it loads (143 for SIGTERM). A command that runs takes them over
// (src/cli/signals.ts): its waits end, it says what was already sent and exits 130 itself. Installed first, so that
// only Node's own start-up, before this line, is left to the signal's default action.
const stops = {handler: undefined}
const json = process.argv.includes('--json')
const onStop = (signal) => {
  if (stops.handler) return stops.handler(signal)
  const message = signal === 'SIGINT' ? 'Interrupted.' : `Stopped by ${signal}.`
  try {
    if (json) {
      const error = {kind: 'interrupted', exitCode: 130, message, hints: []}
      process.stdout.write(`${JSON.stringify({error}, null, 2)}\n`)
    } else process.stderr.write(`Error: ${message}\n`)
  } finally {
    process.exit(130)
  }
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, onStop)

const MIN_NODE_MAJOR = 22
const major = Number(process.versions.node.split('.')[0])
if (major < MIN_NODE_MAJOR) {
  process.stderr.write(
    `Error: xpk needs Node.js ${MIN_NODE_MAJOR} or later; this is Node.js ${process.versions.node}.\n` +
      '  Hint: install a current Node.js LTS (https://nodejs.org) or use a version manager such as nvm.\n',
  )
  process.exit(1)
}

// Cache compiled bytecode between runs (start-up time is a feature of this CLI), in the user's own cache
// directory: Node's default is a shared, world-writable temporary directory that another user could prepare.
// A directory that cannot be made (a read-only home, XDG_CACHE_HOME under /proc) means no cache. It is made one level
// at a time: Node's own recursive mkdir, which enableCompileCache uses too, spins forever on some such paths.
// XDG: a relative XDG_CACHE_HOME is to be ignored.
const cacheHome = process.env.XDG_CACHE_HOME?.startsWith('/') ? process.env.XDG_CACHE_HOME : join(homedir(), '.cache')
const cacheDir = join(cacheHome, 'xpk', 'compile-cache')
if (makeDirectory(cacheDir)) module.enableCompileCache?.(cacheDir)

function makeDirectory(path) {
  let at = ''
  for (const part of path.split('/').filter(Boolean)) {
    at += `/${part}`
    try {
      mkdirSync(at, {mode: 0o700})
    } catch (error) {
      if (error.code !== 'EEXIST') return false
    }
  }
  return true
}
// --verbose prints stack traces of errors: point them at src/ through the bundle's source maps. Only then, since
// reading the maps costs start-up time.
const args = process.argv.slice(2)
if (args.includes('--verbose') || args.includes('-v')) process.setSourceMapsEnabled(true)
const {run} = await import('../dist/xpk.js')
await run(args, stops)
