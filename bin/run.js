#!/usr/bin/env node
import module from 'node:module'

// Cache compiled bytecode between runs: start-up time is a feature of this CLI.
module.enableCompileCache?.()
const {run} = await import('../dist/xpk.js')
await run(process.argv.slice(2))
