import {XpkCommand} from '../../../cli/base-command.js'
import {createVmJob, vmJobCreateFlags} from '../../../cli/vm-job.js'

export default class VmJobCreate extends XpkCommand {
  static override summary = 'Run a long job on a TPU VM that comes back by itself after preemption (jobman configs).'
  static override description =
    "Reads a jobman config file (or the flags of the simple case) and checks everything before creating anything: the schema (file, line and key of every problem), the accelerator and runtime version, the files it names, and that the gcsfuse bucket exists in the TPU zone's region. Then records the job under $XDG_STATE_HOME/xpk/vm-jobs/ID and starts its supervisor in the background: it requests the TPU (a TPU VM or a queued resource), waits until it is ready, runs the setup modules in order on every worker (ssh, gcsfuse, docker | conda | venv; each to its own log per worker) and the command. With loop, a preempted TPU is deleted, requested again, set up again and the command re-run. The supervisor survives the terminal closing; `vm job resume ID` takes over after a restart."
  static override examples = [
    '<%= config.bin %> vm job create --config job.yaml',
    '<%= config.bin %> vm job create --config job.yaml --max-recoveries 10 --dry-run',
    '<%= config.bin %> vm job create --tpu-type v4-8 --zone us-central2-b --command "python3 train.py" --script-dir . --spot --loop',
    '<%= config.bin %> vm job create --config job.yaml --foreground',
  ]
  static override flags = vmJobCreateFlags

  async run() {
    return this.runWith(VmJobCreate, createVmJob)
  }
}
