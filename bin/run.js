#!/usr/bin/env -S node --
// The `--` above matters: Node scans the whole command line for its own --env-file option, even after the script
// path, so `xpk workload create --env-file f` would otherwise be swallowed (and fail) inside Node itself.
import module from 'node:module'

// Cache compiled bytecode between runs: start-up time is a feature of this CLI.
module.enableCompileCache?.()
const {run} = await import('../dist/xpk.js')
await run(process.argv.slice(2))
