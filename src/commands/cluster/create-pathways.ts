import {XpkCommand} from '../../cli/base-command.js'
import {clusterCreatePathwaysFlags, createCluster} from '../../cli/cluster.js'

export default class ClusterCreatePathways extends XpkCommand {
  static override summary =
    'Create a GKE cluster for Pathways: cluster create, plus the CPU pool cpu-np and its Kueue flavor.'
  static override description =
    "Everything cluster create does (the same plan, checks, lock and re-runs), plus the node pool cpu-np (--pathways-gce-machine-type, 1 to 20 nodes, on-demand) where Pathways workloads' heads run, and Kueue's ResourceFlavor cpu-user with its resource group in the ClusterQueue (480 cpu, 2000G memory) that admits them. TPU types only. Then submit with xpk workload create-pathways."
  static override examples = [
    '<%= config.bin %> cluster create-pathways --cluster pw --tpu-type v5p-8 --num-slices 2 --spot',
    '<%= config.bin %> cluster create-pathways --cluster pw --tpu-type v5p-16 --reservation my-res --pathways-gce-machine-type n2-highmem-64 --dry-run',
    '<%= config.bin %> cluster create-pathways --project my-project --zone us-central2-b --cluster pw --tpu-type v5p-8 --on-demand --dry-run --offline --json',
  ]
  static override flags = clusterCreatePathwaysFlags

  async run() {
    return this.runWith(ClusterCreatePathways, createCluster)
  }
}
