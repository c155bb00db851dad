/**
 * The one rule for a script directory that is about to be packed and sent somewhere (into an image by `workload
 * create`, to every worker by `vm run`): say what the default (current) directory holds, and ask before packing one
 * that looks like a whole repository (node_modules, .git) or is bigger than XPK_SCRIPT_DIR_MAX_MB.
 */
import {contextConcerns, contextSize, DEFAULT_SCRIPT_DIR_MAX_MB} from '../core/image/context-check.js'
import {integerVariable, type Environment} from '../core/environment.js'
import type {ContextEntry} from '../core/image/context-digest.js'
import {UsageError} from '../core/errors.js'
import type {NoteMaker, QuestionMaker} from '../core/messages.js'
import type {DefaultScriptDir, LargeScriptDir} from '../core/messages/script-dir.js'
import type {Console} from '../ports/console.js'
import {confirmOrStop} from './confirm.js'

/** XPK_SCRIPT_DIR_MAX_MB in bytes (null: no limit), or the usage error naming the variable. */
export function scriptDirLimit(env: Environment): number | null | UsageError {
  try {
    const mb = integerVariable(env, 'XPK_SCRIPT_DIR_MAX_MB') ?? DEFAULT_SCRIPT_DIR_MAX_MB
    return mb === 0 ? null : mb * 1_000_000
  } catch (error) {
    if (error instanceof UsageError) return error
    throw error
  }
}

/** Where the packed directory goes, for the note and the question. */
export interface PackingPurpose {
  /** Shown after "all of it would be copied": "into the image", "to every worker". */
  readonly destination: string
  /** The ignore files honoured, e.g. ".dockerignore". */
  readonly ignoreFiles: string
  /** The makers of the note about the default directory and of the question (each command has its own codes). */
  readonly messages: {
    readonly defaultDir: NoteMaker<string, DefaultScriptDir, 'info'>
    readonly confirm: QuestionMaker<string, LargeScriptDir>
  }
  /** What a "no" leaves undone, e.g. "Nothing was built." */
  readonly nothingDone: string
}

/**
 * Says what the default script directory holds, and asks before packing one that looks like more than training
 * code; returns only when packing may go ahead (a "no" or nobody to ask stops, naming --force).
 */
export async function confirmPacking(
  entries: readonly Pick<ContextEntry, 'path' | 'type' | 'size'>[],
  dir: {readonly path: string; readonly isDefault: boolean; readonly maxBytes: number | null},
  purpose: PackingPurpose,
  console: Console,
): Promise<void> {
  const {files, bytes} = contextSize(entries)
  if (dir.isDefault) {
    console.info(purpose.messages.defaultDir({dir: dir.path, files, bytes, ignoreFiles: purpose.ignoreFiles}))
  }
  const concerns = contextConcerns(entries, dir.maxBytes)
  if (concerns.length === 0) return
  const asked = purpose.messages.confirm({dir: dir.path, concerns, destination: purpose.destination})
  await confirmOrStop(console, asked, {
    nothingDone: purpose.nothingDone,
    hints: ['Narrow the script directory as above, or pass --force to pack it without asking.'],
  })
}
