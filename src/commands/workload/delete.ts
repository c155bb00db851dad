import {XpkCommand} from '../../cli/base-command.js'
import {deleteWorkloads, workloadDeleteFlags} from '../../cli/workload.js'

export default class WorkloadDelete extends XpkCommand {
  static override summary = 'Delete workloads: one by name, or every one a filter selects (after asking).'
  static override description =
    'Deletes the JobSet; the Jobs, pods and Kueue Workload made for it go with it by owner reference. --workload deletes one without asking; without it, the workloads whose names contain --filter-by-job and that are in the --filter-by-status state, as `workload list` shows it (all of them without filters), are listed and confirmed first (--force skips the question; with no terminal and no --force, exit 2). A workload already gone is success with a note. --wait returns once the JobSets and their pods are gone.'
  static override examples = [
    '<%= config.bin %> workload delete --cluster demo --workload run-1',
    '<%= config.bin %> workload delete --cluster demo --filter-by-job sweep- --filter-by-status finished --force --wait',
    '<%= config.bin %> workload delete --cluster demo --filter-by-job sweep- --dry-run --json',
  ]
  static override flags = workloadDeleteFlags

  async run() {
    return this.runWith(WorkloadDelete, deleteWorkloads)
  }
}
