// Benchmark: `xpk queue` with 10,000 workloads (half running, a quarter queued, a quarter finished; the state mix of
// bench/workload-list.mjs). Two measures, medians of RUNS runs each (default 5; REFRESHES in-process refreshes):
//
// 1. The live view's refresh, in process: what each redraw costs after a watch event, from the kept objects to the
//    lines on screen (queueSnapshot over every workload, then renderQueueScreen for a 50 x 160 terminal). Target:
//    at most 100 ms, the view's refresh interval, so a change is on screen within one interval even at this scale.
// 2. The whole CLI process, `xpk queue --once` against `xpk workload list` (the same two lists, plus the
//    ClusterQueues), run for run, against the same Kubernetes fake: wall time and the CLI's own CPU.
//
// Run with `npm run bench:queue` (which builds first). WORKLOADS=n, RUNS=n and REFRESHES=n change the sizes.
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {queueSnapshot} from '../src/core/queue/snapshot.ts'
import {renderQueueScreen} from '../src/core/render/queue.ts'
import {readJobSet, readWorkload} from '../src/core/workload/observed.ts'
import {readClusterQueue} from '../src/core/workload/why-observed.ts'
import {at, kueueWorkloadFor, submittedJobSet} from '../test/builders/workload-states.ts'
import {cliEnv, loadFakeGke, loadFakeKube} from './fake-gke.mjs'
import {anyObjectCrd, PRIORITY_CYCLE, workloadState} from './workload-mix.mjs'

const RUNS = Number(process.env.RUNS ?? 5)
const REFRESHES = Number(process.env.REFRESHES ?? 30)
const WORKLOADS = Number(process.env.WORKLOADS ?? 10_000)
const REFRESH_TARGET_MS = 100
const PROJECT = 'bench-project'
const ZONE = 'us-central2-b'

const root = fileURLToPath(new URL('..', import.meta.url))
const bin = join(root, 'bin/run.js')
const scratch = mkdtempSync(join(tmpdir(), 'xpk-bench-queue-'))
const CPU = `data:text/javascript,process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('\\nXPK_BENCH_CPU_US='+(u.userCPUTime+u.systemCPUTime)+'\\n')})`

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

const objects = []
for (let i = 0; i < WORKLOADS; i++) {
  const name = `bench-${String(i).padStart(5, '0')}`
  const s = workloadState(i)
  const jobset = {...submittedJobSet(name, PRIORITY_CYCLE[i % 5], at(i % 60)), status: s.jobset}
  objects.push({jobset, workload: {...kueueWorkloadFor(jobset, at(i % 60)), status: s.kueue}})
}
const clusterQueue = {
  apiVersion: 'kueue.x-k8s.io/v1beta2',
  kind: 'ClusterQueue',
  metadata: {name: 'cluster-queue'},
  spec: {
    resourceGroups: [
      {flavors: [{name: '4xv5litepod-16', resources: [{name: 'google.com/tpu', nominalQuota: WORKLOADS * 64}]}]},
    ],
  },
}

// ---- 1. The refresh, in process ----
const inputs = {
  now: Date.parse(at(45)),
  workloads: objects.map((o) => readWorkload(o.workload)),
  jobsets: objects.map((o) => readJobSet(o.jobset)),
  clusterQueues: [readClusterQueue(clusterQueue)],
}
const refreshMs = []
let lines = []
for (let r = 0; r < REFRESHES; r++) {
  const start = process.hrtime.bigint()
  lines = renderQueueScreen(queueSnapshot(inputs), {rows: 50, columns: 160}, 'bench')
  refreshMs.push(Number(process.hrtime.bigint() - start) / 1e6)
}
console.log(
  `Refresh (snapshot of ${WORKLOADS} workloads + a 50 x 160 screen, ${REFRESHES} runs): median ` +
    `${median(refreshMs).toFixed(1)} ms (target <= ${REFRESH_TARGET_MS} ms), ${lines.length} lines drawn.`,
)

// ---- 2. Whole processes: queue --once against workload list ----
const {FakeKube, cleanup: cleanKube} = await loadFakeKube()
const {FakeGke, cleanup: cleanGke} = await loadFakeGke()
const kube = await FakeKube.start()
const gke = await FakeGke.start({...kube.gkeClusterOptions()})
gke.seedCluster({project: PROJECT, location: 'us-central2', name: 'bench'})
kube.seed(
  anyObjectCrd('jobset.x-k8s.io', 'JobSet', 'jobsets', 'v1alpha2'),
  anyObjectCrd('kueue.x-k8s.io', 'Workload', 'workloads', 'v1beta2'),
  anyObjectCrd('kueue.x-k8s.io', 'ClusterQueue', 'clusterqueues', 'v1beta2', 'Cluster'),
  clusterQueue,
)
for (const o of objects) {
  const [stored] = kube.seed(o.jobset)
  kube.seed({...kueueWorkloadFor(stored, o.workload.metadata.creationTimestamp), status: o.workload.status})
}

function runCli(args) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint()
    const child = spawn(process.execPath, ['--import', CPU, bin, ...args], {
      env: {
        ...cliEnv(gke, scratch),
        XPK_ACCESS_TOKEN: kube.token,
        XPK_PROJECT: PROJECT,
        XPK_ZONE: ZONE,
        XPK_CLUSTER: 'bench',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let err = ''
    child.stderr.on('data', (c) => (err += c))
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`xpk ${args.join(' ')} exited ${code}: ${err}`))
      const cpu = Number(/XPK_BENCH_CPU_US=(\d+)/.exec(err)?.[1] ?? NaN) / 1e6
      resolve({wall: Number(process.hrtime.bigint() - start) / 1e9, cpu})
    })
  })
}

const cases = [
  ['xpk queue --once', ['queue', '--once']],
  ['xpk workload list', ['workload', 'list']],
]
const results = new Map(cases.map(([name]) => [name, []]))
try {
  for (let r = 0; r < RUNS; r++) {
    for (const [name, args] of cases) results.get(name).push(await runCli(args))
  }
  for (const [name] of cases) {
    const runs = results.get(name)
    console.log(
      `${name.padEnd(20)} median wall ${median(runs.map((x) => x.wall)).toFixed(2)} s, CLI CPU ` +
        `${median(runs.map((x) => x.cpu)).toFixed(2)} s (${RUNS} runs, ${WORKLOADS} workloads)`,
    )
  }
  const q = median(results.get(cases[0][0]).map((x) => x.cpu))
  const l = median(results.get(cases[1][0]).map((x) => x.cpu))
  console.log(`queue --once / workload list CPU: ${(q / l).toFixed(2)}x`)
} finally {
  await gke.stop()
  await kube.stop()
  await cleanKube?.()
  await cleanGke?.()
  rmSync(scratch, {recursive: true, force: true})
}
