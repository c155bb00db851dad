import * as Flags from '@oclif/core/flags'

import {XpkCommand} from '../../cli/base-command.js'
import {integerFlag} from '../../cli/flag-kinds.js'
import {asyncFlag, queuedResourceIdFlag, tpuPrefixFlag, vmTargetFlags} from '../../cli/vm-flags.js'

export default class VmCreate extends XpkCommand {
  static override summary = 'Request TPU VM slices (one queued resource) and wait until they are ready.'
  static override description =
    'Creates the slices P (one slice) or P-0 ... P-(N-1) through the Cloud TPU API, without GKE, and waits with progress until the queued resource is ACTIVE. Re-running the same request resumes waiting.'
  static override examples = [
    '<%= config.bin %> vm create --tpu-prefix demo --tpu-type v4-8 --project my-project --zone us-central2-b',
    '<%= config.bin %> vm create --tpu-prefix demo --tpu-type v5litepod-16 --num-slices 2 --spot --async',
    '<%= config.bin %> vm create --tpu-prefix demo --tpu-type v4-8 --reserved --runtime-version tpu-ubuntu2204-base',
  ]
  static override flags = {
    ...vmTargetFlags,
    'tpu-prefix': tpuPrefixFlag,
    'tpu-type': Flags.string({description: 'TPU VM type, e.g. v4-8, v5litepod-16, v5p-8, v6e-8.', required: true}),
    'num-slices': integerFlag('vm:num-slices', {description: 'Slices (nodes) to request.', default: 1}),
    'runtime-version': Flags.string({description: 'TPU software version. [default: the type generation’s base image]'}),
    'queued-resource-id': queuedResourceIdFlag,
    reserved: Flags.boolean({description: 'Use reserved capacity.', exclusive: ['spot', 'best-effort']}),
    reservation: Flags.string({description: 'Reservation name to use with --reserved.'}),
    spot: Flags.boolean({description: 'Use Spot capacity (preemptible).', exclusive: ['reserved', 'best-effort']}),
    'best-effort': Flags.boolean({
      description: 'Use best-effort (preemptible) capacity.',
      exclusive: ['reserved', 'spot'],
    }),
    async: asyncFlag,
  }

  async run() {
    const {flags} = await this.parse(VmCreate)
    const runtime = await import('../../cli/vm-runtime.js')
    const settings = await runtime.resolveCommandSettings(flags, this.console)
    return runtime.createVms(
      {
        project: runtime.requireSetting(settings, 'project'),
        zone: runtime.requireSetting(settings, 'zone'),
        tpuPrefix: flags['tpu-prefix'],
        queuedResourceId: flags['queued-resource-id'],
        tpuType: flags['tpu-type'],
        numSlices: flags['num-slices'] ?? 1,
        runtimeVersion: flags['runtime-version'],
        capacity: runtime.capacityFromFlags(flags),
        reservation: flags.reservation,
        async: flags.async,
        timing: runtime.vmTiming(),
      },
      runtime.vmApiDeps(flags['tpu-endpoint'], this.console, this.signal),
    )
  }
}
