import {spawn, type ChildProcess} from 'node:child_process'
import {existsSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

import {schemaForRun, schemaProblems} from './schema-check.js'
import {tempDir} from './temp.js'

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const BIN = join(REPO_ROOT, 'bin/run.js')

export interface CliResult {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

export interface CliOptions {
  /** Extra environment; the base isolates the run from the developer's config, gcloud and credentials. */
  readonly env?: Record<string, string | undefined>
  /** Written to stdin, which is then closed (stdin is never a terminal here). */
  readonly input?: string
  readonly cwd?: string
  readonly timeoutMs?: number
}

/** A clean environment for the CLI: no user config, no gcloud config, no metadata server, fast polling. */
export function isolatedEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: tempDir('xpk-home-'),
    XDG_CONFIG_HOME: tempDir('xpk-config-'),
    // Shared by every run of the CLI in a test run (so its caches stay warm), and removed with the run's root.
    XDG_CACHE_HOME: join(tmpdir(), '.cache'),
    // Inside the run's temporary root (test/global-setup.ts), so whatever the CLI leaves there is found.
    TMPDIR: tmpdir(),
    CLOUDSDK_CONFIG: join(tmpdir(), 'xpk-no-gcloud-config'),
    METADATA_SERVER_DETECTION: 'none',
    GCE_METADATA_HOST: '127.0.0.1:9',
    GCE_METADATA_IP: '127.0.0.1:9',
    NO_COLOR: '1',
    XPK_POLL_INTERVAL_MS: '20',
    XPK_RETRY_INTERVAL_MS: '20',
    DOCKER_HOST: process.env.DOCKER_HOST,
    ...extra,
  }
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined))
}

/** Starts the built CLI (`bin/run.js` on this Node) as a subprocess. */
export function startCli(
  args: readonly string[],
  options: CliOptions = {},
): {child: ChildProcess; done: Promise<CliResult>} {
  if (!existsSync(join(REPO_ROOT, 'dist/xpk.js'))) {
    throw new Error('dist/xpk.js is missing: run `npm run build` (npm test does it for you).')
  }
  const child = spawn(process.execPath, ['--', BIN, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: options.env ?? isolatedEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (d) => (stdout += d))
  child.stderr!.on('data', (d) => (stderr += d))
  child.stdin!.end(options.input ?? '')
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000)
  const done = new Promise<CliResult>((resolveDone, rejectDone) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      let problem: string | undefined
      try {
        problem = jsonContractProblem(args, code, stdout)
      } catch (error) {
        problem = `the schema check of xpk ${args.join(' ')} failed: ${(error as Error).message}`
      }
      if (problem) rejectDone(new Error(problem))
      else resolveDone({code, signal, stdout, stderr})
    })
  })
  return {child, done}
}

/**
 * Every run with --json is held to the committed schema of what it printed (its command's, or the error's): a
 * field the result types do not declare, a missing one or a null where the type has none fails the test that ran
 * it, whatever that test asserts itself.
 */
function jsonContractProblem(args: readonly string[], code: number | null, stdout: string): string | undefined {
  const run = schemaForRun(args, code, stdout)
  const problems = run ? schemaProblems(run.name, run.value) : []
  if (problems.length === 0) return undefined
  return [
    `xpk ${args.join(' ')} printed JSON that breaks test/golden/contract/schemas/${run!.name}.json:`,
    ...problems.slice(0, 20),
    stdout.length > 4000 ? `${stdout.slice(0, 4000)}...` : stdout,
  ].join('\n')
}

/** Runs the built CLI to completion. */
export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return startCli(args, options).done
}
