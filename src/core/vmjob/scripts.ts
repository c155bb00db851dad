/**
 * The shell scripts a TPU VM job runs on its workers, as text: one per setup module, and the detached run of the
 * command. Every value from the config is single-quoted (never spliced into shell text unquoted); paths on the
 * worker are relative to its $HOME. Each script is idempotent: the supervisor runs it again after a recovery or a
 * resume.
 */
import {shellQuote} from '../vm/remote-scripts.js'
import type {VmJobSpec} from './spec.js'

/** Where a job keeps its files on a worker, relative to $HOME. */
export const jobRemoteDir = (jobId: string) => `.xpk/jobs/${jobId}`
/** The copy of --script-dir on the workers, relative to $HOME. */
export const jobCodeDir = (jobId: string) => `${jobRemoteDir(jobId)}/code`
/** One start of the command: its pid, output and exit status, relative to $HOME. */
export const attemptDir = (jobId: string, attempt: number) => `${jobRemoteDir(jobId)}/attempt-${attempt}`
/** The container of a docker job's run (stopped by name: killing `docker run` leaves it running). */
export const containerName = (jobId: string, attempt: number) => `xpk-job-${jobId}-${attempt}`
/** Where a venv job's environments live on the workers, relative to $HOME. */
export const venvDir = (name: string) => `.xpk/venvs/${name}`

const home = (path: string) => `"$HOME"/${shellQuote(path)}`

/** Tools installed for the user (pip --user, ~/bin) come before the system's, as a login shell would put them. */
const USER_PATH = 'export PATH="$HOME/.local/bin:$HOME/bin:$PATH"'

/** A file the setup sends along: where it goes (relative to $HOME) and its bytes. */
export interface ShippedFile {
  readonly path: string
  readonly content: Buffer
  readonly mode: number
}

/** Writes files given as base64 in the script (small: keys, requirement and environment files). */
function writeFiles(files: readonly ShippedFile[]): string[] {
  return files.flatMap((f) => [
    `mkdir -p "$(dirname ${home(f.path)})"`,
    `printf %s ${shellQuote(f.content.toString('base64'))} | base64 -d > ${home(f.path)}.xpk-tmp`,
    `chmod ${f.mode.toString(8)} ${home(f.path)}.xpk-tmp && mv -f ${home(f.path)}.xpk-tmp ${home(f.path)}`,
  ])
}

const BLOCK_BEGIN = (jobId: string) => `# xpk job ${jobId} begin`
const BLOCK_END = (jobId: string) => `# xpk job ${jobId} end`

/**
 * The ssh module: the identities' keys in ~/.ssh, their public keys authorized (so workers reach each other), and
 * the config entries as one block of ~/.ssh/config, replaced on every run.
 */
export function sshModuleScript(
  jobId: string,
  keys: readonly {privateKey: ShippedFile; publicKey: ShippedFile; publicLine: string}[],
  configEntries: readonly string[],
): string {
  const block = [BLOCK_BEGIN(jobId), ...configEntries.map((e) => e.replace(/\n*$/, '')), BLOCK_END(jobId)].join('\n')
  return [
    'set -e',
    'mkdir -p "$HOME"/.ssh && chmod 700 "$HOME"/.ssh',
    ...writeFiles(keys.flatMap((k) => [k.privateKey, k.publicKey])),
    'touch "$HOME"/.ssh/authorized_keys "$HOME"/.ssh/config && chmod 600 "$HOME"/.ssh/authorized_keys "$HOME"/.ssh/config',
    ...keys.map(
      (k) =>
        `grep -qxF ${shellQuote(k.publicLine.trim())} "$HOME"/.ssh/authorized_keys || printf '%s\\n' ${shellQuote(k.publicLine.trim())} >> "$HOME"/.ssh/authorized_keys`,
    ),
    // The job's block is replaced whole: a changed config_entry never leaves its old lines behind.
    `sed -i ${shellQuote(`/^${BLOCK_BEGIN(jobId)}$/,/^${BLOCK_END(jobId)}$/d`)} "$HOME"/.ssh/config`,
    `printf '%s\\n' ${shellQuote(block)} >> "$HOME"/.ssh/config`,
    'echo "xpk: ssh set up"',
  ].join('\n')
}

/** The gcsfuse module: mounts the bucket (once; a mounted path is left alone), installing gcsfuse when missing. */
export function gcsfuseModuleScript(gcsfuse: NonNullable<VmJobSpec['gcsfuse']>): string {
  const mount = shellQuote(gcsfuse.mountPath)
  return [
    'set -e',
    USER_PATH,
    'if ! command -v gcsfuse >/dev/null; then',
    // Google's apt repository, as gcsfuse's install guide says (TPU VM images are Ubuntu).
    '  echo "xpk: installing gcsfuse"',
    '  release=gcsfuse-$(lsb_release -c -s)',
    '  echo "deb [signed-by=/usr/share/keyrings/cloud.google.asc] https://packages.cloud.google.com/apt $release main" | sudo tee /etc/apt/sources.list.d/gcsfuse.list >/dev/null',
    '  curl -fsSL https://packages.cloud.google.com/apt/doc/apt-key.gpg | sudo tee /usr/share/keyrings/cloud.google.asc >/dev/null',
    '  sudo apt-get update -qq && sudo apt-get install -y -qq gcsfuse',
    'fi',
    `mkdir -p ${mount}`,
    `if mountpoint -q ${mount}; then echo "xpk: "${mount}" is already mounted"; exit 0; fi`,
    `gcsfuse --implicit-dirs ${shellQuote(gcsfuse.bucket)} ${mount}`,
    `echo "xpk: gs://"${shellQuote(gcsfuse.bucket)}" mounted at "${mount}`,
  ].join('\n')
}

/** Runs docker as the login when it may, else through sudo (TPU VM images let only root reach the daemon). */
const DOCKER = 'if docker info >/dev/null 2>&1; then d=docker; else d="sudo -n docker"; fi'

/** Whether an image reference pins its content: a digest, or a tag other than `latest`. */
export function pinnedImage(image: string): boolean {
  if (image.includes('@sha256:')) return true
  const tag = /:([\w][\w.-]{0,127})$/.exec(image.slice(image.lastIndexOf('/') + 1))?.[1]
  return tag !== undefined && tag !== 'latest'
}

/**
 * The docker module: pulls the image; a pinned one (a digest, or a tag other than latest) already on the worker is
 * used as it is (after a recovery the image is there, and pulling it again would only cost time).
 */
export function dockerModuleScript(docker: NonNullable<VmJobSpec['docker']>): string {
  const image = shellQuote(docker.image)
  return [
    'set -e',
    DOCKER,
    pinnedImage(docker.image)
      ? `if $d image inspect ${image} >/dev/null 2>&1; then echo "xpk: "${image}" is on this worker"; else $d pull ${image}; fi`
      : `$d pull ${image}`,
    `echo "xpk: image "${image}" ready"`,
  ].join('\n')
}

/** The conda module: creates the environment from its file, or updates it when it exists. */
export function condaModuleScript(conda: NonNullable<VmJobSpec['conda']>, file: string): string {
  const name = shellQuote(conda.name)
  return [
    'set -e',
    USER_PATH,
    'for c in "$HOME"/miniconda3/bin/conda "$HOME"/anaconda3/bin/conda conda; do command -v "$c" >/dev/null && break; done',
    'command -v "$c" >/dev/null || { echo "xpk: conda is not installed on this worker" >&2; exit 127; }',
    `if "$c" env list | awk '{print $1}' | grep -qxF ${name}; then`,
    `  "$c" env update -n ${name} -f ${home(file)}`,
    'else',
    `  "$c" env create -n ${name} -f ${home(file)}`,
    'fi',
    `echo "xpk: conda environment "${name}" ready"`,
  ].join('\n')
}

/** The venv module: creates the virtual environment (once) and installs the requirements into it. */
export function venvModuleScript(venv: NonNullable<VmJobSpec['venv']>, requirements: string): string {
  const dir = home(venvDir(venv.name))
  return [
    'set -e',
    USER_PATH,
    `[ -x ${dir}/bin/python ] || ${shellQuote(venv.python)} -m venv ${dir}`,
    `${dir}/bin/python -m pip install -q -r ${home(requirements)}`,
    `echo "xpk: venv "${shellQuote(venv.name)}" ready"`,
  ].join('\n')
}

/** The command as the job's environment runs it, as one shell command line. */
export function commandLine(spec: VmJobSpec, jobId: string, attempt: number, env: Record<string, string>): string {
  const command = spec.command.run
  if (spec.envType === 'docker' && spec.docker) {
    const d = spec.docker
    const args = [
      '--rm',
      `--name=${containerName(jobId, attempt)}`,
      ...d.flags,
      ...d.mountDirs.map((m) => `--volume=${m.includes(':') ? m : `${m}:${m}`}`),
      ...(d.workdir ? [`--workdir=${d.workdir}`] : []),
      ...d.envVars.map((e) => `--env=${e}`),
      ...Object.entries(env).map(([k, v]) => `--env=${k}=${v}`),
      d.image,
      'bash',
      '-c',
      command,
    ]
    return `${DOCKER}; exec $d run ${args.map(shellQuote).join(' ')}`
  }
  const exports = Object.entries(env).map(([k, v]) => `export ${k}=${shellQuote(v)};`)
  if (spec.envType === 'conda' && spec.conda) {
    return [
      USER_PATH + ';',
      ...exports,
      'for c in "$HOME"/miniconda3/bin/conda "$HOME"/anaconda3/bin/conda conda; do command -v "$c" >/dev/null && break; done;',
      `exec "$c" run --no-capture-output -n ${shellQuote(spec.conda.name)} bash -c ${shellQuote(command)}`,
    ].join(' ')
  }
  if (spec.envType === 'venv' && spec.venv) {
    return [
      USER_PATH + ';',
      ...exports,
      `. ${home(venvDir(spec.venv.name))}/bin/activate;`,
      `exec bash -c ${shellQuote(command)}`,
    ].join(' ')
  }
  return [USER_PATH + ';', ...exports, `exec bash -c ${shellQuote(command)}`].join(' ')
}

/**
 * Starts the command detached from the SSH session (a session of its own, output to a file on the worker, its exit
 * status written when it ends), so that the supervisor can lose its connection, or be killed, and find the run again.
 * Starting twice is harmless: a run that already started is left alone. Prints the run's pid.
 */
export function startScript(jobId: string, attempt: number, workdir: string | undefined, line: string): string {
  const dir = home(attemptDir(jobId, attempt))
  const cd = workdir ? `cd ${home(workdir)} && ` : 'cd "$HOME" && '
  const run = `${cd}${line}`
  return [
    'set -e',
    `mkdir -p ${dir}`,
    `if [ -s ${dir}/pid ]; then cat ${dir}/pid; exit 0; fi`,
    // The wrapper records the command's status (128+N for a signal) atomically; the exit file's absence means the
    // run never ended on its own (the worker was lost, or xpk stopped it).
    `setsid bash -c ${shellQuote(`(${run}) </dev/null; s=$?; echo $s > "$1"/exit.tmp && mv -f "$1"/exit.tmp "$1"/exit`)} xpk-job ${dir} > ${dir}/out.log 2>&1 < /dev/null &`,
    `echo $! > ${dir}/pid.tmp && mv -f ${dir}/pid.tmp ${dir}/pid`,
    `cat ${dir}/pid`,
  ].join('\n')
}

/** What {@link probeScript} prints: `running`, `exited N`, or `absent` (never started on this worker). */
export type RunProbe = {state: 'running'} | {state: 'exited'; code: number} | {state: 'absent'} | {state: 'lost'}

/** Reports whether the run of an attempt is running, has ended (with its status), or never started. */
export function probeScript(jobId: string, attempt: number): string {
  const dir = home(attemptDir(jobId, attempt))
  return [
    `if [ -s ${dir}/exit ]; then echo "exited $(cat ${dir}/exit)"; exit 0; fi`,
    `if [ ! -s ${dir}/pid ]; then echo absent; exit 0; fi`,
    `if kill -0 "$(cat ${dir}/pid)" 2>/dev/null; then echo running; else echo lost; fi`,
  ].join('\n')
}

export function parseProbe(output: string): RunProbe {
  const text = output.trim()
  const exited = /^exited (\d+)$/.exec(text)
  if (exited) return {state: 'exited', code: Number(exited[1])}
  if (text === 'running' || text === 'absent') return {state: text}
  return {state: 'lost'}
}

/**
 * Streams the run's output from byte `offset` until the run ends, then exits with its status (255 when it ended
 * without one: killed with its wrapper, or the worker restarted).
 */
export function followScript(jobId: string, attempt: number, offset: number): string {
  const dir = home(attemptDir(jobId, attempt))
  return [
    `pid=$(cat ${dir}/pid 2>/dev/null)`,
    `[ -n "$pid" ] || exit 255`,
    `tail -c +${offset + 1} -F --pid="$pid" ${dir}/out.log 2>/dev/null`,
    // tail ends when the run does; the wrapper writes the status right before it exits.
    `i=0; while [ ! -s ${dir}/exit ] && [ $i -lt 20 ]; do sleep 0.1; i=$((i+1)); done`,
    `[ -s ${dir}/exit ] && exit "$(cat ${dir}/exit)"`,
    'exit 255',
  ].join('\n')
}

/** Stops the run of an attempt: its whole session (and a docker job's container), SIGTERM then SIGKILL. */
export function stopScript(jobId: string, attempt: number, docker: boolean): string {
  const dir = home(attemptDir(jobId, attempt))
  return [
    `pid=$(cat ${dir}/pid 2>/dev/null)`,
    ...(docker ? [DOCKER, `$d rm -f ${containerName(jobId, attempt)} >/dev/null 2>&1 || true`] : []),
    '[ -n "$pid" ] || exit 0',
    'kill -TERM -- "-$pid" 2>/dev/null || exit 0',
    'i=0; while kill -0 -- "-$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done',
    'kill -KILL -- "-$pid" 2>/dev/null',
    'exit 0',
  ].join('\n')
}

/** Replaces the worker's copy of the job's script directory with the tar on stdin. */
export function shipCodeScript(jobId: string): string {
  const dir = home(jobCodeDir(jobId))
  return `set -e\nrm -rf ${dir} && mkdir -p ${dir} && tar -xf - -C ${dir}`
}
