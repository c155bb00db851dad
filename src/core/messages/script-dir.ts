// The note and the question about a script directory about to be packed, shared by `workload create` (into an
// image) and `vm run` (to every worker), each under its own codes and summaries (./image.ts, ./vm.ts).
import {formatBytes, SCRIPT_DIR_MAX_MB_VARIABLE} from '../image/context-check.js'
import {defineInfo, defineQuestion, type Made} from '../messages.js'

/** The current directory, packed because no --script-dir was given. */
export interface DefaultScriptDir {
  readonly dir: string
  readonly files: number
  readonly bytes: number
  /** The ignore files honoured, e.g. ".dockerignore". */
  readonly ignoreFiles: string
}

function defaultScriptDirText(p: DefaultScriptDir): Made {
  return {
    text:
      `Packing the current directory ${p.dir} (no --script-dir given): ${p.files} file${p.files === 1 ? '' : 's'}, ` +
      `${formatBytes(p.bytes)} after ${p.ignoreFiles}.`,
    data: {dir: p.dir, files: p.files, bytes: p.bytes},
  }
}

/** A script directory that looks like more than training code. */
export interface LargeScriptDir {
  readonly dir: string
  /** What looks wrong with it: "holds node_modules", "is 2.1 GB". */
  readonly concerns: readonly string[]
  /** Where all of it would be copied: "into the image", "to every worker". */
  readonly destination: string
}

function largeScriptDirText(p: LargeScriptDir): Made {
  return {
    text:
      `The script directory ${p.dir} ${p.concerns.join(' and ')}; all of it would be copied ${p.destination}. ` +
      `Exclude what the workload does not need in ${p.dir}/.dockerignore, pass --script-dir with just your code, ` +
      `or raise the limit with ${SCRIPT_DIR_MAX_MB_VARIABLE}=MB. Pack it anyway?`,
    data: {dir: p.dir, concerns: p.concerns},
  }
}

/** Defines the note of the current directory packed because no --script-dir was given, under a command's code. */
export function defineDefaultScriptDirNote<const C extends string>(code: C, summary: string) {
  return defineInfo(code, summary, defaultScriptDirText)
}

/** Defines the question asked before a script directory that looks too big is packed (no, when nobody answers). */
export function defineLargeScriptDirQuestion<const C extends string>(code: C, summary: string) {
  return defineQuestion(code, summary, false, largeScriptDirText)
}
