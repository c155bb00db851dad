import {join} from 'node:path'

import {UsageError, XpkError} from '../core/errors.js'
import {Problems} from '../core/input.js'
import type {Timing} from '../core/timing.js'
import {defaultRunName} from '../core/vm/naming.js'
import {
  checkRunInput,
  planVmRun,
  planWorkers,
  renderVmRunPlan,
  type RunWorker,
  type VmRunStep,
} from '../core/vm/run-plan.js'
import {describeStatus, shellStatus, UnreachableWorker, WorkerFailure} from '../core/vm/exit-status.js'
import {hasSshKey, shipScript, withSshKey} from '../core/vm/remote-scripts.js'
import type {
  RemoteSession,
  RemoteShell,
  RunLogs,
  ScriptDirEntries,
  ScriptDirListing,
  SshKeyPair,
  SshKeyStore,
} from '../ports/remote-shell.js'
import type {TpuClient, TpuLocation, TpuNode} from '../ports/tpu.js'
import {pollUntil, withRetries, type RetryOptions} from '../executor/retry.js'
import {tpuRetry, usingTpu, type VmApiDeps, type VmTiming} from './vm-common.js'
import {
  vmRunAddingKey,
  vmRunConfirmCreateKey,
  vmRunConfirmLargeScriptDir,
  vmRunDefaultScriptDir,
  vmRunDryRun,
  vmRunKeyCreated,
  vmRunStarting,
  vmRunSucceeded,
} from '../core/messages/vm.js'
import type {LocalFiles} from '../ports/files.js'
import {confirmOrStop} from './confirm.js'
import {confirmPacking, scriptDirLimit, type PackingPurpose} from './script-dir.js'
import {runEverywhere} from './vm-run-everywhere.js'

export interface VmRunOptions extends TpuLocation {
  readonly tpuPrefix: string
  readonly command: string
  /** The directory to copy to every worker; the current directory when not given (and not useExistingFolder). */
  readonly scriptDir?: string
  /** `--log-dir`: must exist; without it, the default run-logs directory is used (and made when missing). */
  readonly logDir?: string
  /** Names the log directory; default run-<UTC timestamp>. */
  readonly runName?: string
  /** Connect to internal IPs (from inside Google Cloud). */
  readonly internalIp: boolean
  /** Run in the copy already on the workers instead of shipping the script directory. */
  readonly useExistingFolder: boolean
  readonly sshUser: string
  /** Where the login came from, for messages: `--ssh-user` (the default), or e.g. "the USER variable". */
  readonly sshUserSource?: string
  /** As typed (checked exactly) or a number. */
  readonly sshPort: number | string
  /** Where the script directory goes on each worker, relative to the login's home. */
  /** Default `xpk-<tpu-prefix>`. */
  readonly remoteDir?: string
  /** Retries and polls (VmTiming), and how long SSH may keep refusing after xpk added the key (timing.ssh). */
  readonly timing: VmTiming & Pick<Timing, 'ssh'>
  /**
   * Show the plan (the workers, the key, the metadata to update, what is copied, the command with each worker's
   * environment) and change nothing: no key is created or added, nothing is copied, connected to or run.
   */
  readonly dryRun?: boolean
}

/** Options with every default applied and every value checked. */
type Resolved = VmRunOptions & {
  readonly runName: string
  readonly remoteDir: string
  readonly sshPort: number
}

export interface VmRunDeps extends VmApiDeps {
  readonly keys: SshKeyStore
  readonly shell: (keys: SshKeyPair) => Promise<RemoteShell>
  /** Lists the script directory (after its ignore files); nothing is read but the listing. */
  readonly list: (dir: string) => Promise<ScriptDirListing>
  readonly pack: (listing: ScriptDirEntries) => Promise<{tar: Buffer; files: number; bytes: number}>
  readonly logs: RunLogs
  /** Where run directories go without --log-dir (made when missing). */
  readonly defaultLogDir: string
  /** To check --log-dir before anything is sent. */
  readonly files: LocalFiles
  /** The default --script-dir. */
  readonly cwd: string
  /** The caller's environment (XPK_SCRIPT_DIR_MAX_MB). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** Where worker 0's output is streamed. */
  readonly output: (chunk: Buffer) => void
}

export interface WorkerResult {
  readonly slice: number
  readonly worker: number
  readonly host: string
  /**
   * Exit status as a shell reports it (128+N when signal N killed the command); null when the connection dropped
   * (counted as 255, as ssh does).
   */
  readonly exitCode: number | null
  /** The signal SSH reported, when the worker's login shell itself was killed. */
  readonly signal?: string
  /** Stopped by xpk because another worker failed, or on Ctrl-C. */
  readonly stopped: boolean
  readonly seconds: number
  readonly log: string
}

export interface VmRunResult {
  readonly runName: string
  readonly logDir: string
  readonly seconds: number
  readonly shipped: {readonly files: number; readonly bytes: number} | null
  readonly workers: readonly WorkerResult[]
  /** The plan, as data, when this was a dry run (nothing ran: `workers` is empty); absent after a run. */
  readonly plan?: {readonly steps: readonly VmRunStep[]}
}

/**
 * `xpk vm run` (MaxText's multihost_runner without gcloud): finds the slices, makes sure the user's key is in their
 * ssh-keys metadata, ships the script directory to every worker over one SSH connection each, and runs the command
 * everywhere with the multislice environment. Fails fast: the first failing worker stops the others (their whole
 * process group); Ctrl-C does the same.
 */
export async function runOnVms(input: VmRunOptions, deps: VmRunDeps): Promise<VmRunResult> {
  const checked = await checkInputs(input, deps)
  if (input.dryRun) return showPlan(checked, deps)
  const {options, listing, logBase} = checked
  const keys = checked.keys!
  const started = deps.now()
  const location = {project: options.project, zone: options.zone}
  // Loading the SSH client overlaps the TPU API calls.
  const shellReady = deps.shell(keys)
  shellReady.catch(() => {})
  let packing: ReturnType<VmRunDeps['pack']> | undefined
  // Every run asks the TPU API for the workers: one REST request, whose cost a re-run does not measurably feel
  // (README, Speed, on why the last listing is no longer kept to skip it).
  const {plan, addedKeys} = await usingTpu(deps, async (tpu) => {
    const nodes = await withRetries(() => tpu.listNodes(location), tpuRetry(options.timing, deps))
    const plan = planWorkers(options.tpuPrefix, nodes, options.internalIp)
    // Packing overlaps the metadata updates; it is awaited below, so an early failure must not go unhandled.
    packing = listing === undefined ? undefined : deps.pack(listing)
    packing?.catch(() => {})
    const mine = nodes.filter((n) => plan.workers.some((w) => w.nodeId === n.id))
    const addedKeys = await ensureKeyOnNodes(tpu, location, mine, options, keys, deps)
    return {plan, addedKeys}
  })
  deps.console.debug(`Found ${plan.workers.length} workers in ${Math.round(deps.now() - started)} ms.`)
  if (plan.usedInternal && !options.internalIp) {
    deps.console.debug('Some workers have no external IP: connecting to their internal IPs.')
  }
  const bundle = packing ? await packing : undefined
  const {workers, numSlices} = plan
  deps.console.info(
    vmRunStarting({
      workers: workers.length,
      slices: numSlices,
      copied: bundle ? {files: bundle.files, bytes: bundle.tar.length} : null,
      command: options.command,
    }),
  )
  const logDir = await deps.logs.open(join(logBase, options.runName))
  const shell = await shellReady
  const sessions = await connectAll(shell, workers, options, addedKeys, deps)
  deps.console.debug(`Connected to every worker after ${Math.round(deps.now() - started)} ms.`)
  try {
    if (bundle) await shipEverywhere(sessions, workers, bundle.tar, options, deps)
    deps.console.debug(`Ready to start after ${Math.round(deps.now() - started)} ms.`)
    // A worker whose connection is lost is reached again, only to stop its command (as Ctrl-C stops the others).
    const reconnect = (w: RunWorker) =>
      shell.connect(
        {host: w.host, port: options.sshPort, user: options.sshUser, identity: w.identity},
        new AbortController().signal,
      )
    const {results, firstFailed} = await runEverywhere(sessions, workers, numSlices, logDir, options, deps, reconnect)
    const result: VmRunResult = {
      runName: options.runName,
      logDir,
      seconds: round((deps.now() - started) / 1000),
      shipped: bundle ? {files: bundle.files, bytes: bundle.bytes} : null,
      workers: results,
    }
    await deps.logs.writeFile(`${logDir}/summary.json`, `${JSON.stringify(result, null, 2)}\n`)
    deps.console.debug(`Finished after ${Math.round(deps.now() - started)} ms.`)
    deps.signal.throwIfAborted()
    if (firstFailed !== undefined) throw await failure(result, firstFailed, deps)
    deps.console.info(vmRunSucceeded({workers: results.length, seconds: result.seconds, logDir}))
    return result
  } finally {
    for (const s of sessions) s.close()
  }
}

/**
 * `vm run --dry-run`: the workers as the TPU API lists them, and the plan of the run (core/vm/run-plan.ts), with
 * nothing created, added, copied, connected to or run.
 */
async function showPlan(checked: CheckedInputs, deps: VmRunDeps): Promise<VmRunResult> {
  const {options, listing, logBase} = checked
  const location = {project: options.project, zone: options.zone}
  const nodes = await usingTpu(deps, (tpu) =>
    withRetries(() => tpu.listNodes(location), tpuRetry(options.timing, deps)),
  )
  const logDir = join(logBase, options.runName)
  const plan = planVmRun({
    ...options,
    publicKey: checked.keys?.publicKey,
    privateKeyPath: checked.keys?.privateKeyPath ?? deps.keys.privateKeyPath,
    scriptDir:
      listing === undefined
        ? undefined
        : {
            dir: listing.dir,
            isDefault: options.scriptDir === undefined,
            entries: listing.entries,
            maxBytes: checked.maxBytes,
          },
    nodes,
    logDir,
  })
  deps.console.result(renderVmRunPlan(plan))
  deps.console.info(vmRunDryRun())
  return {runName: options.runName, logDir, seconds: 0, shipped: null, workers: [], plan: {steps: plan.steps}}
}

/** What `vm run` reads before it sends anything: the options, the key pair, the script directory and the logs. */
interface CheckedInputs {
  readonly options: Resolved
  /** Undefined only in a dry run, when the key pair is missing (a run creates it). */
  readonly keys: SshKeyPair | undefined
  /** The script directory to copy, listed (undefined with --use-existing-folder). */
  readonly listing: ScriptDirEntries | undefined
  /** Where the run directory goes. */
  readonly logBase: string
  /** XPK_SCRIPT_DIR_MAX_MB in bytes (null: no limit). */
  readonly maxBytes: number | null
}

const WORKER_PACKING: PackingPurpose = {
  destination: 'to every worker',
  ignoreFiles: '.dockerignore and .xpkignore',
  messages: {defaultDir: vmRunDefaultScriptDir, confirm: vmRunConfirmLargeScriptDir},
  nothingDone: 'Nothing was copied or run.',
}

/**
 * Every input of the run, read and checked before any request (issue 17): the flags (and the login from $USER), the
 * SSH key pair (its public key goes into the nodes' metadata), --log-dir and the run directory in it, and the
 * script directory, listed and, when it looks like more than training code, asked about (--force skips the
 * question). Usage problems are reported together.
 */
async function checkInputs(input: VmRunOptions, deps: VmRunDeps): Promise<CheckedInputs> {
  const named = {
    ...input,
    runName: input.runName ?? defaultRunName(new Date(deps.now())),
    remoteDir: input.remoteDir ?? `xpk-${input.tpuPrefix}`,
  }
  const problems = new Problems()
  const parsed = problems.attempt(() => checkRunInput(named))
  const logBase = input.logDir ?? deps.defaultLogDir
  const scriptDir = input.useExistingFolder ? undefined : (input.scriptDir ?? deps.cwd)
  const limit = scriptDir === undefined ? null : scriptDirLimit(deps.env)
  if (limit instanceof UsageError) problems.push(limit)
  const [logProblem, found, listed] = await Promise.all([
    checkLogDir(logBase, input.logDir !== undefined, named.runName, deps.files),
    settle(deps.keys.read()),
    scriptDir === undefined ? undefined : settle(deps.list(scriptDir)),
  ])
  if (logProblem) problems.push(logProblem)
  const listing = listed === undefined ? undefined : collect(listed, problems)
  const entries = listing === undefined ? undefined : scriptDirEntries(listing, problems)
  const pair = collect(found, problems)
  problems.throwIfAny()
  // Asked only once everything else is known to be fine: a "yes" is never followed by a refusal. A dry run asks
  // nothing: its plan says what a run would ask.
  if (entries && !input.dryRun) {
    const path = input.scriptDir === undefined ? deps.cwd : entries.dir
    await confirmPacking(
      entries.entries,
      {path, isDefault: input.scriptDir === undefined, maxBytes: limit as number | null},
      WORKER_PACKING,
      deps.console,
    )
  }
  const keys = pair ?? (input.dryRun ? undefined : await createKeyPair(deps))
  return {
    options: {...named, ...(parsed as {sshPort: number})},
    keys,
    listing: entries,
    logBase,
    maxBytes: limit as number | null,
  }
}

type Settled<T> = {readonly value: T} | {readonly error: unknown}

function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({value}),
    (error: unknown) => ({error}),
  )
}

/** The value, or undefined with a usage error recorded; any other error is thrown. */
function collect<T>(settled: Settled<T>, problems: Problems): T | undefined {
  if ('value' in settled) return settled.value
  if (settled.error instanceof UsageError) {
    problems.push(settled.error)
    return undefined
  }
  throw settled.error
}

function scriptDirEntries(listing: ScriptDirListing, problems: Problems): ScriptDirEntries | undefined {
  if ('entries' in listing) return listing
  const hints = [
    'Point --script-dir at the directory to copy to every worker (default: the current directory), or pass --use-existing-folder to copy nothing.',
  ]
  problems.add(
    listing.missing === 'absent'
      ? `--script-dir ${listing.dir}: no such directory.`
      : `--script-dir ${listing.dir} is not a directory.`,
    {flag: '--script-dir', hints},
  )
  return undefined
}

/**
 * `--log-dir` must be an existing directory xpk may write in (a typo is not hidden by making it); the default one is
 * made when missing. The run directory in it may exist (a re-run of the same --run-name replaces its logs), but
 * not as a file.
 */
async function checkLogDir(
  base: string,
  given: boolean,
  runName: string,
  files: LocalFiles,
): Promise<UsageError | undefined> {
  const name = given ? `--log-dir ${base}` : `The run-logs directory ${base} (the default of --log-dir)`
  const problem = (why: string, hint: string) => new UsageError(`${name}: ${why}`, {flag: '--log-dir', hints: [hint]})
  try {
    const found = await files.stat(base)
    if (found === undefined) {
      return given
        ? problem('no such directory.', `Create it first (mkdir -p ${base}), or leave --log-dir out.`)
        : undefined
    }
    if (found.type !== 'directory') return problem('is not a directory.', 'Name a directory for the run logs.')
    if (!(await files.canWriteIn(base))) {
      return problem('no permission to create directories in it.', 'Name a directory you can write to.')
    }
    const run = await files.stat(join(base, runName))
    if (run !== undefined && run.type !== 'directory') {
      return problem(
        `${join(base, runName)} exists and is not a directory.`,
        'Pass another --run-name, or move the file away.',
      )
    }
  } catch (error) {
    if (!(error instanceof XpkError)) throw error
    return problem(error.message, 'Name a directory you can write to.')
  }
  return undefined
}

/** Creates the key pair gcloud would have made, after asking (the answer defaults to yes). */
async function createKeyPair(deps: VmRunDeps): Promise<SshKeyPair> {
  // Creating a key destroys nothing, so with nobody to ask the host's default answer (yes) lets scripts go on.
  await confirmOrStop(deps.console, vmRunConfirmCreateKey(), {
    nothingDone: 'No SSH key, so xpk cannot reach the TPU VMs.',
    hints: ['Create one with `ssh-keygen -f ~/.ssh/google_compute_engine`, then re-run.'],
  })
  const created = await deps.keys.create('xpk')
  deps.console.info(vmRunKeyCreated({privateKeyPath: created.privateKeyPath}))
  return created
}

/** Adds the key to the ssh-keys metadata of the nodes that lack it, and waits for the updates. */
async function ensureKeyOnNodes(
  tpu: TpuClient,
  location: TpuLocation,
  nodes: readonly TpuNode[],
  options: VmRunOptions,
  keys: SshKeyPair,
  deps: VmRunDeps,
): Promise<boolean> {
  const lacking = nodes.filter((n) => !hasSshKey(n.metadata, options.sshUser, keys.publicKey))
  if (lacking.length === 0) return false
  deps.console.info(vmRunAddingKey({user: options.sshUser, nodes: lacking.map((n) => n.id)}))
  await Promise.all(
    lacking.map(async (node) => {
      const retry = tpuRetry(options.timing, deps)
      const op = await withRetries(
        () => tpu.setNodeMetadata(location, node.id, withSshKey(node.metadata, options.sshUser, keys.publicKey)),
        retry,
      )
      let polled = false
      await pollUntil(
        async () => {
          const current = polled ? await tpu.getOperation(op.name) : op
          polled = true
          if (current.error) {
            throw new XpkError('failed', `Could not add the SSH key to ${node.id}: ${current.error.message}`)
          }
          return current.done
        },
        {...retry, poll: options.timing.operations},
      )
    }),
  )
  return true
}

/** One connection per worker, in parallel. Right after a key was added, refusals are retried for a while. */
async function connectAll(
  shell: RemoteShell,
  workers: readonly RunWorker[],
  options: Resolved,
  addedKeys: boolean,
  deps: VmRunDeps,
): Promise<RemoteSession[]> {
  const retry: RetryOptions = {
    policy: options.timing.retry,
    clock: deps,
    signal: deps.signal,
    // Refusals and unreachable workers may pass (sshd starting, the key reaching the VM); a changed host key or an
    // unusable private key will not get better by retrying.
    retryable: (error) =>
      error instanceof XpkError &&
      (error.kind === 'unavailable' || error.kind === 'auth') &&
      !/host key|private key/.test(error.message),
    retryUntil: addedKeys ? deps.now() + options.timing.ssh.keyPropagationMs : undefined,
  }
  const settled = await Promise.allSettled(
    workers.map((w) =>
      withRetries(
        () =>
          shell.connect(
            {host: w.host, port: options.sshPort, user: options.sshUser, identity: w.identity},
            deps.signal,
          ),
        retry,
      ),
    ),
  )
  const failedAt = settled.findIndex((s) => s.status === 'rejected')
  if (failedAt >= 0) {
    for (const s of settled) if (s.status === 'fulfilled') s.value.close()
    const w = workers[failedAt]
    const reason = (settled[failedAt] as PromiseRejectedResult).reason
    if (reason instanceof XpkError && reason.kind !== 'interrupted') {
      const what = `Slice ${w.slice} worker ${w.worker} (${w.nodeId}): ${reason.message}`
      if (reason.kind === 'unavailable') throw new UnreachableWorker(what, {hints: reason.hints, cause: reason})
      throw new XpkError(reason.kind, what, {hints: reason.hints, cause: reason})
    }
    throw reason
  }
  return settled.map((s) => (s as PromiseFulfilledResult<RemoteSession>).value)
}

/**
 * Copies the tar to every worker at once, one stream per connection. Every worker has its copy before any command
 * starts, so the commands start together (multislice jobs wait for their slowest member anyway).
 */
async function shipEverywhere(
  sessions: readonly RemoteSession[],
  workers: readonly RunWorker[],
  tar: Buffer,
  options: Resolved,
  deps: VmRunDeps,
): Promise<void> {
  const board = deps.console.progress('Copying the script directory:')
  let copied = 0
  // Ctrl-C while copying: closing the connections ends every transfer (tar sees the end of its input and exits).
  let onAbort = () => {}
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      for (const s of sessions) s.close()
      reject(deps.signal.reason)
    }
    if (deps.signal.aborted) onAbort()
    else deps.signal.addEventListener('abort', onAbort, {once: true})
  })
  aborted.catch(() => {})
  try {
    const copies = Promise.all(
      sessions.map(async (session, i) => {
        const w = workers[i]
        const errors: Buffer[] = []
        const exit = await session.exec(shipScript(options.remoteDir), {
          stdin: tar,
          onOutput: (chunk, stream) => void (stream === 'stderr' && errors.push(chunk)),
        })
        if (exit.code !== 0) {
          throw new XpkError(
            'failed',
            `Copying the script directory to slice ${w.slice} worker ${w.worker} (${w.host}) failed with ${describeStatus(exit)}: ${Buffer.concat(errors).toString().trim() || 'no message'}`,
            {hints: ['Check the free disk space of the worker, and that tar is installed.']},
          )
        }
        copied++
        board.update('copy', {label: 'copy', state: `${copied}/${workers.length} workers`, status: 'running'})
      }),
    )
    await Promise.race([copies, aborted])
    board.update('copy', {label: 'copy', state: `${copied}/${workers.length} workers`, status: 'done'})
  } finally {
    deps.signal.removeEventListener('abort', onAbort)
    board.close()
  }
}

/**
 * The error for a run in which the command failed on some worker. It exits with the highest worker status (what the
 * worker's shell would have exited with), names that worker with the end of its log, and the worker that failed
 * first when that is another one (often the cause: the others may fail because it went away).
 */
async function failure(result: VmRunResult, firstFailed: number, deps: VmRunDeps): Promise<WorkerFailure<VmRunResult>> {
  const failed = result.workers.filter((r) => !r.stopped && statusOf(r) !== 0)
  const worst = failed.reduce((a, b) => (statusOf(b) > statusOf(a) ? b : a))
  const first = result.workers[firstFailed]
  const status = statusOf(worst)
  const stopped = result.workers.filter((r) => r.stopped).length
  const name = (r: WorkerResult) => `slice ${r.slice} worker ${r.worker}`
  const tailOf = async (r: WorkerResult) => {
    const tail = await deps.logs.tail(r.log, 10)
    return tail.length > 0 ? [`Last lines of ${r.log}:`, ...tail.map((l) => `  | ${l}`)] : []
  }
  const lines = [
    `The command failed on ${name(worst)} with ${describeWorker(worst)}` +
      (failed.length > 1 ? `, the highest of ${failed.length} failed workers` : '') +
      (first !== worst ? ` (the first failure xpk saw: ${name(first)}, ${describeWorker(first)})` : '') +
      '.' +
      (stopped > 0 ? ` xpk stopped the other ${stopped} worker${stopped === 1 ? '' : 's'}.` : ''),
    ...(await tailOf(worst)),
    ...(first !== worst ? await tailOf(first) : []),
  ]
  return new WorkerFailure(status, lines.join('\n'), result, {
    hints: [
      `xpk exits with ${status}, the worker's own exit status. Every worker's log and summary.json (per-worker exit codes, durations) are in ${result.logDir}.`,
    ],
  })
}

/** A worker's status for ordering: a lost connection counts as 255, as with ssh. */
const statusOf = (r: WorkerResult) => shellStatus({code: r.exitCode, signal: r.signal})

const describeWorker = (r: WorkerResult) => describeStatus({code: r.exitCode, signal: r.signal})

/** Seconds to one decimal, as --json gives them. */
const round = (n: number) => Math.round(n * 10) / 10
