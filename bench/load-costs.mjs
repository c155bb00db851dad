// What a first request costs a new Node process, by the way it is made: the measurements behind http-client.ts
// (no fetch, node:http from process.getBuiltinModule) and docker-engine.ts (the local image lookup without
// dockerode). Each case runs in its own process with Node's compile cache on (filled by a warm-up run), interleaved
// over RUNS rounds (default 15); the figure is the median time from the process's first line to the answer.
//
//   fetch                      the global fetch (its first call loads undici)
//   node:http, ESM import      `await import('node:http')`, then http.request (the import loads undici too)
//   node:http, getBuiltinModule process.getBuiltinModule('node:http'), then http.request (what xpk does)
//   image lookup, dockerode    dockerode as xpk bundles it (dist/chunks/docker-*.js), getImage().inspect()
//   image lookup, socket GET   GET /images/NAME/json on the engine's socket with node:http (what xpk does)
//
// The image lookups need a Docker engine (skipped without one). Run with `npm run bench:load-costs` (builds first).
import {spawn} from 'node:child_process'
import {existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

const RUNS = Number(process.env.RUNS ?? 15)
const root = fileURLToPath(new URL('..', import.meta.url))
const scratch = mkdtempSync(join(tmpdir(), 'xpk-bench-loads-'))
const cache = join(scratch, 'compile-cache')
const dockerChunk = readdirSync(join(root, 'dist/chunks')).find((f) => /^docker-[A-Z0-9]+\.js$/.test(f))
const socket = '/var/run/docker.sock'

const server = createServer((request, response) => response.end('{}'))
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
const url = `http://127.0.0.1:${server.address().port}/`

const prelude = `import module from 'node:module'
module.enableCompileCache(${JSON.stringify(cache)})
const started = performance.now()
const get = (http, options) => new Promise((resolve, reject) => http.request(options, (r) => { r.resume(); r.on('end', resolve) }).on('error', reject).end())
`
const done = `process.stdout.write(String(performance.now() - started))`
const cases = {
  fetch: `${prelude}await (await fetch(${JSON.stringify(url)})).text()\n${done}`,
  'node:http, ESM import': `${prelude}await get(await import('node:http'), ${JSON.stringify(url)})\n${done}`,
  'node:http, getBuiltinModule': `${prelude}await get(process.getBuiltinModule('node:http'), ${JSON.stringify(url)})\n${done}`,
}
if (existsSync(socket) && dockerChunk) {
  const image = "'/images/xpk-bench-absent:1/json'"
  cases['image lookup, dockerode'] =
    `${prelude}const {default: Docker} = await import(${JSON.stringify(join(root, 'dist/chunks', dockerChunk))})
await new Docker().getImage('xpk-bench-absent:1').inspect().catch(() => undefined)\n${done}`
  cases['image lookup, socket GET'] =
    `${prelude}await get(process.getBuiltinModule('node:http'), {socketPath: ${JSON.stringify(socket)}, path: ${image}})\n${done}`
} else {
  console.log('No Docker engine socket or no build: the image lookups are skipped.')
}
const files = Object.fromEntries(
  Object.entries(cases).map(([name, text], i) => {
    const file = join(scratch, `case-${i}.mjs`)
    writeFileSync(file, text)
    return [name, file]
  }),
)

function timeOnce(name) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [files[name]], {stdio: ['ignore', 'pipe', 'pipe']})
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    child.on('close', (code) => (code === 0 ? resolve(Number(out)) : reject(new Error(`${name}: ${err}`))))
  })
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

try {
  const names = Object.keys(cases)
  for (const name of names) await timeOnce(name)
  const samples = Object.fromEntries(names.map((n) => [n, []]))
  for (let round = 0; round < RUNS; round++) for (const name of names) samples[name].push(await timeOnce(name))
  console.log(`First request from a new process, median of ${RUNS} interleaved rounds (Node ${process.version}):`)
  for (const name of names) console.log(`  ${name.padEnd(30)} ${median(samples[name]).toFixed(1).padStart(6)} ms`)
} finally {
  server.close()
  rmSync(scratch, {recursive: true, force: true})
}
