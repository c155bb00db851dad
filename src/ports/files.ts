import type {TextFileRead} from '../core/text-file.js'

/** The local files a command reads or writes on the user's behalf (env files, manifest output). */
export interface LocalFiles {
  /** What is at a path, following symlinks; undefined when nothing is there. */
  stat(path: string): Promise<PathInfo | undefined>
  /**
   * Reads a small UTF-8 text file. The type and size are checked on the open file before anything is read, and at
   * most `maxBytes` are ever read, so a device, a pipe or a huge file cannot exhaust memory.
   */
  readText(path: string, options: {readonly maxBytes: number}): Promise<TextFileRead>
  /**
   * Writes a UTF-8 file atomically: a temporary file in the same directory, then a rename. The directory must
   * exist; a failed write leaves the target as it was and removes the temporary file.
   */
  writeText(path: string, text: string): Promise<void>
  /** True when this process may create files in the directory. */
  canWriteIn(dir: string): Promise<boolean>
}

/** What a path names. `other` is anything else: a device, a pipe, a socket. */
export interface PathInfo {
  readonly type: 'file' | 'directory' | 'other'
  readonly size: number
}

/** The outcome of {@link LocalFiles.readText}: defined in core, where the one message for each reason is made. */
export type {TextFileRead}
