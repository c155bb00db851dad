// The README's first command: `npm run demo` (scripts/demo.mjs over the built CLI) runs the whole journey against
// the local stand-ins and shows each state the journey promises: a bucket attached for every workload to mount,
// one workload running and one queued, a high-priority one preempting (and why the preempted one waits), logs from every worker, a wait that ends in
// success, a delete, and the preempted run admitted again.
import {spawn} from 'node:child_process'
import {existsSync, readdirSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {REPO_ROOT} from '../helpers/cli.js'
import {tempDir} from '../helpers/temp.js'

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

function runDemo(): Promise<Run> {
  if (!existsSync(join(REPO_ROOT, 'dist/xpk.js'))) throw new Error('dist/xpk.js is missing: run `npm run build`.')
  const scratch = tempDir('xpk-demo-run-')
  const child = spawn(process.execPath, [join(REPO_ROOT, 'scripts/demo.mjs')], {
    cwd: REPO_ROOT,
    env: {PATH: process.env.PATH, HOME: scratch, TMPDIR: scratch, XDG_CACHE_HOME: join(scratch, 'cache')},
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => (stdout += d))
  child.stderr.on('data', (d) => (stderr += d))
  return new Promise((resolve) => child.on('close', (code) => resolve({code, stdout, stderr})))
}

/** Every table of `workload list` on stdout, in order: JobSet name -> STATUS column. */
function tables(stdout: string): Record<string, string>[] {
  return stdout
    .split(/^(?=JOBSET NAME)/m)
    .slice(1)
    .map((table) => {
      const [header, ...rest] = table.split('\n')
      const lines = rest.filter((l) => /^\S+\s{2,}\S/.test(l))
      const at = header!.indexOf('STATUS ')
      return Object.fromEntries(lines.map((l) => [l.split(/\s+/)[0]!, l.slice(at).split(/\s+/)[0]!]))
    })
}

describe('npm run demo', () => {
  it('runs the whole journey against the stand-ins, says so, and leaves nothing behind', async () => {
    const run = await runDemo()
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toContain('against local stand-ins')
    expect(run.stderr).toContain('It is a demo and test aid, not a scheduler')
    expect(run.stderr).toContain('Cluster demo: created the cluster, created 2/2 node pools')
    // The bucket attached with auto-mount, and listed.
    expect(run.stderr).toContain('Attached storage datasets to cluster demo')
    expect(run.stdout).toMatch(/^datasets\s+gcsfuse\s+true\s+\/data\s+true\s+demo-datasets$/m)

    const [queued, preempting, queuedOnly, waited, final] = tables(run.stdout)
    expect(queued).toEqual({pretrain: 'Running', sweep: 'Pending'})
    expect(preempting).toEqual({pretrain: 'Preempted', sweep: 'Pending', urgent: 'Running'})
    expect(queuedOnly).toEqual({pretrain: 'Preempted', sweep: 'Pending'})
    // Why the preempted run waits: its place in the queue, and who took its slice.
    expect(run.stdout).toMatch(/^pretrain: QUEUED, position 1 of 2 in cluster-queue: waiting for 16 more chips\.$/m)
    expect(run.stdout).toMatch(/^ {2}Preempted \d+s ago by urgent \(high\)/m)
    expect(waited).toEqual({urgent: 'Succeeded'})
    // The wait saw it running and watched it finish, rather than finding it done.
    expect(run.stderr).toContain('Waiting up to 1 min for workload urgent to finish; it is Running.')
    expect(final).toEqual({pretrain: 'Running', urgent: 'Succeeded'})

    // Logs of the 4 workers of urgent's slice, each prefixed with its place.
    for (const worker of [0, 1, 2, 3])
      expect(run.stdout).toMatch(new RegExp(`^\\[slice 0/worker ${worker}\\] step \\d+: loss`, 'm'))
    expect(run.stderr).toMatch(/^Done in \d+\.\d s/m)
    expect(readdirSync(join(REPO_ROOT, 'scripts'))).not.toContain('node_modules')
  }, 120_000)
})
