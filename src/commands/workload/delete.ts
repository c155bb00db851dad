import {XpkCommand} from '../../cli/base-command.js'
import {changeFlags, gkeEndpointFlag, targetFlags} from '../../cli/flags.js'
import {workloadDeleteFlags} from '../../cli/workload-flags.js'

export default class WorkloadDelete extends XpkCommand {
  static override summary = 'Delete workloads: one by name, or every one a filter selects (after asking).'
  static override description =
    'Deletes the JobSet; the Jobs, pods and Kueue Workload made for it go with it by owner reference. --workload deletes one without asking; without it, the workloads whose names contain --filter-by-job and that are in the --filter-by-status state, as `workload list` shows it (all of them without filters), are listed and confirmed first (--force skips the question; with no terminal and no --force, exit 2). A workload already gone is success with a note. --wait returns once the JobSets and their pods are gone.'
  static override examples = [
    '<%= config.bin %> workload delete --cluster demo --workload run-1',
    '<%= config.bin %> workload delete --cluster demo --filter-by-job sweep- --filter-by-status finished --force --wait',
    '<%= config.bin %> workload delete --cluster demo --filter-by-job sweep- --dry-run --json',
  ]
  static override flags = {...targetFlags, ...gkeEndpointFlag, ...workloadDeleteFlags, ...changeFlags}

  async run() {
    const {flags} = await this.parse(WorkloadDelete)
    const runtime = await import('../../cli/workload-runtime.js')
    const settings = await runtime.resolveCommandSettings(flags, this.console)
    return runtime.deleteWorkloads(
      {
        project: settings.project.value,
        zone: settings.zone.value,
        cluster: settings.cluster.value,
        viaKubeconfig: flags.kubeconfig !== undefined || flags.context !== undefined,
        workload: flags.workload,
        filterByJob: flags['filter-by-job'],
        filterByStatus: flags['filter-by-status'],
        wait: flags.wait === true,
        dryRun: flags['dry-run'] === true,
        timing: runtime.workloadTiming(),
      },
      runtime.workloadDeleteDeps(settings, flags, this.console, this.signal),
    )
  }
}
