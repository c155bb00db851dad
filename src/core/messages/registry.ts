// Every message maker, by code: the contract snapshot (test/golden/contract/messages.json) and what hosts and tests
// look codes up in. A topic's makers are all its module exports.
import type {AnyMessageMaker, MessageDefinition} from '../messages.js'
import * as cli from './cli.js'
import * as cluster from './cluster.js'
import * as config from './config.js'
import * as image from './image.js'
import * as insight from './insight.js'
import * as lists from './lists.js'
import * as storage from './storage.js'
import * as vm from './vm.js'
import * as vmJob from './vm-job.js'
import * as workload from './workload.js'

type MakersOf<T> = T[keyof T]
type Maker =
  | MakersOf<typeof cli>
  | MakersOf<typeof cluster>
  | MakersOf<typeof config>
  | MakersOf<typeof image>
  | MakersOf<typeof insight>
  | MakersOf<typeof lists>
  | MakersOf<typeof storage>
  | MakersOf<typeof vm>
  | MakersOf<typeof vmJob>
  | MakersOf<typeof workload>

/** The code of every message xpk prints. */
export type MessageCode = Maker['code']

/** Every maker, by its export name (`clusterLockHeld`). */
export const MESSAGE_MAKERS: Readonly<Record<string, AnyMessageMaker>> = {
  ...cli,
  ...cluster,
  ...config,
  ...image,
  ...insight,
  ...lists,
  ...storage,
  ...vm,
  ...vmJob,
  ...workload,
}

/** Every code with its level and summary, sorted by code. */
export const MESSAGES: Readonly<Record<MessageCode, MessageDefinition<MessageCode>>> = Object.fromEntries(
  Object.values(MESSAGE_MAKERS)
    .map((m) => [m.code, {code: m.code, level: m.level, summary: m.summary}] as const)
    .sort(([a], [b]) => a.localeCompare(b)),
) as Record<MessageCode, MessageDefinition<MessageCode>>
