import {XpkCommand} from '../../cli/base-command.js'
import {listWorkloads, workloadListFlags} from '../../cli/workload.js'

export default class WorkloadList extends XpkCommand {
  static override summary = 'List the workloads of a cluster with their state, or wait for one to finish.'
  static override description =
    'One row per workload, from its Kueue Workload and its JobSet: the VMs it needs and was given, restarts, and its status (Submitted, Pending, QuotaReserved, Admitted, Running, Preempted, Evicted, Succeeded, Failed) with the message and time of the condition that says so. --wait-for-job-completion watches one workload until it finishes (exit 0 succeeded, 125 failed, 124 timed out).'
  static override examples = [
    '<%= config.bin %> workload list --cluster demo',
    '<%= config.bin %> workload list --cluster demo --filter-by-status queued --filter-by-job sweep-',
    '<%= config.bin %> workload list --cluster demo --filter-by-status FINISHED --json',
    '<%= config.bin %> workload list --cluster demo --wait-for-job-completion run-1 --timeout 3600',
    '<%= config.bin %> workload list --cluster demo -o wide --no-headers',
    '<%= config.bin %> workload list --cluster demo --filter-by-status SUCCESSFUL -o name',
  ]
  static override flags = workloadListFlags

  async run() {
    return this.runWith(WorkloadList, listWorkloads)
  }
}
