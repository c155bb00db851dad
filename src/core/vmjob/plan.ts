/**
 * What `vm job stop`, `resume` and `delete` would do, as plan lines in the form every xpk plan takes (`+` create or
 * start, `~` change or stop, `-` delete, `=` keep): shown by --dry-run, and under --json as `plan`.
 */
import {commandWorkers, type TpuHealth, type VmJobRecord} from './record.js'

export interface VmJobPlanStep {
  readonly action: 'start' | 'stop' | 'keep' | 'request' | 'reuse' | 'follow' | 'delete'
  readonly resource: 'command' | 'supervisor' | 'tpu' | 'records'
  readonly name: string
  readonly detail: string
}

const SYMBOL: Record<VmJobPlanStep['action'], string> = {
  start: '+',
  request: '+',
  stop: '~',
  follow: '~',
  keep: '=',
  reuse: '=',
  delete: '-',
}

function tpuKind(record: VmJobRecord): string {
  return record.spec.tpu.allocationMode === 'queued-resources' ? 'queued resource and its node' : 'node'
}

/** Stopping the job: its command on the workers that run it, and its supervisor; the TPU stays. */
export function planStop(record: VmJobRecord, supervisorAlive: boolean): VmJobPlanStep[] {
  const steps: VmJobPlanStep[] = []
  if (record.workers && record.attempt > 0) {
    const chosen = commandWorkers(record.workers, record.spec.command.workers)
    steps.push({
      action: 'stop',
      resource: 'command',
      name: `attempt-${record.attempt}`,
      detail: `on worker${chosen.length === 1 ? '' : 's'} ${chosen.map((w) => w.worker).join(', ')}`,
    })
  }
  if (record.supervisor && supervisorAlive) {
    steps.push({action: 'stop', resource: 'supervisor', name: `process ${record.supervisor.pid}`, detail: ''})
  }
  return steps
}

/** Resuming: a new supervisor, which reuses a healthy TPU or requests it, then follows the run or starts the next. */
export function planResume(record: VmJobRecord, health: TpuHealth, state: string): VmJobPlanStep[] {
  const tpu = record.spec.tpu.name
  const steps: VmJobPlanStep[] = [{action: 'start', resource: 'supervisor', name: `job ${record.id}`, detail: ''}]
  if (health === 'ready') steps.push({action: 'reuse', resource: 'tpu', name: tpu, detail: state})
  else if (health === 'pending')
    steps.push({action: 'reuse', resource: 'tpu', name: tpu, detail: `${state}: waited for`})
  else {
    if (health === 'lost') steps.push({action: 'delete', resource: 'tpu', name: tpu, detail: `${state}: lost`})
    steps.push({
      action: 'request',
      resource: 'tpu',
      name: tpu,
      detail: `${record.spec.tpu.accelerator}, ${tpuKind(record)}`,
    })
  }
  if (record.status === 'RUNNING' && record.attempt > 0 && health === 'ready') {
    steps.push({
      action: 'follow',
      resource: 'command',
      name: `attempt-${record.attempt}`,
      detail: 'when it still runs (or has ended) on its workers; else set up and start the next',
    })
  } else {
    steps.push({
      action: 'start',
      resource: 'command',
      name: `attempt-${record.attempt + 1}`,
      detail: 'after the setup modules',
    })
  }
  return steps
}

/** Deleting: stopping as `stop` does, the TPU, and with purge the records. */
export function planDelete(
  record: VmJobRecord,
  supervisorAlive: boolean,
  tpuExists: boolean,
  purge: boolean,
  dir: string,
): VmJobPlanStep[] {
  return [
    ...planStop(record, supervisorAlive),
    tpuExists
      ? {
          action: 'delete',
          resource: 'tpu',
          name: record.spec.tpu.name,
          detail: `${tpuKind(record)}, ${record.spec.tpu.zone}`,
        }
      : {action: 'keep', resource: 'tpu', name: record.spec.tpu.name, detail: 'already gone'},
    purge
      ? {action: 'delete', resource: 'records', name: dir, detail: 'the config, events and logs'}
      : {action: 'keep', resource: 'records', name: dir, detail: 'without --purge'},
  ]
}

export function renderVmJobPlan(steps: readonly VmJobPlanStep[]): string {
  return steps
    .map((s) => `${SYMBOL[s.action]} ${s.action} ${s.resource} ${s.name}${s.detail ? `  ${s.detail}` : ''}`)
    .join('\n')
}
