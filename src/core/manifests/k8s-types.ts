/**
 * The few Kubernetes object shapes xpk writes, typed just far enough to keep the builders honest.
 *
 * Written here rather than imported from @kubernetes/client-node: the core stays SDK-free, and the client's
 * classes use `Date` objects and optional-everything fields that would let typos through. Field order in these
 * interfaces is the order the builders emit, which is the order the YAML shows.
 */

/** `metadata` of an object or template. */
export interface ObjectMeta {
  readonly name?: string
  readonly namespace?: string
  readonly labels?: Readonly<Record<string, string>>
  readonly annotations?: Readonly<Record<string, string>>
}

/** A container environment variable: a literal value or a downward-API field. */
export interface EnvVar {
  readonly name: string
  readonly value?: string
  readonly valueFrom?: {readonly fieldRef: {readonly fieldPath: string}}
}

export interface VolumeMount {
  readonly name: string
  readonly mountPath: string
  readonly readOnly?: boolean
}

/** Resource quantities; whole numbers are emitted as YAML integers, like Python xpk does. */
export type ResourceList = Readonly<Record<string, number | string>>

export interface Container {
  readonly name: string
  readonly image: string
  readonly imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never'
  /** Only init containers: `Always` turns one into a sidecar that lives as long as the pod. */
  readonly restartPolicy?: 'Always'
  readonly env?: readonly EnvVar[]
  readonly securityContext?: {
    readonly privileged?: boolean
    readonly capabilities?: {readonly add?: readonly string[]}
  }
  readonly command?: readonly string[]
  readonly args?: readonly string[]
  readonly ports?: readonly {readonly containerPort: number; readonly protocol: 'TCP' | 'UDP'}[]
  readonly resources?: {readonly limits?: ResourceList; readonly requests?: ResourceList}
  readonly volumeMounts?: readonly VolumeMount[]
}

export interface Volume {
  readonly name: string
  readonly emptyDir?: {readonly medium?: string; readonly sizeLimit?: string}
  readonly hostPath?: {readonly path: string; readonly type?: string}
  /** A claim in the pod's namespace: how workloads mount a storage (src/core/storage/mounts.ts). */
  readonly persistentVolumeClaim?: {readonly claimName: string; readonly readOnly?: boolean}
}

export interface Toleration {
  readonly key?: string
  readonly operator?: 'Exists' | 'Equal'
  readonly value?: string
  readonly effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute'
}

export interface NodeSelectorRequirement {
  readonly key: string
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt'
  readonly values?: readonly string[]
}

export interface Affinity {
  readonly nodeAffinity?: {
    readonly requiredDuringSchedulingIgnoredDuringExecution?: {
      readonly nodeSelectorTerms: readonly {readonly matchExpressions?: readonly NodeSelectorRequirement[]}[]
    }
  }
}

export interface PodSpec {
  readonly schedulerName?: string
  readonly schedulingGates?: readonly {readonly name: string}[]
  readonly affinity?: Affinity
  readonly imagePullSecrets?: readonly {readonly name: string}[]
  readonly restartPolicy?: 'Never' | 'OnFailure' | 'Always'
  readonly nodeSelector?: Readonly<Record<string, string>>
  readonly priorityClassName?: string
  readonly hostNetwork?: boolean
  readonly dnsPolicy?: 'ClusterFirst' | 'ClusterFirstWithHostNet' | 'Default' | 'None'
  readonly terminationGracePeriodSeconds?: number
  readonly serviceAccountName?: string
  readonly tolerations?: readonly Toleration[]
  readonly initContainers?: readonly Container[]
  readonly containers: readonly Container[]
  readonly volumes?: readonly Volume[]
}

export interface PodTemplateSpec {
  readonly metadata?: ObjectMeta
  readonly spec: PodSpec
}

/** batch/v1 PodFailurePolicyRule, restricted to what xpk uses. */
export interface PodFailurePolicyRule {
  readonly action: 'FailJob' | 'Ignore' | 'Count' | 'FailIndex'
  readonly onPodConditions?: readonly {readonly type: string; readonly status: string}[]
  readonly onExitCodes?: {
    readonly containerName?: string
    readonly operator: 'In' | 'NotIn'
    readonly values: readonly number[]
  }
}

export interface JobSpec {
  /** Pathways Jobs, as Python xpk writes them: `Indexed`, the default of a JobSet's Jobs. */
  readonly completionMode?: 'Indexed' | 'NonIndexed'
  readonly parallelism: number
  readonly completions: number
  readonly backoffLimit: number
  readonly podFailurePolicy?: {readonly rules: readonly PodFailurePolicyRule[]}
  readonly template: PodTemplateSpec
}

export interface JobTemplateSpec {
  readonly metadata?: ObjectMeta
  readonly spec: JobSpec
}

export interface ReplicatedJob {
  readonly name: string
  readonly replicas: number
  readonly template: JobTemplateSpec
}

/** JobSet failure-policy rule (jobset.x-k8s.io/v1alpha2). */
export interface JobSetFailurePolicyRule {
  /** Required by the CRD: `^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`. */
  readonly name: string
  readonly action: 'FailJobSet' | 'RestartJobSet' | 'RestartJobSetAndIgnoreMaxRestarts'
  readonly onJobFailureReasons?: readonly string[]
}

export interface JobSetSpec {
  readonly ttlSecondsAfterFinished?: number
  /** Pathways: the replicated Job whose first pod the others reach (label `jobset.sigs.k8s.io/coordinator`). */
  readonly coordinator?: {readonly replicatedJob: string}
  readonly network?: {readonly enableDNSHostnames?: boolean; readonly publishNotReadyAddresses?: boolean}
  readonly failurePolicy?: {
    readonly restartStrategy?: 'Recreate' | 'BlockingRecreate'
    readonly rules?: readonly JobSetFailurePolicyRule[]
    readonly maxRestarts?: number
  }
  readonly replicatedJobs: readonly ReplicatedJob[]
  readonly startupPolicy?: {readonly startupPolicyOrder: 'AnyOrder' | 'InOrder'}
  readonly successPolicy?: {readonly operator: 'All' | 'Any'; readonly targetReplicatedJobs?: readonly string[]}
  readonly suspend?: boolean
}

/** A JobSet (jobset.x-k8s.io/v1alpha2), as `xpk workload create` submits it. */
export interface JobSet {
  readonly apiVersion: 'jobset.x-k8s.io/v1alpha2'
  readonly kind: 'JobSet'
  readonly metadata: ObjectMeta & {readonly name: string}
  readonly spec: JobSetSpec
}

/** `metadata` of a top-level object: it always has a name. */
export type NamedObjectMeta = ObjectMeta & {readonly name: string}

/** `metadata` of a namespaced top-level object. */
export type NamespacedObjectMeta = NamedObjectMeta & {readonly namespace: string}

/** A v1 ConfigMap. Every value in `data` is a string, whatever it holds. */
export interface ConfigMap {
  readonly apiVersion: 'v1'
  readonly kind: 'ConfigMap'
  readonly metadata: NamespacedObjectMeta
  readonly data: Readonly<Record<string, string>>
}

/** A scheduling.k8s.io/v1 PriorityClass (cluster-scoped): pods name it in `priorityClassName`. */
export interface PriorityClass {
  readonly apiVersion: 'scheduling.k8s.io/v1'
  readonly kind: 'PriorityClass'
  readonly metadata: NamedObjectMeta
  readonly value: number
  readonly globalDefault: boolean
  readonly description: string
}

/** An apps/v1 DaemonSet: one pod on every node its template selects. */
export interface DaemonSet {
  readonly apiVersion: 'apps/v1'
  readonly kind: 'DaemonSet'
  readonly metadata: NamespacedObjectMeta
  readonly spec: {
    readonly selector: {readonly matchLabels: Readonly<Record<string, string>>}
    readonly updateStrategy?: {readonly type: 'RollingUpdate' | 'OnDelete'}
    readonly template: PodTemplateSpec
  }
}

/** A v1 ServiceAccount. */
export interface ServiceAccount {
  readonly apiVersion: 'v1'
  readonly kind: 'ServiceAccount'
  readonly metadata: NamespacedObjectMeta
}

/** One rbac.authorization.k8s.io/v1 rule: `verbs` on `resources` of `apiGroups` ("" is the core group). */
export interface PolicyRule {
  readonly apiGroups: readonly string[]
  readonly resources: readonly string[]
  readonly verbs: readonly string[]
}

/** An rbac.authorization.k8s.io/v1 Role (namespaced). */
export interface Role {
  readonly apiVersion: 'rbac.authorization.k8s.io/v1'
  readonly kind: 'Role'
  readonly metadata: NamespacedObjectMeta
  readonly rules: readonly PolicyRule[]
}

/** An rbac.authorization.k8s.io/v1 RoleBinding of service accounts to a Role. */
export interface RoleBinding {
  readonly apiVersion: 'rbac.authorization.k8s.io/v1'
  readonly kind: 'RoleBinding'
  readonly metadata: NamespacedObjectMeta
  readonly subjects: readonly {readonly kind: 'ServiceAccount'; readonly name: string; readonly namespace: string}[]
  readonly roleRef: {readonly apiGroup: 'rbac.authorization.k8s.io'; readonly kind: 'Role'; readonly name: string}
}

/** The access modes a PersistentVolume offers and a claim asks for (xpk writes the first three, as Python xpk). */
export type AccessMode = 'ReadWriteOnce' | 'ReadOnlyMany' | 'ReadWriteMany' | 'ReadWriteOncePod'

/** A v1 PersistentVolume (cluster-scoped) backed by a CSI driver: how a storage's bucket or instance is reached. */
export interface PersistentVolume {
  readonly apiVersion: 'v1'
  readonly kind: 'PersistentVolume'
  readonly metadata: NamedObjectMeta
  readonly spec: {
    readonly accessModes?: readonly AccessMode[]
    readonly capacity?: {readonly storage: string}
    readonly storageClassName?: string
    readonly persistentVolumeReclaimPolicy?: 'Retain' | 'Delete' | 'Recycle'
    readonly volumeMode?: 'Filesystem' | 'Block'
    readonly mountOptions?: readonly string[]
    readonly claimRef?: {readonly name: string; readonly namespace: string}
    readonly csi: {
      readonly driver: string
      readonly volumeHandle: string
      readonly volumeAttributes?: Readonly<Record<string, string>>
    }
  }
}

/** A v1 PersistentVolumeClaim, bound to one PersistentVolume by name. */
export interface PersistentVolumeClaim {
  readonly apiVersion: 'v1'
  readonly kind: 'PersistentVolumeClaim'
  readonly metadata: NamedObjectMeta
  readonly spec: {
    readonly accessModes: readonly AccessMode[]
    readonly storageClassName?: string
    readonly volumeName?: string
    readonly resources: {readonly requests: {readonly storage: string}}
  }
}

/** A storage.k8s.io/v1 StorageClass (cluster-scoped). */
export interface StorageClass {
  readonly apiVersion: 'storage.k8s.io/v1'
  readonly kind: 'StorageClass'
  readonly metadata: NamedObjectMeta
  readonly provisioner: string
  readonly volumeBindingMode?: 'Immediate' | 'WaitForFirstConsumer'
  readonly allowVolumeExpansion?: boolean
  readonly parameters?: Readonly<Record<string, string>>
}
