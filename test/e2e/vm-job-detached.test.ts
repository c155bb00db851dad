// `xpk vm job create --detach` and the commands that follow a detached job, end to end with the built CLI against the
// fake TPU API and the fake Cloud Storage. The workers' side (the startup script, run unchanged on SSH workers) is
// test/e2e/detached-startup.test.ts; here a test plays the workers: it leaves their logs and exit statuses in the
// bucket and deletes the queued resource, as the script does.
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {detachedLogObject, detachedStatusObject, DETACHED_METADATA} from '../../src/core/vmjob/detached.js'
import {FakeCloudStorage} from '../fakes/fake-cloud-storage.js'
import {FakeTpu} from '../fakes/fake-tpu.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
import {markRequests, mutationsSince} from '../helpers/mutations.js'
import {tempDir} from '../helpers/temp.js'

const PROJECT = 'detach-project'
const ZONE = 'us-central2-b'
const BUCKET = 'runs-bucket'

let tpu: FakeTpu
let storage: FakeCloudStorage
let state: string
let code: string

const env = () =>
  isolatedEnv({
    XPK_TPU_ENDPOINT: `http://${tpu.endpoint}`,
    XPK_STORAGE_ENDPOINT: storage.endpoint,
    XPK_ACCESS_TOKEN: 'token',
    XPK_PROJECT: PROJECT,
    XPK_ZONE: ZONE,
    XDG_STATE_HOME: state,
    USER: 'alice',
  })
const xpk = (...args: string[]) => runCli(args, {env: env(), timeoutMs: 60_000})
const submit = (run: string, ...extra: string[]) =>
  xpk(
    ...['vm', 'job', 'create', '--detach', '--tpu-type', 'v4-16', '--num-slices', '2', '--bucket', BUCKET],
    ...['--bucket-dir', 'exp', '--run-name', run, '--command', 'bash setup.sh && python3 train.py', '--json'],
    ...extra,
  )

/** What the startup script leaves for one worker: its log, then its exit status. */
function workerDone(run: string, slice: number, worker: number, status: number) {
  storage.seedObject(
    BUCKET,
    detachedLogObject(`exp/${run}`, slice, worker),
    `training on ${slice}/${worker}\nxpk-exit-status ${status}\n`,
  )
  storage.seedObject(BUCKET, detachedStatusObject(`exp/${run}`, slice, worker), `${status}\n`)
}

beforeAll(async () => {
  tpu = await FakeTpu.start({stepMs: 20, deleteMs: 20})
  storage = await FakeCloudStorage.start()
  storage.seedBucket({name: BUCKET, location: 'us-central2'})
  state = tempDir('xpk-detached-state-')
  code = tempDir('xpk-detached-code-')
  mkdirSync(join(code, 'pkg'))
  writeFileSync(join(code, 'setup.sh'), 'pip install -r requirements.txt\n')
  writeFileSync(join(code, 'pkg', 'train.py'), 'print("train")\n')
})

afterAll(async () => {
  await tpu?.stop()
  await storage?.stop()
})

describe('xpk vm job create --detach', () => {
  it('uploads the code once, requests the queued resource with the startup script and its metadata, records the job', async () => {
    const result = await submit('run-1', '--script-dir', code)
    expect(result.code, result.stderr).toBe(0)
    const out = JSON.parse(result.stdout)
    expect(out.detached.archive).toMatchObject({uploaded: true})
    expect(out.detached.archive.object).toMatch(/^exp\/xpk-code\/[0-9a-f]{32}\.tar$/)
    expect(storage.objectNames(BUCKET)).toContain(out.detached.archive.object)
    expect(out.detached.links.logs).toContain('console.cloud.google.com/logs/query')
    expect(result.stderr).toContain('Live logs, every worker:')
    const create = tpu.calls.find((c) => c.method === 'CreateQueuedResource')!
    const text = JSON.stringify(create.request)
    expect(text).toContain('startup-script')
    for (const key of [
      DETACHED_METADATA.command,
      DETACHED_METADATA.bucket,
      DETACHED_METADATA.archive,
      DETACHED_METADATA.queuedResource,
    ]) {
      expect(text).toContain(key)
    }
    expect(text).toContain('python3 train.py')
    expect(tpu.queuedResource(PROJECT, ZONE, 'run-1')).toBeDefined()
  })

  it('an unchanged re-submit uploads nothing: the same directory is the same archive', async () => {
    const before = storage.objectNames(BUCKET).length
    const mark = markRequests({storage})
    const result = await submit('run-2', '--script-dir', code)
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout).detached.archive).toMatchObject({uploaded: false})
    expect(result.stderr).toContain('The code is unchanged')
    expect(mutationsSince({storage}, mark)).toEqual([])
    expect(storage.objectNames(BUCKET).length).toBe(before)
  })

  it('list reads the state from the queued resource and the exit statuses in the bucket; logs reads the finished log', async () => {
    let list = JSON.parse((await xpk('vm', 'job', 'list', '--json')).stdout)
    const job = list.find(
      (j: {accelerator: string; status: string}) => j.accelerator === 'v4-16' && j.status !== 'SUCCEEDED',
    )
    expect(['QUEUEING', 'RUNNING']).toContain(job.status)
    for (const [s, w] of [
      [0, 0],
      [0, 1],
      [1, 0],
      [1, 1],
    ])
      workerDone('run-1', s!, w!, 0)
    list = JSON.parse((await xpk('vm', 'job', 'list', '--json')).stdout)
    expect(list.find((j: {id: string}) => j.id === job.id)).toMatchObject({status: 'SUCCEEDED', supervisor: 'none'})
    const logs = await xpk('vm', 'job', 'logs', job.id, '--worker', '3')
    expect(logs.code, logs.stderr).toBe(0)
    expect(logs.stdout).toContain('training on 1/1')
    expect(logs.stderr).toContain('console.cloud.google.com/logs/query')
    const stop = await xpk('vm', 'job', 'stop', job.id)
    expect(stop.code).toBe(6)
    expect(stop.stderr).toContain('is detached')
  })

  it('--wait: exit 0 when every worker succeeded, 125 when one failed, 124 at --timeout', async () => {
    // Workers finish while xpk waits.
    const waiting = submit('run-ok', '--wait', '--timeout', '30')
    setTimeout(() => {
      for (const [s, w] of [
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 1],
      ])
        workerDone('run-ok', s!, w!, 0)
    }, 1500)
    const ok = await waiting
    expect(ok.code, ok.stderr).toBe(0)
    expect(JSON.parse(ok.stdout).job.status).toBe('SUCCEEDED')

    const failing = submit('run-bad', '--wait', '--timeout', '30')
    setTimeout(() => {
      for (const [s, w] of [
        [0, 0],
        [0, 1],
        [1, 0],
      ])
        workerDone('run-bad', s!, w!, 0)
      workerDone('run-bad', 1, 1, 3)
    }, 1500)
    const bad = await failing
    expect(bad.code, bad.stderr).toBe(125)
    expect(bad.stderr).toContain('FAILED')

    const slow = await submit('run-slow', '--wait', '--timeout', '2')
    expect(slow.code, slow.stderr).toBe(124)
  }, 60_000)

  it("delete removes the queued resource and, with --purge, the run's objects (not the shared archive)", async () => {
    const list = JSON.parse((await xpk('vm', 'job', 'list', '--json')).stdout) as {id: string; name: string}[]
    const created = await submit('run-del', '--script-dir', code)
    const id = JSON.parse(created.stdout).job.id
    workerDone('run-del', 0, 0, 0)
    expect(list.length).toBeGreaterThan(0)
    const dry = await xpk('vm', 'job', 'delete', id, '--purge', '--dry-run')
    expect(dry.code, dry.stderr).toBe(0)
    expect(tpu.queuedResource(PROJECT, ZONE, 'run-del')).toBeDefined()
    const deleted = await xpk('vm', 'job', 'delete', id, '--purge', '--force', '--json')
    expect(deleted.code, deleted.stderr).toBe(0)
    expect(JSON.parse(deleted.stdout)).toMatchObject({tpuDeleted: true, purged: true, objectsDeleted: 2})
    expect(tpu.queuedResource(PROJECT, ZONE, 'run-del')).toBeUndefined()
    expect(storage.objectNames(BUCKET).filter((n) => n.startsWith('exp/run-del/'))).toEqual([])
    expect(storage.objectNames(BUCKET).some((n) => n.startsWith('exp/xpk-code/'))).toBe(true)
  })

  it('refuses bad input before anything is uploaded or requested (exit 2)', async () => {
    const mark = markRequests({tpu, storage})
    const results = await Promise.all([
      xpk('vm', 'job', 'create', '--detach', '--tpu-type', 'v4-8', '--command', 'true'),
      xpk('vm', 'job', 'create', '--detach', '--tpu-type', 'v4-8', '--command', 'true', '--bucket', 'gs://x'),
      xpk('vm', 'job', 'create', '--detach', '--tpu-type', 'v4-8', '--command', 'true', '--bucket', BUCKET, '--loop'),
      xpk('vm', 'job', 'create', '--detach', '--tpu-type', 'v4-8', '--command', 'true', '--bucket', 'no-such-bucket'),
      xpk(
        'vm',
        'job',
        'create',
        '--detach',
        '--tpu-type',
        'v4-8',
        '--command',
        'true',
        '--bucket',
        BUCKET,
        '--run-name',
        'Bad_Name',
      ),
    ])
    expect(results.map((r) => r.code)).toEqual([2, 2, 2, 2, 2])
    expect(results[0]!.stderr).toContain('--bucket is required with --detach')
    expect(results[1]!.stderr).toContain('--bucket "gs://x"')
    expect(results[2]!.stderr).toContain('--loop')
    expect(results[3]!.stderr).toContain('the bucket no-such-bucket does not exist')
    expect(results[4]!.stderr).toContain('--run-name')
    expect(mutationsSince({tpu, storage}, mark)).toEqual([])
  })
})
