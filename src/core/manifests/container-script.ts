/**
 * The bash wrapper every xpk workload container runs.
 *
 * RULE: no value reaches generated shell text. The wrapper is a fixed script that only booleans shape (debug logs,
 * debug dump, GPU); every value it needs arrives as a positional argument, i.e. as data:
 *
 *     command: [bash, -c, <wrapper>, xpk-wrapper, <--command>, <--debug-dump-gcs prefix, when given>]
 *
 * and the wrapper runs the user's command with `bash -c -- "$1"`. Whatever the command holds (a `#` comment, an
 * unbalanced quote or parenthesis, a heredoc, newlines, `); exit 0; (`) can only make the command itself fail, with
 * its own exit code; it cannot break or bypass the wrapper's SIGTERM trap, exit-code propagation, dump upload or
 * GPU termination signal. A new value the wrapper needs becomes another argument (validated where it is parsed,
 * as `--debug-dump-gcs` is), never a template substitution.
 *
 * Kubernetes rewrites `command` before bash sees it: `$(NAME)` becomes the value of an environment variable NAME
 * and `$$` becomes `$`. So the wrapper text contains neither `$(` nor `$$` (tests check this), and every argument
 * passes through {@link kubernetesLiteral}, which makes bash receive exactly the bytes the user gave.
 *
 * What the wrapper does, in Python xpk's order: the user's command runs in the background so the SIGTERM trap can
 * forward a graceful shutdown to it; the wrapper then waits, optionally uploads XLA dumps, and exits with the
 * command's own exit code, which the JobSet's podFailurePolicy reads to decide between restarting and failing.
 */

/** Where `--debug-dump-gcs` makes XLA write its dumps (also the value of the XLA_FLAGS it sets). */
export const XLA_DUMP_DIR = '/tmp/xla_dump/'

/** The file GPU sidecars watch to learn that the main container has finished. */
export const GPU_TERMINATION_FILE = '/usr/share/workload/workload_terminated'

/** `$0` of the wrapper: bash names it in its own error messages, which tells them apart from the command's. */
export const WRAPPER_NAME = 'xpk-wrapper'

/** Variables `--enable-debug-logs` exports for the command: verbose TPU runtime and TensorFlow logging. */
export const DEBUG_LOG_ENV: readonly (readonly [string, string])[] = [
  ['TPU_STDERR_LOG_LEVEL', '0'],
  ['TPU_MIN_LOG_LEVEL', '0'],
  ['TF_CPP_MIN_LOG_LEVEL', '0'],
  ['TPU_VMODULE', 'real_program_continuator=1'],
]

/** What shapes the wrapper and its arguments. */
export interface ContainerScriptOptions {
  /** `--command`: passed to the wrapper as `$1` and run by `bash -c`. */
  readonly command: string
  /** `--enable-debug-logs`: export {@link DEBUG_LOG_ENV} before starting the command. */
  readonly enableDebugLogs?: boolean
  /** `--debug-dump-gcs`: the `gs://` prefix the XLA dumps are uploaded to (one folder per host), passed as `$2`. */
  readonly debugDumpGcs?: string | null
  /** GPU workloads: tell sidecars the main container is done by writing {@link GPU_TERMINATION_FILE}. */
  readonly signalGpuTermination?: boolean
}

/** The options the wrapper text depends on: none of them is a value that could reach the text. */
export type WrapperShape = Omit<ContainerScriptOptions, 'command'>

/**
 * The wrapper script, one shell statement per line. Optional steps that do not apply are left out entirely
 * (Python xpk leaves blank lines in their place).
 */
export function containerScriptLines(shape: WrapperShape): string[] {
  const dump = (shape.debugDumpGcs ?? null) !== null
  return [
    // Backquotes, not $(date): Kubernetes would replace $(date) by the value of an environment variable `date`.
    'echo XPK Start: `date`;',
    '_sigterm() (kill -SIGTERM $! 2>/dev/null;);',
    'trap _sigterm SIGTERM;',
    // Exit code 24 fails fast, before hours of training, when the image cannot upload the dumps at the end.
    ...(dump
      ? ['which gcloud >/dev/null 2>&1 || { echo >&2 "gcloud is required but not installed. Aborting"; exit 24;};']
      : []),
    ...(shape.enableDebugLogs ? DEBUG_LOG_ENV.map(([name, value]) => `export ${name}=${value};`) : []),
    // `--` keeps a command that starts with a dash from being read as an option of bash.
    'bash -c -- "$1" & PID=$!;',
    'while kill -0 $PID 2>/dev/null;',
    '    do sleep 5;',
    'done;',
    'wait $PID;',
    'EXIT_CODE=$?;',
    ...(dump ? [`WORKER_ID=$HOSTNAME;gcloud storage cp --recursive ${XLA_DUMP_DIR} "$2/$WORKER_ID";`] : []),
    'echo XPK End: `date`;',
    'echo EXIT_CODE=$EXIT_CODE;',
    ...(shape.signalGpuTermination ? [`echo Main app is done > ${GPU_TERMINATION_FILE};`] : []),
    'exit $EXIT_CODE',
  ]
}

/** The wrapper script as the single string passed to `bash -c`. */
export function containerScript(shape: WrapperShape): string {
  return containerScriptLines(shape).join('\n')
}

/**
 * The container's `command`: bash running the wrapper, then the wrapper's arguments (`$1` the user's command, `$2`
 * the dump prefix), each escaped for Kubernetes' `$(VAR)` expansion.
 */
export function containerCommand(options: ContainerScriptOptions): string[] {
  const dump = options.debugDumpGcs ?? null
  return [
    'bash',
    '-c',
    containerScript(options),
    WRAPPER_NAME,
    kubernetesLiteral(options.command),
    // A trailing slash would make gcloud upload to `prefix//host`.
    ...(dump === null ? [] : [kubernetesLiteral(dump.replace(/\/+$/, ''))]),
  ]
}

/**
 * `text` written so that Kubernetes' expansion of `command`, `args` and env values (`$(NAME)` -> value, `$$` -> `$`)
 * gives back `text` exactly: every `$` doubled.
 */
export function kubernetesLiteral(text: string): string {
  return text.replaceAll('$', () => '$$')
}
