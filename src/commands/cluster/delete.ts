import {XpkCommand} from '../../cli/base-command.js'
import {changeFlags, gkeEndpointFlag, targetFlags} from '../../cli/flags.js'

export default class ClusterDelete extends XpkCommand {
  static override summary = 'Delete a cluster, its node pools and every workload on it.'
  static override description =
    'Asks for confirmation first (--force skips it; without a terminal, --force is required). Refused (exit 6) while another cluster create or delete holds the cluster lock. Waits until GKE has deleted the cluster. A cluster that is already gone is not an error.'
  static override examples = [
    '<%= config.bin %> cluster delete --cluster demo',
    '<%= config.bin %> cluster delete --cluster demo --force --json',
  ]
  static override flags = {...targetFlags, ...gkeEndpointFlag, ...changeFlags}

  async run() {
    const {flags} = await this.parse(ClusterDelete)
    const runtime = await import('../../cli/runtime.js')
    const {deleteCluster, requireSetting} = runtime
    const settings = await runtime.resolveCommandSettings(flags, this.console)
    return deleteCluster(
      {
        project: requireSetting(settings, 'project'),
        zone: requireSetting(settings, 'zone'),
        cluster: requireSetting(settings, 'cluster'),
        dryRun: flags['dry-run'],
        apply: runtime.applyTuning(),
        lock: runtime.clusterLockTuning(),
      },
      runtime.clusterDeleteDeps(settings, this.console, this.signal),
    )
  }
}
