/**
 * Where a kind's objects are on the API server (their URL segment, and whether they live in namespaces) with as few
 * requests as possible: built-in kinds from a table, custom resources from the CRDs applied, xpk's own JobSet and
 * Kueue kinds from core/kube/known-kinds.ts, others through discovery.
 */
import {knownKind} from '../core/kube/known-kinds.js'
import type {KubeObject} from '../ports/kube.js'
import type {HttpsTransport} from './kube-transport.js'

/** Where a kind is served: its URL segment and whether its objects live in namespaces. */
export interface Resource {
  readonly plural: string
  readonly namespaced: boolean
}

/**
 * Built-in kinds by group version, so that reaching them costs no discovery request (kubectl caches discovery on
 * disk for the same reason). These are the stable APIs of every supported Kubernetes version; a kind missing here
 * is looked up through discovery. `true` = namespaced.
 */
const BUILT_IN: Readonly<Record<string, Readonly<Record<string, readonly [string, boolean]>>>> = {
  v1: {
    Namespace: ['namespaces', false],
    Node: ['nodes', false],
    PersistentVolume: ['persistentvolumes', false],
    ConfigMap: ['configmaps', true],
    Secret: ['secrets', true],
    Pod: ['pods', true],
    Service: ['services', true],
    ServiceAccount: ['serviceaccounts', true],
    Event: ['events', true],
    Endpoints: ['endpoints', true],
    PersistentVolumeClaim: ['persistentvolumeclaims', true],
    LimitRange: ['limitranges', true],
    ResourceQuota: ['resourcequotas', true],
  },
  'apps/v1': {
    Deployment: ['deployments', true],
    DaemonSet: ['daemonsets', true],
    StatefulSet: ['statefulsets', true],
    ReplicaSet: ['replicasets', true],
    ControllerRevision: ['controllerrevisions', true],
  },
  'batch/v1': {Job: ['jobs', true], CronJob: ['cronjobs', true]},
  'rbac.authorization.k8s.io/v1': {
    ClusterRole: ['clusterroles', false],
    ClusterRoleBinding: ['clusterrolebindings', false],
    Role: ['roles', true],
    RoleBinding: ['rolebindings', true],
  },
  'scheduling.k8s.io/v1': {PriorityClass: ['priorityclasses', false]},
  'apiextensions.k8s.io/v1': {CustomResourceDefinition: ['customresourcedefinitions', false]},
  'admissionregistration.k8s.io/v1': {
    MutatingWebhookConfiguration: ['mutatingwebhookconfigurations', false],
    ValidatingWebhookConfiguration: ['validatingwebhookconfigurations', false],
  },
  'apiregistration.k8s.io/v1': {APIService: ['apiservices', false]},
  'policy/v1': {PodDisruptionBudget: ['poddisruptionbudgets', true]},
  'networking.k8s.io/v1': {NetworkPolicy: ['networkpolicies', true], Ingress: ['ingresses', true]},
  'coordination.k8s.io/v1': {Lease: ['leases', true]},
  'storage.k8s.io/v1': {StorageClass: ['storageclasses', false]},
  'flowcontrol.apiserver.k8s.io/v1': {
    FlowSchema: ['flowschemas', false],
    PriorityLevelConfiguration: ['prioritylevelconfigurations', false],
  },
}

/** One group version's discovery document: kind -> resource; undefined when the group version is not served. */
interface Discovery {
  readonly kinds: Promise<ReadonlyMap<string, Resource> | undefined>
  /** Whether the answer is in (see {@link ResourceMap.find}). */
  settled: boolean
}

/**
 * Maps kinds to URLs: built-in kinds from {@link BUILT_IN}, custom resources from the CRDs this client applied
 * (the CRD says its plural and scope, so no request is needed), then xpk's own JobSet and Kueue kinds from
 * core/kube/known-kinds.ts (whether the cluster serves them is then told by the request itself: see
 * {@link servedNotFound}), others through discovery, one request per group version shared by every lookup waiting
 * for it.
 */
export class ResourceMap {
  private readonly learned = new Map<string, Resource>()
  private readonly discovered = new Map<string, Discovery>()

  constructor(private readonly http: HttpsTransport) {}

  async find(apiVersion: string, kind: string): Promise<Resource | undefined> {
    const builtIn = BUILT_IN[apiVersion]?.[kind]
    if (builtIn) return {plural: builtIn[0], namespaced: builtIn[1]}
    const learned = this.learned.get(`${apiVersion}/${kind}`)
    if (learned) return learned
    const known = knownKind(apiVersion, kind)
    if (known) return known
    const before = this.discovered.get(apiVersion)
    const answeredBefore = before?.settled === true
    const found = (await (before ?? this.fetch(apiVersion)).kinds)?.get(kind)
    // A document still on its way when this lookup began is as fresh as asking again; one answered earlier may
    // predate the kind's CRD, so a miss asks again (once for every lookup in the same position).
    if (found || !answeredBefore) return found
    const current = this.discovered.get(apiVersion)
    return (await (current && current !== before ? current : this.fetch(apiVersion)).kinds)?.get(kind)
  }

  /** What an applied CRD serves, known from the CRD itself. */
  learn(crd: KubeObject): void {
    const spec = crd.spec as
      | {group?: string; scope?: string; names?: {kind?: string; plural?: string}; versions?: {name?: string}[]}
      | undefined
    if (!spec?.group || !spec.names?.kind || !spec.names.plural) return
    for (const version of spec.versions ?? []) {
      if (!version.name) continue
      this.learned.set(`${spec.group}/${version.name}/${spec.names.kind}`, {
        plural: spec.names.plural,
        namespaced: spec.scope === 'Namespaced',
      })
    }
  }

  private fetch(apiVersion: string): Discovery {
    const entry: Discovery = {kinds: this.discover(apiVersion), settled: false}
    this.discovered.set(apiVersion, entry)
    entry.kinds.then(
      () => (entry.settled = true),
      // A failed discovery is not remembered: the next lookup tries again.
      () => {
        if (this.discovered.get(apiVersion) === entry) this.discovered.delete(apiVersion)
      },
    )
    return entry
  }

  /** The group version's discovery document (APIResourceList); undefined when it is not served. */
  private async discover(apiVersion: string): Promise<ReadonlyMap<string, Resource> | undefined> {
    const doing = `Looking up the kinds of ${apiVersion}`
    const reply = await this.http.send(doing, 'GET', `${apiVersion.includes('/') ? '/apis' : '/api'}/${apiVersion}`, {})
    if (reply.status === 404) return undefined
    const list = this.http.parse(reply, doing) as {resources?: {name: string; kind: string; namespaced: boolean}[]}
    const kinds = new Map<string, Resource>()
    // Subresources (`deployments/status`) share their parent's kind; the resource itself is the one without a slash.
    for (const r of list.resources ?? []) {
      if (!r.name.includes('/')) kinds.set(r.kind, {plural: r.name, namespaced: r.namespaced})
    }
    return kinds
  }
}
