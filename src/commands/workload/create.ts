import {XpkCommand} from '../../cli/base-command.js'
import {acceleratorFlags, changeFlags, offlineFlag, targetFlags} from '../../cli/flags.js'
import {camelCaseFlags} from '../../cli/flag-kinds.js'
import {workloadCreateFlags} from '../../cli/workload-flags.js'

export default class WorkloadCreate extends XpkCommand {
  static override summary = "Build a workload's image and the JobSet Kueue queues on the cluster."
  static override description =
    'Without --docker-image, the --script-dir directory is layered onto --base-docker-image at /app, tagged by its content and pushed (skipped when that tag already exists). --dry-run prints the JobSet instead of submitting it; add --offline to make no network call at all. Submitting to the cluster is not available yet: write the JobSet with --output-manifest-file and apply it with kubectl.'
  static override examples = [
    '<%= config.bin %> workload create --cluster demo --workload hello-1 --tpu-type v5p-8 --command "python3 train.py" --dry-run --offline --project my-project',
    '<%= config.bin %> workload create --cluster demo --workload big-run --tpu-type v5litepod-256 --num-slices 4 --priority high --max-restarts 10 --docker-image us-docker.pkg.dev/p/r/trainer:v3 --command "python3 train.py"',
    '<%= config.bin %> workload create --cluster gpus --workload nccl-test --device-type h100-80gb-8 --num-nodes 2 --docker-image nvidia/cuda:12.1.0-base-ubuntu22.04 --command nvidia-smi --dry-run --offline --output-manifest-file jobset.yaml',
  ]
  static override flags = {...targetFlags, ...acceleratorFlags, ...workloadCreateFlags, ...changeFlags, ...offlineFlag}

  async run() {
    const {flags} = await this.parse(WorkloadCreate)
    const {createWorkload, resolveCommandSettings, workloadCreateDeps} = await import('../../cli/workload-runtime.js')
    const settings = await resolveCommandSettings(flags, this.console)
    return createWorkload(
      {
        flags: {...camelCaseFlags(flags), imagePullSecret: flags['docker-image-pull-secret']},
        envFile: flags['env-file'],
        dockerImage: flags['docker-image'],
        baseDockerImage: flags['base-docker-image'],
        scriptDir: flags['script-dir'],
        outputManifestFile: flags['output-manifest-file'],
        dryRun: flags['dry-run'],
        offline: flags.offline,
        settings,
      },
      workloadCreateDeps(this.console),
    )
  }
}
