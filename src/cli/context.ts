/**
 * The composition root, in three parts so each command's lazily loaded chunk holds only what it uses: this file
 * (settings, config store, timers), workload-context.ts and cluster-context.ts. Adapters import their SDKs on first
 * use, so building them here costs nothing until a command actually talks to GKE, Docker or a registry.
 */
import {GcloudConfigFiles} from '../adapters/gcloud-properties.js'
import {SettingsFile} from '../adapters/settings-file.js'
import {checkSettings, resolveSettings, type ResolvedSettings, type SettingKey} from '../core/settings.js'
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
 * whatever its source, before doing anything. Reads only local files, so it is fine offline.
 * @throws UsageError or UsageErrors for empty XPK_* variables and values that break a setting's rule
 */
export async function resolveCommandSettings(
  flags: Partial<Record<SettingKey, string>>,
  console: Console,
): Promise<ResolvedSettings> {
  const deps = configDeps(console)
  const [config, gcloud] = await Promise.all([deps.store.read(), deps.gcloud.read()])
  const settings = resolveSettings({flags, env: process.env, config, gcloud})
  checkSettings(settings)
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

function millis(name: string, fallback: number): number {
  const value = Number(process.env[name])
  return Number.isFinite(value) && value > 0 ? value : fallback
}

/** The retry policy, with XPK_RETRY_INTERVAL_MS as its first wait (tests shorten it; the default suits real APIs). */
export function retryTuning(): RetryPolicy {
  const backoff = DEFAULT_RETRY_POLICY.backoff
  return {...DEFAULT_RETRY_POLICY, backoff: {...backoff, initialMs: millis('XPK_RETRY_INTERVAL_MS', backoff.initialMs)}}
}

/** A poll backoff with XPK_POLL_INTERVAL_MS as its first interval. */
export function pollTuning<T extends Backoff>(poll: T): T {
  return {...poll, initialMs: millis('XPK_POLL_INTERVAL_MS', poll.initialMs)}
}
