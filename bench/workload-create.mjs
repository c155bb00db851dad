// Workload-create benchmark: the whole CLI process `xpk workload create --docker-image ...` (an image already
// pushed, so nothing is built) submitting to the GKE fake and the Kubernetes API fake (test/fakes/fake-gke.ts and
// fake-kube.ts, in this process), with LATENCY_MS (default 0) added to every Kubernetes request. Medians of RUNS runs
// (default 9), each under a new workload name, after one warm-up run that fills Node's compile cache and creates the
// workloads' ServiceAccount and RBAC, as a cluster's first submit does.
//
// Reported per run: wall time, the Kubernetes requests the fake received (all of them: API requests and discovery
// requests, each also shown apart), GKE requests, and `node -e 0` for scale. Targets (issue 11): under 1 s and at
// most 6 requests to Kubernetes and the registry, discovery included (none to the registry here: the image is
// given). The first submit on a cluster is shown too: it also applies the four RBAC objects.
// COMPARE_REF=commit builds the CLI as it was at that commit (bench/build-ref.mjs) and runs it in turn with this one,
// run for run against the same fakes, printing its medians under this one's.
// Run with `npm run bench:workload-create` (which builds first).
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {delimiter, dirname, join} from 'node:path'

import {buildRef} from './build-ref.mjs'
import {cliEnv, loadFakeGke, loadFakeKube, submitReadyObjects} from './fake-gke.mjs'

const RUNS = Number(process.env.RUNS ?? 9)
const LATENCY_MS = Number(process.env.LATENCY_MS ?? 0)
const WALL_TARGET_MS = 1000
const REQUEST_TARGET = 6
const PROJECT = 'bench-project'
const ZONE = 'us-central2-b'
const IMAGE = `us-docker.pkg.dev/${PROJECT}/repo/trainer@sha256:${'a'.repeat(64)}`
const node = process.execPath
const bin = new URL('../bin/run.js', import.meta.url).pathname
const scratch = mkdtempSync(join(tmpdir(), 'xpk-bench-workload-'))
const COMPARE_REF = process.env.COMPARE_REF
const ref = COMPARE_REF ? buildRef(COMPARE_REF) : undefined
const refBin = ref && join(ref.dir, 'bin/run.js')

const {FakeGke, cleanup} = await loadFakeGke()
const {FakeKube, cleanup: cleanupKube} = await loadFakeKube()
const kube = await FakeKube.start({latencyMs: LATENCY_MS})
const gke = await FakeGke.start(kube.gkeClusterOptions())
gke.seedCluster({project: PROJECT, location: 'us-central2', name: 'bench'})

/** The cluster as `cluster create` leaves it, as far as a submit reads it: the JobSet kind and the ConfigMap. */
function setUpCluster() {
  kube.reset()
  kube.seed(...submitReadyObjects('bench', 'v5litepod-16', 16))
}

const env = {
  ...cliEnv(gke, scratch, mkdtempSync(join(scratch, 'cache-'))),
  PATH: `${dirname(node)}${delimiter}${process.env.PATH}`,
  XPK_ACCESS_TOKEN: kube.token,
  XPK_PROJECT: PROJECT,
  XPK_ZONE: ZONE,
}

/** Runs a process to completion (the fakes live in this process and must keep answering); its wall time in ms. */
function time(argv) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint()
    const child = spawn(argv[0], argv.slice(1), {env, stdio: ['ignore', 'ignore', 'pipe']})
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`${argv.join(' ')} exited ${code}:\n${stderr}`))
      else resolve(Number(process.hrtime.bigint() - start) / 1e6)
    })
  })
}

const submit = (name, cli = bin) =>
  time([
    cli,
    ...['workload', 'create', '--cluster', 'bench', '--workload', name],
    ...['--tpu-type', 'v5litepod-16', '--num-slices', '4', '--priority', 'high'],
    ...['--docker-image', IMAGE, '--command', 'python3 train.py'],
  ])

/** One submit, with what it asked of each fake. */
async function measured(name, cli = bin) {
  kube.requests.length = 0
  gke.calls.length = 0
  const ms = await submit(name, cli)
  const api = kube.requests.filter((r) => r.verb !== 'discovery')
  return {
    ms,
    total: kube.requests.length,
    api: api.length,
    mutating: api.filter((r) => r.mutating).length,
    discovery: kube.requests.length - api.length,
    gke: gke.calls.length,
    lines: kube.requests.map((r) =>
      r.verb === 'discovery' ? `discovery ${r.path}` : `${r.verb} ${r.resource}${r.name ? ` ${r.name}` : ''}`,
    ),
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

try {
  setUpCluster()
  // The first submit on a cluster also creates the ServiceAccount, Role and RoleBindings (and warms the cache).
  const first = await measured('bench-first')
  if (refBin) await measured('bench-ref-first', refBin)
  const nodeMs = []
  const runs = []
  const refRuns = []
  for (let i = 0; i < RUNS; i++) {
    nodeMs.push(await time([node, '-e', '0']))
    runs.push(await measured(`bench-${i}`))
    if (refBin) refRuns.push(await measured(`bench-ref-${i}`, refBin))
  }
  const wall = median(runs.map((r) => r.ms))
  const total = median(runs.map((r) => r.total))
  const row = (name, value, target, ok) =>
    console.log(`${name.padEnd(44)} ${String(value).padStart(10)}   ${target.padEnd(10)} ${ok ? 'ok' : 'OVER'}`)
  console.log(`xpk workload create --docker-image, ${RUNS} runs, ${LATENCY_MS} ms added per Kubernetes request\n`)
  console.log(`${'measure (median)'.padEnd(44)} ${'result'.padStart(10)}   target`)
  row('wall time, whole CLI', `${wall.toFixed(0)} ms`, '< 1000 ms', wall < WALL_TARGET_MS)
  row('Kubernetes + registry requests (all)', total, `<= ${REQUEST_TARGET}`, total <= REQUEST_TARGET)
  const line = (name, value) => console.log(`${name.padEnd(44)} ${String(value).padStart(10)}`)
  line('  API requests', median(runs.map((r) => r.api)))
  line('    of which mutating', median(runs.map((r) => r.mutating)))
  line('  discovery requests', median(runs.map((r) => r.discovery)))
  line('GKE requests (finding the cluster)', median(runs.map((r) => r.gke)))
  line('node -e 0', `${median(nodeMs).toFixed(0)} ms`)
  if (refRuns.length > 0) {
    line(`wall time, ${COMPARE_REF.slice(0, 12)}`, `${median(refRuns.map((r) => r.ms)).toFixed(0)} ms`)
    line(`  requests (all), ${COMPARE_REF.slice(0, 12)}`, median(refRuns.map((r) => r.total)))
  }
  console.log(`\nrequests of one submit: ${runs.at(-1).lines.sort().join(', ')}`)
  console.log(
    `first submit on the cluster (RBAC applied too): ${first.ms.toFixed(0)} ms (includes filling the compile cache), ` +
      `${first.total} requests: ${first.api} API (${first.mutating} mutating), ${first.discovery} discovery`,
  )
  if (wall >= WALL_TARGET_MS || total > REQUEST_TARGET) process.exitCode = 1
} finally {
  await gke.stop()
  await kube.stop()
  cleanup()
  cleanupKube()
  ref?.remove()
  rmSync(scratch, {recursive: true, force: true})
}
