// Why xpk talks to GKE over REST with fetch instead of through @google-cloud/container: the time from starting a
// Node process to the GKE fake (test/fakes/fake-gke.ts) receiving its first request (ListClusters), per way of
// making that request, against `node -e 0`. Each way runs in its own process with Node's compile cache on (filled
// by a warm-up run, as bin/run.js keeps one), interleaved over RUNS rounds (default 15); medians of per-round ratios.
//
//   fetch (xpk's adapter)       src/adapters/gke-container-api.ts as built, plain http to loopback: no credentials
//   fetch + google-auth-library the same after importing google-auth-library, which Application Default
//                               Credentials need (its token request is not timed: it would leave the machine)
//   gax REST (fallback: true)   the library's ClusterManagerClient over its REST transport, v1 only
//   gax gRPC                    the library's ClusterManagerClient over gRPC, v1 only, the v1beta1 protos dropped
//                               before parsing (the adapter before REST, which halved the library's own cost)
//
// Run with `npm run bench:gke-transports`.
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {build} from 'esbuild'

import {loadFakeGke} from './fake-gke.mjs'

const RUNS = Number(process.env.RUNS ?? 15)
const root = fileURLToPath(new URL('..', import.meta.url))
const scratch = mkdtempSync(join(tmpdir(), 'xpk-bench-transports-'))
symlinkSync(join(root, 'node_modules'), join(scratch, 'node_modules'), 'dir')
const cache = join(scratch, 'compile-cache')

await build({
  entryPoints: [join(root, 'src/adapters/gke-container-api.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  packages: 'external',
  outfile: join(scratch, 'gke-adapter.mjs'),
  logLevel: 'warning',
})

const prelude = `import module, {createRequire} from 'node:module'
module.enableCompileCache(${JSON.stringify(cache)})
const require = createRequire(import.meta.url)
const port = Number(process.argv[2])
`
// The v1beta1 half of the bundled protos, which the v1 client never uses (what the gRPC adapter dropped).
const withoutV1beta1 = `function withoutV1beta1(json) {
  const google = json.nested.google
  const {v1beta1: _, ...v1} = google.nested.container.nested
  return {...json, nested: {...json.nested, google: {...google, nested: {...google.nested, container: {...google.nested.container, nested: v1}}}}}
}
`
const scripts = {
  'xpk adapter (node:http)': `${prelude}
const {createGkeClient} = await import('./gke-adapter.mjs')
await (await createGkeClient({endpoint: 'http://127.0.0.1:' + port})).listClusters('p')`,
  'xpk adapter + auth library': `${prelude}
await import('google-auth-library')
const {createGkeClient} = await import('./gke-adapter.mjs')
await (await createGkeClient({endpoint: 'http://127.0.0.1:' + port})).listClusters('p')`,
  'xpk adapter over fetch': `${prelude}
const {createGkeClient} = await import('./gke-adapter.mjs')
await (await createGkeClient({endpoint: 'http://127.0.0.1:' + port, fetch})).listClusters('p')`,
  'gax REST (fallback: true)': `${prelude}${withoutV1beta1}
const gax = require('google-gax')
const {ClusterManagerClient} = require('@google-cloud/container/build/src/v1/cluster_manager_client.js')
class V1Only extends gax.fallback.GrpcClient { loadProtoJSON(json, ignoreCache) { return super.loadProtoJSON(withoutV1beta1(json), ignoreCache) } }
const authClient = new gax.googleAuthLibrary.OAuth2Client()
authClient.setCredentials({access_token: 'bench'})
const client = new ClusterManagerClient(
  {fallback: true, protocol: 'http', apiEndpoint: '127.0.0.1', port, authClient, universeDomain: 'googleapis.com'},
  {...gax, fallback: {...gax.fallback, GrpcClient: V1Only}},
)
await client.listClusters({parent: 'projects/p/locations/-'}, {retry: null})`,
  'gax gRPC': `${prelude}${withoutV1beta1}
const gax = require('google-gax')
const {ClusterManagerClient} = require('@google-cloud/container/build/src/v1/cluster_manager_client.js')
class V1Only extends gax.GrpcClient { loadProtoJSON(json, ignoreCache) { return super.loadProtoJSON(withoutV1beta1(json), ignoreCache) } }
const client = new ClusterManagerClient(
  {apiEndpoint: '127.0.0.1', port, universeDomain: 'googleapis.com', sslCreds: gax.grpc.credentials.createInsecure()},
  {...gax, GrpcClient: V1Only},
)
await client.listClusters({parent: 'projects/p/locations/-'}, {retry: null})
await client.close()`,
}
const files = Object.fromEntries(
  Object.entries(scripts).map(([name, text], i) => {
    const file = join(scratch, `transport-${i}.mjs`)
    writeFileSync(file, text)
    return [name, file]
  }),
)

const {FakeGke, cleanup} = await loadFakeGke()
const fake = await FakeGke.start()

/** One process; resolves its wall time and when the fake saw its first request (over gRPC or REST). */
function timeOnce(name) {
  return new Promise((resolve, reject) => {
    fake.calls.length = 0
    const port = name === 'gax gRPC' ? fake.port : fake.restPort
    const args = name === 'node -e 0' ? ['-e', '0'] : [files[name], String(port)]
    const startedAt = Date.now()
    const start = process.hrtime.bigint()
    const child = spawn(process.execPath, args, {
      cwd: scratch,
      env: {PATH: process.env.PATH, METADATA_SERVER_DETECTION: 'none', CLOUDSDK_CONFIG: scratch},
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6
      if (code !== 0) return reject(new Error(`${name} exited ${code}: ${stderr}`))
      if (name !== 'node -e 0' && fake.calls.length !== 1) return reject(new Error(`${name}: no request`))
      resolve({ms, first: name === 'node -e 0' ? ms : fake.calls[0].at - startedAt})
    })
  })
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

try {
  const names = ['node -e 0', ...Object.keys(scripts)]
  for (const name of names) await timeOnce(name)
  const samples = Object.fromEntries(names.map((n) => [n, []]))
  for (let round = 0; round < RUNS; round++) for (const name of names) samples[name].push(await timeOnce(name))
  const base = samples['node -e 0'].map((s) => s.ms)
  const ratio = (xs) => median(xs.map((ms, i) => ms / base[i]))
  console.log(`First GKE request from a new process, median of ${RUNS} interleaved rounds (Node ${process.version}):`)
  for (const name of names) {
    const first = samples[name].map((s) => s.first)
    const wall = samples[name].map((s) => s.ms)
    console.log(
      `  ${name.padEnd(28)} first request ${median(first).toFixed(0).padStart(5)} ms ${ratio(first).toFixed(2)}x` +
        `   whole process ${median(wall).toFixed(0).padStart(5)} ms ${ratio(wall).toFixed(2)}x node -e 0`,
    )
  }
} finally {
  await fake.stop()
  cleanup()
  rmSync(scratch, {recursive: true, force: true})
}
