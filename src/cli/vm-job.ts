/**
 * The `vm job` topic (TPU VM jobs that survive preemption): the flags of its commands and their wiring (the job
 * records under $XDG_STATE_HOME/xpk/vm-jobs, the TPU and Cloud Storage APIs, SSH). Everything but the flags is
 * imported when a command runs.
 */
import {homedir} from 'node:os'
import {join} from 'node:path'

import * as Flags from '@oclif/core/flags'

import type {Timing} from '../core/timing.js'
import type {VmJobDeps, VmJobView} from '../services/vm-job.js'
import type {Invocation} from './base-command.js'
import {startCommand} from './command-start.js'
import {integerFlag, pathFlag, valueShape, type FlagOptions} from './flag-kinds.js'
import {changeFlags, outputFlags} from './flags.js'

const endpointFlags = {
  'tpu-endpoint': Flags.string({
    description: 'Cloud TPU API endpoint, e.g. https://tpu.googleapis.com/. [env: XPK_TPU_ENDPOINT]',
    helpGroup: 'TARGET',
  }),
}

const supervisorFlags = {
  foreground: Flags.boolean({
    description:
      'Run the supervisor attached to this terminal instead of in the background (Ctrl-C detaches it; the command keeps running on the workers).',
  }),
}

/** The flags of `xpk vm job create`. */
export const vmJobCreateFlags = {
  project: Flags.string({description: 'Google Cloud project ID. [env: XPK_PROJECT]', helpGroup: 'TARGET'}),
  zone: Flags.string({description: 'Zone of the TPU (overrides tpu.zone). [env: XPK_ZONE]', helpGroup: 'TARGET'}),
  ...endpointFlags,
  'storage-endpoint': Flags.string({
    description:
      'Cloud Storage JSON API endpoint (the gcsfuse bucket is checked through it). [env: XPK_STORAGE_ENDPOINT]',
    helpGroup: 'TARGET',
  }),
  config: pathFlag('file', {
    description: 'A jobman config file (job, tpu, gcsfuse, ssh, docker|conda|venv, setup, command).',
  }),
  name: Flags.string({description: 'Job name, also the TPU name, without --config. [default: job-<UTC time>]'}),
  'tpu-type': Flags.string({description: 'TPU type without --config, e.g. v4-8, v6e-16.'}),
  command: Flags.string({...valueShape('text'), description: 'Command to run on every worker, without --config.'}),
  'script-dir': pathFlag('directory', {
    description: 'Directory copied to every worker before setup; the command runs in it.',
  }),
  workers: Flags.string({
    description: 'Workers that run the command, without --config: all, an index, or indexes like 0,2. [default: all]',
  }),
  'runtime-version': Flags.string({description: 'TPU software version. [default: the type generation’s base image]'}),
  spot: Flags.boolean({
    description: 'Spot capacity (without --config; the config says tpu.pricing).',
    exclusive: ['reserved', 'best-effort'],
  }),
  loop: Flags.boolean({
    description: 'After a preemption, request the TPU again, set it up again and re-run the command.',
  }),
  'max-recoveries': integerFlag('vm:max-recoveries', {
    description: 'Stop after this many recoveries. [default: unlimited]',
  }),
  'poll-interval': integerFlag('vm:poll-interval', {
    description: 'Seconds between reads of the TPU state while the command runs (preemption is seen within it).',
    default: 5,
  }),
  'ssh-user': Flags.string({
    description: 'Login on the workers. [default: job.remote_user, else your local user name]',
  }),
  'ssh-port': integerFlag('vm:ssh-port', {description: 'SSH port of the workers.', default: 22}),
  'internal-ip': Flags.boolean({description: 'Connect to internal IPs (when running inside Google Cloud).'}),
  ...supervisorFlags,
  detach: Flags.boolean({
    description:
      'Run detached (multihost_job): the code goes to --bucket, a queued resource of --num-slices slices runs it from its startup script, the logs go back to the bucket, and it deletes itself when every worker is done. Nothing of yours stays connected.',
    helpGroup: 'DETACHED',
  }),
  bucket: Flags.string({description: 'Bucket for the code and the logs (no gs://).', helpGroup: 'DETACHED'}),
  'bucket-dir': Flags.string({
    description: 'Folder of the bucket. [default: the bucket’s root]',
    helpGroup: 'DETACHED',
  }),
  'run-name': Flags.string({
    description: 'The run: the queued resource and the folder under --bucket-dir. [default: <user>-<UTC timestamp>]',
    helpGroup: 'DETACHED',
  }),
  'num-slices': integerFlag('vm:num-slices', {description: 'Slices to request.', default: 1, helpGroup: 'DETACHED'}),
  reserved: Flags.boolean({
    description: 'Reserved capacity.',
    exclusive: ['spot', 'best-effort'],
    helpGroup: 'DETACHED',
  }),
  reservation: Flags.string({description: 'Reservation to use with --reserved.', helpGroup: 'DETACHED'}),
  'best-effort': Flags.boolean({
    description: 'Best-effort (preemptible) capacity.',
    exclusive: ['reserved', 'spot'],
    helpGroup: 'DETACHED',
  }),
  keep: Flags.boolean({description: 'Keep the queued resource when every worker is done.', helpGroup: 'DETACHED'}),
  wait: Flags.boolean({
    description: 'Wait until every worker reported: exit 0 when all succeeded, 125 otherwise, 124 on --timeout.',
    helpGroup: 'DETACHED',
  }),
  timeout: integerFlag('vm:timeout', {
    description: 'Seconds --wait waits, the whole command included.',
    helpGroup: 'DETACHED',
  }),
  'dry-run': {
    ...changeFlags['dry-run'],
    description: 'Check the job and show it as xpk would run it; record, request and run nothing.',
  },
}

export const vmJobListFlags = {
  'filter-by-status': Flags.string({
    description:
      'Only jobs of this status: QUEUEING, SETTING_UP, RUNNING, PREEMPTED, RECOVERING, SUCCEEDED, FAILED or STOPPED.',
  }),
  ...outputFlags,
}

export const vmJobLogsFlags = {
  worker: integerFlag('vm:worker', {
    description: 'Worker whose log to show. [default: the first that runs the command]',
  }),
  module: Flags.string({
    description:
      'Which log: command (the default, its latest attempt), ssh, gcsfuse, docker, conda, venv, code, or supervisor.',
  }),
  follow: Flags.boolean({char: 'f', description: 'Keep printing what is appended until the job ends.'}),
}

const jobDryRunFlag = {
  ...changeFlags['dry-run'],
  description: 'Show what would be stopped, requested or deleted (the TPU is read), and change nothing.',
}

export const vmJobStopFlags = {...endpointFlags, 'dry-run': jobDryRunFlag}
export const vmJobResumeFlags = {...endpointFlags, ...supervisorFlags, 'dry-run': jobDryRunFlag}
export const vmJobDeleteFlags = {
  ...endpointFlags,
  purge: Flags.boolean({description: 'Also remove the job’s records and logs.'}),
  'dry-run': jobDryRunFlag,
  force: Flags.boolean({description: 'Do not ask for confirmation.', helpGroup: 'GLOBAL'}),
}
export const vmJobSuperviseFlags = {...endpointFlags}
export const vmJobSshFlags = {
  ...endpointFlags,
  worker: integerFlag('vm:worker', {description: 'Worker to log in to.', default: 0}),
}

/** The job store, the TPU API, Cloud Storage, SSH and the supervisors' processes. */
async function vmJobDeps(
  options: {tpuEndpoint?: string; storageEndpoint?: string},
  run: Invocation,
  timing: Timing,
): Promise<VmJobDeps> {
  const [
    wiring,
    {resolveTpuEndpoint},
    {resolveStorageEndpoint},
    {VmJobFiles},
    {LocalProcesses},
    {SshKeyFiles},
    {xdgDirectory},
    fs,
    {readSmallFileSync, isDirectorySync},
  ] = await Promise.all([
    import('./wiring.js'),
    import('../core/vm/endpoint.js'),
    import('../core/storage/endpoints.js'),
    import('../adapters/vm-job-files.js'),
    import('../adapters/processes.js'),
    import('../adapters/ssh-keys.js'),
    import('../core/environment.js'),
    import('node:fs/promises'),
    import('../adapters/local-files.js'),
  ])
  const tpuEndpoint = resolveTpuEndpoint(options.tpuEndpoint, process.env)
  const storageEndpoint = resolveStorageEndpoint(options.storageEndpoint, process.env)
  const accessToken = wiring.accessToken()
  const keyStore = new SshKeyFiles(join(homedir(), '.ssh', 'google_compute_engine'))
  const configHome = xdgDirectory(process.env, 'XDG_CONFIG_HOME', homedir())
  // The supervisor reaches the same endpoints as this command, whether they came from flags or variables.
  const supervisorEnv = {
    ...process.env,
    ...(options.tpuEndpoint ? {XPK_TPU_ENDPOINT: options.tpuEndpoint} : {}),
  }
  return {
    console: run.console,
    signal: run.signal,
    ...wiring.systemClock,
    tpu: () =>
      import('../adapters/tpu-api.js').then(({createTpuClient}) =>
        createTpuClient({endpoint: tpuEndpoint, accessToken}),
      ),
    storage: (signal) =>
      import('../adapters/cloud-storage-rest.js').then((m) =>
        m.createCloudStorageClient({endpoint: storageEndpoint, accessToken, signal}),
      ),
    store: new VmJobFiles(join(xdgDirectory(process.env, 'XDG_STATE_HOME', homedir()), 'xpk', 'vm-jobs')),
    processes: new LocalProcesses([process.execPath, process.argv[1]], supervisorEnv),
    endpoints: {
      storage: (storageEndpoint ?? 'https://storage.googleapis.com').replace(/\/+$/, ''),
      tpu: (tpuEndpoint ?? 'https://tpu.googleapis.com').replace(/\/+$/, ''),
    },
    keyStore,
    keys: async () => {
      const found = await keyStore.read()
      if (!found) throw new Error(`No SSH key at ${keyStore.privateKeyPath}.`)
      return found
    },
    shell: async (keys) => {
      const {createSshShell} = await import('../adapters/ssh-client.js')
      return createSshShell({
        privateKey: await fs.readFile(keys.privateKeyPath),
        knownHostsPath: join(configHome, 'xpk', 'known_hosts'),
        readyTimeoutMs: timing.ssh.handshakeMs,
      })
    },
    list: async (dir) => (await import('../adapters/ssh-bundle.js')).listScriptDir(dir),
    pack: async (listing) => (await import('../adapters/ssh-bundle.js')).packScriptDir(listing),
    readFile: (path) => fs.readFile(path),
    // A config and the files it names are small text (1 MiB is far beyond any; a startup script is at most 256 KiB).
    readText: (path) => readSmallFileSync(path, 1024 * 1024),
    isDirectory: isDirectorySync,
    cwd: process.cwd(),
    env: process.env,
  }
}

async function settingsAndTiming(options: object, run: Invocation) {
  return startCommand(import('./wiring.js'), options, run)
}

/** `xpk vm job create`: checks the config (or flags), records the job, starts its supervisor. */
export async function createVmJob(options: FlagOptions<typeof vmJobCreateFlags>, run: Invocation) {
  const [{settings, timing}, {createVmJob}, {optionalSetting}] = await Promise.all([
    settingsAndTiming(options, run),
    import('../services/vm-job.js'),
    import('../core/settings.js'),
  ])
  const where = {project: optionalSetting(settings, 'project'), zone: optionalSetting(settings, 'zone')}
  return createVmJob(
    {
      ...options,
      settings: where,
      foreground: options.foreground ?? false,
      dryRun: options.dryRun ?? false,
      timing,
    },
    await vmJobDeps(options, run, timing),
  )
}

/** `xpk vm job list`. */
export async function listVmJobs(options: FlagOptions<typeof vmJobListFlags>, run: Invocation): Promise<VmJobView[]> {
  const [{timing}, {listVmJobs}, {vmJobListView}, {showOutput}, {vmJobListNoneFound}] = await Promise.all([
    settingsAndTiming(options, run),
    import('../services/vm-job.js'),
    import('../core/vmjob/render.js'),
    import('../services/show-output.js'),
    import('../core/messages/lists.js'),
  ])
  const deps = await vmJobDeps({}, run, timing)
  const jobs = await listVmJobs({filterByStatus: options.filterByStatus, timing}, deps)
  showOutput(run.console, run.output, vmJobListView(deps.now()), jobs, () =>
    vmJobListNoneFound({dir: deps.store.root, status: options.filterByStatus ?? null}),
  )
  return jobs
}

/** `xpk vm job logs ID`. */
export async function vmJobLogs(options: FlagOptions<typeof vmJobLogsFlags> & {id: string}, run: Invocation) {
  const [{timing}, {vmJobLogs}] = await Promise.all([settingsAndTiming(options, run), import('../services/vm-job.js')])
  const deps = await vmJobDeps({}, run, timing)
  return vmJobLogs(
    {
      id: options.id,
      worker: options.worker,
      module: options.module,
      follow: options.follow ?? false,
      pollMs: 200,
      timing,
    },
    {...deps, output: (chunk) => void (run.json ? process.stderr : process.stdout).write(chunk)},
  )
}

/** `xpk vm job stop ID`. */
export async function stopVmJob(options: FlagOptions<typeof vmJobStopFlags> & {id: string}, run: Invocation) {
  const [{timing}, {stopVmJob}] = await Promise.all([settingsAndTiming(options, run), import('../services/vm-job.js')])
  return stopVmJob({id: options.id, dryRun: options.dryRun ?? false, timing}, await vmJobDeps(options, run, timing))
}

/** `xpk vm job resume ID`. */
export async function resumeVmJob(options: FlagOptions<typeof vmJobResumeFlags> & {id: string}, run: Invocation) {
  const [{timing}, {resumeVmJob}] = await Promise.all([
    settingsAndTiming(options, run),
    import('../services/vm-job.js'),
  ])
  return resumeVmJob(
    {id: options.id, foreground: options.foreground ?? false, dryRun: options.dryRun ?? false, timing},
    await vmJobDeps(options, run, timing),
  )
}

/** `xpk vm job delete ID`. */
export async function deleteVmJob(options: FlagOptions<typeof vmJobDeleteFlags> & {id: string}, run: Invocation) {
  const [{timing}, {deleteVmJob}] = await Promise.all([
    settingsAndTiming(options, run),
    import('../services/vm-job.js'),
  ])
  return deleteVmJob(
    {id: options.id, purge: options.purge ?? false, dryRun: options.dryRun ?? false, timing},
    await vmJobDeps(options, run, timing),
  )
}

/** `xpk vm job supervise ID` (hidden): the supervisor process `create` and `resume` start. */
export async function superviseVmJob(options: FlagOptions<typeof vmJobSuperviseFlags> & {id: string}, run: Invocation) {
  const [{timing}, {runSupervisor}] = await Promise.all([
    settingsAndTiming(options, run),
    import('../services/vm-job.js'),
  ])
  return runSupervisor({id: options.id, timing}, await vmJobDeps(options, run, timing))
}

/** `xpk vm job ssh ID`: a shell on a worker, wired to this terminal (a pseudo-terminal when it is one). */
export async function sshVmJob(options: FlagOptions<typeof vmJobSshFlags> & {id: string}, run: Invocation) {
  const [{timing}, {sshVmJob}] = await Promise.all([settingsAndTiming(options, run), import('../services/vm-job.js')])
  const tty = process.stdin.isTTY && process.stdout.isTTY
  return sshVmJob(
    {id: options.id, worker: options.worker, timing},
    {
      ...(await vmJobDeps(options, run, timing)),
      io: {
        input: process.stdin,
        output: process.stdout,
        errors: process.stderr,
        ...(tty
          ? {terminal: {term: process.env.TERM ?? 'xterm', rows: process.stdout.rows, cols: process.stdout.columns}}
          : {}),
      },
    },
  )
}
