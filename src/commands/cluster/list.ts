import {XpkCommand} from '../../cli/base-command.js'
import {gkeEndpointFlag, targetFlags} from '../../cli/flags.js'

export default class ClusterList extends XpkCommand {
  static override summary = 'List the clusters of a project with their node pools and accelerators.'
  static override description =
    "Lists every location unless --zone is passed, which narrows the list to the zone's region."
  static override examples = [
    '<%= config.bin %> cluster list',
    '<%= config.bin %> cluster list --zone us-central2-b --json',
  ]
  static override flags = {project: targetFlags.project, zone: targetFlags.zone, ...gkeEndpointFlag}

  async run() {
    const {flags} = await this.parse(ClusterList)
    const runtime = await import('../../cli/runtime.js')
    const {listClusters, requireSetting, renderClusterList} = runtime
    const settings = await runtime.resolveCommandSettings(flags, this.console)
    const clusters = await listClusters(
      {project: requireSetting(settings, 'project'), zone: flags.zone},
      runtime.clusterReadDeps(settings, this.signal),
    )
    this.console.result(() => renderClusterList(clusters))
    return clusters
  }
}
