import {XpkCommand} from '../cli/base-command.js'
import {inspector, inspectorFlags} from '../cli/inspector.js'

export default class Inspector extends XpkCommand {
  static override summary = 'Write one file with everything support needs to look into a cluster or a workload.'
  static override description =
    "The cluster and its node pools from GKE; from inside the cluster xpk's ConfigMaps, the nodes per node pool, Kueue's queues, flavors and topologies, the Kueue, JobSet (and slice) controllers with their last 100 log lines, and every workload; with --workload its JobSet, Kueue Workload, pods and events; then the Cloud Console links. Written in the temporary directory (TMPDIR); prints its path and the links. Never holds a Secret or the value of one. Reads only."
  static override examples = [
    '<%= config.bin %> inspector --cluster demo',
    '<%= config.bin %> inspector --cluster demo --workload run-1',
    '<%= config.bin %> inspector --cluster demo --workload run-1 --print-to-terminal',
  ]
  static override flags = inspectorFlags

  async run() {
    return this.runWith(Inspector, inspector)
  }
}
