import {XpkCommand} from '../../cli/base-command.js'
import {cacheImageFlags} from '../../cli/cacheimage-flags.js'
import {acceleratorFlags, gkeEndpointFlag, targetFlags} from '../../cli/flags.js'

export default class ClusterCacheimage extends XpkCommand {
  static override summary = 'Pull an image onto every node of an accelerator type ahead of the workloads that use it.'
  static override description =
    'Applies a DaemonSet (server-side apply: a changed image rolls out, an unchanged one sends nothing) that runs the image on every node of the type, and waits until every node has pulled it, with progress. Nodes that cannot pull it are named with the reason from their pod (exit 1); a pull still going after 30 min (XPK_CACHE_IMAGE_TIMEOUT_S) is exit 124.'
  static override examples = [
    '<%= config.bin %> cluster cacheimage --cluster demo --tpu-type v5p-16 --docker-image us-docker.pkg.dev/my-project/repo/trainer:v1',
    '<%= config.bin %> cluster cacheimage --cluster demo --device-type h100-80gb-8 --docker-image python:3.11 --cache-key python',
    '<%= config.bin %> cluster cacheimage --kubeconfig ~/.kube/config --tpu-type v5p-16 --docker-image python:3.11 --dry-run',
  ]
  static override flags = {...targetFlags, ...gkeEndpointFlag, ...acceleratorFlags, ...cacheImageFlags}

  async run() {
    const {flags} = await this.parse(ClusterCacheimage)
    const runtime = await import('../../cli/cacheimage-runtime.js')
    const settings = await runtime.resolveCommandSettings(flags, this.console)
    return runtime.cacheImage(
      {
        project: settings.project.value,
        zone: settings.zone.value,
        cluster: settings.cluster.value,
        tpuType: flags['tpu-type'],
        deviceType: flags['device-type'],
        dockerImage: flags['docker-image'],
        cacheKey: flags['cache-key'],
        dryRun: flags['dry-run'],
        viaKubeconfig: flags.kubeconfig !== undefined || flags.context !== undefined,
        ...runtime.cacheImageTuning(),
      },
      runtime.cacheImageDeps(settings, flags, this.console, this.signal),
    )
  }
}
