import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {constants, tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {
  hasSshKey,
  killScript,
  READY_MARKER,
  runScript,
  shellQuote,
  shipScript,
  STOP_REPORT,
  withSshKey,
  workerEnv,
} from '../../../src/core/vm/remote-scripts.js'
import {planWorkers, progressLine} from '../../../src/core/vm/run-plan.js'
import type {TpuNode} from '../../../src/ports/tpu.js'

const home = mkdtempSync(join(tmpdir(), 'xpk-scripts-'))
afterAll(() => rmSync(home, {recursive: true, force: true}))
/**
 * Runs a script as sshd does with `leader`: the shell leads a new session and process group, as each SSH session's
 * shell does (the run script then becomes the run's shell in place). Without it, the shell is in the test's group
 * (the run script starts a new session for the command).
 */
const sh = (script: string, input?: Buffer, leader = false) =>
  // setsid execs bash in place (same pid) after making it a session leader, since the test process is not one.
  spawnSync(leader ? 'setsid' : 'bash', [...(leader ? ['bash'] : []), '-c', script], {
    env: {PATH: process.env.PATH, HOME: home},
    input,
    encoding: 'utf8',
  })
/** The exit status, or 128+N when signal N killed the shell itself (SSH reports that signal; xpk counts it so). */
const status = (result: ReturnType<typeof sh>) =>
  result.signal ? 128 + constants.signals[result.signal] : result.status

describe('remote scripts, run by a real shell', () => {
  it('quotes anything', () => {
    const nasty = `it's "$(rm -rf /)" \`x\` $HOME; \\ \n done`
    expect(sh(`printf %s ${shellQuote(nasty)}`).stdout).toBe(nasty)
  })

  it('ships a tar into the folder, replacing the old copy, then runs the command there with the environment', () => {
    const src = mkdtempSync(join(tmpdir(), 'xpk-src-'))
    writeFileSync(join(src, 'a.txt'), 'A')
    const tar = spawnSync('tar', ['-cf', '-', '-C', src, '.']).stdout
    rmSync(src, {recursive: true})
    writeFileSync(join(home, 'stale'), '')
    expect(sh(`mkdir -p "$HOME/code" && touch "$HOME/code/stale"; ${shipScript('code')}`, tar).status).toBe(0)
    const env = workerEnv({
      tpuPrefix: 'p',
      numSlices: 2,
      sliceId: 1,
      workerId: 3,
      coordinatorIp: '10.0.0.2',
      runName: 'r',
    })
    const command = `cat a.txt; echo " $MEGASCALE_SLICE_ID $XPK_WORKER_ID $MEGASCALE_COORDINATOR_ADDRESS"; ls; exit 7`
    const result = sh(runScript({remoteDir: 'code', ship: false, runName: 'r', env, command}))
    expect(result.stdout).toBe('A 1 3 10.0.0.2:8080\na.txt\n')
    expect(result.status).toBe(7)
    expect(readFileSync(join(home, '.xpk/runs/r.pgid'), 'utf8')).toMatch(/^\d+\n$/)
  })

  it.each([
    ['as the leader of its process group (as under sshd)', true],
    ['in a group it does not lead', false],
  ])('with a gate, says it is ready and starts only on "go", %s', (_, leader) => {
    const script = runScript({
      remoteDir: 'code',
      ship: false,
      runName: 'g',
      env: {},
      command: 'echo started',
      gated: true,
    })
    const go = sh(script, Buffer.from('go\n'), leader)
    expect([go.status, go.stdout, go.stderr]).toEqual([0, 'started\n', `${READY_MARKER}\n`])
    // A leader becomes the run's shell in place (its group is the run's); otherwise the run gets a new session.
    const group = Number(readFileSync(join(home, '.xpk/runs/g.pgid'), 'utf8'))
    expect(group === go.pid).toBe(leader)
    const stop = sh(script, Buffer.from('stop\n'), leader)
    expect([stop.status, stop.stdout]).toEqual([143, ''])
    const closed = sh(script, Buffer.from(''), leader)
    expect([closed.status, closed.stdout]).toEqual([143, ''])
  })

  it.each([
    ['kill -KILL $$', 137, false],
    ['kill -TERM $$', 143, false],
    ["sh -c 'kill -SEGV $$'", 139, false],
    ['kill -KILL $$', 137, true],
    ["sh -c 'kill -SEGV $$'", 139, true],
  ])(
    'reports `%s` as 128+N for signal N (%i), without a "Killed" notice (group leader: %s)',
    (command, expected, leader) => {
      // `$$` is the run's own shell, the leader of the run's group: the case `setsid -w` reported as plain N. When the
      // login shell led its group, that is the login shell itself, whose signal SSH reports.
      const result = sh(runScript({remoteDir: '.', ship: false, runName: 's', env: {}, command}), undefined, leader)
      expect(status(result)).toBe(expected)
      // The outer shell's job notice ("Killed", "Terminated") would only repeat the status in the worker's log.
      expect(result.stderr).not.toMatch(/Killed|Terminated/)
    },
  )

  it('refuses to run without the folder when not shipping', () => {
    const result = sh(runScript({remoteDir: 'missing', ship: false, runName: 'r2', env: {}, command: 'true'}))
    expect(result.status).toBe(127)
    expect(result.stderr).toContain('run once without --use-existing-folder')
  })

  it('kills the whole process group of a run, children included', async () => {
    const marker = 'sleep 9873'
    const run = spawnSync(
      'bash',
      [
        '-c',
        `(${runScript({remoteDir: '.', ship: false, runName: 'k', env: {}, command: `${marker} & ${marker}`})}) >/dev/null 2>&1 &`,
      ],
      {
        env: {PATH: process.env.PATH, HOME: home},
      },
    )
    expect(run.status).toBe(0)
    const count = () =>
      spawnSync('pgrep', ['-f', `^${marker}`], {encoding: 'utf8'})
        .stdout.split('\n')
        .filter(Boolean).length
    for (let i = 0; i < 200 && count() < 2; i++) await new Promise((r) => setTimeout(r, 50))
    expect(count()).toBe(2)
    const stop = sh(killScript('k', 1))
    expect([stop.status, stop.stdout]).toEqual([0, `${STOP_REPORT.stopping}\n`])
    for (let i = 0; i < 200 && count() > 0; i++) await new Promise((r) => setTimeout(r, 50))
    expect(count()).toBe(0)
    // Once the run has ended, a stop says so: its exit status was its own.
    expect(sh(killScript('k', 1)).stdout).toBe(`${STOP_REPORT.ended}\n`)
  })
})

describe('ssh-keys metadata', () => {
  const key = 'ssh-ed25519 AAAAC3Nza me@host'
  it('adds the key once, keeping other entries', () => {
    const before = {'ssh-keys': 'other:ssh-rsa AAAAB other', x: '1'}
    expect(hasSshKey(before, 'me', key)).toBe(false)
    const after = withSshKey(before, 'me', key)
    expect(after).toEqual({'ssh-keys': 'other:ssh-rsa AAAAB other\nme:ssh-ed25519 AAAAC3Nza me@host', x: '1'})
    expect(hasSshKey(after, 'me', 'ssh-ed25519 AAAAC3Nza another-comment')).toBe(true)
    expect(hasSshKey(after, 'you', key)).toBe(false)
  })
})

describe('run plan', () => {
  const node = (id: string, workers: number, extra: Partial<TpuNode> = {}): TpuNode => ({
    id,
    uid: `u-${id}`,
    acceleratorType: 'v4-16',
    runtimeVersion: 'tpu-ubuntu2204-base',
    state: 'READY',
    workers: Array.from({length: workers}, (_, w) => ({
      internalIp: `10.${id.length}.0.${w}`,
      externalIp: `34.0.${id.length}.${w}`,
    })),
    metadata: {},
    ...extra,
  })

  it('orders slices and workers, external IPs unless --internal-ip', () => {
    const nodes = [node('p-1', 2), node('p-0', 2), node('other', 1), node('p-x', 1)]
    const plan = planWorkers('p', nodes, false)
    expect(plan.numSlices).toBe(2)
    expect(plan.workers.map((w) => [w.slice, w.worker, w.host.startsWith('34.')])).toEqual([
      [0, 0, true],
      [0, 1, true],
      [1, 0, true],
      [1, 1, true],
    ])
    expect(planWorkers('p', nodes, true).workers.every((w) => w.host.startsWith('10.'))).toBe(true)
    expect(plan.workers[2].identity).toBe('p-1/u-p-1/0')
  })

  it('names what is missing, not ready or ambiguous', () => {
    expect(() => planWorkers('p', [node('q', 1)], false)).toThrow(/No TPU VMs named p or p-<n>/)
    expect(() => planWorkers('p', [node('p-1', 1)], false)).toThrow(/Slice p-0 is missing/)
    expect(() => planWorkers('p', [node('p-0', 1, {state: 'PREEMPTED'})], false)).toThrow(/p-0 is PREEMPTED/)
    expect(() => planWorkers('p', [node('p', 1), node('p-0', 1)], false)).toThrow(/ambiguous/)
  })

  it('renders one progress line', () => {
    const w = (slice: number, worker: number) => ({slice, worker, nodeId: '', identity: '', host: '', internalIp: ''})
    expect(progressLine(3, 8, [w(0, 5)])).toBe('completed 3/8; slice 0 worker 5 still running')
    expect(progressLine(8, 8, [])).toBe('completed 8/8')
  })
})
