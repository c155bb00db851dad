import * as Errors from '@oclif/core/errors'
import * as Flags from '@oclif/core/flags'

import {XpkCommand} from '../../cli/base-command.js'
import {integerFlag, valueShape} from '../../cli/flag-kinds.js'
import {forceFlag, tpuPrefixFlag, vmTargetFlags} from '../../cli/vm-flags.js'

export default class VmRun extends XpkCommand {
  static override summary = 'Run a command on every worker of TPU VM slices over SSH (multihost_runner).'
  static override description =
    "Finds the slices P or P-<n>, adds your ~/.ssh/google_compute_engine key to their ssh-keys metadata when missing, copies --script-dir to every worker (honouring .dockerignore and .xpkignore) and runs the command everywhere with the MEGASCALE_* multislice environment. Streams worker 0's output, logs every worker to the run directory, stops every worker when one fails or on Ctrl-C. When the command fails on a worker, xpk exits with the highest worker exit code (128+N for a signal N), not a code from xpk's table; --json then prints the per-worker codes with the error."
  static override examples = [
    '<%= config.bin %> vm run --tpu-prefix demo --command "python3 train.py" --script-dir .',
    '<%= config.bin %> vm run --tpu-prefix demo --command "bash setup.sh" --internal-ip',
    '<%= config.bin %> vm run --tpu-prefix demo --command "python3 train.py steps=10" --use-existing-folder --json',
  ]
  static override flags = {
    ...vmTargetFlags,
    'tpu-prefix': tpuPrefixFlag,
    command: Flags.string({
      ...valueShape('text'),
      description: 'Command to run on every worker (in the copied script directory).',
      required: true,
    }),
    'script-dir': Flags.string({description: 'Directory to copy to every worker.', default: '.'}),
    'run-name': Flags.string({description: 'Name of the run (log directory). [default: run-<UTC timestamp>]'}),
    'internal-ip': Flags.boolean({description: 'Connect to internal IPs (when running inside Google Cloud).'}),
    'use-existing-folder': Flags.boolean({description: 'Re-run in the copy already on the workers; copy nothing.'}),
    'ssh-user': Flags.string({description: 'Login on the workers. [default: your local user name]'}),
    'ssh-port': integerFlag('vm:ssh-port', {description: 'SSH port of the workers.', default: 22}),
    'log-dir': Flags.string({
      description: 'Where run directories with per-worker logs go. [default: $TMPDIR/xpk-runs]',
    }),
    force: forceFlag,
  }

  async run() {
    const {flags} = await this.parse(VmRun)
    const runtime = await import('../../cli/vm-runtime.js')
    const settings = await runtime.resolveCommandSettings(flags, this.console)
    return runtime.runOnVms(
      {
        project: runtime.requireSetting(settings, 'project'),
        zone: runtime.requireSetting(settings, 'zone'),
        tpuPrefix: flags['tpu-prefix'],
        command: flags.command,
        scriptDir: flags['script-dir'],
        runName: flags['run-name'],
        internalIp: flags['internal-ip'],
        useExistingFolder: flags['use-existing-folder'],
        sshUser: flags['ssh-user'] ?? runtime.localUser(),
        sshPort: flags['ssh-port'] ?? 22,
        timing: runtime.vmTiming(),
      },
      await runtime.vmRunDeps(flags['tpu-endpoint'], flags['log-dir'], this.jsonEnabled(), this.console, this.signal),
    )
  }

  /**
   * A run that failed on some worker still prints the run under --json (per-worker exit codes, durations, logs), with
   * the error beside it, so a script sees which code came from which worker. Everything else is reported as usual.
   */
  protected override async catch(error: Error & {oclif?: {exit?: number}}): Promise<never> {
    // Only a worker failure has `details`; the check spares loading the vm chunk for a parse error.
    if (this.jsonEnabled() && 'details' in error) {
      const failed = (await import('../../cli/vm-runtime.js')).workerFailureJson(error)
      if (failed) {
        this.logJson(failed.json)
        throw new Errors.ExitError(failed.exitCode)
      }
    }
    return super.catch(error)
  }
}
