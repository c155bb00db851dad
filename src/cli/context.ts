/**
 * The composition root, in three parts so each command's lazily loaded chunk holds only what it uses: this file
 * (settings, config store, timers), workload-context.ts and cluster-context.ts. Adapters import their SDKs on first
 * use, so building them here costs nothing until a command actually talks to GKE, Docker or a registry.
 */
import {GcloudConfigFiles} from '../adapters/gcloud-properties.js'
import {SettingsFile} from '../adapters/settings-file.js'
import {environmentProblems, integerVariable, tokenVariable} from '../core/environment.js'
import {throwIfProblems} from '../core/errors.js'
import {resolveSettings, settingsProblems, type ResolvedSettings, type SettingKey} from '../core/settings.js'
import type {Console} from '../ports/console.js'
import type {Backoff} from '../core/retry.js'
import {DEFAULT_RETRY_POLICY, type RetryPolicy} from '../executor/retry.js'
import type {ConfigDeps} from '../services/config.js'

export function configDeps(console: Console): ConfigDeps {
  return {store: new SettingsFile(), gcloud: new GcloudConfigFiles(), env: process.env, console}
}

/**
 * Resolves project, zone, cluster and the other settings for a command (flag > env > xpk config > gcloud) and,
 * with --verbose, says where each value came from. Every command checks every setting with the same rules here,
 * whatever its source, and every other XPK_* variable that is set (src/core/environment.ts), before doing anything.
 * Reads only local files, so it is fine offline.
 * @throws UsageError or UsageErrors for empty XPK_* variables and values that break a setting's or variable's rule
 */
export async function resolveCommandSettings(
  flags: Partial<Record<SettingKey, string>>,
  console: Console,
): Promise<ResolvedSettings> {
  const deps = configDeps(console)
  const [config, gcloud] = await Promise.all([deps.store.read(), deps.gcloud.read()])
  const settings = resolveSettings({flags, env: process.env, config, gcloud})
  throwIfProblems([...settingsProblems(settings), ...environmentProblems(process.env)])
  for (const [key, setting] of Object.entries(settings)) {
    if (setting.value !== undefined) console.debug(`${key} = ${setting.value} (from ${setting.origin})`)
  }
  return settings
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts; `hold` keeps the process alive meanwhile. */
function wait(ms: number, signal: AbortSignal, hold: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error)
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    if (!hold) timer.unref()
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason as Error)
    }
    signal.addEventListener('abort', onAbort, {once: true})
  })
}

/** Real timers, randomness and clock for services that wait. */
export const realTime = {
  sleep: (ms: number, signal: AbortSignal): Promise<void> => wait(ms, signal, true),
  // A time limit runs alongside the work it limits, and never keeps the process alive on its own.
  timer: (ms: number, signal: AbortSignal): Promise<void> => wait(ms, signal, false),
  random: Math.random,
  now: Date.now,
}

/** The retry policy, with XPK_RETRY_INTERVAL_MS as its first wait (tests shorten it; the default suits real APIs). */
export function retryTuning(): RetryPolicy {
  const backoff = DEFAULT_RETRY_POLICY.backoff
  const initialMs = integerVariable(process.env, 'XPK_RETRY_INTERVAL_MS') ?? backoff.initialMs
  return {...DEFAULT_RETRY_POLICY, backoff: {...backoff, initialMs}}
}

/** A poll backoff with XPK_POLL_INTERVAL_MS as its first interval. */
export function pollTuning<T extends Backoff>(poll: T): T {
  return {...poll, initialMs: integerVariable(process.env, 'XPK_POLL_INTERVAL_MS') ?? poll.initialMs}
}

/** A wait's deadline in ms: the XPK_*_TIMEOUT_S variable when set (checked), else the default. */
export function timeoutTuning(
  name: 'XPK_CONTROLLER_TIMEOUT_S' | 'XPK_CACHE_IMAGE_TIMEOUT_S' | 'XPK_WORKLOAD_DELETE_TIMEOUT_S',
  defaultMs: number,
): number {
  const seconds = integerVariable(process.env, name)
  return seconds === undefined ? defaultMs : seconds * 1000
}

/** XPK_ACCESS_TOKEN, checked (set but empty is bad input naming it), or undefined for Application Default Credentials. */
export function accessToken(): string | undefined {
  return tokenVariable(process.env, 'XPK_ACCESS_TOKEN')
}
