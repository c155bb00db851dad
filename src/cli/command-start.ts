/**
 * How a topic function starts. The wiring (wiring.ts: settings, the clock, the timing, connectors) is imported when a
 * command runs, never at start-up, alongside the command's own modules; the settings are resolved and checked and
 * the timing read before anything else is done.
 */
import type {Console} from '../ports/console.js'
import type {ClusterAccessDeps} from '../services/workload-cluster.js'
import type * as WiringModule from './wiring.js'
import type {InsideClusterOptions, KubeOptions, SettingOptions} from './wiring.js'

/**
 * The wiring module, as the calling topic imports it: `import('./wiring.js')` written in the topic module, so the
 * build loads it with the topic's own lazy modules (scripts/build.mjs, lazy-groups) rather than as one more file.
 */
type Wiring = typeof WiringModule

/** The wiring, with the settings resolved and checked and the timing read (wiring.commandSettings). */
export async function startCommand(
  loading: Promise<Wiring>,
  options: SettingOptions,
  run: {readonly console: Console},
) {
  const wiring = await loading
  return {wiring, ...(await wiring.commandSettings(options, run.console))}
}

/**
 * Runs a command that works inside a cluster (wiring.runInsideCluster) with its service, which `service` loads while
 * the wiring loads.
 */
export async function insideCluster<Options extends SettingOptions & KubeOptions, Result>(
  loading: Promise<Wiring>,
  options: Options,
  run: {readonly console: Console; readonly signal: AbortSignal},
  service: Promise<
    (options: InsideClusterOptions<Options>, deps: ClusterAccessDeps & {readonly console: Console}) => Promise<Result>
  >,
): Promise<Result> {
  const [wiring, call] = await Promise.all([loading, service])
  return wiring.runInsideCluster(options, run, call)
}
