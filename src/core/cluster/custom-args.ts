import {UsageError} from '../errors.js'
import {INTEGER_FLAGS, parseInteger, type IntegerRange} from '../input.js'
import {escapeInline} from '../text.js'
import {closestMatches} from '../suggest.js'
import type {CustomNodePoolFields, Taint} from './spec.js'

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

interface Handler {
  readonly takesValue: boolean
  readonly apply: (fields: Fields, value: string, fail: (why: string) => never) => void
}

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
  if (text === undefined || text.trim() === '') return {}
  const words = splitArguments(text, flag)
  const fields: Fields = {}
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
    if (Object.hasOwn(OWNED_BY_XPK, name)) fail(`xpk sets this itself; ${OWNED_BY_XPK[name]}`)
    const handler = Object.hasOwn(HANDLERS, name) ? HANDLERS[name] : undefined
    if (!handler) {
      const close = closestMatches(name, Object.keys(HANDLERS), 3).map((n) => `--${n}`)
      throw new UsageError(`${flag}: --${escapeInline(name)} cannot be mapped to the GKE API by xpk.`, {
        flag,
        hints: [
          `Supported: ${Object.keys(HANDLERS)
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
  return fields
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
