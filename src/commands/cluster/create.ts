import {XpkCommand} from '../../cli/base-command.js'
import {clusterCreateFlags, createCluster} from '../../cli/cluster.js'

export default class ClusterCreate extends XpkCommand {
  static override summary = 'Create a GKE cluster, or bring an existing one to exactly --num-slices slices.'
  static override description =
    'Plans first, then applies that plan: missing slices are created, slices of the wrong type or capacity are recreated, extra ones deleted (after confirmation, or with --force). Only node pools named <cluster>-np-* are ever changed. Safe to re-run: it finishes what an earlier run left undone. While it applies, the cluster is locked (GKE labels xpk-lock-*): another cluster create or delete of it is refused (exit 6) naming this run, and a lock older than XPK_CLUSTER_LOCK_STALE_S (default 3 h) is taken over.'
  static override examples = [
    '<%= config.bin %> cluster create --cluster demo --tpu-type v5litepod-16 --num-slices 4 --spot',
    '<%= config.bin %> cluster create --cluster demo --tpu-type v5litepod-16 --num-slices 6 --spot --force',
    '<%= config.bin %> cluster create --cluster big --tpu-type v5p-256 --num-slices 8 --reservation my-res --dry-run',
    '<%= config.bin %> cluster create --project my-project --zone us-central2-b --cluster demo --tpu-type v5p-8 --on-demand --dry-run --offline --json',
  ]
  static override flags = clusterCreateFlags

  async run() {
    return this.runWith(ClusterCreate, createCluster)
  }
}
