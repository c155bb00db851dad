import {XpkCommand} from '../../cli/base-command.js'
import {clusterListFlags, listClusters} from '../../cli/cluster.js'

export default class ClusterList extends XpkCommand {
  static override summary = 'List the clusters of a project with their node pools and accelerators.'
  static override description =
    "Lists every location unless --zone is passed, which narrows the list to the zone's region."
  static override examples = [
    '<%= config.bin %> cluster list',
    '<%= config.bin %> cluster list --zone us-central2-b --json',
    '<%= config.bin %> cluster list -o wide',
    '<%= config.bin %> cluster list -o name',
  ]
  static override flags = clusterListFlags

  async run() {
    return this.runWith(ClusterList, listClusters)
  }
}
