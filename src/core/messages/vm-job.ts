// The messages of the TPU VM jobs: vm job create, list, logs, stop, resume, delete and the supervisor (see ../messages.ts).
import {defineInfo, defineQuestion, defineWarning} from '../messages.js'

export const vmJobCreated = defineInfo(
  'vm.job.created',
  'The job was recorded and its supervisor started in the background.',
  (p: {id: string; name: string; pid: number; dir: string}) => ({
    text: [
      `Job ${p.id} (${p.name}) created; its supervisor (process ${p.pid}) requests the TPU, sets it up and runs the command in the background.`,
      `Follow it:  xpk vm job logs ${p.id} --follow      List jobs:  xpk vm job list`,
      `Its records and logs: ${p.dir}`,
    ].join('\n'),
    data: p,
  }),
)

export const vmJobDryRun = defineInfo(
  'vm.job.dry-run',
  'A dry run of vm job create: the checked job was shown, nothing was recorded or requested.',
  'Dry run: the job above was checked; nothing was recorded, requested or run.',
)

export const vmJobEvent = defineInfo(
  'vm.job.event',
  'The supervisor recorded an event of the job (requested, ready, setup done, running, preempted, recovered, finished).',
  (p: {id: string; event: string; detail: string | null}) => ({
    text: `Job ${p.id}: ${p.event}${p.detail ? ` (${p.detail})` : ''}`,
    data: p,
  }),
)

export const vmJobTpuState = defineInfo(
  'vm.job.tpu-state',
  'The state of the job’s TPU changed while the supervisor waited for it.',
  (p: {tpu: string; state: string}) => ({text: `TPU ${p.tpu}: ${p.state}`, data: p}),
)

export const vmJobKeyCreated = defineInfo(
  'vm.job.key-created',
  'xpk created the SSH key pair it logs in to the TPU VMs with.',
  (p: {privateKeyPath: string}) => ({text: `Created the SSH key ${p.privateKeyPath}.`, data: p}),
)

export const vmJobResumed = defineInfo(
  'vm.job.resumed',
  'vm job resume started a new supervisor for the job.',
  (p: {id: string; pid: number; status: string}) => ({
    text: `Job ${p.id} (${p.status}) resumed by a new supervisor (process ${p.pid}). Follow it: xpk vm job logs ${p.id} --follow`,
    data: p,
  }),
)

export const vmJobStopped = defineInfo(
  'vm.job.stopped',
  'vm job stop stopped the job’s command and supervisor; the TPU is kept.',
  (p: {id: string; workers: number; tpu: string}) => ({
    text: `Job ${p.id} stopped (the command on ${p.workers} worker(s), and its supervisor). The TPU ${p.tpu} is kept: \`xpk vm job resume ${p.id}\` runs the job again, \`xpk vm job delete ${p.id}\` deletes it.`,
    data: p,
  }),
)

export const vmJobDeleted = defineInfo(
  'vm.job.deleted',
  'vm job delete stopped the job and deleted its TPU.',
  (p: {id: string; tpu: string; tpuDeleted: boolean; purged: boolean}) => ({
    text: `Job ${p.id} deleted: ${p.tpuDeleted ? `the TPU ${p.tpu} is deleted` : `the TPU ${p.tpu} was already gone`}${p.purged ? ', and its records and logs removed' : '; its records and logs stay (`--purge` removes them)'}.`,
    data: p,
  }),
)

export const vmJobSupervisorGone = defineWarning(
  'vm.job.supervisor-gone',
  'The job is not finished but its supervisor is not running (killed, or the machine restarted).',
  (p: {id: string; status: string}) => ({
    text: `Job ${p.id} is ${p.status} but its supervisor is not running: \`xpk vm job resume ${p.id}\` takes over.`,
    data: p,
  }),
)

export const vmJobConfirmDelete = defineQuestion(
  'vm.job.confirm-delete',
  'Asks before vm job delete stops the job and deletes its TPU.',
  false,
  (p: {id: string; tpu: string; zone: string}) => ({
    text: `Stop job ${p.id} and delete its TPU ${p.tpu} in ${p.zone}?`,
    data: p,
  }),
)

export const vmJobConfigIgnored = defineWarning(
  'vm.job.config-ignored',
  'A key of the jobman config file that xpk accepts but does not use (or a block the chosen environment leaves out).',
  (p: {file: string; line: number; key: string; text: string}) => ({
    text: `${p.file}:${p.line}: ${p.key}: ${p.text}`,
    data: p,
  }),
)

export const vmJobDryRunChanges = defineInfo(
  'vm.job.dry-run-changes',
  'A dry run of vm job stop, resume or delete: the plan was shown, nothing was changed.',
  (p: {command: string}) => ({
    text: `Dry run: the plan above is what \`xpk ${p.command}\` would do; nothing was changed.`,
    data: p,
  }),
)

export const vmJobDetachedUploaded = defineInfo(
  'vm.job.detached-uploaded',
  'A detached job’s code archive was uploaded to the bucket.',
  (p: {object: string; bytes: number}) => ({text: `Uploaded the code (${p.bytes} bytes) to ${p.object}.`, data: p}),
)

export const vmJobDetachedUnchanged = defineInfo(
  'vm.job.detached-unchanged',
  'A detached job’s code archive was in the bucket already (the same content): nothing was uploaded.',
  (p: {object: string}) => ({
    text: `The code is unchanged: ${p.object} is in the bucket already; nothing uploaded.`,
    data: p,
  }),
)

export const vmJobDetachedCreated = defineInfo(
  'vm.job.detached-created',
  'A detached job was requested: its queued resource, the bucket, the logs links and the commands to follow it.',
  (p: {
    id: string
    queuedResource: string
    numSlices: number
    type: string
    bucket: string
    logs: string
    worker0Logs: string
  }) => ({
    text: [
      `Job ${p.id}: queued resource ${p.queuedResource} requested (${p.numSlices} x ${p.type}); each worker fetches the code, runs the command and leaves its log in ${p.bucket}logs/, and the queued resource goes when every worker is done.`,
      `Live logs, every worker: ${p.logs}`,
      `Live logs, worker 0:     ${p.worker0Logs}`,
      `Follow it: xpk vm job list   xpk vm job logs ${p.id}   (finished logs, from the bucket)`,
    ].join('\n'),
    data: p,
  }),
)

export const vmJobDetachedWaiting = defineInfo(
  'vm.job.detached-waiting',
  '`vm job create --detach --wait`: how many workers have reported their exit status.',
  (p: {id: string; done: number; expected: number; status: string}) => ({
    text: `Job ${p.id}: ${p.done} of ${p.expected} workers done (${p.status}).`,
    data: p,
  }),
)

export const vmJobDetachedLogs = defineInfo(
  'vm.job.detached-logs',
  '`vm job logs` of a detached job: where the finished log is, and the live log in Cloud Logging.',
  (p: {id: string; object: string; live: string}) => ({
    text: `Job ${p.id}: ${p.object} (finished log). Live: ${p.live}`,
    data: p,
  }),
)
