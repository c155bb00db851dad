import * as Errors from '@oclif/core/errors'

import {XpkCommand} from '../../cli/base-command.js'
import {runOnVms, vmRunFlags, workerFailureJson} from '../../cli/vm.js'

export default class VmRun extends XpkCommand {
  static override summary = 'Run a command on every worker of TPU VM slices over SSH (multihost_runner).'
  static override description =
    "Finds the slices P or P-<n>, adds your ~/.ssh/google_compute_engine key to their ssh-keys metadata when missing, copies --script-dir to every worker (honouring .dockerignore and .xpkignore) and runs the command everywhere with the MEGASCALE_* multislice environment. Streams worker 0's output, logs every worker to the run directory, stops every worker when one fails or on Ctrl-C. When the command fails on a worker, xpk exits with the highest worker exit code (128+N for a signal N), not a code from xpk's table; --json then prints the per-worker codes with the error. --dry-run shows the plan instead (the key, the nodes whose metadata gets it, what is copied, every worker with its address and environment) and changes nothing."
  static override examples = [
    '<%= config.bin %> vm run --tpu-prefix demo --command "python3 train.py" --script-dir .',
    '<%= config.bin %> vm run --tpu-prefix demo --command "bash setup.sh" --internal-ip',
    '<%= config.bin %> vm run --tpu-prefix demo --command "python3 train.py steps=10" --use-existing-folder --json',
    '<%= config.bin %> vm run --tpu-prefix demo --command "python3 train.py" --script-dir . --dry-run',
  ]
  static override flags = vmRunFlags

  async run() {
    return this.runWith(VmRun, runOnVms)
  }

  /**
   * A run that failed on some worker still prints the run under --json (per-worker exit codes, durations, logs), with
   * the error beside it, so a script sees which code came from which worker. Everything else is reported as usual.
   */
  protected override async catch(error: Error & {oclif?: {exit?: number}}): Promise<never> {
    // Only a worker failure has `details`; the check spares loading the vm wiring for a parse error.
    const failed = this.jsonEnabled() && 'details' in error ? await workerFailureJson(error) : undefined
    if (failed) {
      this.logJson(failed.json)
      throw new Errors.ExitError(failed.exitCode)
    }
    return super.catch(error)
  }
}
