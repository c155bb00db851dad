import * as Errors from '@oclif/core/errors'

import {XpkCommand} from '../cli/base-command.js'
import {doctor, doctorFailureJson, doctorFlags} from '../cli/doctor.js'

export default class Doctor extends XpkCommand {
  static override summary =
    'Check that xpk can work here: credentials, project, APIs, permissions, capacity, the cluster, Docker.'
  static override description =
    "Runs every check at once, each with a time limit, and prints one line per check (ok, WARN or FAIL) with the fix of each that did not pass. Google: the credentials and their account, the project, the APIs xpk calls, the permissions its commands use. Capacity, with --tpu-type: the regional quota for --num-slices, or the room of each --reservation. The cluster, with --cluster (or --kubeconfig): GKE's view and version, the Kubernetes API, JobSet and Kueue (CRDs, controller Available, version) and the xpk that last configured it. Here: the Docker engine, credentials for the registry, Node.js. Reads only. Exit 0 when nothing failed (warnings are fine), 1 when a check failed."
  static override examples = [
    '<%= config.bin %> doctor',
    '<%= config.bin %> doctor --cluster demo',
    '<%= config.bin %> doctor --tpu-type v5p-8 --num-slices 2 --spot',
    '<%= config.bin %> doctor --tpu-type v5p-8 --num-slices 2 --reservation my-reservation --json',
  ]
  static override flags = doctorFlags

  async run() {
    return this.runWith(Doctor, doctor)
  }

  /** A check that failed still prints the report under --json (every check, as data), then exits 1. */
  protected override async catch(error: Error & {oclif?: {exit?: number}}): Promise<never> {
    const failed = this.jsonEnabled() && error.name === 'DoctorFailed' ? await doctorFailureJson(error) : undefined
    if (failed) {
      this.logJson(failed)
      throw new Errors.ExitError(1)
    }
    return super.catch(error)
  }
}
