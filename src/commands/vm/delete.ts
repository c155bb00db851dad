import {XpkCommand} from '../../cli/base-command.js'
import {asyncFlag, forceFlag, queuedResourceIdFlag, tpuPrefixFlag, vmTargetFlags} from '../../cli/vm-flags.js'

export default class VmDelete extends XpkCommand {
  static override summary = 'Delete a queued resource and its TPU VM slices.'
  static override description =
    'Asks for confirmation first (--force skips it; without a terminal, --force is required), then waits until the queued resource and its nodes are gone (--async returns at once). Already gone is not an error.'
  static override examples = [
    '<%= config.bin %> vm delete --tpu-prefix demo',
    '<%= config.bin %> vm delete --tpu-prefix demo --force --async --json',
  ]
  static override flags = {
    ...vmTargetFlags,
    'tpu-prefix': tpuPrefixFlag,
    'queued-resource-id': queuedResourceIdFlag,
    async: asyncFlag,
    force: forceFlag,
  }

  async run() {
    const {flags} = await this.parse(VmDelete)
    const runtime = await import('../../cli/vm-runtime.js')
    const settings = await runtime.resolveCommandSettings(flags, this.console)
    return runtime.deleteVms(
      {
        project: runtime.requireSetting(settings, 'project'),
        zone: runtime.requireSetting(settings, 'zone'),
        tpuPrefix: flags['tpu-prefix'],
        queuedResourceId: flags['queued-resource-id'],
        async: flags.async,
        timing: runtime.vmTiming(),
      },
      runtime.vmApiDeps(flags['tpu-endpoint'], this.console, this.signal),
    )
  }
}
