import {XpkCommand} from '../../cli/base-command.js'
import {gkeEndpointFlag, targetFlags} from '../../cli/flags.js'

export default class ClusterDescribe extends XpkCommand {
  static override summary = 'Show a cluster and a table of its node pools.'
  static override examples = [
    '<%= config.bin %> cluster describe --cluster demo',
    '<%= config.bin %> cluster describe --cluster demo --json',
  ]
  static override flags = {...targetFlags, ...gkeEndpointFlag}

  async run() {
    const {flags} = await this.parse(ClusterDescribe)
    const [{describeCluster}, {requireSetting}, {renderClusterDetails}, context] = await Promise.all([
      import('../../services/cluster-read.js'),
      import('../../core/settings.js'),
      import('../../core/render/clusters.js'),
      import('../../cli/context.js'),
    ])
    const settings = await context.resolveCommandSettings(flags, this.console)
    const cluster = await describeCluster(
      {
        project: requireSetting(settings, 'project'),
        zone: requireSetting(settings, 'zone'),
        cluster: requireSetting(settings, 'cluster'),
      },
      {gke: context.gkeConnector(settings)},
    )
    this.console.result(() => renderClusterDetails(cluster))
    return cluster
  }
}
