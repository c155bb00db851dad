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
    const runtime = await import('../../cli/runtime.js')
    const {describeCluster, requireSetting, renderClusterDetails} = runtime
    const settings = await runtime.resolveCommandSettings(flags, this.console)
    const cluster = await describeCluster(
      {
        project: requireSetting(settings, 'project'),
        zone: requireSetting(settings, 'zone'),
        cluster: requireSetting(settings, 'cluster'),
      },
      runtime.clusterReadDeps(settings, this.signal),
    )
    this.console.result(() => renderClusterDetails(cluster))
    return cluster
  }
}
