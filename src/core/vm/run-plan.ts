import {UsageError, XpkError, throwIfProblems} from '../errors.js'
import {contextConcerns, contextSize, formatBytes, type ListedEntry} from '../image/context-check.js'
import {INTEGER_FLAGS, parseInteger} from '../input.js'
import {planSummary, renderPlanLines} from '../render/plan.js'
import type {TpuNode} from './types.js'
import {idProblem, runNameProblem, sliceIndex} from './naming.js'
import {hasSshKey, sshKeyEntry, workerEnv} from './remote-scripts.js'

/** One worker of a run: which slice, which worker, and where to reach it. */
export interface RunWorker {
  readonly slice: number
  readonly worker: number
  readonly nodeId: string
  /** Node identity for host-key checking. */
  readonly identity: string
  readonly host: string
  readonly internalIp: string
}

/**
 * The login names `vm run` writes into the nodes' `ssh-keys` metadata (`USER:KEY` lines): the portable user names
 * of Debian's and Ubuntu's useradd (NAME_REGEX): a lowercase letter or underscore, then lowercase letters, digits,
 * underscores and hyphens, at most 32 characters. Nothing else can reach the metadata: not `:`, `;` or white space,
 * and not a newline, which would add a line of its own.
 */
const SSH_USER = /^[a-z_][a-z0-9_-]{0,31}$/

/** Why `user` cannot be the login on the workers; `source` says where it came from, for the message. */
export function sshUserProblem(user: string, source: string): UsageError | undefined {
  if (SSH_USER.test(user)) return undefined
  const lower = user.toLowerCase()
  const fix = SSH_USER.test(lower) ? `--ssh-user ${lower}` : '--ssh-user with a valid name'
  return new UsageError(
    `${source} ${JSON.stringify(user)} is not a user name the TPU VMs accept: use a lowercase letter or underscore, then lowercase letters, digits, underscores and hyphens (at most 32).`,
    {flag: '--ssh-user', hints: [`Pass ${fix}.`]},
  )
}

/** Validates `xpk vm run` input, reporting every problem at once. */
export function checkRunInput(input: {
  tpuPrefix: string
  command: string
  runName: string
  sshPort: number | string
  sshUser?: string
  /** Where the user name came from: `--ssh-user`, or the variable it defaulted to. */
  sshUserSource?: string
}): {
  sshPort: number
} {
  const problems: UsageError[] = []
  if (input.sshUser !== undefined) {
    const user = sshUserProblem(input.sshUser, input.sshUserSource ?? '--ssh-user')
    if (user) problems.push(user)
  }
  const prefix = idProblem(input.tpuPrefix, '--tpu-prefix')
  if (prefix) problems.push(prefix)
  if (input.command.trim() === '') {
    problems.push(
      new UsageError('--command is empty: give the command to run on every worker.', {
        flag: '--command',
        hints: ['For example --command "python3 train.py".'],
      }),
    )
  }
  const run = runNameProblem(input.runName)
  if (run) problems.push(run)
  const port = parseInteger(String(input.sshPort), INTEGER_FLAGS['vm:ssh-port'])
  if ('problem' in port) problems.push(new UsageError(`--ssh-port: ${port.problem}.`, {flag: '--ssh-port'}))
  throwIfProblems(problems)
  return {sshPort: 'value' in port ? port.value : 22}
}

/**
 * The workers of the slices named P or P-<n>, slice by slice, each worker at its external IP (or internal with
 * `internalIp`, or when the node has no external IPs). Slices must be numbered 0..N-1 and READY.
 */
export function planWorkers(
  tpuPrefix: string,
  nodes: readonly TpuNode[],
  internalIp: boolean,
): {workers: RunWorker[]; numSlices: number; usedInternal: boolean} {
  const slices = nodes
    .map((node) => ({node, index: sliceIndex(tpuPrefix, node.id)}))
    .filter((s): s is {node: TpuNode; index: number} => s.index !== undefined)
    .sort((a, b) => a.index - b.index)
  if (slices.length === 0) {
    throw new XpkError('not-found', `No TPU VMs named ${tpuPrefix} or ${tpuPrefix}-<n> in this zone.`, {
      hints: [`\`xpk vm list\` shows what exists; \`xpk vm create --tpu-prefix ${tpuPrefix} ...\` makes them.`],
    })
  }
  if (slices.some((s) => s.node.id === tpuPrefix) && slices.length > 1) {
    throw new XpkError(
      'conflict',
      `Both ${tpuPrefix} and ${slices.find((s) => s.node.id !== tpuPrefix)!.node.id} exist: which slices belong to the run is ambiguous.`,
      {hints: ['Delete the stray slice, or use a more specific --tpu-prefix.']},
    )
  }
  const missing = slices.map((s, i) => (s.index === i ? undefined : i)).find((i) => i !== undefined)
  if (missing !== undefined) {
    throw new XpkError('not-found', `Slice ${tpuPrefix}-${missing} is missing: slices must be numbered from 0.`)
  }
  const notReady = slices.filter((s) => s.node.state !== 'READY' || s.node.workers.length === 0)
  if (notReady.length > 0) {
    throw new XpkError(
      'conflict',
      `Not every slice is ready: ${notReady.map((s) => `${s.node.id} is ${s.node.state}`).join(', ')}.`,
      {hints: ['Wait for `xpk vm create` to finish, or recreate preempted slices.']},
    )
  }
  let usedInternal = false
  const workers = slices.flatMap(({node, index}) =>
    node.workers.map((w, worker) => {
      const external = internalIp ? undefined : w.externalIp
      if (!external) usedInternal = true
      return {
        slice: index,
        worker,
        nodeId: node.id,
        identity: `${node.id}/${node.uid ?? '-'}/${worker}`,
        host: external ?? w.internalIp,
        internalIp: w.internalIp,
      }
    }),
  )
  return {workers, numSlices: slices.length, usedInternal}
}

/** The progress line: `completed 3/8; slice 0 worker 5 still running` (the board shows the time). */
export function progressLine(done: number, total: number, running: readonly RunWorker[]): string {
  const still =
    running.length === 0
      ? ''
      : running.length === 1
        ? `; slice ${running[0].slice} worker ${running[0].worker} still running`
        : `; ${running.length} workers still running (slice ${running[0].slice} worker ${running[0].worker}, ...)`
  return `completed ${done}/${total}${still}`
}

/** The SSH key pair `vm run` logs in with: used as it is, or created first (after asking; the answer defaults to yes). */
export interface SshKeyStep {
  readonly action: 'create' | 'none'
  readonly resource: 'sshKey'
  readonly name: string
  readonly reason: string
  readonly spec: null
}

/** A slice's `ssh-keys` metadata: the login's public key added when missing (the other entries kept). */
export interface NodeKeyStep {
  readonly action: 'update' | 'none'
  readonly resource: 'node'
  readonly name: string
  readonly reason: string
  /** The entry added (`USER:KEY`); null when it is there, or when the key is still to be created. */
  readonly spec: {readonly addedEntry: string | null} | null
}

/** The script directory, packed once and copied to every worker (replacing the copy there). */
export interface CopyStep {
  readonly action: 'copy' | 'none'
  readonly resource: 'scriptDir'
  readonly name: string
  readonly reason: string
  readonly spec: {
    readonly files: number
    readonly bytes: number
    /** Where it goes on each worker, relative to the login's home. */
    readonly remoteDir: string
    /** Why a run asks before copying it (--force does not); empty when it does not ask. */
    readonly asks: readonly string[]
  } | null
}

/** The command on one worker, with the multislice environment it runs in. */
export interface WorkerRunStep {
  readonly action: 'run'
  readonly resource: 'worker'
  readonly name: string
  readonly reason: string
  readonly spec: {
    readonly slice: number
    readonly worker: number
    readonly node: string
    readonly host: string
    readonly port: number
    readonly user: string
    readonly env: Readonly<Record<string, string>>
    readonly log: string
  }
}

export type VmRunStep = SshKeyStep | NodeKeyStep | CopyStep | WorkerRunStep

export interface VmRunPlan {
  readonly runName: string
  readonly tpuPrefix: string
  readonly steps: readonly VmRunStep[]
}

/** What a run is planned from: its checked options, the key (undefined: to be created), the listing, the nodes. */
export interface VmRunPlanInputs {
  readonly tpuPrefix: string
  readonly command: string
  readonly runName: string
  readonly remoteDir: string
  readonly sshUser: string
  readonly sshPort: number
  readonly internalIp: boolean
  /** The public key, or undefined when the key pair is created first. */
  readonly publicKey: string | undefined
  readonly privateKeyPath: string
  /** The script directory as listed (after its ignore files); undefined with --use-existing-folder. */
  readonly scriptDir:
    | {
        readonly dir: string
        readonly isDefault: boolean
        readonly entries: readonly ListedEntry[]
        readonly maxBytes: number | null
      }
    | undefined
  readonly nodes: readonly TpuNode[]
  readonly logDir: string
}

/**
 * Plans `vm run` (what `--dry-run` shows): the key pair, the slices' ssh-keys metadata, the copy of the script
 * directory, and the command on every worker with its environment, address and log. A run does these in this order
 * (the commands start together once every worker is ready).
 * @throws XpkError when the slices cannot be run on (none, not numbered from 0, not READY)
 */
export function planVmRun(inputs: VmRunPlanInputs): VmRunPlan {
  const {workers, numSlices} = planWorkers(inputs.tpuPrefix, inputs.nodes, inputs.internalIp)
  const steps: VmRunStep[] = [
    inputs.publicKey === undefined
      ? {
          action: 'create',
          resource: 'sshKey',
          name: inputs.privateKeyPath,
          reason: 'missing: created first, after asking (with nobody to ask, created)',
          spec: null,
        }
      : {action: 'none', resource: 'sshKey', name: inputs.privateKeyPath, reason: 'exists', spec: null},
  ]
  const used = inputs.nodes.filter((n) => workers.some((w) => w.nodeId === n.id))
  for (const node of used) {
    const has = inputs.publicKey !== undefined && hasSshKey(node.metadata, inputs.sshUser, inputs.publicKey)
    steps.push(
      has
        ? {action: 'none', resource: 'node', name: node.id, reason: `has ${inputs.sshUser}'s key`, spec: null}
        : {
            action: 'update',
            resource: 'node',
            name: node.id,
            reason: `add ${inputs.sshUser}'s key to its ssh-keys metadata (the other entries are kept)`,
            spec: {
              addedEntry: inputs.publicKey === undefined ? null : sshKeyEntry(inputs.sshUser, inputs.publicKey),
            },
          },
    )
  }
  const dir = inputs.scriptDir
  if (dir === undefined) {
    steps.push({
      action: 'none',
      resource: 'scriptDir',
      name: `~/${inputs.remoteDir}`,
      reason: '--use-existing-folder: the copy already on the workers is used',
      spec: null,
    })
  } else {
    const {files, bytes} = contextSize(dir.entries)
    const asks = contextConcerns(dir.entries, dir.maxBytes)
    steps.push({
      action: 'copy',
      resource: 'scriptDir',
      name: dir.dir,
      reason:
        `${dir.isDefault ? 'the current directory (no --script-dir given): ' : ''}${files} file${files === 1 ? '' : 's'}, ` +
        `${formatBytes(bytes)} after .dockerignore and .xpkignore, to ~/${inputs.remoteDir} on ${workers.length} worker${workers.length === 1 ? '' : 's'}` +
        (asks.length > 0 ? `; a run asks first (${asks.join('; ')}), --force does not` : ''),
      spec: {files, bytes, remoteDir: inputs.remoteDir, asks},
    })
  }
  const coordinator = workers[0]!.internalIp
  for (const w of workers) {
    const env = workerEnv({
      tpuPrefix: inputs.tpuPrefix,
      numSlices,
      sliceId: w.slice,
      workerId: w.worker,
      coordinatorIp: coordinator,
      runName: inputs.runName,
    })
    steps.push({
      action: 'run',
      resource: 'worker',
      name: `slice ${w.slice} worker ${w.worker}`,
      reason:
        `${inputs.sshUser}@${w.host}:${inputs.sshPort} (${w.nodeId}): ${inputs.command}` +
        (w.slice === 0 && w.worker === 0 ? ' (its output streamed)' : ''),
      spec: {
        slice: w.slice,
        worker: w.worker,
        node: w.nodeId,
        host: w.host,
        port: inputs.sshPort,
        user: inputs.sshUser,
        env,
        log: `${inputs.logDir}/slice-${w.slice}-worker-${w.worker}.log`,
      },
    })
  }
  return {runName: inputs.runName, tpuPrefix: inputs.tpuPrefix, steps}
}

const RUN_RESOURCE_WORD: Record<VmRunStep['resource'], string> = {
  sshKey: 'ssh-key',
  node: 'node',
  scriptDir: 'script-dir',
  worker: 'worker',
}

/** The plan of a run as text: one line per step, then the summary. */
export function renderVmRunPlan(plan: VmRunPlan): string {
  return renderPlanLines(
    `Plan for run ${plan.runName} on ${plan.tpuPrefix}:`,
    plan.steps.map((s) => ({
      action: s.action,
      resource: RUN_RESOURCE_WORD[s.resource],
      name: s.name,
      detail: s.reason,
    })),
    [
      planSummary(
        plan.steps.map((s) => s.action),
        'Nothing to run.',
      ),
    ],
  )
}
