import {XpkCommand} from '../../cli/base-command.js'
import {tpuPrefixFilterFlag, vmTargetFlags} from '../../cli/vm-flags.js'

export default class VmList extends XpkCommand {
  static override summary = 'List TPU VM queued resources and slices with their state, workers and IPs.'
  static override examples = [
    '<%= config.bin %> vm list --project my-project --zone us-central2-b',
    '<%= config.bin %> vm list --tpu-prefix demo --json',
  ]
  static override flags = {...vmTargetFlags, 'tpu-prefix': tpuPrefixFilterFlag}

  async run() {
    const {flags} = await this.parse(VmList)
    const runtime = await import('../../cli/vm-runtime.js')
    const settings = await runtime.resolveCommandSettings(flags, this.console)
    const list = await runtime.listVms(
      {
        project: runtime.requireSetting(settings, 'project'),
        zone: runtime.requireSetting(settings, 'zone'),
        tpuPrefix: flags['tpu-prefix'],
        timing: runtime.vmTiming(),
      },
      runtime.vmApiDeps(flags['tpu-endpoint'], this.console, this.signal),
    )
    this.console.result(() => runtime.renderVmList(list))
    return list
  }
}
