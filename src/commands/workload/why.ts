import * as Args from '@oclif/core/args'

import {XpkCommand} from '../../cli/base-command.js'
import {workloadWhy, workloadWhyFlags} from '../../cli/workload.js'

export default class WorkloadWhy extends XpkCommand {
  static override summary = 'Say in plain words why a workload is not running (or not done), and what to do next.'
  static override description =
    'Reads everything that can hold the workload back: Kueue (its conditions, its place in the queue and the workloads ahead, who holds the quota, admission checks, evictions and preemptions), its pods (unschedulable, image pulls, crash loops, restarts against --max-restarts) and, through GKE, the node pools its pods need. Prints a few lines and the next step; --json gives the findings as data, each with its cause code, numbers and the objects involved. Reads only.'
  static override examples = [
    '<%= config.bin %> workload why --cluster demo run-1',
    '<%= config.bin %> workload why --cluster demo run-1 --json',
  ]
  static override args = {workload: Args.string({description: 'The workload (JobSet) name.', required: true})}
  static override flags = workloadWhyFlags

  async run() {
    return this.runWith(WorkloadWhy, workloadWhy)
  }
}
