import {XpkCommand} from '../../cli/base-command.js'
import {clusterDeleteFlags, deleteCluster} from '../../cli/cluster.js'

export default class ClusterDelete extends XpkCommand {
  static override summary = 'Delete a cluster, its node pools and every workload on it.'
  static override description =
    'Asks for confirmation first (--force skips it; without a terminal, --force is required). Refused (exit 6) while another cluster create or delete holds the cluster lock. Waits until GKE has deleted the cluster. A cluster that is already gone is not an error.'
  static override examples = [
    '<%= config.bin %> cluster delete --cluster demo',
    '<%= config.bin %> cluster delete --cluster demo --force --json',
  ]
  static override flags = clusterDeleteFlags

  async run() {
    return this.runWith(ClusterDelete, deleteCluster)
  }
}
