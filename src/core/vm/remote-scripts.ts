/**
 * The shell scripts `xpk vm run` runs on each worker, as text. Kept pure so they can be read and tested: paths are
 * relative to the worker's $HOME, every value from the user is single-quoted.
 */

/** Quotes a string for a POSIX shell. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`
}

/** The multislice environment of one worker, as multihost_runner sets it (coordinator = slice 0 worker 0). */
export function workerEnv(input: {
  tpuPrefix: string
  numSlices: number
  sliceId: number
  workerId: number
  coordinatorIp: string
  runName: string
}): Record<string, string> {
  return {
    TPU_PREFIX: input.tpuPrefix,
    XPK_RUN_NAME: input.runName,
    XPK_SLICE_ID: String(input.sliceId),
    XPK_WORKER_ID: String(input.workerId),
    MEGASCALE_COORDINATOR_ADDRESS: `${input.coordinatorIp}:8080`,
    MEGASCALE_NUM_SLICES: String(input.numSlices),
    MEGASCALE_PORT: '8080',
    MEGASCALE_SLICE_ID: String(input.sliceId),
  }
}

/** The line a gated run script prints on stderr when it is ready to start the command. */
export const READY_MARKER = 'xpk-ready-to-start'

/** Where a run's process-group id is kept on the worker, relative to $HOME. */
export const pgidFile = (runName: string) => `.xpk/runs/${runName}.pgid`

/**
 * Stops processes that still hold the TPU from an earlier run (anything with /dev/accel* or /dev/vfio/* open) and
 * removes libtpu's lock file. Scans /proc only on machines that have TPU devices.
 */
export const CLEAR_TPU_HOLDERS = [
  'tpu=; for d in /dev/accel* /dev/vfio/[0-9]*; do [ -e "$d" ] && tpu=1 && break; done',
  'if [ -n "$tpu" ]; then',
  '  for p in /proc/[0-9]*; do',
  '    pid=${p#/proc/}; [ "$pid" = "$$" ] && continue',
  '    for fd in "$p"/fd/*; do',
  '      case "$(readlink "$fd" 2>/dev/null)" in',
  '        /dev/accel*|/dev/vfio/*) echo "xpk: stopping process $pid, which holds the TPU" >&2; kill -9 "$pid" 2>/dev/null; break ;;',
  '      esac',
  '    done',
  '  done',
  'fi',
  // Tested first: `rm` is a process, and most runs find no lock file.
  '[ ! -e /tmp/libtpu_lockfile ] || rm -f /tmp/libtpu_lockfile',
].join('\n')

/** Replaces the worker's copy of the script directory with the tar on stdin. */
export function shipScript(remoteDir: string): string {
  const dir = `"$HOME"/${shellQuote(remoteDir)}`
  return `set -e\nrm -rf ${dir} && mkdir -p ${dir} && tar -xf - -C ${dir}`
}

/**
 * Unpacks the script directory from stdin (unless reusing the copy there), clears TPU holders, and runs the command
 * in a process group of its own (the login shell's when it leads one, as under sshd; else a new session), recording
 * the group id so that {@link killScript} can stop the whole tree. The script's exit status is the command's, as a
 * shell reports it (128+N when a signal N killed it), or SSH's report of the signal that killed the run's shell.
 */
export function runScript(input: {
  remoteDir: string
  ship: boolean
  runName: string
  env: Readonly<Record<string, string>>
  command: string
  /** Wait for "go" on stdin before starting (see {@link READY_MARKER}). */
  gated?: boolean
}): string {
  const dir = `"$HOME"/${shellQuote(input.remoteDir)}`
  const pgid = `"$HOME"/${shellQuote(pgidFile(input.runName))}`
  const run = shellQuote(
    input.gated
      ? `echo $$ > "$1"; c=$2; shift 2; echo ${READY_MARKER} >&2; read -r go; [ "$go" = go ] || exit 143; exec </dev/null; eval "$c"`
      : 'echo $$ > "$1"; c=$2; shift 2; exec </dev/null; eval "$c"',
  )
  const command = shellQuote(input.command)
  const lines = [
    'set -e',
    '[ -d "$HOME"/.xpk/runs ] || mkdir -p "$HOME"/.xpk/runs',
    // Emptied first (a builtin, no process), so that a stop request never acts on a group id left by an earlier run
    // of the same name, even when this one ends before starting the command.
    `: > ${pgid}`,
    input.ship
      ? `rm -rf ${dir} && mkdir -p ${dir} && tar -xf - -C ${dir}`
      : `[ -d ${dir} ] || { echo "xpk: ${input.remoteDir.replaceAll('"', '')} is not on this worker; run once without --use-existing-folder" >&2; exit 127; }`,
    CLEAR_TPU_HOLDERS,
    `cd ${dir}`,
    ...Object.entries(input.env).map(([k, v]) => `export ${k}=${shellQuote(v)}`),
    'set +e',
    // The run's shell, in a process group of its own whose id it records ($1), then (gated) says it is ready on
    // stderr and waits for "go" on stdin (anything else, or the end of stdin, stops it: exit 143), and runs the
    // command ($2) itself with stdin closed. Waiting this late keeps the work between "go" and the command tiny.
    // sshd makes each session's shell the leader of its own session, so this shell can become the run's shell in
    // place: `exec` keeps the pid, hence the group, and its status (128+N for a signal N, as SSH reports a signal)
    // reaches xpk directly. That saves two processes per worker (setsid, and a shell waiting in between).
    'read -r s0 s1 s2 s3 pg s5 < /proc/$$/stat 2>/dev/null || pg=',
    `if [ "$pg" = "$$" ]; then exec bash -c ${run} xpk-run ${pgid} ${command}; fi`,
    // Otherwise (a server that does not, or no /proc), it runs in a new session (setsid) as a background job that
    // this shell waits for, not through `setsid -w`: `wait` reports a job killed by signal N as 128+N, while
    // `setsid -w` would exit N. A background job's stdin is /dev/null unless redirected, hence fd 3. This shell's
    // own stderr points at /dev/null until the job is waited for (the job keeps the real one, fd 4): bash's "Killed"
    // notice stays out of the worker's log whether it comes from `wait` or, when the job ends first, from bash
    // noticing it between two commands.
    'exec 3<&0 4>&2 2>/dev/null',
    `setsid bash -c ${run} xpk-run ${pgid} ${command} <&3 3<&- 2>&4 4>&- &`,
    'exec 3<&-',
    'wait $!',
    'status=$?',
    'exec 2>&4 4>&-',
    'exit $status',
  ]
  return lines.join('\n')
}

/** What {@link killScript} prints first: whether the run's command was still running when the stop came. */
export const STOP_REPORT = {stopping: 'xpk-stopping', ended: 'xpk-ended'} as const

/**
 * Stops a run's process group: SIGTERM, then SIGKILL after `graceSeconds`. Waits briefly for the group id to be
 * recorded, in case the run is only starting. Prints {@link STOP_REPORT}: `ended` when the group's leader (the run's
 * shell) had already exited, i.e. the command ended on its own before the stop, and its exit status is its own.
 */
export function killScript(runName: string, graceSeconds = 2): string {
  const pgid = `"$HOME"/${shellQuote(pgidFile(runName))}`
  const ticks = Math.max(1, Math.round(graceSeconds * 10))
  return [
    `f=${pgid}`,
    'i=0; while [ ! -s "$f" ] && [ $i -lt 20 ]; do sleep 0.1; i=$((i+1)); done',
    'pg=$(cat "$f" 2>/dev/null)',
    `if [ -n "$pg" ] && kill -0 "$pg" 2>/dev/null; then echo ${STOP_REPORT.stopping}; else echo ${STOP_REPORT.ended}; fi`,
    '[ -n "$pg" ] || exit 0',
    // Its leftovers (background processes) are stopped all the same.
    'kill -TERM -- "-$pg" 2>/dev/null || exit 0',
    `i=0; while kill -0 -- "-$pg" 2>/dev/null && [ $i -lt ${ticks} ]; do sleep 0.1; i=$((i+1)); done`,
    'kill -KILL -- "-$pg" 2>/dev/null',
    'exit 0',
  ].join('\n')
}

/** An `ssh-keys` metadata entry for a user's public key (`USER:TYPE BASE64 COMMENT`). */
export function sshKeyEntry(user: string, publicKey: string): string {
  return `${user}:${publicKey.trim()}`
}

/** Whether the node's `ssh-keys` metadata already lets `user` in with this key (type and key compared). */
export function hasSshKey(metadata: Readonly<Record<string, string>>, user: string, publicKey: string): boolean {
  const [type, key] = publicKey.trim().split(/\s+/)
  return (metadata['ssh-keys'] ?? '').split('\n').some((line) => {
    const colon = line.indexOf(':')
    if (colon < 0 || line.slice(0, colon).trim() !== user) return false
    const [t, k] = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
    return t === type && k === key
  })
}

/** The node's metadata with the key added to `ssh-keys`, keeping every other entry. */
export function withSshKey(
  metadata: Readonly<Record<string, string>>,
  user: string,
  publicKey: string,
): Record<string, string> {
  const existing = (metadata['ssh-keys'] ?? '').trim()
  const entry = sshKeyEntry(user, publicKey)
  return {...metadata, 'ssh-keys': existing ? `${existing}\n${entry}` : entry}
}
