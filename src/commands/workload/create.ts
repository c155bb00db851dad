import {XpkCommand} from '../../cli/base-command.js'
import {createWorkload, workloadCreateFlags} from '../../cli/workload.js'

export default class WorkloadCreate extends XpkCommand {
  static override summary = "Build a workload's image and submit its JobSet to the cluster, where Kueue queues it."
  static override description =
    "Checks first that the cluster can ever run it (the device type and VMs its resources ConfigMap records; exit 2 otherwise), that it is set up for workloads (the JobSet CRD, Kueue's LocalQueue multislice-queue and the PriorityClass of --priority; exit 6 naming what is missing) and that the name is free (exit 6; --replace deletes the old workload first, after asking: --force skips the question). Without --docker-image, the --script-dir directory is layered onto --base-docker-image at /app, tagged by its content and pushed (skipped when that tag already exists). The JobSet is created, never overwriting one of the same name (a name another submit takes at the same moment is exit 6 too), with the workloads' service account and RBAC the first time; the output says where to follow it. --dry-run reads the cluster and reports the same problems without sending anything (a taken name as a warning); add --offline to make no network call at all."
  static override examples = [
    '<%= config.bin %> workload create --cluster demo --workload hello-1 --tpu-type v5p-8 --command "python3 train.py" --dry-run --offline --project my-project',
    '<%= config.bin %> workload create --cluster demo --workload big-run --tpu-type v5litepod-256 --num-slices 4 --priority high --max-restarts 10 --docker-image us-docker.pkg.dev/p/r/trainer:v3 --command "python3 train.py"',
    '<%= config.bin %> workload create --cluster demo --workload big-run --tpu-type v5litepod-256 --num-slices 4 --docker-image us-docker.pkg.dev/p/r/trainer:v4 --command "python3 train.py" --replace --dry-run',
    '<%= config.bin %> workload create --cluster demo --workload big-run --tpu-type v5litepod-256 --num-slices 4 --docker-image us-docker.pkg.dev/p/r/trainer:v4 --command "python3 train.py" --replace --force --json',
    '<%= config.bin %> workload create --cluster gpus --workload nccl-test --device-type h100-80gb-8 --num-nodes 2 --docker-image nvidia/cuda:12.1.0-base-ubuntu22.04 --command nvidia-smi --dry-run --offline --output-manifest-file jobset.yaml',
  ]
  static override flags = workloadCreateFlags

  async run() {
    return this.runWith(WorkloadCreate, createWorkload)
  }
}
