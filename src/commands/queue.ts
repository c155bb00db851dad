import {XpkCommand} from '../cli/base-command.js'
import {queueFlags, viewQueue} from '../cli/queue.js'

export default class Queue extends XpkCommand {
  static override summary =
    "Watch a cluster's queues live: quota in use, and the workloads running, queued, evicted and finished."
  static override description =
    "On a terminal, one screen redrawn in place from watches of the Kueue Workloads, JobSets and ClusterQueues (never by polling): per ClusterQueue and flavor a bar of the quota in use, then the workloads running (age, VMs, restarts), queued (position in Kueue's order, priority, waiting), evicted in the last hour (why, by whom) and finished in the last hour; each section cut to the rows that fit. Ctrl-C ends it. Without a terminal, or with --once or --json, the same once: every workload as tables, or as data."
  static override examples = [
    '<%= config.bin %> queue --cluster demo',
    '<%= config.bin %> queue --cluster demo --once',
    '<%= config.bin %> queue --cluster demo --json',
  ]
  static override flags = queueFlags

  async run() {
    return this.runWith(Queue, viewQueue)
  }
}
