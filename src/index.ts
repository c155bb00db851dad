import {ExitError} from '@oclif/core/errors'
import {execute} from '@oclif/core/execute'

import {formatError, strayArgumentProblem} from './cli/base-command.js'
import {adoptStopSignals, type StopSignals} from './cli/signals.js'
import {errorToJson, XpkError} from './core/errors.js'
import {closestMatches, orList} from './core/suggest.js'

import AcceleratorDescribe from './commands/accelerator/describe.js'
import AcceleratorList from './commands/accelerator/list.js'
import ClusterAdapt from './commands/cluster/adapt.js'
import ClusterCacheimage from './commands/cluster/cacheimage.js'
import ClusterCreate from './commands/cluster/create.js'
import ClusterCreatePathways from './commands/cluster/create-pathways.js'
import ClusterCreateRay from './commands/cluster/create-ray.js'
import ClusterDelete from './commands/cluster/delete.js'
import ClusterDescribe from './commands/cluster/describe.js'
import ClusterList from './commands/cluster/list.js'
import ConfigGet from './commands/config/get.js'
import ConfigList from './commands/config/list.js'
import ConfigSet from './commands/config/set.js'
import ConfigUnset from './commands/config/unset.js'
import Info from './commands/info.js'
import Inspector from './commands/inspector.js'
import Doctor from './commands/doctor.js'
import StorageAttach from './commands/storage/attach.js'
import StorageCreate from './commands/storage/create.js'
import StorageDelete from './commands/storage/delete.js'
import StorageDetach from './commands/storage/detach.js'
import StorageList from './commands/storage/list.js'
import Queue from './commands/queue.js'
import Version from './commands/version.js'
import VmCreate from './commands/vm/create.js'
import VmDelete from './commands/vm/delete.js'
import VmJobCreate from './commands/vm/job/create.js'
import VmJobDelete from './commands/vm/job/delete.js'
import VmJobList from './commands/vm/job/list.js'
import VmJobLogs from './commands/vm/job/logs.js'
import VmJobResume from './commands/vm/job/resume.js'
import VmJobSsh from './commands/vm/job/ssh.js'
import VmJobStop from './commands/vm/job/stop.js'
import VmJobSupervise from './commands/vm/job/supervise.js'
import VmList from './commands/vm/list.js'
import VmRun from './commands/vm/run.js'
import WorkloadCreate from './commands/workload/create.js'
import WorkloadCreatePathways from './commands/workload/create-pathways.js'
import WorkloadDelete from './commands/workload/delete.js'
import WorkloadDescribe from './commands/workload/describe.js'
import WorkloadList from './commands/workload/list.js'
import WorkloadLogs from './commands/workload/logs.js'
import WorkloadWhy from './commands/workload/why.js'

/** Every command, by oclif id (topic:verb). oclif reads this map instead of scanning a directory. */
export const COMMANDS = {
  'accelerator:describe': AcceleratorDescribe,
  'accelerator:list': AcceleratorList,
  'cluster:adapt': ClusterAdapt,
  'cluster:cacheimage': ClusterCacheimage,
  'cluster:create': ClusterCreate,
  'cluster:create-pathways': ClusterCreatePathways,
  'cluster:create-ray': ClusterCreateRay,
  'cluster:delete': ClusterDelete,
  'cluster:describe': ClusterDescribe,
  'cluster:list': ClusterList,
  'config:get': ConfigGet,
  'config:list': ConfigList,
  'config:set': ConfigSet,
  'config:unset': ConfigUnset,
  info: Info,
  inspector: Inspector,
  doctor: Doctor,
  'storage:attach': StorageAttach,
  'storage:create': StorageCreate,
  'storage:delete': StorageDelete,
  'storage:detach': StorageDetach,
  'storage:list': StorageList,
  queue: Queue,
  version: Version,
  'vm:create': VmCreate,
  'vm:delete': VmDelete,
  'vm:job:create': VmJobCreate,
  'vm:job:delete': VmJobDelete,
  'vm:job:list': VmJobList,
  'vm:job:logs': VmJobLogs,
  'vm:job:resume': VmJobResume,
  'vm:job:ssh': VmJobSsh,
  'vm:job:stop': VmJobStop,
  'vm:job:supervise': VmJobSupervise,
  'vm:list': VmList,
  'vm:run': VmRun,
  'workload:create': WorkloadCreate,
  'workload:create-pathways': WorkloadCreatePathways,
  'workload:delete': WorkloadDelete,
  'workload:describe': WorkloadDescribe,
  'workload:list': WorkloadList,
  'workload:logs': WorkloadLogs,
  'workload:why': WorkloadWhy,
}

/**
 * The conventional spellings of help that oclif does not know: `-h` anywhere before `--`, and `xpk help [COMMAND]`.
 */
export function normalizeHelp(argv: readonly string[]): string[] {
  if (argv[0] === 'help') return [...argv.slice(1), '--help']
  const end = argv.indexOf('--')
  return argv.map((arg, i) => (arg === '-h' && (end < 0 || i < end) ? '--help' : arg))
}

/** Runs the CLI with the given arguments; `stops` are bin/run.js's signal handlers, handed to the command. */
export async function run(argv: string[], stops?: StopSignals): Promise<void> {
  if (stops) adoptStopSignals(stops)
  handleOutputErrors()
  // No plugins: xpk has no plugin story, and oclif would otherwise load and run code it finds in
  // $XDG_DATA_HOME/xpk (user plugins) or the package's devPlugins inside every command.
  await execute({
    args: normalizeHelp(argv),
    dir: import.meta.url,
    loadOptions: {userPlugins: false, devPlugins: false},
  })
}

/**
 * Write errors on stdout or stderr end the command cleanly instead of with a stack trace. `xpk ... | head` closing
 * the pipe early stops quietly with 0, as Unix tools do (oclif's flush would otherwise hang on a drain that never
 * comes); any other failure to deliver the results (`> /dev/full`) is exit 1 with one line on stderr. stderr
 * itself failing (closed, full) must not turn a result into a crash: what it would have said is dropped.
 */
function handleOutputErrors(): void {
  // oclif installs a listener that rethrows anything but EPIPE, as an uncaught exception with a stack trace.
  process.stdout.removeAllListeners('error')
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0)
    try {
      process.stderr.write(`Error: could not write the results to standard output: ${error.code ?? error.message}\n`)
    } finally {
      process.exit(1)
    }
  })
  process.stderr.on('error', () => undefined)
}

/**
 * oclif's `command_not_found` hook: an unknown command is a usage error like any other (exit 2, a suggestion, JSON
 * under --json) instead of oclif's own message.
 */
export async function commandNotFound(options: {id: string; argv?: string[]; config: {commandIDs: string[]}}) {
  const typed = options.id.replaceAll(':', ' ')
  const known = options.config.commandIDs.map((id) => id.replaceAll(':', ' '))
  // `xpk cluster delete demo` reaches here as the id cluster:delete:demo: a real command with a stray argument.
  const parts = options.id.split(':')
  const prefix = parts.findLastIndex((_, i) => options.config.commandIDs.includes(parts.slice(0, i + 1).join(':')))
  const commandId = prefix < 0 ? undefined : parts.slice(0, prefix + 1).join(':')
  const suggestions = closestMatches(typed, known, 3).map((id) => `xpk ${id}`)
  const error =
    commandId === undefined
      ? new XpkError('usage', `"xpk ${typed}" is not a command. Did you mean ${orList(suggestions)}?`, {
          hints: ['`xpk --help` lists the commands.'],
        })
      : strayArgumentProblem(
          parts.slice(prefix + 1).join(', '),
          commandId,
          COMMANDS[commandId as keyof typeof COMMANDS].flags ?? {},
          (COMMANDS[commandId as keyof typeof COMMANDS].args ?? {}) as Record<string, object>,
        )
  const json = (options.argv ?? []).includes('--json')
  if (json) process.stdout.write(`${JSON.stringify(errorToJson(error), null, 2)}\n`)
  else process.stderr.write(formatError(error, false))
  throw new ExitError(error.exitCode)
}
