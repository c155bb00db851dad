/**
 * The bash wrapper every xpk workload container runs (`command: [bash, -c, <script>]`).
 *
 * The user's command runs in the background so the SIGTERM trap can forward a graceful shutdown to it; the
 * wrapper then waits, optionally uploads XLA dumps, and exits with the command's own exit code, which the
 * JobSet's podFailurePolicy reads to decide between restarting and failing the workload.
 */

/** Where `--debug-dump-gcs` makes XLA write its dumps (also the value of the XLA_FLAGS it sets). */
export const XLA_DUMP_DIR = '/tmp/xla_dump/'

/** The file GPU sidecars watch to learn that the main container has finished. */
export const GPU_TERMINATION_FILE = '/usr/share/workload/workload_terminated'

/** What shapes the wrapper script around the user's command. */
export interface ContainerScriptOptions {
  /** `--command`, run by bash in a subshell. */
  readonly command: string
  /** `--enable-debug-logs`: verbose TPU runtime logging before the command. */
  readonly enableDebugLogs?: boolean
  /** `--debug-dump-gcs`: the `gs://` prefix the XLA dumps are uploaded to (one folder per host). */
  readonly debugDumpGcs?: string | null
  /** GPU workloads: tell sidecars the main container is done by writing {@link GPU_TERMINATION_FILE}. */
  readonly signalGpuTermination?: boolean
}

/**
 * `command` prefixed with the environment that turns on verbose TPU runtime logs (`--enable-debug-logs`).
 */
export function withDebugLogs(command: string): string {
  return [
    'export TPU_STDERR_LOG_LEVEL=0',
    'export TPU_MIN_LOG_LEVEL=0',
    'export TF_CPP_MIN_LOG_LEVEL=0',
    'export TPU_VMODULE=real_program_continuator=1',
    command,
  ].join(' && ')
}

/**
 * The wrapper script, one shell statement per line, in Python xpk's order. Optional steps that do not apply are
 * left out entirely (Python xpk leaves blank lines in their place).
 */
export function containerScriptLines(options: ContainerScriptOptions): string[] {
  const command = options.enableDebugLogs ? withDebugLogs(options.command) : options.command
  const dump = options.debugDumpGcs ?? null
  return [
    'echo XPK Start: $(date);',
    '_sigterm() (kill -SIGTERM $! 2>/dev/null;);',
    'trap _sigterm SIGTERM;',
    // Exit code 24 fails fast, before hours of training, when the image cannot upload the dumps at the end.
    ...(dump === null
      ? []
      : ['which gcloud >/dev/null 2>&1 || { echo >&2 "gcloud is required but not installed. Aborting"; exit 24;};']),
    `(${command}) & PID=$!;`,
    'while kill -0 $PID 2>/dev/null;',
    '    do sleep 5;',
    'done;',
    'wait $PID;',
    'EXIT_CODE=$?;',
    ...(dump === null ? [] : [`WORKER_ID=$HOSTNAME;gcloud storage cp --recursive ${XLA_DUMP_DIR} ${dump}/$WORKER_ID;`]),
    'echo XPK End: $(date);',
    'echo EXIT_CODE=$EXIT_CODE;',
    ...(options.signalGpuTermination ? [`echo Main app is done > ${GPU_TERMINATION_FILE};`] : []),
    'exit $EXIT_CODE',
  ]
}

/** The wrapper script as the single string passed to `bash -c`. */
export function containerScript(options: ContainerScriptOptions): string {
  return containerScriptLines(options).join('\n')
}
