import * as Flags from '@oclif/core/flags'

import {XpkCommand} from '../../cli/base-command.js'
import {gkeEndpointFlag, kubeAccessFlags, targetFlags} from '../../cli/flags.js'

export default class ClusterDescribe extends XpkCommand {
  static override summary = 'Show a cluster, its node pools, and what runs inside it.'
  static override description =
    'From GKE: the cluster and a table of its node pools. From inside the cluster: the JobSet and Kueue versions, each ClusterQueue with its quota and usage per flavor and its admitted and pending workloads, and per node pool the expected, ready and total nodes. A control plane that cannot be reached is a warning, not a failure. --kubeconfig/--context read the inside of any cluster without asking GKE.'
  static override examples = [
    '<%= config.bin %> cluster describe --cluster demo',
    '<%= config.bin %> cluster describe --cluster demo --json',
    '<%= config.bin %> cluster describe --cluster demo --skip-in-cluster',
  ]
  static override flags = {
    ...targetFlags,
    ...gkeEndpointFlag,
    'skip-in-cluster': Flags.boolean({
      description:
        'Show only what GKE reports; do not read inside the cluster (for a control plane not reachable from here).',
      helpGroup: 'INSIDE THE CLUSTER',
    }),
    kubeconfig: {...kubeAccessFlags.kubeconfig, helpGroup: 'INSIDE THE CLUSTER', exclusive: ['skip-in-cluster']},
    context: {...kubeAccessFlags.context, helpGroup: 'INSIDE THE CLUSTER', exclusive: ['skip-in-cluster']},
  }

  async run() {
    const {flags} = await this.parse(ClusterDescribe)
    const runtime = await import('../../cli/runtime.js')
    const settings = await runtime.resolveCommandSettings(flags, this.console)
    const description = await runtime.describeCluster(
      {target: runtime.describeTarget(settings, flags), skipInCluster: flags['skip-in-cluster']},
      runtime.clusterDescribeDeps(settings, flags, this.console, this.signal),
    )
    this.console.result(() => runtime.renderClusterDetails(description))
    return description
  }
}
