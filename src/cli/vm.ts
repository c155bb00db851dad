/**
 * The `vm` topic (TPU VMs without GKE): the flags of its commands, and their wiring (settings, timing and the
 * adapters behind each service: the TPU API, SSH). The flags are read when the CLI starts (help, parsing);
 * everything else is imported when a command runs, by the function that needs it, so `--help` and the other topics
 * never load it.
 */
import {homedir, tmpdir} from 'node:os'
import {join} from 'node:path'

import * as Flags from '@oclif/core/flags'

import type {Timing} from '../core/timing.js'
import type {TpuClient} from '../ports/tpu.js'
import type {VmApiDeps} from '../services/vm-common.js'
import type {VmCreateResult} from '../services/vm-create.js'
import type {VmDeleteResult} from '../services/vm-delete.js'
import type {VmListResult} from '../services/vm-list.js'
import type {VmRunDeps, VmRunResult} from '../services/vm-run.js'
import type {Invocation} from './base-command.js'
import {startCommand} from './command-start.js'
import type {SettingOptions} from './wiring.js'
import {integerFlag, pathFlag, valueShape, type FlagOptions} from './flag-kinds.js'
import {changeFlags, outputFlags} from './flags.js'

/** Where TPU VM commands act, and how they reach the TPU API. */
const vmTargetFlags = {
  project: Flags.string({description: 'Google Cloud project ID. [env: XPK_PROJECT]', helpGroup: 'TARGET'}),
  zone: Flags.string({
    description: 'Compute zone of the TPUs, e.g. us-central2-b. [env: XPK_ZONE]',
    helpGroup: 'TARGET',
  }),
  'tpu-endpoint': Flags.string({
    description: 'Cloud TPU API endpoint, e.g. https://tpu.googleapis.com/. [env: XPK_TPU_ENDPOINT]',
    helpGroup: 'TARGET',
  }),
}

const TPU_PREFIX =
  'Slice name, or prefix of the slices P-0, P-1, ... of a multislice request (like multihost_runner --TPU_PREFIX).'

const tpuPrefixFlag = Flags.string({description: TPU_PREFIX, required: true})

const tpuPrefixFilterFlag = Flags.string({description: `Only this slice or prefix: ${TPU_PREFIX}`})

const queuedResourceIdFlag = Flags.string({
  description: 'Queued resource id. [default: the --tpu-prefix]',
})

const asyncFlag = Flags.boolean({description: 'Return once the request is sent instead of waiting.'})

const dryRunFlag = changeFlags['dry-run']

const forceFlag = Flags.boolean({
  description: 'Do not ask for confirmation (before deleting, creating an SSH key, or copying a large --script-dir).',
  helpGroup: 'GLOBAL',
})

/** The flags of `xpk vm create`. */
export const vmCreateFlags = {
  ...vmTargetFlags,
  'tpu-prefix': tpuPrefixFlag,
  'tpu-type': Flags.string({description: 'TPU VM type, e.g. v4-8, v5litepod-16, v5p-8, v6e-8.', required: true}),
  'num-slices': integerFlag('vm:num-slices', {description: 'Slices (nodes) to request.', default: 1}),
  'runtime-version': Flags.string({description: 'TPU software version. [default: the type generation’s base image]'}),
  'queued-resource-id': queuedResourceIdFlag,
  reserved: Flags.boolean({description: 'Use reserved capacity.', exclusive: ['spot', 'best-effort']}),
  reservation: Flags.string({description: 'Reservation name to use with --reserved.'}),
  spot: Flags.boolean({description: 'Use Spot capacity (preemptible).', exclusive: ['reserved', 'best-effort']}),
  'best-effort': Flags.boolean({
    description: 'Use best-effort (preemptible) capacity.',
    exclusive: ['reserved', 'spot'],
  }),
  async: asyncFlag,
  'dry-run': dryRunFlag,
}

/** The flags of `xpk vm delete`. */
export const vmDeleteFlags = {
  ...vmTargetFlags,
  'tpu-prefix': tpuPrefixFlag,
  'queued-resource-id': queuedResourceIdFlag,
  async: asyncFlag,
  'dry-run': dryRunFlag,
  force: forceFlag,
}

/** The flags of `xpk vm list`. */
export const vmListFlags = {...vmTargetFlags, 'tpu-prefix': tpuPrefixFilterFlag, ...outputFlags}

/** The flags of `xpk vm run`. */
export const vmRunFlags = {
  ...vmTargetFlags,
  'tpu-prefix': tpuPrefixFlag,
  command: Flags.string({
    ...valueShape('text'),
    description: 'Command to run on every worker (in the copied script directory).',
    required: true,
  }),
  'script-dir': pathFlag('directory', {
    description:
      'Directory to copy to every worker (honours .dockerignore and .xpkignore). Asks first when it holds node_modules or .git, or more than XPK_SCRIPT_DIR_MAX_MB (default 100, 0: no limit) MB; --force copies it without asking. [default: current directory]',
    exclusive: ['use-existing-folder'],
  }),
  'run-name': Flags.string({description: 'Name of the run (log directory). [default: run-<UTC timestamp>]'}),
  'internal-ip': Flags.boolean({description: 'Connect to internal IPs (when running inside Google Cloud).'}),
  'use-existing-folder': Flags.boolean({
    description: 'Re-run in the copy already on the workers; copy nothing.',
    exclusive: ['script-dir'],
  }),
  'ssh-user': Flags.string({description: 'Login on the workers. [default: your local user name]'}),
  'ssh-port': integerFlag('vm:ssh-port', {description: 'SSH port of the workers.', default: 22}),
  'log-dir': pathFlag('directory', {
    description: 'Where run directories with per-worker logs go. [default: $TMPDIR/xpk-runs]',
  }),
  'dry-run': {
    ...dryRunFlag,
    description:
      'Show the plan (the workers, what is copied, whether the key is added to their metadata, the command and its environment) and change nothing: no key is created or added, nothing is copied or run.',
  },
  force: forceFlag,
}

/** `xpk vm create`: the TPU API on first use; project and zone are required. */
export async function createVms(options: FlagOptions<typeof vmCreateFlags>, run: Invocation): Promise<VmCreateResult> {
  const [{createVms}, {capacityFromFlags}, where] = await Promise.all([
    import('../services/vm-create.js'),
    import('../core/vm/create-options.js'),
    vmCommandSettings(options, run),
  ])
  return createVms(
    {
      ...options,
      ...where,
      numSlices: options.numSlices ?? 1,
      capacity: capacityFromFlags({...options, 'best-effort': options.bestEffort}),
    },
    await vmApiDeps(options.tpuEndpoint, run),
  )
}

/** `xpk vm delete`: the TPU API on first use; project and zone are required. */
export async function deleteVms(options: FlagOptions<typeof vmDeleteFlags>, run: Invocation): Promise<VmDeleteResult> {
  const [{deleteVms}, where] = await Promise.all([import('../services/vm-delete.js'), vmCommandSettings(options, run)])
  return deleteVms({...options, ...where}, await vmApiDeps(options.tpuEndpoint, run))
}

/** `xpk vm list`: the TPU API on first use; project and zone are required. Shows the table. */
export async function listVms(options: FlagOptions<typeof vmListFlags>, run: Invocation): Promise<VmListResult> {
  const [{listVms}, {vmListView}, {showOutput}, {vmListNoneFound}, where] = await Promise.all([
    import('../services/vm-list.js'),
    import('../core/render/vms.js'),
    import('../services/show-output.js'),
    import('../core/messages/lists.js'),
    vmCommandSettings(options, run),
  ])
  const list = await listVms({...options, ...where}, await vmApiDeps(options.tpuEndpoint, run))
  showOutput(run.console, run.output, vmListView, list, () =>
    vmListNoneFound({project: where.project, zone: where.zone, tpuPrefix: options.tpuPrefix ?? null}),
  )
  return list
}

/**
 * `xpk vm run`: the TPU API, the SSH key and known hosts, the packer and the run logs; project and zone are
 * required, the login is the local user's unless --ssh-user names another.
 */
export async function runOnVms(options: FlagOptions<typeof vmRunFlags>, run: Invocation): Promise<VmRunResult> {
  const [{runOnVms}, where] = await Promise.all([import('../services/vm-run.js'), vmCommandSettings(options, run)])
  return runOnVms(
    {
      ...options,
      ...where,
      ...(options.sshUser === undefined ? localUser() : {sshUser: options.sshUser}),
      sshPort: options.sshPort ?? 22,
    },
    await vmRunDeps(options.tpuEndpoint, run, where.timing),
  )
}

/**
 * What every vm command resolves first (startCommand): project and zone, both required, and the
 * timing.
 */
async function vmCommandSettings(
  options: SettingOptions,
  run: Invocation,
): Promise<{project: string; zone: string; timing: Timing}> {
  const [{settings, timing}, {requireSettings}] = await Promise.all([
    startCommand(import('./wiring.js'), options, run),
    import('../core/settings.js'),
  ])
  return {...requireSettings(settings, 'project', 'zone'), timing}
}

/**
 * What `vm run --json` prints when the command failed on a worker: the run (per-worker exit codes, durations, logs)
 * with the error beside it, and the exit code (the worker's). Undefined for any other error.
 */
export async function workerFailureJson(error: unknown): Promise<{json: object; exitCode: number} | undefined> {
  const [{WorkerFailure}, {errorToJson}] = await Promise.all([
    import('../core/vm/exit-status.js'),
    import('../core/errors.js'),
  ])
  if (!(error instanceof WorkerFailure)) return undefined
  return {json: {...(error.details as object), ...errorToJson(error)}, exitCode: error.exitCode}
}

/**
 * Connects to the TPU API (--tpu-endpoint, else XPK_TPU_ENDPOINT; XPK_ACCESS_TOKEN instead of ADC when set). Both
 * are checked here, when the command starts, so a bad one is bad input before any request (not retries against a
 * host that cannot be reached).
 */
async function vmApiDeps(endpointFlag: string | undefined, run: Invocation): Promise<VmApiDeps> {
  const [wiring, {resolveTpuEndpoint}] = await Promise.all([import('./wiring.js'), import('../core/vm/endpoint.js')])
  const endpoint = resolveTpuEndpoint(endpointFlag, process.env)
  const token = wiring.accessToken()
  const tpu = (): Promise<TpuClient> =>
    import('../adapters/tpu-api.js').then(({createTpuClient}) => createTpuClient({endpoint, accessToken: token}))
  return {tpu, console: run.console, signal: run.signal, ...wiring.systemClock}
}

/** Everything `xpk vm run` needs: the TPU API, the SSH key and known hosts, the packer and the run logs. */
async function vmRunDeps(endpointFlag: string | undefined, run: Invocation, timing: Timing): Promise<VmRunDeps> {
  const [api, {SshKeyFiles}, {RunLogFiles}, {NodeFiles}, {xdgDirectory}] = await Promise.all([
    vmApiDeps(endpointFlag, run),
    import('../adapters/ssh-keys.js'),
    import('../adapters/run-logs.js'),
    import('../adapters/local-files.js'),
    import('../core/environment.js'),
  ])
  const configHome = xdgDirectory(process.env, 'XDG_CONFIG_HOME', homedir())
  return {
    ...api,
    keys: new SshKeyFiles(join(homedir(), '.ssh', 'google_compute_engine')),
    shell: async (keys) => {
      const [{createSshShell}, {readFile}] = await Promise.all([
        import('../adapters/ssh-client.js'),
        import('node:fs/promises'),
      ])
      return createSshShell({
        privateKey: await readFile(keys.privateKeyPath),
        knownHostsPath: join(configHome, 'xpk', 'known_hosts'),
        readyTimeoutMs: timing.ssh.handshakeMs,
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
    output: (chunk) => void (run.json ? process.stderr : process.stdout).write(chunk),
  }
}

/** The local user name, gcloud's default login on TPU VMs, and the variable it came from (for messages). */
function localUser(): {sshUser: string; sshUserSource: string} {
  if (process.env.USER) return {sshUser: process.env.USER, sshUserSource: '--ssh-user (default: $USER)'}
  if (process.env.LOGNAME) return {sshUser: process.env.LOGNAME, sshUserSource: '--ssh-user (default: $LOGNAME)'}
  return {sshUser: 'root', sshUserSource: '--ssh-user (default: root)'}
}
