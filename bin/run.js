#!/usr/bin/env -S node --min-semi-space-size=16 --
// The `--` above matters: Node scans the whole command line for its own --env-file option, even after the script
// path, so `xpk workload create --env-file f` would otherwise be swallowed (and fail) inside Node itself.
// A 16 MB young generation from the start spares the garbage collector about ten scavenges (~10 ms) while the
// CLI loads; it only raises the young generation's starting size, not what the process may use.
import module from 'node:module'

// Cache compiled bytecode between runs: start-up time is a feature of this CLI.
module.enableCompileCache?.()
const {run} = await import('../dist/xpk.js')
await run(process.argv.slice(2))
