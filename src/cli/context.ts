/**
 * The composition root: the one place that builds real adapters for commands. Adapters import their SDKs on first
 * use, so building them here costs nothing until a command actually talks to GKE, Docker or a registry.
 */
import {GcloudConfigFiles} from '../adapters/gcloud-properties.js'
import {createComputeClient} from '../adapters/compute-rest.js'
import {createGkeClient} from '../adapters/gke-container-api.js'
import {imageBuildDeps} from '../adapters/image-build-deps.js'
import {NodeFiles} from '../adapters/local-files.js'
import {SettingsFile} from '../adapters/settings-file.js'
import {resolveSettings, type ResolvedSettings, type SettingKey} from '../core/settings.js'
import {DEFAULT_APPLY_OPTIONS, type ApplyOptions} from '../executor/apply-cluster-plan.js'
import type {ComputeClient} from '../ports/compute.js'
import type {Console} from '../ports/console.js'
import type {GkeClient} from '../ports/gke.js'
import type {ClusterCreateDeps} from '../services/cluster-create.js'
import type {ConfigDeps} from '../services/config.js'
import {buildImage} from '../services/image-build.js'
import type {WorkloadCreateDeps} from '../services/workload-create.js'

export function configDeps(console: Console): ConfigDeps {
  return {store: new SettingsFile(), gcloud: new GcloudConfigFiles(), env: process.env, console}
}

/**
 * Resolves project, zone, cluster and the other settings for a command (flag > env > xpk config > gcloud) and,
 * with --verbose, says where each value came from. Reads only local files, so it is fine offline.
 */
export async function resolveCommandSettings(
  flags: Partial<Record<SettingKey, string>>,
  console: Console,
): Promise<ResolvedSettings> {
  const deps = configDeps(console)
  const [config, gcloud] = await Promise.all([deps.store.read(), deps.gcloud.read()])
  const settings = resolveSettings({flags, env: process.env, config, gcloud})
  for (const [key, setting] of Object.entries(settings)) {
    if (setting.value !== undefined) console.debug(`${key} = ${setting.value} (from ${setting.origin})`)
  }
  return settings
}

/** Everything `workload create` needs; the image build's SDKs load only if an image is actually built. */
export function workloadCreateDeps(console: Console): WorkloadCreateDeps {
  return {
    console,
    files: new NodeFiles(),
    env: process.env,
    cwd: process.cwd(),
    buildImage: async (options) => buildImage(options, await imageBuildDeps(console)),
  }
}

/** Connects to GKE with the resolved endpoint override (gke-endpoint) and XPK_ACCESS_TOKEN, if set. */
export function gkeConnector(settings: ResolvedSettings): () => Promise<GkeClient> {
  return () =>
    createGkeClient({endpoint: settings['gke-endpoint'].value, accessToken: process.env.XPK_ACCESS_TOKEN || undefined})
}

/** Connects to Compute Engine (once, on first use) with the compute-endpoint setting and XPK_ACCESS_TOKEN, if set. */
export function computeConnector(settings: ResolvedSettings): () => Promise<ComputeClient> {
  let client: Promise<ComputeClient> | undefined
  return () =>
    (client ??= createComputeClient({
      endpoint: settings['compute-endpoint'].value,
      accessToken: process.env.XPK_ACCESS_TOKEN || undefined,
    }))
}

/** Everything `cluster create` needs: GKE and Compute Engine connect on first use, real timers. */
export function clusterCreateDeps(
  settings: ResolvedSettings,
  console: Console,
  signal: AbortSignal,
): ClusterCreateDeps {
  return {gke: gkeConnector(settings), compute: computeConnector(settings), console, signal, ...realTime}
}

function millis(name: string, fallback: number): number {
  const value = Number(process.env[name])
  return Number.isFinite(value) && value > 0 ? value : fallback
}

/**
 * Apply tuning. XPK_POLL_INTERVAL_MS and XPK_RETRY_INTERVAL_MS set the first wait between operation polls and
 * between retries (they grow from there); the defaults suit real GKE.
 */
export function applyTuning(maxParallel: number | undefined): Omit<ApplyOptions, 'signal'> {
  return {
    ...DEFAULT_APPLY_OPTIONS,
    concurrency: maxParallel ?? DEFAULT_APPLY_OPTIONS.concurrency,
    poll: {
      ...DEFAULT_APPLY_OPTIONS.poll,
      initialMs: millis('XPK_POLL_INTERVAL_MS', DEFAULT_APPLY_OPTIONS.poll.initialMs),
    },
    retry: {
      ...DEFAULT_APPLY_OPTIONS.retry,
      initialMs: millis('XPK_RETRY_INTERVAL_MS', DEFAULT_APPLY_OPTIONS.retry.initialMs),
    },
  }
}

/** Real timers, randomness and clock for services that wait. */
export const realTime = {
  sleep: (ms: number, signal: AbortSignal): Promise<void> =>
    new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason)
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort)
        resolve()
      }, ms)
      const onAbort = () => {
        clearTimeout(timer)
        reject(signal.reason)
      }
      signal.addEventListener('abort', onAbort, {once: true})
    }),
  random: Math.random,
  now: Date.now,
}
