/**
 * Which objects of a release manifest (JobSet's, Kueue's) the cluster lacks or holds otherwise: what `kubectl apply`
 * of the whole manifest would change. The controller's Deployment alone says which version runs, not that the
 * release is whole: a run stopped half-way through an install (kill -9, a CRD that failed to apply) leaves the
 * Deployment of the right version with CRDs, RBAC or webhooks missing, and only a comparison object by object finds
 * them. Live objects come from one list per kind, never a read per object.
 */
import type {KubeObject} from '../kube/release-manifest.js'
import {releaseObjectWouldChange} from './live-diff.js'

/** Which object of a release: enough to find it in the manifest again, and to name it. */
export interface ReleaseObjectRef {
  readonly apiVersion: string
  readonly kind: string
  readonly name: string
  readonly namespace?: string
}

/** The objects of a release that applying it would create (missing) or change (different), in manifest order. */
export interface ReleaseDrift {
  /** Objects in the release. */
  readonly total: number
  readonly missing: readonly ReleaseObjectRef[]
  readonly different: readonly ReleaseObjectRef[]
}

/** Compares every object of a release with the live object of its kind, namespace and name (`live` finds it). */
export function releaseDrift(objects: readonly KubeObject[], live: (object: KubeObject) => unknown): ReleaseDrift {
  const missing: ReleaseObjectRef[] = []
  const different: ReleaseObjectRef[] = []
  for (const object of objects) {
    const found = live(object)
    if (found === undefined || found === null) missing.push(refOf(object))
    else if (releaseObjectWouldChange(object, found)) different.push(refOf(object))
  }
  return {total: objects.length, missing, different}
}

/** Whether applying the release would change nothing. */
export function driftIsEmpty(drift: ReleaseDrift): boolean {
  return drift.missing.length === 0 && drift.different.length === 0
}

/** The objects to apply: the missing and the different ones. */
export function driftObjects(drift: ReleaseDrift): ReleaseObjectRef[] {
  return [...drift.missing, ...drift.different]
}

/** For a plan line: `2 of 25 objects missing (CustomResourceDefinition workloads.kueue.x-k8s.io, ...), 1 different (...)`. */
export function describeDrift(drift: ReleaseDrift): string {
  const parts: string[] = []
  if (drift.missing.length > 0)
    parts.push(`${drift.missing.length} of ${drift.total} objects missing (${names(drift.missing)})`)
  if (drift.different.length > 0) {
    const of = parts.length === 0 ? ` of ${drift.total} objects` : ''
    parts.push(`${drift.different.length}${of} different (${names(drift.different)})`)
  }
  return parts.join(', ')
}

/** How a ref is named in plan lines: `CustomResourceDefinition workloads.kueue.x-k8s.io`, `Service kueue-system/x`. */
export function refName(ref: ReleaseObjectRef): string {
  return `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`
}

const NAMED = 3

function names(refs: readonly ReleaseObjectRef[]): string {
  const shown = refs.slice(0, NAMED).map(refName)
  return refs.length > NAMED ? `${shown.join(', ')} and ${refs.length - NAMED} more` : shown.join(', ')
}

function refOf(object: KubeObject): ReleaseObjectRef {
  const {name, namespace} = object.metadata
  return namespace === undefined
    ? {apiVersion: object.apiVersion, kind: object.kind, name}
    : {apiVersion: object.apiVersion, kind: object.kind, name, namespace}
}
