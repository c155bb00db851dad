import {XpkCommand} from '../../cli/base-command.js'
import {clusterDescribeFlags, describeCluster} from '../../cli/cluster.js'

export default class ClusterDescribe extends XpkCommand {
  static override summary = 'Show a cluster, its node pools, and what runs inside it.'
  static override description =
    'From GKE: the cluster and a table of its node pools. From inside the cluster: the JobSet and Kueue versions, each ClusterQueue with its quota and usage per flavor and its admitted and pending workloads, and per node pool the expected, ready and total nodes. A control plane that cannot be reached is a warning, not a failure. --kubeconfig/--context read the inside of any cluster without asking GKE.'
  static override examples = [
    '<%= config.bin %> cluster describe --cluster demo',
    '<%= config.bin %> cluster describe --cluster demo --json',
    '<%= config.bin %> cluster describe --cluster demo --skip-in-cluster',
    '<%= config.bin %> cluster describe --cluster demo -o yaml',
    '<%= config.bin %> cluster describe --cluster demo -o wide --no-headers',
  ]
  static override flags = clusterDescribeFlags

  async run() {
    return this.runWith(ClusterDescribe, describeCluster)
  }
}
