// The container's wrapper script run by real bash as the pod would run it (after Kubernetes' own expansion of
// command, args and env), against hostile commands: every case is a real process, so this lives with the other
// process-level tests. Its text and argv are unit-tested in test/core/manifests/container-script.test.ts.
import {spawn, spawnSync} from 'node:child_process'
import {mkdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {beforeAll, describe, expect, it} from 'vitest'

import {GPU_TERMINATION_FILE, WRAPPER_NAME} from '../../src/core/manifests/container-script.js'
import {buildJobSet} from '../../src/core/manifests/jobset.js'
import {aWorkloadSpec} from '../builders/workload-spec.js'
import type {WorkloadSpecOverrides} from '../builders/workload-spec.js'
import {tempDir} from '../helpers/temp.js'
import {envValues, kubernetesExpand} from '../core/manifests/k8s-expansion.js'

// ---------------------------------------------------------------------------------------------------------------
// The wrapper, run by bash as the container would run it.

interface Hostile {
  readonly name: string
  readonly command: string
  /** What the command prints, between the wrapper's start and end lines. */
  readonly stdout: string
  readonly exitCode: number
  readonly spec?: WorkloadSpecOverrides
}

const HOSTILE: readonly Hostile[] = [
  {name: 'a trailing comment', command: 'echo train  # run it', stdout: 'train\n', exitCode: 0},
  {name: 'a comment then more text', command: 'echo a # ) ; exit 0', stdout: 'a\n', exitCode: 0},
  {name: 'an unbalanced )', command: 'echo hi )', stdout: '', exitCode: 2},
  {name: 'an unbalanced (', command: 'echo (hi', stdout: '', exitCode: 2},
  {name: 'breaking out of a subshell', command: 'false); exit 0; (true', stdout: '', exitCode: 2},
  {name: 'ending the wait loop early', command: 'exit 9; done; exit 0; while true', stdout: '', exitCode: 2},
  {name: 'an unbalanced double quote', command: 'echo "oops', stdout: '', exitCode: 2},
  {name: 'an unbalanced single quote', command: "echo it's", stdout: '', exitCode: 2},
  {
    name: 'balanced quotes of every kind',
    command: `echo "a 'b'" 'c "d"' $'e\\tf'`,
    stdout: `a 'b' c "d" e\tf\n`,
    exitCode: 0,
  },
  {name: 'a heredoc', command: "cat <<'EOF'\n) ' \" $(x) `y`\nEOF", stdout: ') \' " $(x) `y`\n', exitCode: 0},
  {name: 'an unterminated heredoc', command: 'cat <<EOF\nno end', stdout: 'no end\n', exitCode: 0},
  {name: 'command substitution', command: 'echo $(echo sub) "$(echo quoted)"', stdout: 'sub quoted\n', exitCode: 0},
  {name: 'backticks', command: 'echo `echo tick`', stdout: 'tick\n', exitCode: 0},
  {name: 'newlines', command: 'echo one\necho two\n\nexit 4', stdout: 'one\ntwo\n', exitCode: 4},
  {name: 'a trailing backslash', command: 'echo end \\', stdout: 'end \\\n', exitCode: 0},
  {name: 'unicode', command: 'echo "héllo — 日本 🚀"', stdout: 'héllo — 日本 🚀\n', exitCode: 0},
  {name: 'exit 7 is propagated', command: 'exit 7', stdout: '', exitCode: 7},
  {name: 'a failing command', command: 'false', stdout: '', exitCode: 1},
  {name: 'an unknown program', command: 'no-such-program-xpk', stdout: '', exitCode: 127},
  {name: 'a leading dash is not a bash option', command: '-x', stdout: '', exitCode: 127},
  {
    name: 'the wrapper positional args are not the command’s',
    command: 'echo "[$1][$2]"',
    stdout: '[][]\n',
    exitCode: 0,
  },
  {
    name: '$(VAR) and $$ reach bash as typed, not expanded by Kubernetes',
    command: `echo '$(GREETING)' '$$' "$GREETING"`,
    stdout: '$(GREETING) $$ hello\n',
    exitCode: 0,
    spec: {env: [{name: 'GREETING', value: 'hello'}]},
  },
  {
    name: 'debug logs are exported to the command',
    command: 'echo $TPU_MIN_LOG_LEVEL $TPU_VMODULE',
    stdout: '0 real_program_continuator=1\n',
    exitCode: 0,
    spec: {enableDebugLogs: true},
  },
  {
    name: 'a GPU pod exits with the command’s code too',
    command: 'exit 3',
    stdout: '',
    exitCode: 3,
    spec: {type: 'l4-1'},
  },
]

interface Run {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

let sandbox: string
let tools: string

beforeAll(() => {
  sandbox = tempDir('xpk-wrapper-')
  // A PATH with only these, so the gcloud check does not depend on the machine.
  tools = join(sandbox, 'tools')
  mkdirSync(tools)
  for (const tool of ['bash', 'sh', 'cat', 'date', 'sleep', 'which', 'false']) {
    const found = spawnSync('bash', ['-c', 'command -v "$1"', '_', tool], {encoding: 'utf8'}).stdout.trim()
    if (!found) throw new Error(`${tool} not found on PATH`)
    symlinkSync(found, join(tools, tool))
  }
})

/** The main container's argv after Kubernetes' expansion, and its env. */
function containerArgv(spec: WorkloadSpecOverrides): {argv: string[]; env: Record<string, string>} {
  const container = buildJobSet(aWorkloadSpec(spec)).spec.replicatedJobs[0].template.spec.template.spec.containers[0]
  const env = envValues(container.env)
  return {argv: (container.command ?? []).map((arg) => kubernetesExpand(arg, env)), env}
}

function runWrapper(
  spec: WorkloadSpecOverrides,
  options: {path?: string; onStdout?: (text: string, stop: (s: NodeJS.Signals) => void) => void} = {},
): Promise<Run> {
  const {argv, env} = containerArgv(spec)
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), {
      env: {...env, PATH: options.path ?? tools, HOSTNAME: 'host-0'},
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8')
      options.onStdout?.(stdout, (signal) => child.kill(signal))
    })
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({code, signal, stdout, stderr}))
  })
}

/** The lines the command printed: everything between the wrapper's start line and its end line. */
function commandOutput(stdout: string): string {
  const lines = stdout.split('\n')
  expect(lines[0]).toMatch(/^XPK Start: \S/)
  const end = lines.findIndex((line) => line.startsWith('XPK End: '))
  expect(end, stdout).toBeGreaterThan(0)
  const printed = lines.slice(1, end)
  return printed.length === 0 ? '' : `${printed.join('\n')}\n`
}

describe('the wrapper run by bash, against hostile commands', () => {
  // Every run spends 5 s or more in the wait loop, so all of them start at once and the cases check the results.
  const runs = new Map<string, Promise<Run>>()
  let sigterm: Promise<Run & {sent: boolean}>
  let upload: Promise<Run & {gcloudArgs: string[]}>
  // Validation rejects such a prefix; the wrapper must not depend on that.
  const prefix = 'gs://b/x; touch "$(pwned)" `id` #'

  beforeAll(() => {
    for (const c of HOSTILE) runs.set(c.name, runWrapper({...c.spec, command: c.command}))

    let sent = false
    sigterm = runWrapper(
      {command: "trap 'echo got SIGTERM; exit 3' TERM; echo ready; while true; do sleep 0.1; done"},
      {
        onStdout: (text, stop) => {
          if (!sent && text.includes('ready\n')) {
            sent = true
            stop('SIGTERM')
          }
        },
      },
    ).then((run) => ({...run, sent}))

    const bin = join(sandbox, 'fake-gcloud')
    mkdirSync(bin)
    const record = join(sandbox, 'gcloud-args')
    writeFileSync(join(bin, 'gcloud'), `#!/bin/sh\nprintf '%s\\n' "$@" > '${record}'\n`, {mode: 0o755})
    upload = runWrapper({command: 'exit 5', debugDumpGcs: prefix}, {path: `${bin}:${tools}`}).then((run) => ({
      ...run,
      gcloudArgs: readFileSync(record, 'utf8').split('\n'),
    }))
  })

  it.each(HOSTILE)('$name', async (c) => {
    const run = await (runs.get(c.name) as Promise<Run>)
    expect(run.code, run.stderr).toBe(c.exitCode)
    expect(commandOutput(run.stdout)).toBe(c.stdout)
    const tail = run.stdout.split('\n').slice(-2)
    expect(tail).toEqual([`EXIT_CODE=${c.exitCode}`, ''])
    // Syntax errors are the command's own (bash names it "-c"), never the wrapper's. (No test machine has the
    // GPU sidecars' shared directory, so writing the termination file fails here.)
    const wrapperErrors = run.stderr.split('\n').filter((line) => !line.includes(GPU_TERMINATION_FILE))
    expect(wrapperErrors.join('\n')).not.toContain(WRAPPER_NAME)
  })

  it('forwards SIGTERM to the command and exits with the code the command chose', async () => {
    const run = await sigterm
    expect(run.sent).toBe(true)
    expect(run.signal).toBeNull()
    expect(run.code, run.stderr).toBe(3)
    expect(commandOutput(run.stdout)).toBe('ready\ngot SIGTERM\n')
  })

  it('passes the dump prefix to gcloud as one argument, whatever it contains', async () => {
    const run = await upload
    expect(run.code, run.stderr).toBe(5)
    expect(run.gcloudArgs).toEqual(['storage', 'cp', '--recursive', '/tmp/xla_dump/', `${prefix}/host-0`, ''])
  })

  it('refuses to start the command when the dump cannot be uploaded (no gcloud)', async () => {
    const run = await runWrapper({command: 'echo should-not-run', debugDumpGcs: 'gs://b/d'})
    expect(run.code).toBe(24)
    expect(run.stdout).not.toContain('should-not-run')
    expect(run.stderr).toContain('gcloud is required but not installed')
  })
})
