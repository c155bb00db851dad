// `xpk queue` tested as a person uses it: the built CLI runs in a real terminal (a tmux pane of 120 x 40, on its own
// tmux server), against the wire fakes; the test changes workloads in the Kubernetes fake as Kueue would and reads
// the screen with `tmux capture-pane`, as a person would look at it; Ctrl-C ends it and gives the terminal back.
// Without a terminal (runCli: a pipe), the same command prints the tables once. tmux is installed by
// .ci/setup-terminal; where it is missing, the terminal cases are skipped, saying so.
import {execFileSync, spawnSync} from 'node:child_process'

import {afterAll, beforeEach, describe, expect, it} from 'vitest'

import {localQueue} from '../builders/workload-cluster.js'
import {at, jobsetStatus, kueueStatus, kueueWorkloadFor, submittedJobSet} from '../builders/workload-states.js'
import type {FakeGke} from '../fakes/fake-gke.js'
import type {FakeKube, Obj} from '../fakes/fake-kube.js'
import {REPO_ROOT, isolatedEnv, runCli} from '../helpers/cli.js'
import {seedInstalledControllers, seedTpuClusterQueue} from '../helpers/cluster-inside.js'
import {fakesForFile, startKubeAndGke} from '../helpers/wire-fakes.js'

const PROJECT = 'e2e-project'
const ZONE = 'us-central2-b'
const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0
if (!HAS_TMUX)
  console.warn(
    'queue-tmux.test.ts: tmux is not installed (.ci/setup-terminal installs it): the live-view cases are skipped.',
  )
const SOCKET = `xpk-queue-test-${process.pid}`

let gke: FakeGke
let kube: FakeKube

fakesForFile(
  async (wire) => {
    ;({kube, gke} = await startKubeAndGke(wire))
    gke.seedCluster({project: PROJECT, location: 'us-central2', name: 'demo'})
  },
  {reset: false},
)
beforeEach(() => {
  kube.reset()
  seedInstalledControllers(kube)
  seedTpuClusterQueue(kube, {flavor: '4xv5litepod-16', chips: 64, admitted: 1, pending: 1, reserving: 1, used: '64'})
  kube.seed(localQueue() as unknown as Obj)
})
afterAll(() => {
  if (HAS_TMUX) spawnSync('tmux', ['-L', SOCKET, 'kill-server'])
})

const env = () => isolatedEnv({XPK_GKE_ENDPOINT: `http://${gke.endpoint}`, XPK_ACCESS_TOKEN: kube.token})
const target = ['--project', PROJECT, '--zone', ZONE, '--cluster', 'demo']

const ref = (kind: 'JobSet' | 'Workload', name: string) => ({
  apiVersion: kind === 'JobSet' ? 'jobset.x-k8s.io/v1alpha2' : 'kueue.x-k8s.io/v1beta2',
  kind,
  namespace: 'default',
  name,
})

/** A workload as `workload create` submits it and Kueue and the JobSet controller leave it; its Workload's name. */
function workload(name: string, created: number, kueue: Obj, jobset: Obj): string {
  kube.seed(submittedJobSet(name, 'medium', at(created)) as unknown as Obj)
  kube.setStatus(ref('JobSet', name), jobset)
  const stored = kube.get(ref('JobSet', name))! as unknown as ReturnType<typeof submittedJobSet>
  const made = kueueWorkloadFor(stored, at(created)) as Obj & {metadata: {name: string}}
  kube.seed(made)
  kube.setStatus(ref('Workload', made.metadata.name), kueue)
  return made.metadata.name
}

const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], {encoding: 'utf8'})
const screen = () => tmux('capture-pane', '-p', '-t', 'queue')

/**
 * Waits until the pane shows `text` (the view redraws within 100 ms of a change; the limit is for a loaded machine,
 * where the CLI itself may take seconds to start), or fails with the screen.
 */
async function until(test: (screen: string) => boolean, what: string, ms = 40_000): Promise<string> {
  const end = Date.now() + ms
  let last = ''
  while (Date.now() < end) {
    try {
      last = screen()
    } catch {
      last = '(no pane)'
    }
    if (test(last)) return last
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`the screen never showed ${what}; it shows:\n${last}`)
}

describe('xpk queue on a terminal', () => {
  it.skipIf(!HAS_TMUX)(
    'shows the queue, redraws when Kueue admits a workload, and ends on Ctrl-C giving the terminal back',
    async () => {
      const running = workload('run-1', 1, kueueStatus.running(2) as Obj, jobsetStatus.running(2) as Obj)
      const waiting = workload('run-2', 3, kueueStatus.pending(3) as Obj, jobsetStatus.suspended(3) as Obj)
      const vars = Object.entries(env()).flatMap(([k, v]) => ['-e', `${k}=${v}`])
      tmux(
        '-f',
        '/dev/null',
        'new-session',
        '-d',
        '-s',
        'queue',
        '-x',
        '120',
        '-y',
        '40',
        ...vars,
        '--',
        process.execPath,
        `${REPO_ROOT}/bin/run.js`,
        'queue',
        ...target,
      )
      // The pane must stay after the command ends, to read what it left.
      tmux('set-option', '-t', 'queue', 'remain-on-exit', 'on')

      const first = await until((s) => s.includes('QUEUED (1)'), 'the queued workload')
      expect(first).toMatch(/^xpk queue: cluster demo, 1 running, 1 queued/m)
      expect(first).toMatch(/^cluster-queue \/ 4xv5litepod-16 +\[█+░*\] 64\/64 chips$/m)
      expect(first).toMatch(/^1 +run-2 +medium /m)
      for (const line of first.split('\n')) expect(line.length).toBeLessThanOrEqual(120)

      // Kueue finishes run-1 and admits run-2.
      kube.setStatus(ref('JobSet', 'run-1'), jobsetStatus.completed(6) as Obj)
      kube.setStatus(ref('Workload', running), kueueStatus.succeeded(6) as Obj)
      kube.setStatus(ref('Workload', waiting), kueueStatus.running(6) as Obj)
      // (The builders' times are of 2026-01-01: run-1's finish is older than the hour the view shows.)
      const after = await until((s) => s.includes('RUNNING (1)') && !s.includes('QUEUED'), 'run-2 admitted')
      expect(after).toMatch(/^xpk queue: cluster demo, 1 running, 0 queued/m)
      expect(after).toMatch(/^run-2 +medium /m)

      tmux('send-keys', '-t', 'queue', 'C-c')
      // Ctrl-C ends it as it ends every command (exit 130), and the alternate screen is left: the view is gone.
      // Ended: tmux reports the pane dead with its exit status, or (tmux may be late to say so) its process is gone
      // or a zombie.
      const pid = tmux('display-message', '-p', '-t', 'queue', '#{pane_pid}').trim()
      const ended = async (): Promise<number | null> => {
        const end = Date.now() + 40_000
        while (Date.now() < end) {
          const [isDead, status] = tmux('display-message', '-p', '-t', 'queue', '#{pane_dead}|#{pane_dead_status}')
            .trim()
            .split('|')
          if (isDead === '1' && status) return Number(status)
          // Gone, or exited and not yet reaped by tmux (a zombie): ended either way.
          const state = spawnSync('ps', ['-o', 'stat=', '-p', pid], {encoding: 'utf8'}).stdout.trim()
          if (state === '' || state.startsWith('Z')) return null
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
        const ps = spawnSync('ps', ['-o', 'pid,stat,pcpu,etime,wchan:20,args', '-p', pid], {encoding: 'utf8'}).stdout
        throw new Error(`xpk queue did not end after Ctrl-C; the screen shows:\n${screen()}\n${ps}`)
      }
      const status = await ended()
      if (status !== null) expect(status).toBe(130)
      const left = screen()
      expect(left).not.toContain('xpk queue: cluster demo')
      // xpk's interrupt message (its first line may be above the pane's top once the alternate screen is left).
      expect(left).toMatch(/Error: Interrupted\.|Hint: Re-run the same command to resume\./)
      tmux('kill-session', '-t', 'queue')
    },
    120_000,
  )
})

describe('xpk queue without a terminal', () => {
  it('prints the queues once, as tables, and exits 0', async () => {
    workload('run-1', 1, kueueStatus.running(2) as Obj, jobsetStatus.running(2) as Obj)
    workload('run-2', 3, kueueStatus.pending(3) as Obj, jobsetStatus.suspended(3) as Obj)
    const result = await runCli(['queue', ...target], {env: env()})
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/^Queues of cluster demo at /)
    expect(result.stdout).toMatch(/^RUNNING \(1\)\nNAME +PRIORITY +AGE +VMS +RESTARTS\nrun-1 /m)
    expect(result.stdout).toMatch(/^QUEUED \(1\)\n# +NAME .*\n1 +run-2 /m)
  })
})
