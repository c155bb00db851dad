import {UsageError} from '../errors.js'
import {INTEGER_FLAGS, parseInteger, type IntegerRange} from '../input.js'
import {escapeInline} from '../text.js'
import {closestMatches} from '../suggest.js'
import type {CustomClusterFields, CustomNodePoolFields, Taint} from './spec.js'

/**
 * Python xpk appends `--custom-nodepool-arguments` verbatim to `gcloud container node-pools create`. We talk to
 * the API, so we accept the same gcloud-style flags but map each to an API field, and reject what we cannot map
 * (or what a dedicated xpk flag already controls) with a message saying what to do instead.
 */

/** Splits like a shell would for words and quotes, without any expansion. */
export function splitArguments(text: string, flag: string): string[] {
  const words: string[] = []
  let current = ''
  let quote: '"' | "'" | null = null
  let inWord = false
  for (const char of text) {
    if (quote) {
      if (char === quote) quote = null
      else current += char
    } else if (char === '"' || char === "'") {
      quote = char
      inWord = true
    } else if (/\s/.test(char)) {
      if (inWord) words.push(current)
      current = ''
      inWord = false
    } else {
      current += char
      inWord = true
    }
  }
  if (quote) throw new UsageError(`${flag}: unbalanced ${quote} quote in "${escapeInline(text)}".`, {flag})
  if (inWord) words.push(current)
  return words
}

type Fields = {-readonly [K in keyof CustomNodePoolFields]: CustomNodePoolFields[K]}

interface GenericHandler<F> {
  readonly takesValue: boolean
  readonly apply: (fields: F, value: string, fail: (why: string) => never) => void
}

type Handler = GenericHandler<Fields>

function keyValues(value: string, fail: (why: string) => never): Record<string, string> {
  const out: Record<string, string> = {}
  for (const item of value.split(',')) {
    const eq = item.indexOf('=')
    if (eq <= 0) fail(`"${item}" is not KEY=VALUE`)
    out[item.slice(0, eq)] = item.slice(eq + 1)
  }
  return out
}

/**
 * The ranges of the numeric node-pool arguments: the same as the xpk flag that sets the same field (one table,
 * src/core/input.ts), so a value the flag refuses is refused here too, before GKE would.
 */
export const CUSTOM_ARGUMENT_RANGES = {
  'max-pods-per-node': INTEGER_FLAGS['cluster:max-pods-per-node'],
  'disk-size': {min: 10, max: 65_536, limit: "GB; GKE's boot disk sizes"},
} as const satisfies Record<string, IntegerRange>

function integerArgument(
  name: keyof typeof CUSTOM_ARGUMENT_RANGES,
  text: string,
  fail: (why: string) => never,
): number {
  const parsed = parseInteger(text, CUSTOM_ARGUMENT_RANGES[name])
  return 'value' in parsed ? parsed.value : fail(parsed.problem)
}

const TAINT_EFFECTS = {NoSchedule: 'NoSchedule', PreferNoSchedule: 'PreferNoSchedule', NoExecute: 'NoExecute'} as const

const HANDLERS: Readonly<Record<string, Handler>> = {
  'node-labels': {takesValue: true, apply: (f, v, fail) => (f.labels = {...f.labels, ...keyValues(v, fail)})},
  'node-taints': {
    takesValue: true,
    apply: (f, v, fail) => {
      const taints: Taint[] = v.split(',').map((item) => {
        const match = /^([^=:]+)=([^:]*):(\w+)$/.exec(item)
        const effect =
          match && Object.hasOwn(TAINT_EFFECTS, match[3])
            ? TAINT_EFFECTS[match[3] as keyof typeof TAINT_EFFECTS]
            : undefined
        if (!match || !effect)
          return fail(`"${item}" is not KEY=VALUE:EFFECT (EFFECT: NoSchedule, PreferNoSchedule, NoExecute)`)
        return {key: match[1], value: match[2], effect}
      })
      f.taints = [...(f.taints ?? []), ...taints]
    },
  },
  tags: {takesValue: true, apply: (f, v) => (f.tags = [...(f.tags ?? []), ...v.split(',').filter(Boolean)])},
  metadata: {takesValue: true, apply: (f, v, fail) => (f.metadata = {...f.metadata, ...keyValues(v, fail)})},
  'disk-type': {takesValue: true, apply: (f, v) => (f.diskType = v)},
  'disk-size': {
    takesValue: true,
    apply: (f, v, fail) => {
      const match = /^(\d+)(GB)?$/i.exec(v)
      f.diskSizeGb = match
        ? integerArgument('disk-size', match[1], fail)
        : fail(`"${v}" is not a size in GB, e.g. 200 or 200GB`)
    },
  },
  'image-type': {takesValue: true, apply: (f, v) => (f.imageType = v)},
  'service-account': {takesValue: true, apply: (f, v) => (f.serviceAccount = v)},
  'min-cpu-platform': {takesValue: true, apply: (f, v) => (f.minCpuPlatform = v)},
  'workload-metadata': {
    takesValue: true,
    apply: (f, v, fail) => {
      f.workloadMetadataMode =
        v === 'GKE_METADATA' || v === 'GCE_METADATA' ? v : fail('use GKE_METADATA or GCE_METADATA')
    },
  },
  'max-pods-per-node': {
    takesValue: true,
    apply: (f, v, fail) => (f.maxPodsPerNode = integerArgument('max-pods-per-node', v, fail)),
  },
  'enable-autoupgrade': {takesValue: false, apply: (f) => (f.autoUpgrade = true)},
  'no-enable-autoupgrade': {takesValue: false, apply: (f) => (f.autoUpgrade = false)},
  'enable-autorepair': {takesValue: false, apply: (f) => (f.autoRepair = true)},
  'no-enable-autorepair': {takesValue: false, apply: (f) => (f.autoRepair = false)},
  'enable-gvnic': {takesValue: false, apply: (f) => (f.gvnic = true)},
  'no-enable-gvnic': {takesValue: false, apply: (f) => (f.gvnic = false)},
}

/** Flags that xpk controls itself: the replacement to suggest. */
const OWNED_BY_XPK: Readonly<Record<string, string>> = {
  spot: 'use the capacity flag --spot',
  preemptible: 'use the capacity flag --spot',
  'flex-start': 'use the capacity flag --flex',
  reservation: 'use the capacity flag --reservation NAME',
  'reservation-affinity': 'use the capacity flag --reservation NAME (or --on-demand)',
  'num-nodes': 'the node count follows the accelerator type (GPU: --num-nodes of cluster create)',
  'machine-type': 'the machine type follows --tpu-type / --device-type',
  'node-locations': 'nodes run in --zone',
  'node-version': 'xpk picks the node version from the control plane (pin it with --gke-version)',
  'placement-type': 'xpk sets compact placement for multi-host TPU slices',
  'tpu-topology': 'the topology follows --tpu-type',
  'placement-policy': 'xpk sets the workload placement policy for types that need one',
  accelerator: 'GPU type and count follow --device-type',
  scopes: 'xpk sets the node scopes (cloud-platform included)',
}

/**
 * Maps gcloud-style node-pool flags to API fields.
 * @param flag the xpk flag the text came from, for messages
 * @throws UsageError naming the flag for anything unsupported or malformed
 */
export function parseCustomNodePoolArguments(text: string | undefined, flag: string): CustomNodePoolFields {
  const fields: Fields = {}
  parseCustomArguments(text, flag, HANDLERS, OWNED_BY_XPK, fields)
  return fields
}

/**
 * The rules both kinds of custom arguments follow: `--name=value` or `--name value` words (split as a shell splits
 * them, without expansion); a flag xpk sets itself is refused with the xpk flag to use; an unknown flag is refused
 * with the supported ones and the closest names; a flag that takes no value must not be given one.
 */
function parseCustomArguments<F>(
  text: string | undefined,
  flag: string,
  handlers: Readonly<Record<string, GenericHandler<F>>>,
  owned: Readonly<Record<string, string>>,
  fields: F,
): void {
  if (text === undefined || text.trim() === '') return
  const words = splitArguments(text, flag)
  for (let i = 0; i < words.length; i++) {
    const word = words[i]
    if (!word.startsWith('--')) {
      throw new UsageError(`${flag}: expected --name=value flags, found "${escapeInline(word)}".`, {flag})
    }
    const eq = word.indexOf('=')
    const name = word.slice(2, eq < 0 ? undefined : eq)
    // Free text (it may hold line breaks): what it quotes back is escaped, as every one-line value is.
    const fail = (why: string): never => {
      throw new UsageError(`${flag}: --${escapeInline(name)}: ${escapeInline(why)}.`, {flag})
    }
    // Own keys only: a flag named like an Object.prototype member (--constructor) must not match.
    if (Object.hasOwn(owned, name)) fail(`xpk sets this itself; ${owned[name]}`)
    const handler = Object.hasOwn(handlers, name) ? handlers[name] : undefined
    if (!handler) {
      const close = closestMatches(name, Object.keys(handlers), 3).map((n) => `--${n}`)
      throw new UsageError(`${flag}: --${escapeInline(name)} cannot be mapped to the GKE API by xpk.`, {
        flag,
        hints: [
          `Supported: ${Object.keys(handlers)
            .map((n) => `--${n}`)
            .join(', ')}.`,
          `Closest: ${close.join(', ')}.`,
        ],
      })
    }
    let value = ''
    if (handler.takesValue) {
      if (eq >= 0) value = word.slice(eq + 1)
      else if (i + 1 < words.length && !words[i + 1].startsWith('--')) value = words[++i]
      else fail('needs a value')
      if (value === '') fail('needs a value')
    } else if (eq >= 0) {
      fail('takes no value')
    }
    handler.apply(fields, value, fail)
  }
}

/** Merges custom fields, the later winning (the TPU-only flag is applied after the general one). */
export function mergeCustomFields(a: CustomNodePoolFields, b: CustomNodePoolFields): CustomNodePoolFields {
  return {
    ...a,
    ...b,
    ...(a.labels || b.labels ? {labels: {...a.labels, ...b.labels}} : {}),
    ...(a.metadata || b.metadata ? {metadata: {...a.metadata, ...b.metadata}} : {}),
    ...(a.taints || b.taints ? {taints: [...(a.taints ?? []), ...(b.taints ?? [])]} : {}),
    ...(a.tags || b.tags ? {tags: [...(a.tags ?? []), ...(b.tags ?? [])]} : {}),
  }
}

type ClusterFields = {-readonly [K in keyof CustomClusterFields]: CustomClusterFields[K]}

const IPV4_CIDR = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/

function cidr(value: string, fail: (why: string) => never): string {
  const match = IPV4_CIDR.exec(value)
  if (!match || match.slice(1, 5).some((o) => Number(o) > 255) || Number(match[5]) > 32) {
    return fail(`"${value}" is not an IPv4 CIDR like 10.224.0.0/12`)
  }
  return value
}

/** gcloud's `--logging` / `--monitoring` component names, as the API's enum values. */
const LOGGING_COMPONENTS: Readonly<Record<string, string>> = {
  SYSTEM: 'SYSTEM_COMPONENTS',
  WORKLOAD: 'WORKLOADS',
  API_SERVER: 'APISERVER',
  SCHEDULER: 'SCHEDULER',
  CONTROLLER_MANAGER: 'CONTROLLER_MANAGER',
  NONE: 'NONE',
}
const MONITORING_COMPONENTS: Readonly<Record<string, string>> = {
  SYSTEM: 'SYSTEM_COMPONENTS',
  API_SERVER: 'APISERVER',
  SCHEDULER: 'SCHEDULER',
  CONTROLLER_MANAGER: 'CONTROLLER_MANAGER',
  STORAGE: 'STORAGE',
  POD: 'POD',
  DEPLOYMENT: 'DEPLOYMENT',
  STATEFULSET: 'STATEFULSET',
  DAEMONSET: 'DAEMONSET',
  HPA: 'HPA',
  NONE: 'NONE',
}

function components(value: string, names: Readonly<Record<string, string>>, fail: (why: string) => never): string[] {
  return value.split(',').map((item) => {
    const name = item.trim().toUpperCase()
    return Object.hasOwn(names, name) ? names[name]! : fail(`"${item}" is not one of ${Object.keys(names).join(', ')}`)
  })
}

/** What xpk already sends with every cluster: accepted and ignored, so that Python xpk's command lines still work. */
const ALREADY_SET = (): void => undefined

const CLUSTER_HANDLERS: Readonly<Record<string, GenericHandler<ClusterFields>>> = {
  network: {takesValue: true, apply: (f, v) => (f.network = v)},
  subnetwork: {takesValue: true, apply: (f, v) => (f.subnetwork = v)},
  'master-ipv4-cidr': {takesValue: true, apply: (f, v, fail) => (f.masterIpv4Cidr = cidr(v, fail))},
  'no-enable-master-authorized-networks': {takesValue: false, apply: (f) => (f.masterAuthorizedNetworksOff = true)},
  'cluster-ipv4-cidr': {takesValue: true, apply: (f, v, fail) => (f.clusterIpv4Cidr = cidr(v, fail))},
  'services-ipv4-cidr': {takesValue: true, apply: (f, v, fail) => (f.servicesIpv4Cidr = cidr(v, fail))},
  'cluster-secondary-range-name': {takesValue: true, apply: (f, v) => (f.clusterSecondaryRangeName = v)},
  'services-secondary-range-name': {takesValue: true, apply: (f, v) => (f.servicesSecondaryRangeName = v)},
  'default-max-pods-per-node': {
    takesValue: true,
    apply: (f, v, fail) => (f.defaultMaxPodsPerNode = integerArgument('max-pods-per-node', v, fail)),
  },
  'stack-type': {
    takesValue: true,
    apply: (f, v, fail) => {
      const upper = v.toUpperCase()
      f.stackType = upper === 'IPV4' || upper === 'IPV4_IPV6' ? upper : fail('use IPV4 or IPV4_IPV6')
    },
  },
  description: {takesValue: true, apply: (f, v) => (f.description = v)},
  labels: {takesValue: true, apply: (f, v, fail) => (f.labels = {...f.labels, ...keyValues(v, fail)})},
  'enable-shielded-nodes': {takesValue: false, apply: (f) => (f.enableShieldedNodes = true)},
  'no-enable-shielded-nodes': {takesValue: false, apply: (f) => (f.enableShieldedNodes = false)},
  'enable-intra-node-visibility': {takesValue: false, apply: (f) => (f.enableIntraNodeVisibility = true)},
  'enable-l4-ilb-subsetting': {takesValue: false, apply: (f) => (f.enableL4IlbSubsetting = true)},
  logging: {takesValue: true, apply: (f, v, fail) => (f.loggingComponents = components(v, LOGGING_COMPONENTS, fail))},
  monitoring: {
    takesValue: true,
    apply: (f, v, fail) => (f.monitoringComponents = components(v, MONITORING_COMPONENTS, fail)),
  },
  'enable-managed-prometheus': {takesValue: false, apply: (f) => (f.enableManagedPrometheus = true)},
  'no-enable-managed-prometheus': {takesValue: false, apply: (f) => (f.enableManagedPrometheus = false)},
  'maintenance-window': {
    takesValue: true,
    apply: (f, v, fail) => {
      const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(v)
      f.maintenanceWindowStart = match ? v : fail(`"${v}" is not a start time HH:MM (UTC)`)
    },
  },
  'database-encryption-key': {
    takesValue: true,
    apply: (f, v, fail) => {
      f.databaseEncryptionKey = /^projects\/[^/]+\/locations\/[^/]+\/keyRings\/[^/]+\/cryptoKeys\/[^/]+$/.test(v)
        ? v
        : fail('expected projects/P/locations/L/keyRings/R/cryptoKeys/K')
    },
  },
  'image-type': {takesValue: true, apply: (f, v) => (f.imageType = v)},
  'disk-type': {takesValue: true, apply: (f, v) => (f.diskType = v)},
  'disk-size': {
    takesValue: true,
    apply: (f, v, fail) => {
      const match = /^(\d+)(GB)?$/i.exec(v)
      f.diskSizeGb = match
        ? integerArgument('disk-size', match[1], fail)
        : fail(`"${v}" is not a size in GB, e.g. 200 or 200GB`)
    },
  },
  'service-account': {takesValue: true, apply: (f, v) => (f.serviceAccount = v)},
  tags: {takesValue: true, apply: (f, v) => (f.tags = [...(f.tags ?? []), ...v.split(',').filter(Boolean)])},
  'enable-image-streaming': {takesValue: false, apply: (f) => (f.enableImageStreaming = true)},
  'enable-cost-allocation': {takesValue: false, apply: (f) => (f.enableCostAllocation = true)},
  'security-group': {takesValue: true, apply: (f, v) => (f.securityGroup = v)},
  'gateway-api': {
    takesValue: true,
    apply: (f, v, fail) => (f.gatewayApi = v === 'standard' || v === 'disabled' ? v : fail('use standard or disabled')),
  },
  // Python xpk's own cluster flags, which its recipes repeat here: what xpk sends anyway.
  'enable-ip-alias': {takesValue: false, apply: ALREADY_SET},
  'enable-dataplane-v2': {takesValue: false, apply: ALREADY_SET},
  'enable-multi-networking': {takesValue: false, apply: ALREADY_SET},
  scopes: {
    takesValue: true,
    apply: (_f, v, fail) => {
      if (v.split(',').sort().join(',') !== 'gke-default,storage-full') {
        fail(
          'xpk gives the default pool storage-full,gke-default (the only value accepted here, as it changes nothing)',
        )
      }
    },
  },
}

/** Cluster flags that xpk controls itself (or through a flag of its own): the replacement to suggest. */
const CLUSTER_OWNED_BY_XPK: Readonly<Record<string, string>> = {
  project: 'use --project',
  region: 'the cluster is regional, in the region of --zone',
  zone: 'use --zone',
  location: 'use --zone',
  'node-locations': 'nodes run in --zone',
  'cluster-version': 'use --gke-version',
  'release-channel': 'xpk picks the channel (RAPID, or REGULAR with --gke-version)',
  'enable-autoupgrade': 'auto-upgrade is on unless --gke-version pins the version',
  'no-enable-autoupgrade': 'use --gke-version, which turns auto-upgrade off',
  'machine-type': 'use --default-pool-cpu-machine-type',
  'num-nodes': 'use --default-pool-cpu-num-nodes',
  'enable-autoscaling': 'xpk autoscales the default pool from 1 to 1000 nodes',
  'total-min-nodes': 'xpk autoscales the default pool from 1 to 1000 nodes',
  'total-max-nodes': 'xpk autoscales the default pool from 1 to 1000 nodes',
  'min-nodes': 'xpk autoscales the default pool from 1 to 1000 nodes',
  'max-nodes': 'xpk autoscales the default pool from 1 to 1000 nodes',
  'location-policy': 'xpk sets BALANCED for the default pool',
  'autoscaling-profile': 'xpk sets optimize-utilization',
  'enable-autoprovisioning': 'use --enable-autoprovisioning',
  'autoprovisioning-config-file':
    'use --enable-autoprovisioning with --autoprovisioning-min-chips/--autoprovisioning-max-chips',
  'max-accelerator': 'use --autoprovisioning-max-chips',
  'min-accelerator': 'use --autoprovisioning-min-chips',
  'enable-private-nodes': 'use --private',
  'private-cluster': 'use --private',
  'enable-private-endpoint': 'use --enable-private-endpoint',
  'private-endpoint-subnetwork': 'use --private-endpoint-subnetwork',
  'enable-master-global-access': 'use --enable-master-global-access',
  'enable-master-authorized-networks': 'use --authorized-networks CIDR',
  'master-authorized-networks': 'use --authorized-networks CIDR',
  'enable-dns-access': 'the DNS endpoint is on unless the control plane is private (--enable-private-endpoint)',
  'workload-pool': 'use --enable-workload-identity',
  addons: 'use the --enable-*-csi-driver flags',
  'update-addons': 'use the --enable-*-csi-driver flags',
  'enable-legacy-lustre-port': 'use --enable-legacy-lustre-port',
  'no-enable-ip-alias': 'xpk clusters are VPC-native (IP aliases), as multi-networking needs',
  'max-pods-per-node': 'use --max-pods-per-node (accelerator pools) or --default-max-pods-per-node here',
  async: 'xpk waits for every operation it starts',
}

/**
 * Maps gcloud-style `clusters create` flags (`--custom-cluster-arguments`) to fields of the CreateCluster request.
 * @throws UsageError naming the flag for anything unsupported or malformed
 */
export function parseCustomClusterArguments(text: string | undefined, flag: string): CustomClusterFields {
  const fields: ClusterFields = {}
  parseCustomArguments(text, flag, CLUSTER_HANDLERS, CLUSTER_OWNED_BY_XPK, fields)
  return fields
}

/** The gcloud flags `--custom-cluster-arguments` maps, and those it refuses because xpk sets them. */
export const CUSTOM_CLUSTER_FLAGS = {
  mapped: Object.keys(CLUSTER_HANDLERS),
  ownedByXpk: Object.keys(CLUSTER_OWNED_BY_XPK),
} as const
