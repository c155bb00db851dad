import {XpkCommand} from '../../cli/base-command.js'
import {createPathwaysWorkload, workloadCreatePathwaysFlags} from '../../cli/workload.js'

export default class WorkloadCreatePathways extends XpkCommand {
  static override summary =
    'Submit a Pathways workload: the Pathways head (proxy, resource manager, your command) and a Pathways worker on every TPU VM of every slice, queued by Kueue.'
  static override description =
    'One JAX client drives every slice through the Pathways proxy, at grpc://WORKLOAD-pathways-head-0-0.WORKLOAD:29000 inside the cluster. The head runs on the cpu-np node pool of a cluster made with `xpk cluster create-pathways` (another cluster is refused, exit 6, since Kueue could never admit the head); TPU types only (exit 2 otherwise). With --command the head runs it in your image (--docker-image, or --script-dir layered onto --base-docker-image, as `workload create` builds it) and the workload ends when it does; with --headless there is no image and no command, and the workload runs until deleted, for your own JAX client (a notebook) to connect to the proxy. Everything else is as `workload create`: checked first, --replace, --dry-run, --output-manifest-file.'
  static override examples = [
    '<%= config.bin %> workload create-pathways --cluster demo --workload pw-1 --tpu-type v5p-8 --num-slices 2 --docker-image us-docker.pkg.dev/p/r/trainer:v3 --command "python3 train.py" --dry-run --offline --project my-project',
    '<%= config.bin %> workload create-pathways --cluster demo --workload pw-notebook --tpu-type v5p-8 --headless --dry-run --offline --project my-project',
    '<%= config.bin %> workload create-pathways --cluster demo --workload pw-2 --tpu-type v5litepod-256 --priority high --docker-image us-docker.pkg.dev/p/r/trainer:v3 --command "python3 train.py" --json',
  ]
  static override flags = workloadCreatePathwaysFlags

  async run() {
    return this.runWith(WorkloadCreatePathways, createPathwaysWorkload)
  }
}
