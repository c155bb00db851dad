// The detached job's startup script as text: bash accepts it, it is static (no substitution in its template), and it
// holds to the contract of src/core/vmjob/detached.ts (the attributes it reads, the objects it writes, the log file,
// the log name). What it does is tested by running it: test/e2e/detached-startup.test.ts.
import {spawnSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'

import {
  DETACHED_LOG_FILE,
  DETACHED_METADATA,
  DETACHED_NOT_RUN_STATUS,
  detachedLogName,
  detachedLogObject,
  detachedStatusObject,
  detachedStatusPrefix,
} from '../../../src/core/vmjob/detached.js'
import {DETACHED_SCRIPT_OVERRIDES, DETACHED_STARTUP_SCRIPT} from '../../../src/templates/detached-startup.js'

const script = DETACHED_STARTUP_SCRIPT

describe('the detached startup script', () => {
  it('is a bash script that bash -n accepts', () => {
    expect(script.startsWith('#!/bin/bash\n')).toBe(true)
    const check = spawnSync('bash', ['-n'], {input: script, encoding: 'utf8'})
    expect(check.stderr).toBe('')
    expect(check.status).toBe(0)
  })

  it('bash -n refuses a broken copy (the check can fail)', () => {
    const check = spawnSync('bash', ['-n'], {input: script.replace('done <<< "$TPU_ENV"', ''), encoding: 'utf8'})
    expect(check.status).not.toBe(0)
  })

  it('is static: its template literal has no substitution (every "${" of the shell is escaped)', () => {
    const source = readFileSync(new URL('../../../src/templates/detached-startup.ts', import.meta.url), 'utf8')
    const literal = source.slice(source.indexOf('DETACHED_STARTUP_SCRIPT = `'))
    const body = literal.slice(literal.indexOf('`') + 1, literal.lastIndexOf('`'))
    expect(body.length).toBeGreaterThan(1000)
    expect([...body.matchAll(/(?<!\\)\$\{/g)]).toEqual([])
    expect(body).not.toMatch(/(?<!\\)`/)
    // The text the module exports is that literal with its escapes read: the same number of "${".
    expect(script.split('${').length).toBe(body.split('\\${').length)
  })

  it('reads every attribute of the contract, and tpu-env, from the metadata server', () => {
    expect(script).toContain(
      'METADATA="http://${GCE_METADATA_HOST:-metadata.google.internal}/computeMetadata/v1/instance"',
    )
    expect(script).toContain("-H 'Metadata-Flavor: Google'")
    for (const key of [...Object.values(DETACHED_METADATA), 'tpu-env']) {
      expect(script, key).toMatch(new RegExp(`\\$\\((attribute|optional) ${key}\\)`))
    }
    expect(script).toContain('metadata service-accounts/default/token')
  })

  it("writes the contract's objects, log file and not-run status", () => {
    expect(
      detachedLogObject('$PREFIX', NaN, NaN).replace('slice-NaN-worker-NaN', 'slice-$SLICE_ID-worker-$WORKER_ID'),
    ).toBe('$PREFIX/logs/slice-$SLICE_ID-worker-$WORKER_ID.log')
    expect(script).toContain('LOG_OBJECT="$PREFIX/logs/slice-$SLICE_ID-worker-$WORKER_ID.log"')
    expect(detachedStatusObject('P', 1, 2)).toBe('P/status/slice-1-worker-2')
    expect(script).toContain('STATUS_OBJECT="$PREFIX/status/slice-$SLICE_ID-worker-$WORKER_ID"')
    expect(detachedStatusPrefix('P')).toBe('P/status/')
    expect(script).toContain('STATUS_PREFIX="$PREFIX/status/"')
    expect(script).toContain(`LOG_FILE="\${XPK_JOB_LOG_FILE:-${DETACHED_LOG_FILE}}"`)
    expect(script).toContain(`NOT_RUN=${DETACHED_NOT_RUN_STATUS}\n`)
    expect(script).toContain('printf \'xpk-exit-status %s\\n\' "$status"')
  })

  it('reads no environment variable but the documented overrides (and TMPDIR)', () => {
    // Variables given a default but never set by the script itself: what it takes from its environment.
    const assigned = new Set([...script.matchAll(/^\s*([A-Z_]+)=/gm)].map((m) => m[1]))
    const read = new Set([...script.matchAll(/\$\{([A-Z_]+):-/g)].map((m) => m[1]).filter((n) => !assigned.has(n)))
    expect([...read].sort()).toEqual([...DETACHED_SCRIPT_OVERRIDES, 'TMPDIR'].sort())
  })

  const safeRun = /^SAFE_RUN=.*$/m.exec(script)![0]
  it.each([
    ['demo-run', 'demo-run_log'],
    ['a.b/c d', 'a_b_c_d_log'],
    ['été_1', '__t___1_log'],
  ])('names the Cloud Logging log of run %j as detachedLogName does (%j)', (run, expected) => {
    expect(detachedLogName(run)).toBe(expected)
    const shell = spawnSync('bash', ['-c', `${safeRun}\nprintf '%s' "\${SAFE_RUN}_log"`], {
      env: {...process.env, RUN: run},
      encoding: 'utf8',
    })
    expect(shell.stdout).toBe(expected)
  })
})
