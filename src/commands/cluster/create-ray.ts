import {XpkCommand} from '../../cli/base-command.js'
import {clusterCreateRayFlags, createCluster} from '../../cli/cluster.js'

export default class ClusterCreateRay extends XpkCommand {
  static override summary =
    "Create a TPU cluster as `cluster create` does, with GKE's Ray operator addon and a RayCluster."
  static override description =
    "Everything `cluster create` does, plus GKE's Ray operator addon (KubeRay; enabled on an existing cluster too) and the RayCluster ray/raycluster of --ray-version: a head on the default CPU pool and one worker group per slice, sized from the nodes' allocatable CPU and memory once the node pools are done. Applied by server-side apply: a re-run with another --ray-version or --num-slices updates it, the same one sends nothing. TPU types only."
  static override examples = [
    '<%= config.bin %> cluster create-ray --cluster demo --tpu-type v5litepod-16 --num-slices 2 --spot --ray-version 2.38.0',
    '<%= config.bin %> cluster create-ray --cluster demo --tpu-type v5litepod-16 --num-slices 4 --spot --ray-version 2.40.0 --force',
    '<%= config.bin %> cluster create-ray --project my-project --zone us-central2-b --cluster demo --tpu-type v5p-8 --on-demand --ray-version 2.38.0 --dry-run --offline --json',
  ]
  static override flags = clusterCreateRayFlags

  async run() {
    return this.runWith(ClusterCreateRay, createCluster)
  }
}
