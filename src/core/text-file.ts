/**
 * Text files that users name on the command line (a kubeconfig, a release manifest, an env file): why one could not
 * be read, and the one message for each reason, so every such flag says the same thing the same way.
 */
import {UsageError} from './errors.js'

/** The outcome of reading a text file; everything but `text` is a reason the file was not read. */
export type TextFileRead =
  | {readonly kind: 'text'; readonly text: string}
  | {readonly kind: 'missing'}
  | {readonly kind: 'unreadable'; readonly message: string}
  | {readonly kind: 'directory'}
  | {readonly kind: 'not-a-file'}
  | {readonly kind: 'too-large'; readonly size: number}
  | {readonly kind: 'binary'; readonly reason: 'NUL bytes' | 'invalid UTF-8'}

/** What the file was expected to be. */
export interface ExpectedTextFile {
  /** The flag (or variable) that named it, e.g. `--env-file`. */
  readonly flag: string
  /** The path as the user gave it. */
  readonly path: string
  /** What it should be, after "give": `a file of KEY=VALUE lines`, `a kubeconfig file`. */
  readonly what: string
  /** The size limit it was read with. */
  readonly maxBytes: number
  readonly hints?: readonly string[]
}

/** The usage error for a file that could not be read as text, naming the flag, the path and the fix. */
export function textFileProblem(read: Exclude<TextFileRead, {kind: 'text'}>, expected: ExpectedTextFile): UsageError {
  const {flag, path, what, maxBytes} = expected
  const why = {
    missing: () => 'no such file.',
    unreadable: () => `cannot be read (${(read as {message: string}).message}).`,
    directory: () => `is a directory; give ${what}.`,
    'not-a-file': () => `is not a regular file (a device, pipe or socket); give ${what}.`,
    'too-large': () => `is ${(read as {size: number}).size} bytes; ${what} is at most ${maxBytes} bytes here.`,
    binary: () => `is not a text file (it contains ${(read as {reason: string}).reason}); give ${what}.`,
  }[read.kind]()
  return new UsageError(`${flag} ${path}: ${why}`, {
    flag: flag.startsWith('--') ? flag : undefined,
    hints: expected.hints,
  })
}
