/**
 * The composition root of the `vm` commands: the TPU API connects on first use (the adapter imports the SDK
 * lazily), SSH is ssh2 behind the RemoteShell port, timers are real.
 */
import {integerVariable, xdgDirectory} from '../core/environment.js'
import {errorToJson} from '../core/errors.js'
import {WorkerFailure} from '../core/vm/exit-status.js'
import {DEFAULT_APPLY_OPTIONS} from '../executor/apply-cluster-plan.js'
import type {Console} from '../ports/console.js'
import type {TpuClient} from '../ports/tpu.js'
import type {VmApiDeps, VmTiming} from '../services/vm-common.js'
import type {VmRunDeps} from '../services/vm-run.js'
import {resolveTpuEndpoint} from '../core/vm/endpoint.js'
import {accessToken, pollTuning, realTime, retryTuning} from './context.js'

/** Poll and retry waits: the cluster commands' defaults; XPK_POLL_INTERVAL_MS / XPK_RETRY_INTERVAL_MS set the first wait. */
export function vmTiming(): VmTiming {
  return {
    poll: pollTuning(DEFAULT_APPLY_OPTIONS.poll),
    retry: retryTuning().backoff,
    attempts: retryTuning().attempts,
  }
}

/**
 * Connects to the TPU API (--tpu-endpoint, else XPK_TPU_ENDPOINT; XPK_ACCESS_TOKEN instead of ADC when set). Both
 * are checked here, when the command starts, so a bad one is bad input before any request (not retries against a
 * host that cannot be reached).
 */
export function tpuConnector(endpointFlag: string | undefined): () => Promise<TpuClient> {
  const endpoint = resolveTpuEndpoint(endpointFlag, process.env)
  const token = accessToken()
  return () =>
    import('../adapters/tpu-api.js').then(({createTpuClient}) => createTpuClient({endpoint, accessToken: token}))
}

export function vmApiDeps(endpointFlag: string | undefined, console: Console, signal: AbortSignal): VmApiDeps {
  return {tpu: tpuConnector(endpointFlag), console, signal, ...realTime}
}

/** Everything `xpk vm run` needs: the TPU API, the SSH key and known hosts, the packer and the run logs. */
export async function vmRunDeps(
  endpointFlag: string | undefined,
  json: boolean,
  console: Console,
  signal: AbortSignal,
): Promise<VmRunDeps> {
  const [{SshKeyFiles}, {RunLogFiles}, {NodeFiles}, {homedir, tmpdir}, {join}, {readFile}] = await Promise.all([
    import('../adapters/ssh-keys.js'),
    import('../adapters/run-logs.js'),
    import('../adapters/local-files.js'),
    import('node:os'),
    import('node:path'),
    import('node:fs/promises'),
  ])
  const configHome = xdgDirectory(process.env, 'XDG_CONFIG_HOME', homedir())
  return {
    ...vmApiDeps(endpointFlag, console, signal),
    keys: new SshKeyFiles(join(homedir(), '.ssh', 'google_compute_engine')),
    shell: async (keys) => {
      const {createSshShell, DEFAULT_READY_TIMEOUT_MS} = await import('../adapters/ssh-client.js')
      return createSshShell({
        privateKey: await readFile(keys.privateKeyPath),
        knownHostsPath: join(configHome, 'xpk', 'known_hosts'),
        // The SSH handshake's time limit (tests shorten it; the default suits TPU VMs).
        readyTimeoutMs: integerVariable(process.env, 'XPK_SSH_HANDSHAKE_TIMEOUT_MS') ?? DEFAULT_READY_TIMEOUT_MS,
      })
    },
    list: async (dir) => (await import('../adapters/ssh-bundle.js')).listScriptDir(dir),
    pack: async (listing) => (await import('../adapters/ssh-bundle.js')).packScriptDir(listing),
    logs: new RunLogFiles(),
    defaultLogDir: join(tmpdir(), 'xpk-runs'),
    files: new NodeFiles(),
    cwd: process.cwd(),
    env: process.env,
    // Worker 0's output is the command's output; under --json stdout is for the result, so it goes to stderr.
    output: (chunk) => void (json ? process.stderr : process.stdout).write(chunk),
  }
}

/** The local user name, gcloud's default login on TPU VMs, and the variable it came from (for messages). */
export function localUser(): {sshUser: string; sshUserSource: string} {
  if (process.env.USER) return {sshUser: process.env.USER, sshUserSource: '--ssh-user (default: $USER)'}
  if (process.env.LOGNAME) return {sshUser: process.env.LOGNAME, sshUserSource: '--ssh-user (default: $LOGNAME)'}
  return {sshUser: 'root', sshUserSource: '--ssh-user (default: root)'}
}

/**
 * What `vm run --json` prints when the command failed on a worker: the run (per-worker exit codes, durations, logs)
 * with the error beside it, and the exit code (the worker's). Undefined for any other error.
 */
export function workerFailureJson(error: unknown): {json: object; exitCode: number} | undefined {
  if (!(error instanceof WorkerFailure)) return undefined
  return {json: {...(error.details as object), ...errorToJson(error)}, exitCode: error.exitCode}
}
