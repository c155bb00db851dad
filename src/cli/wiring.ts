/**
 * The wiring every topic shares (src/cli/<topic>.ts imports it when a command runs, never for `--help`): settings
 * (flag > env > xpk config > gcloud), real timers, the tuning read from XPK_* variables, and the connections to GKE
 * and to a cluster's Kubernetes API. Adapters import their SDKs on first use, so building them here costs nothing
 * until a command actually talks to GKE, Docker or a registry.
 */
import {GcloudConfigFiles} from '../adapters/gcloud-properties.js'
import {SettingsFile} from '../adapters/settings-file.js'
import type {ObservedCluster} from '../core/cluster/observed.js'
import {environmentProblems, integerVariable, tokenVariable} from '../core/environment.js'
import {throwIfProblems, XpkError} from '../core/errors.js'
import type {Backoff} from '../core/retry.js'
import {
  resolveSettings,
  settingsProblems,
  SETTING_KEYS,
  type ResolvedSettings,
  type SettingKey,
} from '../core/settings.js'
import {DEFAULT_RETRY_POLICY, type RetryPolicy} from '../executor/retry.js'
import type {Console} from '../ports/console.js'
import type {GkeClient} from '../ports/gke.js'
import type {KubeAccess, KubeClient} from '../ports/kube.js'
import type {ConfigDeps} from '../services/config.js'
import type {ClusterAccessDeps} from '../services/workload-cluster.js'
import type {CamelCase, CamelCased} from './flag-kinds.js'

export function configDeps(console: Console): ConfigDeps {
  return {store: new SettingsFile(), gcloud: new GcloudConfigFiles(), env: process.env, console}
}

/** The settings a command's options may give (`--gke-endpoint` as `gkeEndpoint`). */
export type SettingOptions = Partial<CamelCased<Record<SettingKey, string>>>

const camel = (key: SettingKey) => key.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()) as CamelCase<SettingKey>

/**
 * Resolves project, zone, cluster and the other settings for a command (flag > env > xpk config > gcloud) and,
 * with --verbose, says where each value came from. Every command checks every setting with the same rules here,
 * whatever its source, and every other XPK_* variable that is set (src/core/environment.ts), before doing anything.
 * Reads only local files, so it is fine offline.
 * @throws UsageError or UsageErrors for empty XPK_* variables and values that break a setting's or variable's rule
 */
export async function resolveCommandSettings(options: SettingOptions, console: Console): Promise<ResolvedSettings> {
  const flags: Partial<Record<SettingKey, string>> = {}
  for (const key of SETTING_KEYS) {
    const value = options[camel(key)]
    if (value !== undefined) flags[key] = value
  }
  const deps = configDeps(console)
  const [config, gcloud] = await Promise.all([deps.store.read(), deps.gcloud.read()])
  const settings = resolveSettings({flags, env: process.env, config, gcloud})
  throwIfProblems([...settingsProblems(settings), ...environmentProblems(process.env)])
  for (const [key, setting] of Object.entries(settings)) {
    if (setting.value !== undefined) console.debug(`${key} = ${setting.value} (from ${setting.origin})`)
  }
  return settings
}

/** Project, zone and cluster as resolved (each may be unset: the service says which it needs). */
export function clusterTarget(settings: ResolvedSettings): {project?: string; zone?: string; cluster?: string} {
  return {project: settings.project.value, zone: settings.zone.value, cluster: settings.cluster.value}
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

/** Connects to GKE with the resolved endpoint override (gke-endpoint) and XPK_ACCESS_TOKEN, if set. */
export function gkeConnector(settings: ResolvedSettings): () => Promise<GkeClient> {
  const token = accessToken()
  // Imported on use: a dry run of `workload create` never talks to GKE.
  return () =>
    import('../adapters/gke-container-api.js').then(({createGkeClient}) =>
      createGkeClient({endpoint: settings['gke-endpoint'].value, accessToken: token}),
    )
}

/** Where the in-cluster steps reach the cluster: `--kubeconfig`/`--context` (or KUBECONFIG), else GKE. */
export interface KubeOptions {
  readonly kubeconfig?: string
  readonly context?: string
}

/** `--kubeconfig` / `--context` reach the cluster: GKE is not asked where it is. */
export function viaKubeconfig(options: KubeOptions): boolean {
  return options.kubeconfig !== undefined || options.context !== undefined
}

/**
 * Connects to a cluster's Kubernetes API: through the kubeconfig when one is named (flag, or KUBECONFIG with
 * --context), else from the GKE cluster's endpoint and CA with an access token (XPK_ACCESS_TOKEN, else
 * Application Default Credentials). The client library loads only when a command first needs it.
 */
export function kubeConnector(options: KubeOptions): (cluster: ObservedCluster | undefined) => Promise<KubeClient> {
  return async (cluster) => {
    const {connectKube} = await import('../adapters/kube-client.js')
    if (viaKubeconfig(options)) {
      return connectKube({kind: 'kubeconfig', path: options.kubeconfig, context: options.context})
    }
    if (!cluster) throw new XpkError('not-found', 'The cluster does not exist, so there is nothing to reach inside it.')
    return connectKube(gkeKubeAccess(cluster))
  }
}

function gkeKubeAccess(cluster: ObservedCluster): KubeAccess {
  // The IP endpoint with the cluster CA is what GKE hands every client; the DNS endpoint needs no CA (its
  // certificate is publicly trusted) and works from outside the VPC, so it is the fallback when there is no CA.
  const host = cluster.caCertificate ? cluster.endpoint : (cluster.dnsEndpoint ?? cluster.endpoint)
  return {
    kind: 'gke',
    server: `https://${host}`,
    caCertificate: cluster.caCertificate ?? undefined,
    token: async () => {
      // The same credentials as every GKE call (XPK_ACCESS_TOKEN, else Application Default Credentials).
      const {authorizer} = await import('../adapters/google-rest.js')
      const authorize = await authorizer({insecure: false, accessToken: accessToken()})
      const headers = await authorize(`https://${host}/`, {
        action: `reach cluster ${cluster.name}`,
        project: cluster.project,
        location: cluster.location,
      })
      const token = /^Bearer (.+)$/i.exec(headers.authorization ?? headers.Authorization ?? '')?.[1]
      if (!token) throw new XpkError('auth', `No access token to reach cluster ${cluster.name}.`)
      return token
    },
  }
}

/**
 * What a command that works inside a cluster needs: GKE (to find the cluster) and the cluster's Kubernetes API,
 * both on first use, with real timers.
 */
export function clusterAccess(
  settings: ResolvedSettings,
  options: KubeOptions,
  run: {readonly console: Console; readonly signal: AbortSignal},
): ClusterAccessDeps & {readonly console: Console} {
  return {
    gke: gkeConnector(settings),
    kube: kubeConnector(options),
    console: run.console,
    signal: run.signal,
    ...realTime,
  }
}
