import {XpkCommand} from '../../cli/base-command.js'
import {cacheImage, clusterCacheImageFlags} from '../../cli/cluster.js'

export default class ClusterCacheimage extends XpkCommand {
  static override summary = 'Pull an image onto every node of an accelerator type ahead of the workloads that use it.'
  static override description =
    'Applies a DaemonSet (server-side apply: a changed image rolls out, an unchanged one sends nothing) that runs the image on every node of the type, and waits until every node has pulled it, with progress. Nodes that cannot pull it are named with the reason from their pod (exit 1); a pull still going after 30 min (XPK_CACHE_IMAGE_TIMEOUT_S) is exit 124.'
  static override examples = [
    '<%= config.bin %> cluster cacheimage --cluster demo --tpu-type v5p-16 --docker-image us-docker.pkg.dev/my-project/repo/trainer:v1',
    '<%= config.bin %> cluster cacheimage --cluster demo --device-type h100-80gb-8 --docker-image python:3.11 --cache-key python',
    '<%= config.bin %> cluster cacheimage --kubeconfig ~/.kube/config --tpu-type v5p-16 --docker-image python:3.11 --dry-run',
  ]
  static override flags = clusterCacheImageFlags

  async run() {
    return this.runWith(ClusterCacheimage, cacheImage)
  }
}
