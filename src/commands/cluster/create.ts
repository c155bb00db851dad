import {XpkCommand} from '../../cli/base-command.js'
import {clusterCreateFlags, inClusterFlags} from '../../cli/cluster-flags.js'
import {camelCaseFlags} from '../../cli/flag-kinds.js'
import {acceleratorFlags, changeFlags, gkeEndpointFlag, offlineFlag, targetFlags} from '../../cli/flags.js'

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
  static override flags = {
    ...targetFlags,
    ...gkeEndpointFlag,
    ...acceleratorFlags,
    ...clusterCreateFlags,
    ...inClusterFlags,
    ...changeFlags,
    ...offlineFlag,
  }

  async run() {
    const {flags} = await this.parse(ClusterCreate)
    const runtime = await import('../../cli/runtime.js')
    const {createCluster} = runtime
    const settings = await runtime.resolveCommandSettings(flags, this.console)
    const lock = runtime.clusterLockTuning()
    return createCluster(
      {
        // Project, zone and cluster as resolved (flag > env > xpk config > gcloud); the rest as given.
        flags: {
          ...camelCaseFlags(flags),
          cluster: settings.cluster.value,
          project: settings.project.value,
          zone: settings.zone.value,
        },
        dryRun: flags['dry-run'],
        offline: flags.offline,
        verbose: flags.verbose,
        apply: runtime.applyTuning(),
        inCluster: {
          skip: Boolean(flags['skip-in-cluster']),
          viaKubeconfig: flags.kubeconfig !== undefined || flags.context !== undefined,
          xpkVersion: this.config.version,
          manifestOverrides: {jobset: flags['jobset-manifest'], kueue: flags['kueue-manifest']},
          ...runtime.inClusterTuning(),
        },
        lock,
      },
      runtime.clusterCreateDeps(settings, flags, this.console, this.signal),
    )
  }
}
