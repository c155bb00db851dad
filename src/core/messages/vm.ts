// The messages of vm create, vm delete and vm run (see ../messages.ts).
import {formatBytes} from '../image/context-check.js'
import {defineInfo, defineQuestion, defineWarning} from '../messages.js'
import {escapeInline} from '../text.js'
import {describeStatus} from '../vm/exit-status.js'
import {defineDefaultScriptDirNote, defineLargeScriptDirQuestion} from './script-dir.js'

const s = (n: number) => (n === 1 ? '' : 's')

/** A worker of a slice, and the host xpk reaches it at. */
interface Worker {
  readonly slice: number
  readonly worker: number
  readonly host: string
}

// vm create

export const vmCreateExists = defineInfo(
  'vm.create.exists',
  'The queued resource exists already with the same request.',
  (p: {queuedResource: string; state: string}) =>
    `Queued resource ${p.queuedResource} exists already with the same request (${p.state}).`,
)

export const vmCreateRequesting = defineInfo(
  'vm.create.requesting',
  'The queued resource is being requested.',
  (p: {
    queuedResource: string
    numSlices: number
    type: string
    /** Workers (hosts) per slice. */
    hosts: number
    runtimeVersion: string
    capacity: string
    nodes: readonly string[]
  }) =>
    `Requesting ${p.numSlices} x ${p.type} (${p.hosts} worker${s(p.hosts)} each, ${p.runtimeVersion}, ${p.capacity}) as queued resource ${p.queuedResource}: ${p.nodes.join(', ')}.`,
)

export const vmCreateAsync = defineInfo(
  'vm.create.async',
  '--async: not waiting for the queued resource.',
  (p: {tpuPrefix: string}) => `Not waiting (--async). Follow it with \`xpk vm list --tpu-prefix ${p.tpuPrefix}\`.`,
)

export const vmCreateDryRun = defineInfo(
  'vm.create.dry-run',
  'A dry run showed the plan of vm create without requesting anything.',
  'Dry run: nothing was requested.',
)

export const vmCreateActive = defineInfo(
  'vm.create.active',
  'The queued resource is ACTIVE, with its nodes.',
  (p: {queuedResource: string; nodes: readonly {readonly id: string; readonly workers: readonly unknown[]}[]}) =>
    `Queued resource ${p.queuedResource} is ACTIVE: ${p.nodes.map((n) => `${n.id} (${n.workers.length} worker${s(n.workers.length)})`).join(', ')}.`,
)

// vm delete

export const vmDeleteAbsent = defineInfo(
  'vm.delete.absent',
  'The queued resource to delete does not exist: nothing to do.',
  (p: {queuedResource: string; project: string; zone: string}) =>
    `Queued resource ${p.queuedResource} does not exist in ${p.project}/${p.zone}: nothing to delete.`,
)

export const vmDeleteConfirm = defineQuestion(
  'vm.delete.confirm',
  'Asked before a queued resource and its TPU VMs are deleted.',
  false,
  (p: {queuedResource: string; state: string; nodes: readonly string[]}) => ({
    text: `Delete queued resource ${p.queuedResource} (${p.state}) and its TPU VMs ${p.nodes.join(', ') || '(none)'}? Anything running on them stops.`,
    data: {queuedResource: p.queuedResource, state: p.state, nodes: p.nodes},
  }),
)

export const vmDeleteDryRun = defineInfo(
  'vm.delete.dry-run',
  'A dry run showed the plan of vm delete without deleting anything.',
  'Dry run: nothing was deleted.',
)

export const vmDeleteAsync = defineInfo(
  'vm.delete.async',
  '--async: the deletion goes on in the background.',
  (p: {queuedResource: string}) => `Deleting ${p.queuedResource} in the background (--async).`,
)

export const vmDeleteDone = defineInfo(
  'vm.delete.done',
  'The queued resource and its TPU VMs were deleted.',
  (p: {queuedResource: string; nodes: readonly string[]}) =>
    `Deleted queued resource ${p.queuedResource} and ${p.nodes.length} TPU VM slice${s(p.nodes.length)}.`,
)

// vm run

export const vmRunStarting = defineInfo(
  'vm.run.starting',
  'The command starts on every worker.',
  (p: {
    workers: number
    slices: number
    /** What was copied to each worker; null with --use-existing-folder. */
    copied: {readonly files: number; readonly bytes: number} | null
    command: string
  }) =>
    `Running on ${p.workers} worker${s(p.workers)} of ${p.slices} slice${s(p.slices)}` +
    (p.copied
      ? ` after copying ${p.copied.files} files (${formatBytes(p.copied.bytes)}) to each`
      : ' in the existing folder') +
    `: ${escapeInline(p.command)}`,
)

export const vmRunDryRun = defineInfo(
  'vm.run.dry-run',
  'A dry run showed the plan of vm run without changing or running anything.',
  'Dry run: no key was created or added, nothing was copied or run.',
)

export const vmRunSucceeded = defineInfo(
  'vm.run.succeeded',
  'Every worker succeeded.',
  (p: {workers: number; seconds: number; logDir: string}) =>
    `All ${p.workers} workers succeeded in ${p.seconds} s. Logs: ${p.logDir}`,
)

export const vmRunWorkerFailed = defineInfo(
  'vm.run.worker-failed',
  'A worker failed; the others are being stopped.',
  (p: {slice: number; worker: number; exit: {readonly code: number | null; readonly signal?: string}}) =>
    `Slice ${p.slice} worker ${p.worker} failed with ${describeStatus(p.exit)}.`,
)

export const vmRunStopping = defineInfo(
  'vm.run.stopping',
  'Running workers are being stopped.',
  (p: {running: number; why: string}) => `Stopping ${p.running} running worker${s(p.running)}: ${p.why}.`,
)

export const vmRunLost = defineInfo(
  'vm.run.lost',
  "A worker's connection was lost: its command is stopped through a new connection.",
  (p: Worker) => ({
    text: `The connection to slice ${p.slice} worker ${p.worker} was lost: stopping its command through a new connection.`,
    data: {slice: p.slice, worker: p.worker, host: p.host},
  }),
)

export const vmRunNotStopped = defineWarning(
  'vm.run.not-stopped',
  'A worker whose connection was lost could not be reached again: its command may still run there.',
  (p: Worker & {cause: string}) => ({
    text: `Could not reach slice ${p.slice} worker ${p.worker} again to stop its command (${p.cause}): it may still be running there.`,
    data: {slice: p.slice, worker: p.worker, host: p.host},
  }),
)

export const vmRunConfirmCreateKey = defineQuestion(
  'vm.run.confirm-create-key',
  'Asked before creating ~/.ssh/google_compute_engine (answered yes when nobody can be asked).',
  true,
  'There is no SSH key for Google Cloud (~/.ssh/google_compute_engine, as gcloud makes it). Create one now (no passphrase)?',
)

export const vmRunKeyCreated = defineInfo(
  'vm.run.key-created',
  'An SSH key was created.',
  (p: {privateKeyPath: string}) => `Created ${p.privateKeyPath}.`,
)

export const vmRunDefaultScriptDir = defineDefaultScriptDirNote(
  'vm.run.default-script-dir',
  'No --script-dir: the current directory is copied to every worker.',
)

export const vmRunConfirmLargeScriptDir = defineLargeScriptDirQuestion(
  'vm.run.confirm-large-script-dir',
  'Asked before copying a script directory that looks too big or holds node_modules/.git to every worker.',
)

export const vmRunAddingKey = defineInfo(
  'vm.run.adding-key',
  "The SSH key is being added to the nodes' ssh-keys metadata.",
  (p: {user: string; nodes: readonly string[]}) =>
    `Adding your SSH key (${p.user}) to the ssh-keys metadata of ${p.nodes.join(', ')}.`,
)
