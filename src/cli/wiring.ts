/**
 * The wiring every topic shares (src/cli/<topic>.ts imports it when a command runs, never for `--help`): settings
 * (flag > env > xpk config > gcloud), the real clock, the timing read from XPK_* variables, and the connections to GKE
 * and to a cluster's Kubernetes API. Adapters import their SDKs on first use, so building them here costs nothing
 * until a command actually talks to GKE, Docker or a registry.
 */
import {GcloudConfigFiles} from '../adapters/gcloud-properties.js'
import {SettingsFile} from '../adapters/settings-file.js'
import {systemClock} from '../adapters/system-clock.js'
import type {ObservedCluster} from '../core/cluster/observed.js'
import {environmentProblems, tokenVariable} from '../core/environment.js'
import {throwIfProblems, XpkError} from '../core/errors.js'
import {
  resolveSettings,
  settingsProblems,
  SETTING_KEYS,
  type ResolvedSettings,
  type SettingKey,
} from '../core/settings.js'
import {readTiming, type Timing} from '../core/timing.js'
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
 * What every command resolves before anything else: project, zone, cluster and the other settings (flag > env > xpk
 * config > gcloud), with --verbose saying where each value came from, then its timing (src/core/timing.ts), read
 * once from the XPK_* variables. Every command checks every setting with the same rules here, whatever its source,
 * and every other XPK_* variable that is set (src/core/environment.ts), before doing anything: so a bad variable
 * the timing reads is exit 2 naming it, before any request. Reads only local files, so it is fine offline.
 * @throws UsageError or UsageErrors for empty XPK_* variables and values that break a setting's or variable's rule
 */
export async function commandSettings(
  options: SettingOptions,
  console: Console,
): Promise<{settings: ResolvedSettings; timing: Timing}> {
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
  return {settings, timing: readTiming(process.env)}
}

/** Project, zone and cluster as resolved (each may be unset: the service says which it needs). */
export function clusterTarget(settings: ResolvedSettings): {project?: string; zone?: string; cluster?: string} {
  return {project: settings.project.value, zone: settings.zone.value, cluster: settings.cluster.value}
}

export {systemClock}

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
 * both on first use, with the real clock.
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
    ...systemClock,
  }
}

/**
 * Runs a command that works inside a cluster: its service gets its options with the target as resolved (project,
 * zone and cluster; `viaKubeconfig` when `--kubeconfig` / `--context` reach the cluster) and the timing, and
 * {@link clusterAccess}. The settings are resolved and checked first, before anything else.
 */
export async function runInsideCluster<Options extends SettingOptions & KubeOptions, Result>(
  options: Options,
  run: {readonly console: Console; readonly signal: AbortSignal},
  service: (
    options: InsideClusterOptions<Options>,
    deps: ClusterAccessDeps & {readonly console: Console},
  ) => Promise<Result>,
): Promise<Result> {
  const {settings, timing} = await commandSettings(options, run.console)
  return service(
    {...options, ...clusterTarget(settings), viaKubeconfig: viaKubeconfig(options), timing},
    clusterAccess(settings, options, run),
  )
}

/** The options a command that works inside a cluster hands its service. */
export type InsideClusterOptions<Options> = Options &
  ReturnType<typeof clusterTarget> & {readonly viaKubeconfig: boolean; readonly timing: Timing}
