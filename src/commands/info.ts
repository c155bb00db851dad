import {XpkCommand} from '../cli/base-command.js'
import {info, infoFlags} from '../cli/info.js'

export default class Info extends XpkCommand {
  static override summary = "Show Kueue's queues and their usage per flavor and resource."
  static override description =
    "Python xpk's two tables: each LocalQueue, then each ClusterQueue, with its admitted and pending workloads and, per <flavor>:<resource> of its ClusterQueue's quota, the quota reserved against the nominal quota (reserved/quota). --localqueue or --clusterqueue shows one of them; -o wide adds each LocalQueue's namespace and ClusterQueue, the reserving workloads and what admitted workloads use; -o json|yaml gives the same as data. Reads only."
  static override examples = [
    '<%= config.bin %> info --cluster demo',
    '<%= config.bin %> info --cluster demo --clusterqueue',
    '<%= config.bin %> info --cluster demo --localqueue -o wide',
    '<%= config.bin %> info --cluster demo -o json',
  ]
  static override flags = infoFlags

  async run() {
    return this.runWith(Info, info)
  }
}
