// Benchmark: `xpk workload list` as a whole CLI process over 10,000 workloads in the Kubernetes fake (half admitted
// and running, a quarter queued, a quarter finished), each a JobSet as `workload create` submits it plus the Workload
// Kueue makes for it, with their statuses. Prints the median of RUNS runs (default 5) of wall time and peak memory
// (the CLI process's own maximum resident set, from process.resourceUsage() at exit), and the requests it made:
// list requests must equal the pages (500 objects each, per kind). Targets: at most 1.5 s and 300 MB.
// Run with `npm run bench:workload-list` (which builds first). WORKLOADS=n changes the count; PAGE=n the page size
// the request count is checked against (the CLI asks for 500); RUNS=n the runs per case; CASES=table,json,queued and
// TARGETS=fake,replay pick what runs; CPU_PROF_DIR=dir writes a V8 CPU profile of every CLI run there;
// EXTRA_NODE_FLAGS="--max-semi-space-size=64" tries V8 settings; KUBECTL=0 leaves out the kubectl reference row;
// COMPARE=dir[,dir...] runs the CLI built in other checkouts (dir/bin/run.js) in turn with this one, run for run
// against the same fake under the same load, and prints their lines under this one's; COMPARE_REF=commit builds
// that commit of this repository in a temporary directory (bench/build-ref.mjs) and compares it the same way.
//
// CPU is reported apart for the CLI (its process's user+system time, from process.resourceUsage() at exit) and for
// the server (this process's CPU while the CLI runs: the fake, or the replay, serves every request from here), so
// the reader sees what is xpk's own cost; on a 2-core machine both compete for the same cores, so wall time is
// noisy: compare the CPU columns, and medians.
//
// Each case runs twice: against the fake itself, and against a replay of the fake's answers (a TLS server that
// forwards each request to the fake once, records the answer and serves it from memory after that). The fake
// keeps each object's list-item JSON and writes a page as those pieces (as the API server's watch cache serves
// serialized objects); the replay shows what the CLI costs with a server that does nothing but send bytes.
//
// The fake keeps JobSet and Workload CRDs that accept any object: validating 20,000 objects against the 1.4 MB Kueue schema would only slow the set-up, and the objects stored are
// the same valid ones either way (the e2e tests validate them against the real CRDs).
import {Buffer} from 'node:buffer'
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {createServer, request} from 'node:https'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {URLSearchParams, fileURLToPath} from 'node:url'

import {at, kueueWorkloadFor, submittedJobSet} from '../test/builders/workload-states.ts'
import {makeFakeKubeTls} from '../test/fakes/fake-kube-tls.ts'
import {buildRef} from './build-ref.mjs'
import {cliEnv, loadFakeGke, loadFakeKube} from './fake-gke.mjs'
import {anyObjectCrd, PRIORITY_CYCLE, workloadState} from './workload-mix.mjs'

const RUNS = Number(process.env.RUNS ?? 5)
const WORKLOADS = Number(process.env.WORKLOADS ?? 10_000)
const PAGE = Number(process.env.PAGE ?? 500)
const TARGET_S = 1.5
const TARGET_MB = 300
const PROJECT = 'bench-project'
const ZONE = 'us-central2-b'

const root = fileURLToPath(new URL('..', import.meta.url))
const bin = join(root, 'bin/run.js')
const scratch = mkdtempSync(join(tmpdir(), 'xpk-bench-list-'))
const cacheHome = mkdtempSync(join(scratch, 'cache-'))
// Reports the process's peak resident set on stderr as it exits (process.resourceUsage().maxRSS is in KiB).
const PEAK = `data:text/javascript,process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('\\nXPK_BENCH_MAXRSS_KB='+u.maxRSS+' XPK_BENCH_CPU_US='+(u.userCPUTime+u.systemCPUTime)+'\\n')})`

// Built before any server starts, so a ref that does not build stops the benchmark at once.
const refBuild = process.env.COMPARE_REF ? buildRef(process.env.COMPARE_REF) : undefined
const {FakeKube, cleanup: cleanKube} = await loadFakeKube()
const {FakeGke, cleanup: cleanGke} = await loadFakeGke()
const kube = await FakeKube.start()
const gke = await FakeGke.start({...kube.gkeClusterOptions()})
gke.seedCluster({project: PROJECT, location: 'us-central2', name: 'bench'})

const crds = [
  anyObjectCrd('jobset.x-k8s.io', 'JobSet', 'jobsets', 'v1alpha2'),
  anyObjectCrd('kueue.x-k8s.io', 'Workload', 'workloads', 'v1beta2'),
]
kube.seed(...crds)

const seedStarted = Date.now()
const expected = {QUEUED: 0, RUNNING: 0, FINISHED: 0}
for (let i = 0; i < WORKLOADS; i++) {
  const name = `bench-${String(i).padStart(5, '0')}`
  const s = workloadState(i)
  expected[s.expected]++
  const jobset = submittedJobSet(name, PRIORITY_CYCLE[i % 5], at(i % 60))
  const [stored] = kube.seed({...jobset, status: s.jobset})
  kube.seed({...kueueWorkloadFor(stored, at(i % 60)), status: s.kueue})
}
const seconds = ((Date.now() - seedStarted) / 1000).toFixed(1)
console.log(`Seeded ${WORKLOADS} JobSets and ${WORKLOADS} Workloads in the fake in ${seconds} s.`)

/**
 * A TLS server in front of the fake: the first time a request (method and URL) is seen it is forwarded and its
 * answer kept; after that the kept answer is sent at once.
 */
async function replayServer() {
  const tls = await makeFakeKubeTls()
  const kept = new Map()
  const upstream = new URL(kube.url)
  const forward = (req) =>
    new Promise((resolve, reject) => {
      const out = request(
        {
          hostname: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          ca: kube.caPem,
          headers: {authorization: req.headers.authorization ?? '', accept: 'application/json'},
        },
        (res) => {
          const chunks = []
          res.on('data', (c) => chunks.push(c))
          res.on('end', () =>
            resolve({status: res.statusCode, type: res.headers['content-type'], body: Buffer.concat(chunks)}),
          )
          res.on('error', reject)
        },
      )
      out.on('error', reject)
      out.end()
    })
  const urls = []
  const server = createServer({cert: tls.serverCertPem, key: tls.serverKeyPem}, (req, res) => {
    urls.push(req.url)
    const key = `${req.method} ${req.url}`
    const answer = kept.get(key) ?? forward(req).then((a) => (kept.set(key, a), a))
    Promise.resolve(answer).then(
      (a) => {
        res.writeHead(a.status, {'content-type': a.type ?? 'application/json', 'content-length': a.body.length})
        res.end(a.body)
      },
      () => res.destroy(),
    )
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const gkeForReplay = await FakeGke.start({
    clusterEndpoint: `127.0.0.1:${server.address().port}`,
    clusterCaCertificate: Buffer.from(tls.caPem).toString('base64'),
  })
  gkeForReplay.seedCluster({project: PROJECT, location: 'us-central2', name: 'bench'})
  return {
    gke: gkeForReplay,
    urls,
    kubeconfig: kubeconfigFor(`https://127.0.0.1:${server.address().port}`, Buffer.from(tls.caPem).toString('base64')),
    stop: async () => (server.close(), await gkeForReplay.stop()),
  }
}

/** A kubeconfig file for kubectl, the reference client: one context for the server at `url`. */
function kubeconfigFor(url, caData) {
  const file = join(mkdtempSync(join(scratch, 'kubeconfig-')), 'config')
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{name: 'bench', cluster: {server: url, 'certificate-authority-data': caData}}],
      users: [{name: 'bench', user: {token: kube.token}}],
      contexts: [{name: 'bench', context: {cluster: 'bench', user: 'bench', namespace: 'default'}}],
      'current-context': 'bench',
    }),
  )
  return file
}

/**
 * kubectl reading the same two kinds, for reference (the client Kubernetes users know): `kubectl get
 * jobsets,workloads -o name`, in pages of 500 as kubectl asks by default. Its discovery is cached after the first run,
 * as it is for a user. Wall time and CPU of the whole process; null when kubectl is not installed.
 */
function runKubectl(kubeconfig) {
  return new Promise((resolve) => {
    const start = process.hrtime.bigint()
    // bash's `time` gives kubectl's own CPU (user and system seconds); `wc -l` checks every object was listed.
    const script =
      'TIMEFORMAT="%U %S"; time kubectl --kubeconfig "$1" --cache-dir "$2" ' +
      'get jobsets.jobset.x-k8s.io,workloads.kueue.x-k8s.io -o name | wc -l'
    const child = spawn('bash', ['-c', script, 'kubectl-bench', kubeconfig, join(scratch, 'kubectl-cache')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (err += d))
    child.on('error', () => resolve(null))
    child.on('close', (code) => {
      const [user, sys] = err.trim().split('\n').at(-1).split(' ').map(Number)
      if (code !== 0 || Number(out.trim()) !== 2 * WORKLOADS) resolve(null)
      else resolve({ms: Number(process.hrtime.bigint() - start) / 1e6, cpu: user + sys})
    })
  })
}

const builds = [{label: '', bin}]
// COMPARE=dir[,dir...]: other builds, run in turn with this one.
for (const dir of process.env.COMPARE?.split(',').filter(Boolean) ?? []) {
  builds.push({label: process.env.COMPARE.includes(',') ? ` (${dir})` : ' (COMPARE)', bin: join(dir, 'bin/run.js')})
}
if (refBuild) builds.push({label: ` (${process.env.COMPARE_REF.slice(0, 12)})`, bin: join(refBuild.dir, 'bin/run.js')})

function runCli(args, target = gke, cli = bin) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint()
    // This process's CPU while the CLI runs is the fake's (and the replay server's): it serves every request here.
    const serverCpu = process.cpuUsage()
    // As the bin's shebang runs it (`node --min-semi-space-size=16`), plus the peak-memory report.
    const profile = process.env.CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.CPU_PROF_DIR}`] : []
    const extra = process.env.EXTRA_NODE_FLAGS?.split(' ').filter(Boolean) ?? []
    const child = spawn(
      process.execPath,
      ['--min-semi-space-size=16', ...extra, ...profile, '--import', PEAK, '--', cli, ...args],
      {
        env: {...cliEnv(target, scratch, cacheHome), XPK_ACCESS_TOKEN: kube.token},
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6
      const rss = Number(/XPK_BENCH_MAXRSS_KB=(\d+)/.exec(stderr)?.[1])
      const cpu = Number(/XPK_BENCH_CPU_US=(\d+)/.exec(stderr)?.[1]) / 1e6
      const served = process.cpuUsage(serverCpu)
      const fakeCpu = (served.user + served.system) / 1e6
      if (code !== 0) reject(new Error(`xpk ${args.join(' ')} exited ${code}:\n${stderr}`))
      else resolve({ms, mb: rss / 1024, cpu, fakeCpu, stdout})
    })
  })
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

const listArgs = ['workload', 'list', '--project', PROJECT, '--zone', ZONE, '--cluster', 'bench']
const cases = [
  {key: 'table', label: 'table', args: listArgs, check: (out) => out.trimEnd().split('\n').length === WORKLOADS + 1},
  {
    key: 'json',
    label: '--json',
    args: [...listArgs, '--json'],
    check: (out) => JSON.parse(out).workloads.length === WORKLOADS,
  },
  {
    key: 'queued',
    label: '--filter-by-status QUEUED',
    args: [...listArgs, '--filter-by-status', 'QUEUED'],
    check: (out) => out.trimEnd().split('\n').length === expected.QUEUED + 1,
  },
]

/** Prints the medians of a case's runs. */
function report(label, runs, requests, pages) {
  const wall = median(runs.map((r) => r.ms)) / 1000
  const mb = median(runs.map((r) => r.mb))
  const cpu = median(runs.map((r) => r.cpu))
  const fakeCpu = median(runs.map((r) => r.fakeCpu))
  const spread = `${(Math.min(...runs.map((r) => r.ms)) / 1000).toFixed(2)}-${(Math.max(...runs.map((r) => r.ms)) / 1000).toFixed(2)}`
  const ok = wall <= TARGET_S && mb <= TARGET_MB && requests.lists === pages
  console.log(
    `  ${label.padEnd(26)} ${wall.toFixed(2)} s (${spread})  ${mb.toFixed(0)} MB  ` +
      `CPU: CLI ${cpu.toFixed(2)} s, server ${fakeCpu.toFixed(2)} s  ` +
      `${requests.lists} lists + ${requests.other} other  ${ok ? 'OK' : 'OVER TARGET'}`,
  )
}

/** Lists and discovery requests among the URLs the CLI asked for. */
function countRequests(urls) {
  const lists = urls.filter((u) => /\/(workloads|jobsets)(\?|$)/.test(u)).length
  return {lists, other: urls.length - lists}
}

const replay = await replayServer()
const targets = [
  {
    key: 'fake',
    label: 'against the fake',
    gke,
    urls: () => kube.requests.map((q) => `${q.path}?${new URLSearchParams(q.query)}`),
  },
  {
    key: 'replay',
    label: 'replayed answers',
    gke: replay.gke,
    urls: () => replay.urls.splice(0),
    kubeconfig: replay.kubeconfig,
  },
]
targets[0].kubeconfig = kubeconfigFor(kube.url, kube.caData)

try {
  const pages = 2 * Math.ceil(WORKLOADS / PAGE)
  console.log(
    `\nxpk workload list over ${WORKLOADS} workloads: median of ${RUNS} runs (spread), peak memory, CPU of the CLI ` +
      `and of the server (the fake or the replay, in this process), requests; targets ${TARGET_S} s, ` +
      `${TARGET_MB} MB, lists = pages = ${pages}`,
  )
  for (const target of targets.filter((t) => !process.env.TARGETS || process.env.TARGETS.includes(t.key))) {
    // A warm-up run fills the compile cache, as a user's earlier runs have (and the replay's answers).
    for (const build of builds) await runCli(listArgs, target.gke, build.bin)
    console.log(`${target.label}:`)
    for (const c of cases.filter((c) => !process.env.CASES || process.env.CASES.includes(c.key))) {
      const runs = builds.map(() => [])
      const requests = builds.map(() => undefined)
      for (let r = 0; r < RUNS; r++) {
        for (const [b, build] of builds.entries()) {
          kube.requests.length = 0
          target.urls()
          const run = await runCli(c.args, target.gke, build.bin)
          if (!c.check(run.stdout)) throw new Error(`${c.label}: the output does not have the expected rows`)
          runs[b].push(run)
          requests[b] = countRequests(target.urls())
        }
      }
      for (const [b, build] of builds.entries()) report(c.label + build.label, runs[b], requests[b], pages)
    }
    if (process.env.KUBECTL !== '0') {
      await runKubectl(target.kubeconfig) // fills kubectl's discovery cache, as a user's earlier runs have
      const runs = []
      for (let r = 0; r < RUNS; r++) runs.push(await runKubectl(target.kubeconfig))
      if (runs.every(Boolean))
        console.log(
          `  ${'kubectl get -o name (ref.)'.padEnd(26)} ${(median(runs.map((r) => r.ms)) / 1000).toFixed(2)} s` +
            `                CPU: kubectl ${median(runs.map((r) => r.cpu)).toFixed(2)} s`,
        )
      else console.log('  kubectl (reference): not run (kubectl not found, or it did not list every object)')
    }
  }
} finally {
  await replay.stop()
  await gke.stop()
  await kube.stop()
  cleanKube()
  cleanGke()
  rmSync(scratch, {recursive: true, force: true})
  refBuild?.remove()
}
