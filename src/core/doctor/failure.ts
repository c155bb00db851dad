import {XpkError} from '../errors.js'
import type {DoctorReport} from './checks.js'

/**
 * `xpk doctor` found failures: exit 1 ("the operation failed"), since the checks ran and the answer is no; the
 * checks' own kinds (auth, quota, not-found, ...) differ from one check to the next, so no single one of their
 * codes would be true. `--json` prints the report itself (every check), not an error object.
 */
export class DoctorFailed extends XpkError {
  constructor(readonly report: DoctorReport) {
    const failed = report.checks.filter((c) => c.status === 'fail').map((c) => c.name)
    super('failed', `${failed.length} of ${report.checks.length} checks failed: ${failed.join(', ')}.`, {
      hints: ['Each failed check says its fix above; `xpk doctor --json` gives them as data.'],
    })
    this.name = 'DoctorFailed'
  }
}
