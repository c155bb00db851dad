// The README's main job: the journey a user makes with xpk, run against local stand-ins instead of Google Cloud.
// A fake GKE API and a fake Kubernetes API server (test/fakes/, the ones the tests use) listen on 127.0.0.1, and a
// Kueue stand-in (test/fakes/kueue-stand-in.ts) moves workloads through Kueue's states as a test would: it admits
// by priority against the quota and preempts, but it is a demo aid, not a scheduler, and it runs no containers.
// Every `xpk` line below is the real CLI (bin/run.js) as a separate process; nothing reaches the internet.
// Run with `npm run demo` (which builds first). Exits non-zero if any step does not do what the journey expects.
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {loadTestModules} from './test-doubles.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const bin = join(root, 'bin/run.js')
const PROJECT = 'demo-project'
const ZONE = 'us-central2-b'
const CLUSTER = 'demo'
const TPU = 'v5litepod-16'
const IMAGE = 'us-docker.pkg.dev/demo-project/training/trainer:v1'
/** A command that has not finished in this long has hung: the demo says so and fails. */
const COMMAND_TIMEOUT_MS = 60_000
const say = (text) => process.stderr.write(`${text}\n`)

const started = Date.now()
const scratch = mkdtempSync(join(tmpdir(), 'xpk-demo-'))
const {modules, cleanup} = await loadTestModules([
  "export {FakeCloudStorage} from './test/fakes/fake-cloud-storage.ts'",
  "export {FakeGke} from './test/fakes/fake-gke.ts'",
  "export {FakeKube} from './test/fakes/fake-kube.ts'",
  "export {KueueStandIn} from './test/fakes/kueue-stand-in.ts'",
  "export {releaseObjects} from './test/fakes/memory-release-manifests.ts'",
  "export {toYamlDocuments} from './src/core/manifests/to-yaml.ts'",
])
const {FakeCloudStorage, FakeGke, FakeKube, KueueStandIn, releaseObjects, toYamlDocuments} = modules

// Started inside the try below, so whatever did start is stopped whatever fails.
let kube, gke, storage, standIn, env, releaseFlags
async function startStandIns() {
  kube = await FakeKube.start({rolloutMs: 100})
  gke = await FakeGke.start({operationMs: 100, ...kube.gkeClusterOptions()})
  // The Cloud Storage JSON API, with the bucket of training data the demo attaches.
  storage = await FakeCloudStorage.start()
  storage.seedBucket({name: 'demo-datasets', project: PROJECT})
  // Workloads run until deleted or preempted, or until the demo finishes one (finishNow).
  standIn = KueueStandIn.start(kube)
  // The JobSet and Kueue releases come from files, as on an air-gapped cluster: the demo downloads nothing.
  const manifest = (component) => {
    const file = join(scratch, `${component}.yaml`)
    writeFileSync(file, toYamlDocuments(releaseObjects(component)))
    return file
  }
  releaseFlags = ['--jobset-manifest', manifest('jobset'), '--kueue-manifest', manifest('kueue')]
  env = {
    PATH: process.env.PATH,
    HOME: mkdtempSync(join(scratch, 'home-')),
    XDG_CONFIG_HOME: mkdtempSync(join(scratch, 'config-')),
    XDG_CACHE_HOME: process.env.XDG_CACHE_HOME ?? join(process.env.HOME ?? scratch, '.cache'),
    TMPDIR: scratch,
    CLOUDSDK_CONFIG: mkdtempSync(join(scratch, 'gcloud-')),
    METADATA_SERVER_DETECTION: 'none',
    GCE_METADATA_HOST: '127.0.0.1:9',
    GCE_METADATA_IP: '127.0.0.1:9',
    NO_COLOR: '1',
    XPK_GKE_ENDPOINT: `http://${gke.endpoint}`,
    XPK_STORAGE_ENDPOINT: storage.endpoint,
    XPK_ACCESS_TOKEN: kube.token,
    // The stand-ins finish operations in 100 ms; real GKE takes minutes, and xpk's first poll waits longer.
    XPK_POLL_INTERVAL_MS: '50',
    XPK_PROJECT: PROJECT,
    XPK_ZONE: ZONE,
    XPK_CLUSTER: CLUSTER,
  }
}

/** Commands still running: a demo that fails stops them. */
const running = new Set()

/** Shows and runs one xpk command; fails the demo when it does not exit with `expected`. */
function xpk(args, {expected = 0, shown = args} = {}) {
  say(`\n$ xpk ${shown.map((a) => (/^[\w@:/.,=-]+$/.test(a) ? a : `'${a}'`)).join(' ')}`)
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--', bin, ...args], {env, stdio: ['ignore', 'inherit', 'inherit']})
    running.add(child)
    const timer = setTimeout(() => child.kill('SIGKILL'), COMMAND_TIMEOUT_MS)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      running.delete(child)
      if (code === expected) resolve()
      else if (signal === 'SIGKILL') reject(new Error(`xpk ${args.join(' ')} hung for ${COMMAND_TIMEOUT_MS / 1000} s`))
      else reject(new Error(`xpk ${args.join(' ')} exited ${code}, not ${expected}`))
    })
  })
}

const submit = (name, slices, priority) =>
  xpk([
    ...['workload', 'create', '--workload', name, '--tpu-type', TPU, '--num-slices', String(slices)],
    ...['--priority', priority, '--docker-image', IMAGE, '--command', 'python3 train.py'],
  ])
const state = (name) => standIn.states()[name]

/** Resolves once a watch of the JobSet `name`, started after `since`, has reached the Kubernetes fake. */
async function watchingJobSet(name, since) {
  const deadline = Date.now() + COMMAND_TIMEOUT_MS
  const watches = (r) =>
    r.verb === 'watch' && r.resource === 'jobsets' && r.query.fieldSelector === `metadata.name=${name}` && r.at >= since
  while (!kube.requests.some(watches)) {
    if (Date.now() > deadline) throw new Error(`nothing watched JobSet ${name} within ${COMMAND_TIMEOUT_MS / 1000} s`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

try {
  await startStandIns()
  say(
    [
      'xpk demo: the whole journey, against local stand-ins, with no cloud account.',
      `  GKE:        a fake GKE API on http://${gke.endpoint}`,
      `  Kubernetes: a fake Kubernetes API server on ${kube.url}`,
      `  Storage:    a fake Cloud Storage JSON API on ${storage.endpoint}, holding the bucket demo-datasets`,
      '  Kueue:      a stand-in that admits by priority against the quota, preempts lower priorities, starts pods',
      '              that write log lines and finishes them. It is a demo and test aid, not a scheduler, and it runs',
      '              no containers. Everything else is the real xpk CLI talking to those APIs.',
      `  Settings:   XPK_PROJECT=${PROJECT} XPK_ZONE=${ZONE} XPK_CLUSTER=${CLUSTER} (the demo's environment)`,
    ].join('\n'),
  )

  say('\n# 1. A cluster of 2 slices of TPU v5e (4 VMs, 16 chips each): the queue gets a quota of 32 chips.')
  await xpk(['cluster', 'create', '--tpu-type', TPU, '--num-slices', '2', '--spot', '--force', ...releaseFlags], {
    shown: ['cluster', 'create', '--tpu-type', TPU, '--num-slices', '2', '--spot', '--force', '--jobset-manifest', '…'],
  })

  say('\n# 1b. Training data in a bucket, mounted read-only at /data by every workload from now on.')
  await xpk([
    ...['storage', 'attach', 'datasets', '--type', 'gcsfuse', '--bucket', 'demo-datasets', '--size', '64'],
    ...['--project-number', '123456789012', '--auto-mount', 'true', '--mount-point', '/data', '--readonly', 'true'],
    '--force',
  ])
  await xpk(['storage', 'list'])

  say('\n# 2. A medium-priority run takes both slices; a low-priority sweep has to wait.')
  await submit('pretrain', 2, 'medium')
  await standIn.until(() => state('pretrain') === 'running')
  await submit('sweep', 2, 'low')
  await standIn.until(() => state('sweep') === 'pending')
  await xpk(['workload', 'list'])

  say('\n# 3. A high-priority job arrives: Kueue preempts the lower-priority run to make room.')
  await submit('urgent', 1, 'high')
  await standIn.until(() => state('urgent') === 'running' && state('pretrain') === 'pending')
  await xpk(['workload', 'list'])
  await xpk(['workload', 'list', '--filter-by-status', 'queued'])
  await xpk(['workload', 'why', 'pretrain'])

  say('\n# 4. Its logs, from every worker of its slice.')
  await xpk(['workload', 'logs', 'urgent', '--all'])

  say('\n# 5. Wait for it from a script: exit 0 when it succeeds (125 if it fails, 124 on timeout).')
  const since = Date.now()
  const waited = xpk(['workload', 'list', '--wait-for-job-completion', 'urgent', '--timeout', '60'])
  // Its training ends once the wait is watching it, so the wait is real however fast or slow this machine is.
  await Promise.race([watchingJobSet('urgent', since), waited])
  standIn.finishNow('urgent')
  await waited

  say('\n# 6. Its slice is free again, so the preempted run is admitted back; the sweep is deleted.')
  await standIn.until(() => state('pretrain') === 'running')
  await xpk(['workload', 'delete', '--workload', 'sweep', '--wait'])
  await xpk(['workload', 'list'])

  say(
    `\nDone in ${((Date.now() - started) / 1000).toFixed(1)} s, all against the local stand-ins above; ` +
      'nothing was sent to Google Cloud. See the README for the same commands on a real project.',
  )
} catch (err) {
  say(`\ndemo failed: ${err instanceof Error ? err.message : String(err)}`)
  process.exitCode = 1
} finally {
  for (const child of running) child.kill('SIGKILL')
  await standIn?.stop()
  await gke?.stop()
  await storage?.stop()
  await kube?.stop()
  cleanup()
  rmSync(scratch, {recursive: true, force: true})
}
