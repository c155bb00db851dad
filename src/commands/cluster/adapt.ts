import {XpkCommand} from '../../cli/base-command.js'
import {adaptCluster, clusterAdaptFlags} from '../../cli/cluster.js'

export default class ClusterAdapt extends XpkCommand {
  static override summary = 'Make a GKE cluster created by another tool ready for xpk, without touching its node pools.'
  static override description =
    "Reads the cluster's node pools (Terraform, Cluster Toolkit, the console made them), shows what it found (type, slices, VMs, capacity) and what it adds inside the cluster: JobSet, Kueue, the queues sized for those pools, the priority classes and xpk's ConfigMaps. Nothing in GKE is changed: no pool is created, resized or deleted, and `cluster create` never deletes pools it did not make. Safe to re-run: only what is missing or different is applied."
  static override examples = [
    '<%= config.bin %> cluster adapt --cluster ct-cluster --dry-run',
    '<%= config.bin %> cluster adapt --cluster ct-cluster --tpu-type v5p-16 --spot',
    '<%= config.bin %> cluster adapt --project my-project --zone us-central2-b --cluster tf-cluster --device-type h100-80gb-8 --num-nodes 2 --dry-run --json',
  ]
  static override flags = clusterAdaptFlags

  async run() {
    return this.runWith(ClusterAdapt, adaptCluster)
  }
}
