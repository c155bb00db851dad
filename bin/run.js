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
await run(args)
