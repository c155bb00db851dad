import * as Args from '@oclif/core/args'

import {XpkCommand} from '../../cli/base-command.js'
import {workloadDescribe, workloadDescribeFlags} from '../../cli/workload.js'

export default class WorkloadDescribe extends XpkCommand {
  static override summary = 'Show everything about one workload on one screen.'
  static override description =
    "What was asked (type, slices, priority, image, command, restarts, storages), its status, how it got there (every Kueue and JobSet condition, in time order), per slice and worker its pod, node and restarts, its mounts, the events of the last hour about it and its pods, and its Cloud Console and logs links. -o json|yaml gives the same as data; -o wide adds the conditions' messages and the events' counts. Reads only."
  static override examples = [
    '<%= config.bin %> workload describe --cluster demo run-1',
    '<%= config.bin %> workload describe --cluster demo run-1 -o yaml',
    '<%= config.bin %> workload describe --cluster demo run-1 -o wide',
  ]
  static override args = {workload: Args.string({description: 'The workload (JobSet) name.', required: true})}
  static override flags = workloadDescribeFlags

  async run() {
    return this.runWith(WorkloadDescribe, workloadDescribe)
  }
}
