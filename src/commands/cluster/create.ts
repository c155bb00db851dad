import {XpkCommand} from '../../cli/base-command.js'
import {clusterCreateFlags} from '../../cli/cluster-flags.js'
import {acceleratorFlags, changeFlags, gkeEndpointFlag, offlineFlag, targetFlags} from '../../cli/flags.js'

export default class ClusterCreate extends XpkCommand {
  static override summary = 'Create a GKE cluster, or bring an existing one to exactly --num-slices slices.'
  static override description =
    'Plans first, then applies that plan: missing slices are created, slices of the wrong type or capacity are recreated, extra ones deleted (after confirmation, or with --force). Only node pools named <cluster>-np-* are ever changed. Safe to re-run: it finishes what an earlier run left undone.'
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
    ...changeFlags,
    ...offlineFlag,
  }

  async run() {
    const {flags} = await this.parse(ClusterCreate)
    const runtime = await import('../../cli/runtime.js')
    const {createCluster} = runtime
    const settings = await runtime.resolveCommandSettings(flags, this.console)
    return createCluster(
      {
        flags: {
          cluster: settings.cluster.value,
          project: settings.project.value,
          zone: settings.zone.value,
          tpuType: flags['tpu-type'],
          deviceType: flags['device-type'],
          numSlices: flags['num-slices'],
          numNodes: flags['num-nodes'],
          onDemand: flags['on-demand'],
          spot: flags.spot,
          reservation: flags.reservation,
          flex: flags.flex,
          gkeVersion: flags['gke-version'],
          defaultPoolCpuMachineType: flags['default-pool-cpu-machine-type'],
          defaultPoolCpuNumNodes: flags['default-pool-cpu-num-nodes'],
          network: flags.network,
          subnetwork: flags.subnetwork,
          private: flags.private,
          authorizedNetworks: flags['authorized-networks'],
          enablePrivateEndpoint: flags['enable-private-endpoint'],
          privateEndpointSubnetwork: flags['private-endpoint-subnetwork'],
          enableMasterGlobalAccess: flags['enable-master-global-access'],
          maxPodsPerNode: flags['max-pods-per-node'],
          customNodepoolArguments: flags['custom-nodepool-arguments'],
          customTpuNodepoolArguments: flags['custom-tpu-nodepool-arguments'],
          maxParallel: flags['max-parallel'],
        },
        dryRun: flags['dry-run'],
        offline: flags.offline,
        apply: runtime.applyTuning(),
      },
      runtime.clusterCreateDeps(settings, this.console, this.signal),
    )
  }
}
