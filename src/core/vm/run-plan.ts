import {UsageError, XpkError, throwIfProblems} from '../errors.js'
import {INTEGER_FLAGS, parseInteger} from '../input.js'
import type {TpuNode} from './types.js'
import {idProblem, runNameProblem, sliceIndex} from './naming.js'

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
