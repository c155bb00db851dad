/**
 * "Apply only what differs": whether applying an object xpk builds would change the object the API server holds.
 * The live object carries much that xpk never sets (uid, resourceVersion, status, server defaults such as a
 * container's `terminationMessagePath`), so the comparison is one-sided:
 *
 *   - every field xpk sets must be in the live object with an equal value; fields xpk does not set are ignored,
 *     which covers `metadata.labels` and `annotations` too (ours must be there, others may be);
 *   - a list is compared whole: same length, item by item in order (items that are maps by these same rules, so
 *     defaults inside them do not count), since applying a list replaces it;
 *   - except lists a strategic-merge patch merges by key (a Deployment's containers, by name): each of our items
 *     is compared with the live item of the same key, and other live items are left alone, as the patch leaves them;
 *   - maps xpk owns whole, where an extra key changes meaning, must have exactly our keys: a ConfigMap's `data`
 *     (a stale device type would be read as the cluster's), a ResourceFlavor's `nodeLabels`, a ClusterQueue's
 *     `namespaceSelector` (`{}` is "every namespace");
 *   - resource quantities (`nominalQuota`, and every value of `requests`/`limits`) compare by amount, since the API
 *     server and Kueue's webhook rewrite them canonically (`4096Mi` is stored as `4Gi`, `32` as `"32"`).
 *
 * The objects of a release manifest (JobSet's, Kueue's) are compared the same way, with no map owned whole (another
 * tool's keys in a release's ConfigMap are not ours to remove, and applying would not remove them), and without the
 * `rules` of an aggregated ClusterRole, which the API server fills in from the roles it aggregates.
 */
import type {KubeObject} from '../kube/release-manifest.js'
import type {DeploymentPatch, InClusterObject} from './types.js'

/** One field whose live value differs from ours. `live` is undefined when the field is absent there. */
export interface FieldDifference {
  /** Dotted, with list indices: `spec.resourceGroups[0].flavors[0].resources[0].nominalQuota`; '' for the object. */
  readonly path: string
  readonly desired: unknown
  readonly live: unknown
}

export interface CompareOptions {
  /** Paths (dotted, without list indices) of maps owned whole: a key only the live map has is a difference. */
  readonly wholeMaps?: readonly string[]
  /** Paths (dotted, without list indices) of lists merged by a key, with that key. */
  readonly mergeKeys?: Readonly<Record<string, string>>
  /** Paths (dotted, without list indices) of fields not compared: another party writes them. */
  readonly ignore?: readonly string[]
}

/** Maps xpk owns whole, by kind (see the module comment). */
const WHOLE_MAPS_BY_KIND: Readonly<Record<string, readonly string[]>> = {
  ConfigMap: ['data'],
  ResourceFlavor: ['spec.nodeLabels'],
  ClusterQueue: ['spec.namespaceSelector'],
}

const DEPLOYMENT_CONTAINERS = 'spec.template.spec.containers'

/** Keys whose values are resource quantities; so are all values of a map under `requests` or `limits`. */
const QUANTITY_KEYS = new Set(['nominalQuota', 'borrowingLimit', 'lendingLimit'])
const QUANTITY_MAPS = new Set(['requests', 'limits'])

/** Every field of `desired` the live object lacks or holds another value in; empty when applying changes nothing. */
export function liveDifferences(desired: unknown, live: unknown, options: CompareOptions = {}): FieldDifference[] {
  const out: FieldDifference[] = []
  if (live === undefined || live === null) {
    out.push({path: '', desired, live: undefined})
    return out
  }
  compare(desired, live, ROOT, options, out)
  return out
}

/** Whether applying `desired` would change the live object (null or undefined when it does not exist). */
export function applyWouldChange(desired: InClusterObject, live: unknown): boolean {
  return liveDifferences(desired, live, {wholeMaps: WHOLE_MAPS_BY_KIND[desired.kind] ?? []}).length > 0
}

/**
 * Whether applying an object of a release manifest would change the live object (null or undefined when it does
 * not exist). A Deployment's containers are matched by name, as the strategic merge of an apply matches them.
 */
export function releaseObjectWouldChange(desired: KubeObject, live: unknown): boolean {
  const aggregated = desired.kind === 'ClusterRole' && desired.aggregationRule !== undefined
  return (
    liveDifferences(desired, live, {
      mergeKeys: desired.kind === 'Deployment' ? {[DEPLOYMENT_CONTAINERS]: 'name'} : undefined,
      ignore: aggregated ? ['rules'] : undefined,
    }).length > 0
  )
}

/** Whether sending `patch` would change the live Deployment (null or undefined when it does not exist). */
export function patchWouldChange(patch: DeploymentPatch, liveDeployment: unknown): boolean {
  return liveDifferences(patch.body, liveDeployment, {mergeKeys: {[DEPLOYMENT_CONTAINERS]: 'name'}}).length > 0
}

/**
 * Where a value is, linked to where its parent is: paths are only spelled out for a difference found or an option
 * to look up, since comparing an unchanged CRD visits tens of thousands of values.
 */
interface Place {
  readonly parent: Place | undefined
  /** The map key this value is under (a list item keeps its list's). */
  readonly key: string
  readonly parentKey: string
  /** `[3]` (or `[name=manager]`) for a list item. */
  readonly index?: string
}

const ROOT: Place = {parent: undefined, key: '', parentKey: ''}

/** Dotted, with list indices: `spec.resourceGroups[0].flavors`. */
function pathOf(at: Place): string {
  if (at.parent === undefined) return ''
  const base = pathOf(at.parent)
  if (at.index !== undefined) return `${base}${at.index}`
  return base === '' ? at.key : `${base}.${at.key}`
}

/** The path without list indices, as options name it. */
function schemaPathOf(at: Place): string {
  if (at.parent === undefined) return ''
  const base = schemaPathOf(at.parent)
  if (at.index !== undefined) return base
  return base === '' ? at.key : `${base}.${at.key}`
}

function child(at: Place, key: string): Place {
  return {parent: at, key, parentKey: at.key}
}

function item(at: Place, index: string): Place {
  return {parent: at, key: at.key, parentKey: at.parentKey, index}
}

function compare(desired: unknown, live: unknown, at: Place, options: CompareOptions, out: FieldDifference[]): void {
  if (desired === undefined) return
  if (options.ignore !== undefined && options.ignore.length > 0 && options.ignore.includes(schemaPathOf(at))) return
  if (Array.isArray(desired)) {
    compareList(desired, live, at, options, out)
  } else if (isMap(desired)) {
    compareMap(desired, live, at, options, out)
  } else if (!scalarsEqual(desired, live, isQuantityPlace(at))) {
    out.push({path: pathOf(at), desired, live})
  }
}

function compareMap(
  desired: Readonly<Record<string, unknown>>,
  live: unknown,
  at: Place,
  options: CompareOptions,
  out: FieldDifference[],
): void {
  if (!isMap(live)) {
    out.push({path: pathOf(at), desired, live})
    return
  }
  for (const key in desired) {
    compare(desired[key], live[key], child(at, key), options, out)
  }
  if (options.wholeMaps !== undefined && options.wholeMaps.length > 0 && options.wholeMaps.includes(schemaPathOf(at))) {
    for (const key of Object.keys(live)) {
      if (desired[key] === undefined) out.push({path: pathOf(child(at, key)), desired: undefined, live: live[key]})
    }
  }
}

function compareList(
  desired: readonly unknown[],
  live: unknown,
  at: Place,
  options: CompareOptions,
  out: FieldDifference[],
): void {
  if (!Array.isArray(live)) {
    out.push({path: pathOf(at), desired, live})
    return
  }
  const mergeKey = options.mergeKeys === undefined ? undefined : options.mergeKeys[schemaPathOf(at)]
  if (mergeKey !== undefined) {
    for (const entry of desired) {
      const id = isMap(entry) ? entry[mergeKey] : undefined
      const index = live.findIndex((candidate) => isMap(candidate) && candidate[mergeKey] === id)
      if (index < 0) out.push({path: `${pathOf(at)}[${mergeKey}=${String(id)}]`, desired: entry, live: undefined})
      else compare(entry, live[index], item(at, `[${index}]`), options, out)
    }
    return
  }
  if (live.length !== desired.length) {
    out.push({path: pathOf(at), desired, live})
    return
  }
  for (let index = 0; index < desired.length; index++) {
    compare(desired[index], live[index], item(at, `[${index}]`), options, out)
  }
}

function isMap(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isQuantityPlace(at: Place): boolean {
  return QUANTITY_KEYS.has(at.key) || QUANTITY_MAPS.has(at.parentKey)
}

function scalarsEqual(desired: unknown, live: unknown, quantity: boolean): boolean {
  if (desired === null) return live === null || live === undefined
  if (desired === live) return true
  if (!quantity) return false
  const a = parseQuantity(desired)
  const b = parseQuantity(live)
  return a !== undefined && b !== undefined && a.numerator * b.denominator === b.numerator * a.denominator
}

/** An exact rational value. */
interface Rational {
  readonly numerator: bigint
  readonly denominator: bigint
}

const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei)|([numkMGTPE])|[eE]([+-]?\d{1,3}))?$/
const BINARY_POWERS: Readonly<Record<string, number>> = {Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6}
const DECIMAL_EXPONENTS: Readonly<Record<string, number>> = {n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18}

/**
 * A Kubernetes resource quantity (`4Gi`, `500m`, `1.5`, `2e3`, or a JSON number) as an exact rational; undefined
 * when `value` is not one.
 */
export function parseQuantity(value: unknown): Rational | undefined {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value
  if (typeof text !== 'string') return undefined
  const match = QUANTITY.exec(text)
  if (!match) return undefined
  const [, sign, digits, binary, decimal, exponent] = match
  const [whole, fraction = ''] = digits.split('.')
  let numerator = BigInt(`${whole}${fraction}` || '0')
  let denominator = 10n ** BigInt(fraction.length)
  if (binary !== undefined) numerator *= 1024n ** BigInt(BINARY_POWERS[binary])
  const power10 = decimal !== undefined ? DECIMAL_EXPONENTS[decimal] : exponent !== undefined ? Number(exponent) : 0
  if (power10 >= 0) numerator *= 10n ** BigInt(power10)
  else denominator *= 10n ** BigInt(-power10)
  return {numerator: sign === '-' ? -numerator : numerator, denominator}
}
