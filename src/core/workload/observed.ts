/**
 * What xpk reads of the two objects the cluster keeps for a workload, the JobSet xpk submitted
 * (jobset.x-k8s.io/v1alpha2) and the Workload Kueue made for it (kueue.x-k8s.io/v1beta2): the observed types, and the
 * readers that copy those fields (and only those: their field masks) out of the objects the API returned. Pure, and
 * no decisions: what the fields mean for a workload's status is src/core/workload/status.ts.
 */

/** The Kueue Workload and JobSet kinds xpk reads. */
export const WORKLOAD_KIND = 'Workload'
export const JOBSET_KIND = 'JobSet'

/** A metav1.Condition as Kueue and JobSet write them; everything optional, since it comes from the cluster. */
export interface ObservedCondition {
  readonly type?: string
  readonly status?: string
  readonly reason?: string
  readonly message?: string
  readonly lastTransitionTime?: string
}

interface OwnerReference {
  readonly apiVersion?: string
  readonly kind?: string
  readonly name?: string
  readonly uid?: string
}

interface ObservedMeta {
  readonly name: string
  readonly namespace?: string
  readonly uid?: string
  readonly resourceVersion?: string
  readonly creationTimestamp?: string
  readonly labels?: Readonly<Record<string, string>>
  /** The annotations xpk reads (its own), not all of them: a long list keeps no more than it needs. */
  readonly annotations?: Readonly<Record<string, string>>
  readonly ownerReferences?: readonly OwnerReference[]
}

interface ObservedContainer {
  readonly resources?: {
    readonly requests?: Readonly<Record<string, unknown>>
    readonly limits?: Readonly<Record<string, unknown>>
  }
}

/** The parts of a pod template xpk reads: what makes a pod set an accelerator one, and its priority. */
export interface ObservedPodTemplate {
  readonly spec?: {
    readonly containers?: readonly ObservedContainer[]
    readonly initContainers?: readonly ObservedContainer[]
    readonly nodeSelector?: Readonly<Record<string, string>>
    readonly priorityClassName?: string
  }
}

/** A Kueue Workload (kueue.x-k8s.io/v1beta2), the fields xpk reads. */
export interface KueueWorkload {
  readonly metadata: ObservedMeta
  readonly spec?: {
    readonly queueName?: string
    readonly priority?: number
    readonly priorityClassRef?: {readonly group?: string; readonly kind?: string; readonly name?: string}
    readonly active?: boolean
    readonly podSets?: readonly {
      readonly name?: string
      readonly count?: number
      readonly template?: ObservedPodTemplate
    }[]
  }
  readonly status?: {
    readonly conditions?: readonly ObservedCondition[]
    readonly admission?: {
      readonly clusterQueue?: string
      readonly podSetAssignments?: readonly {readonly name?: string; readonly count?: number}[]
    }
    readonly reclaimablePods?: readonly {readonly name?: string; readonly count?: number}[]
    readonly requeueState?: {readonly count?: number; readonly requeueAt?: string}
  }
}

/** A JobSet (jobset.x-k8s.io/v1alpha2), the fields xpk reads. */
export interface ObservedJobSet {
  readonly metadata: ObservedMeta
  readonly spec?: {
    readonly suspend?: boolean
    readonly replicatedJobs?: readonly {
      readonly name?: string
      readonly replicas?: number
      readonly template?: {readonly spec?: {readonly parallelism?: number; readonly template?: ObservedPodTemplate}}
    }[]
  }
  readonly status?: {
    readonly conditions?: readonly ObservedCondition[]
    readonly restarts?: number
    readonly terminalState?: string
    readonly replicatedJobsStatus?: readonly {
      readonly name?: string
      readonly ready?: number
      readonly succeeded?: number
      readonly failed?: number
      readonly active?: number
      readonly suspended?: number
    }[]
  }
}

type Loose = Record<string, unknown> | undefined

const obj = (value: unknown): Loose =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
const list = (value: unknown): unknown[] | undefined => (Array.isArray(value) ? value : undefined)

/** A pod template reduced to what xpk reads: resource names, node selector and priority class. */
function readPodTemplate(value: unknown): ObservedPodTemplate | undefined {
  const spec = obj(obj(value)?.spec)
  if (!spec) return undefined
  const containers = (items: unknown) =>
    list(items)?.map((c) => {
      const resources = obj(obj(c)?.resources)
      return {resources: {requests: obj(resources?.requests), limits: obj(resources?.limits)}}
    })
  return {
    spec: {
      containers: containers(spec.containers),
      initContainers: containers(spec.initContainers),
      nodeSelector: obj(spec.nodeSelector) as Record<string, string> | undefined,
      priorityClassName: spec.priorityClassName as string | undefined,
    },
  }
}

/**
 * The JobSet annotation naming the storages its pods mount, in mount order (ours, not Python xpk's): `workload list`
 * shows them from it, without reading every Storage object and matching volumes to claims.
 */
export const STORAGES_ANNOTATION = 'xpk.x-k8s.io/storages'

/** The annotations of xpk's own that it reads back: the storages a JobSet mounts (one test, no copy, per object). */
function xpkAnnotations(annotations: Record<string, unknown> | undefined): Pick<ObservedMeta, 'annotations'> {
  const storages = annotations?.[STORAGES_ANNOTATION]
  return typeof storages === 'string' ? {annotations: {[STORAGES_ANNOTATION]: storages}} : {}
}

function readMeta(value: unknown): ObservedMeta {
  const m = obj(value) ?? {}
  return {
    name: String(m.name),
    namespace: m.namespace as string | undefined,
    uid: m.uid as string | undefined,
    resourceVersion: m.resourceVersion as string | undefined,
    creationTimestamp: m.creationTimestamp as string | undefined,
    labels: obj(m.labels) as Record<string, string> | undefined,
    ...xpkAnnotations(m.annotations as Record<string, unknown> | undefined),
    ownerReferences: list(m.ownerReferences) as OwnerReference[] | undefined,
  }
}

/**
 * An object the API returned as xpk reads it: its metadata, and its spec and status (where it has them) copied out
 * by the readers of its kind.
 */
function readObject<Spec, Status>(
  object: unknown,
  readSpec: (spec: Record<string, unknown>) => Spec,
  readStatus: (status: Record<string, unknown>) => Status,
): {metadata: ObservedMeta; spec: Spec | undefined; status: Status | undefined} {
  const o = obj(object) ?? {}
  const spec = obj(o.spec)
  const status = obj(o.status)
  return {metadata: readMeta(o.metadata), spec: spec && readSpec(spec), status: status && readStatus(status)}
}

/**
 * The fields of a Kueue Workload xpk reads, copied out of the object the API returned. Listing thousands of
 * workloads, the rest (a whole pod template per pod set) is dropped page by page instead of kept to the end:
 * less memory, and short-lived garbage the collector frees cheaply.
 */
export function readWorkload(object: unknown): KueueWorkload {
  return readObject(object, readWorkloadSpec, readWorkloadStatus)
}

function readWorkloadSpec(spec: Record<string, unknown>): NonNullable<KueueWorkload['spec']> {
  return {
    queueName: spec.queueName as string | undefined,
    priority: spec.priority as number | undefined,
    priorityClassRef: obj(spec.priorityClassRef),
    active: spec.active as boolean | undefined,
    podSets: list(spec.podSets)?.map((p) => ({
      name: obj(p)?.name as string | undefined,
      count: obj(p)?.count as number | undefined,
      template: readPodTemplate(obj(p)?.template),
    })),
  }
}

function readWorkloadStatus(status: Record<string, unknown>): NonNullable<KueueWorkload['status']> {
  const admission = obj(status.admission)
  return {
    conditions: list(status.conditions) as ObservedCondition[] | undefined,
    admission: admission && {
      clusterQueue: admission.clusterQueue as string | undefined,
      podSetAssignments: list(admission.podSetAssignments)?.map((a) => ({
        name: obj(a)?.name as string | undefined,
        count: obj(a)?.count as number | undefined,
      })),
    },
    reclaimablePods: list(status.reclaimablePods) as {name?: string; count?: number}[] | undefined,
    requeueState: obj(status.requeueState),
  }
}

/** The fields of a JobSet xpk reads (see {@link readWorkload}: its pod templates are dropped). */
export function readJobSet(object: unknown): ObservedJobSet {
  return readObject(object, readJobSetSpec, readJobSetStatus)
}

function readJobSetSpec(spec: Record<string, unknown>): NonNullable<ObservedJobSet['spec']> {
  return {
    suspend: spec.suspend as boolean | undefined,
    replicatedJobs: list(spec.replicatedJobs)?.map((r) => {
      const job = obj(obj(obj(r)?.template)?.spec)
      return {
        name: obj(r)?.name as string | undefined,
        replicas: obj(r)?.replicas as number | undefined,
        template: {
          spec: {parallelism: job?.parallelism as number | undefined, template: readPodTemplate(job?.template)},
        },
      }
    }),
  }
}

type JobSetStatus = NonNullable<ObservedJobSet['status']>

function readJobSetStatus(status: Record<string, unknown>): JobSetStatus {
  return {
    conditions: list(status.conditions) as ObservedCondition[] | undefined,
    restarts: status.restarts as number | undefined,
    terminalState: status.terminalState as string | undefined,
    replicatedJobsStatus: list(status.replicatedJobsStatus) as JobSetStatus['replicatedJobsStatus'],
  }
}
