// The texts of the note and the question about a script directory about to be packed, shared by `workload create`
// (into an image) and `vm run` (to every worker), each under its own codes (./image.ts, ./vm.ts).
import {formatBytes, SCRIPT_DIR_MAX_MB_VARIABLE} from '../image/context-check.js'
import type {Made} from '../messages.js'

/** The current directory, packed because no --script-dir was given. */
export interface DefaultScriptDir {
  readonly dir: string
  readonly files: number
  readonly bytes: number
  /** The ignore files honoured, e.g. ".dockerignore". */
  readonly ignoreFiles: string
}

export function defaultScriptDirText(p: DefaultScriptDir): Made {
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

export function largeScriptDirText(p: LargeScriptDir): Made {
  return {
    text:
      `The script directory ${p.dir} ${p.concerns.join(' and ')}; all of it would be copied ${p.destination}. ` +
      `Exclude what the workload does not need in ${p.dir}/.dockerignore, pass --script-dir with just your code, ` +
      `or raise the limit with ${SCRIPT_DIR_MAX_MB_VARIABLE}=MB. Pack it anyway?`,
    data: {dir: p.dir, concerns: p.concerns},
  }
}
