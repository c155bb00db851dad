// The job records on disk: ids only grow, updates under the lock never lose one another (also across processes),
// a lock left by a dead process is taken over, and logs are appended and read from an offset.
import {spawn} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {buildSync} from 'esbuild'
import {describe, expect, it} from 'vitest'

import {VmJobFiles} from '../../src/adapters/vm-job-files.js'
import type {VmJobSpec} from '../../src/core/vmjob/spec.js'
import {REPO_ROOT} from '../helpers/cli.js'
import {tempDir} from '../helpers/temp.js'

const spec = {name: 'j'} as unknown as VmJobSpec
const access = {sshUser: 'me', sshPort: 22, internalIp: false, pollMs: 1000}

describe('VmJobFiles', () => {
  it('gives ids that only grow, even after a job was removed', async () => {
    const store = new VmJobFiles(tempDir('xpk-jobs-'))
    const a = await store.create(spec, access, 'job: {}', 1)
    const b = await store.create(spec, access, undefined, 2)
    expect([a.id, b.id]).toEqual(['000001', '000002'])
    await store.remove(b.id)
    expect((await store.create(spec, access, undefined, 3)).id).toBe('000003')
    expect((await store.list()).map((r) => r.id)).toEqual(['000001', '000003'])
  })

  it('loses no update when 40 run at once in this process', async () => {
    const store = new VmJobFiles(tempDir('xpk-jobs-'))
    const {id} = await store.create(spec, access, undefined, 1)
    await Promise.all(
      Array.from({length: 40}, (_, i) => store.update(id, (r) => ({...r, recoveries: r.recoveries + 1}), i)),
    )
    expect((await store.read(id))!.recoveries).toBe(40)
  })

  it('loses no update when 4 processes update at once', async () => {
    const root = tempDir('xpk-jobs-')
    const store = new VmJobFiles(root)
    const {id} = await store.create(spec, access, undefined, 1)
    const source = join(root, 'bump.ts')
    const script = join(root, 'bump.mjs')
    writeFileSync(
      source,
      `import {VmJobFiles} from ${JSON.stringify(join(REPO_ROOT, 'src/adapters/vm-job-files.ts'))}\n` +
        `const store = new VmJobFiles(${JSON.stringify(root)})\n` +
        `for (let i = 0; i < 10; i++) await store.update('${id}', (r) => ({...r, recoveries: r.recoveries + 1}), i)\n`,
    )
    // The store as the CLI's bundle has it: one file Node runs as it is.
    buildSync({
      entryPoints: [source],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: script,
      logLevel: 'error',
    })
    const runs = Array.from(
      {length: 4},
      () =>
        new Promise<number>((resolve) => {
          const child = spawn(process.execPath, [script], {
            stdio: 'inherit',
          })
          child.on('exit', (code) => resolve(code ?? -1))
        }),
    )
    expect(await Promise.all(runs)).toEqual([0, 0, 0, 0])
    expect((await store.read(id))!.recoveries).toBe(40)
  }, 30_000)

  it('takes over a lock whose holder is dead', async () => {
    const root = tempDir('xpk-jobs-')
    const store = new VmJobFiles(root)
    const {id} = await store.create(spec, access, undefined, 1)
    writeFileSync(join(root, id, 'lock'), '999999999')
    const updated = await store.update(id, (r) => ({...r, status: 'RUNNING'}), 5)
    expect(updated.status).toBe('RUNNING')
  })

  it('appends logs and reads them from an offset; a missing log is empty', async () => {
    const store = new VmJobFiles(tempDir('xpk-jobs-'))
    const {id} = await store.create(spec, access, undefined, 1)
    const log = store.appendLog(id, 'command_worker_0.attempt-1')
    log.write(Buffer.from('hello '))
    log.write(Buffer.from('world\n'))
    await log.close()
    expect((await store.readLog(id, 'command_worker_0.attempt-1', 6)).toString()).toBe('world\n')
    expect((await store.readLog(id, 'nothing', 0)).length).toBe(0)
    expect(await store.logs(id)).toEqual(['command_worker_0.attempt-1'])
    await store.appendEvent(id, {time: 1, event: 'created'})
    await store.appendEvent(id, {time: 2, event: 'requested', detail: 'v4-8'})
    expect((await store.events(id)).map((e) => e.event)).toEqual(['created', 'requested'])
  })
})
