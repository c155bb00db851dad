import {ExitError} from '@oclif/core/errors'
import {execute} from '@oclif/core/execute'

import {formatError} from './cli/base-command.js'

import AcceleratorDescribe from './commands/accelerator/describe.js'
import AcceleratorList from './commands/accelerator/list.js'
import ClusterCreate from './commands/cluster/create.js'
import ClusterDelete from './commands/cluster/delete.js'
import ClusterDescribe from './commands/cluster/describe.js'
import ClusterList from './commands/cluster/list.js'
import ConfigGet from './commands/config/get.js'
import ConfigList from './commands/config/list.js'
import ConfigSet from './commands/config/set.js'
import ConfigUnset from './commands/config/unset.js'
import Version from './commands/version.js'
import WorkloadCreate from './commands/workload/create.js'

/** Every command, by oclif id (topic:verb). oclif reads this map instead of scanning a directory. */
export const COMMANDS = {
  'accelerator:describe': AcceleratorDescribe,
  'accelerator:list': AcceleratorList,
  'cluster:create': ClusterCreate,
  'cluster:delete': ClusterDelete,
  'cluster:describe': ClusterDescribe,
  'cluster:list': ClusterList,
  'config:get': ConfigGet,
  'config:list': ConfigList,
  'config:set': ConfigSet,
  'config:unset': ConfigUnset,
  version: Version,
  'workload:create': WorkloadCreate,
}

/** Runs the CLI with the given arguments. */
export async function run(argv: string[]): Promise<void> {
  // `xpk accelerator list | head` closes the pipe early: stop quietly, as Unix tools do, instead of waiting for a
  // drain that never comes (oclif's flush would leave the process hanging on an unsettled await, exit code 13).
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0)
    throw error
  })
  await execute({args: argv, dir: import.meta.url})
}

/**
 * oclif's `command_not_found` hook: an unknown command is a usage error like any other (exit 2, a suggestion, JSON
 * under --json) instead of oclif's own message.
 */
export async function commandNotFound(options: {id: string; argv?: string[]; config: {commandIDs: string[]}}) {
  const {XpkError, errorToJson} = await import('./core/errors.js')
  const {closestMatches, orList} = await import('./core/suggest.js')
  const typed = options.id.replaceAll(':', ' ')
  const known = options.config.commandIDs.map((id) => id.replaceAll(':', ' '))
  const suggestions = closestMatches(typed, known, 3).map((id) => `xpk ${id}`)
  const error = new XpkError('usage', `"xpk ${typed}" is not a command. Did you mean ${orList(suggestions)}?`, {
    hints: ['`xpk --help` lists the commands.'],
  })
  const json = (options.argv ?? []).includes('--json')
  if (json) process.stdout.write(`${JSON.stringify(errorToJson(error), null, 2)}\n`)
  else process.stderr.write(formatError(error, false))
  throw new ExitError(error.exitCode)
}
