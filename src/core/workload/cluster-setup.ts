/**
 * What a submitted JobSet refers to in the cluster, and what is missing. The JobSet is accepted by the API server
 * whether or not these exist, and then waits forever with no explanation; so `workload create` reads them before
 * sending anything and refuses with the fix:
 *
 *   - the JobSet kind: CRD `jobsets.jobset.x-k8s.io`, serving the version xpk writes (v1alpha2). Told by the read of
 *     the JobSet of the workload's name, which the submit makes anyway: the API server answers a missing object of
 *     a kind it serves differently from a kind it does not serve at that version (KubeClient.lookup). Only when it
 *     is not served is the CRD read, to say why (not installed, or too old a JobSet);
 *   - Kueue's LocalQueue `multislice-queue` in `default`, named by the `kueue.x-k8s.io/queue-name` label, at
 *     v1beta2, or at v1beta1 on a Kueue before v0.15 (which takes the JobSet all the same; a warning says
 *     `cluster create` upgrades it); absent too when Kueue's CRDs are, and the fix is the same;
 *   - the PriorityClass named by `--priority` (the pods' `priorityClassName`).
 *
 * All three are installed by `xpk cluster create` (JobSet, then Kueue's configuration). The workloads' ServiceAccount
 * `xpk-sa`, which the pods also name, is `workload create`'s own: it is applied when missing (see
 * {@link rbacRevision}), not refused. A LocalQueue whose Kueue status says it is not active (its ClusterQueue is
 * missing or stopped) holds workloads too: that is a warning, as Kueue may be catching up.
 */
import {createHash} from 'node:crypto'

import {XpkError} from '../errors.js'
import type {KubeObject} from '../kube/release-manifest.js'
import {XPK_NAMESPACE} from '../incluster/namespace.js'
import {
  JOBSET_API_GROUP,
  JOBSET_API_VERSION,
  KUEUE_API_GROUP,
  KUEUE_API_VERSION,
  LOCAL_QUEUE_NAME,
} from '../versions.js'

/** The CRD that serves JobSets. */
export const JOBSET_CRD_NAME = `jobsets.${JOBSET_API_GROUP}`

/** The version of the JobSet API xpk writes (`v1alpha2`). */
const JOBSET_VERSION_WRITTEN = JOBSET_API_VERSION.slice(JOBSET_API_GROUP.length + 1)

/**
 * The objects a submit refers to, as refs to read. The JobSet CRD is read only when the JobSet kind is not served
 * (see {@link JobSetKind}).
 */
export function referencedObjects(priority: string) {
  return {
    jobSetCrd: {apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: JOBSET_CRD_NAME},
    localQueue: {apiVersion: KUEUE_API_VERSION, kind: 'LocalQueue', namespace: XPK_NAMESPACE, name: LOCAL_QUEUE_NAME},
    /** The same queue as a Kueue before v0.15 serves it (read only when the current version is not served). */
    olderLocalQueue: {
      apiVersion: `${KUEUE_API_GROUP}/v1beta1`,
      kind: 'LocalQueue',
      namespace: XPK_NAMESPACE,
      name: LOCAL_QUEUE_NAME,
    },
    priorityClass: {apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', name: priority},
  } as const
}

/**
 * Whether the API server serves JobSets at the version xpk writes, as the read of the workload's JobSet (by name)
 * found; when not, the JobSet CRD as then read (undefined: not installed).
 */
export type JobSetKind = {readonly served: true} | {readonly served: false; readonly crd: KubeObject | undefined}

/** What was read of them (undefined: not there). */
export interface ReferencedState {
  readonly jobSet: JobSetKind
  readonly localQueue: KubeObject | undefined
  readonly priorityClass: KubeObject | undefined
}

/** One thing the JobSet needs that the cluster lacks. */
export interface MissingObject {
  /** `CustomResourceDefinition jobsets.jobset.x-k8s.io`, `LocalQueue default/multislice-queue`, ... */
  readonly object: string
  /** What goes wrong without it. */
  readonly why: string
}

/** The referenced objects the cluster lacks, in the order JobSet, Kueue, priority; empty when all are there. */
export function missingObjects(state: ReferencedState, priority: string): MissingObject[] {
  const missing: MissingObject[] = []
  const crd = `CustomResourceDefinition ${JOBSET_CRD_NAME}`
  if (state.jobSet.served) {
    // Nothing missing: the API server serves JobSets at the version xpk writes.
  } else if (state.jobSet.crd === undefined) {
    missing.push({object: crd, why: 'JobSet is not installed, so the API server cannot take a JobSet'})
  } else if (!servesVersion(state.jobSet.crd, JOBSET_VERSION_WRITTEN)) {
    missing.push({
      object: `${crd} serving ${JOBSET_VERSION_WRITTEN}`,
      why: `the installed JobSet does not serve ${JOBSET_API_VERSION}, the version xpk writes`,
    })
  } else {
    // The CRD lists the version, yet the API server does not serve it: a CRD just created and not yet established.
    missing.push({
      object: `${crd} serving ${JOBSET_VERSION_WRITTEN}`,
      why:
        `the CRD lists ${JOBSET_VERSION_WRITTEN} but the API server does not serve ${JOBSET_API_VERSION} ` +
        '(not established yet, if JobSet was just installed: try again in a minute)',
    })
  }
  if (state.localQueue === undefined) {
    missing.push({
      object: `LocalQueue ${XPK_NAMESPACE}/${LOCAL_QUEUE_NAME}`,
      why: 'Kueue or its queue is not set up, so nothing would ever admit the workload',
    })
  }
  if (state.priorityClass === undefined) {
    missing.push({
      object: `PriorityClass ${priority}`,
      why: `--priority ${priority} names it, and the workload's pods cannot be created without it`,
    })
  }
  return missing
}

/** Whether a CRD serves `version` (missing `served` counts as served, as the API server defaults it to true). */
function servesVersion(crd: KubeObject, version: string): boolean {
  const versions = asArray(asRecord(crd.spec).versions).map(asRecord)
  return versions.some((v) => v.name === version && v.served !== false)
}

/** How the submit was pointed at the cluster, for the fix. */
export interface SetupTarget {
  readonly cluster: string
  /** `--tpu-type v5p-16` / `--device-type h100-80gb-8`: what `cluster create` needs to be re-run with. */
  readonly acceleratorArgs: string
  /** Reached through --kubeconfig / --context (the wrong cluster is a likely cause). */
  readonly viaKubeconfig: boolean
}

/**
 * The error for missing objects: a cluster not (fully) set up by `xpk cluster create` is a state that forbids the
 * submit (exit 6, as a cluster without its resources ConfigMap is). Names each object and the fix.
 */
export function setupProblem(target: SetupTarget, missing: readonly MissingObject[]): XpkError {
  const list = missing.map((m) => `${m.object} (${m.why})`)
  return new XpkError(
    'conflict',
    `Cluster ${target.cluster} is not set up for workloads: it has no ${list.join('; no ')}. ` +
      'Nothing was submitted.',
    {
      hints: [
        `Run \`xpk cluster create --cluster ${target.cluster} ${target.acceleratorArgs} ...\` with the flags it was created with: ` +
          're-running it on an existing cluster installs JobSet and Kueue and creates the queue and the priority classes, ' +
          'keeping what is there.',
        target.viaKubeconfig
          ? 'Check that --kubeconfig and --context point at the cluster you meant.'
          : 'If you meant another cluster, check --cluster, --project and --zone (or reach it with --kubeconfig).',
      ],
    },
  )
}

/** Why Kueue says the LocalQueue cannot admit anything (its `Active` condition is False), or undefined. */
export function inactiveQueue(localQueue: KubeObject | undefined): {reason: string; message: string} | undefined {
  if (localQueue === undefined) return undefined
  const active = asArray(asRecord(localQueue.status).conditions)
    .map(asRecord)
    .find((c) => c.type === 'Active')
  if (active?.status !== 'False') return undefined
  return {
    reason: typeof active.reason === 'string' ? active.reason : 'Inactive',
    message: typeof active.message === 'string' ? active.message : '',
  }
}

/** The annotation on `xpk-sa` recording which set of RBAC objects a submit applied with it. */
export const RBAC_REVISION_ANNOTATION = 'xpk.google.com/rbac-revision'

/**
 * A short digest of the RBAC objects xpk applies. A submit applies the Role and RoleBindings, then the ServiceAccount
 * carrying this digest, so an `xpk-sa` with the current digest means the rest was applied as this xpk writes it:
 * later submits read only the ServiceAccount (which the pods need anyway), not the Role and RoleBindings. An older
 * xpk's set-up, or a ServiceAccount deleted by hand, has no such digest and is checked and repaired in full.
 */
export function rbacRevision(objects: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(objects)).digest('hex').slice(0, 16)
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}
