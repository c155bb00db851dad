// The resource catalogue of the fake kube-apiserver: the built-in kinds xpk touches, custom resources made servable
// by their CRDs, and the discovery documents (legacy and aggregated) that clients and kubectl read to find them.
import type {Obj} from './fake-kube-util.js'
import {asObj, isObj} from './fake-kube-util.js'

export interface ResourceType {
  group: string
  version: string
  /** Plural, lower case: the URL segment. */
  resource: string
  singular: string
  kind: string
  namespaced: boolean
  verbs: string[]
  shortNames: string[]
  categories: string[]
  /** Writes to the main resource leave status alone; status is written through `<resource>/status`. */
  statusSubresource: boolean
  /** metadata.generation is kept and bumped on changes outside metadata and status. */
  generation: boolean
  /** Propagation when a DELETE names none; batch/v1 Jobs still orphan their pods by default. */
  defaultPropagation: 'Background' | 'Orphan'
  /** Namespaces and Services take DNS-1123 labels; everything else DNS-1123 subdomains. */
  nameRule: 'subdomain' | 'label' | 'path-segment'
  /** `group/resource`: one store for every version of a resource. */
  storageKey: string
  /** For custom resources: the CRD's name and the served version's OpenAPI v3 schema. */
  crd?: string
  schema?: Obj
  subresources: string[]
  /** Sent as a Warning header with every request to a version its CRD marks deprecated. */
  deprecationWarning?: string
}

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']

interface BuiltinSpec {
  gv: string
  resource: string
  kind: string
  namespaced: boolean
  shortNames?: string[]
  categories?: string[]
  status?: boolean
  generation?: boolean
  orphan?: boolean
  nameRule?: 'label' | 'path-segment'
  extraSubresources?: string[]
}

const BUILTINS: BuiltinSpec[] = [
  {
    gv: 'v1',
    resource: 'namespaces',
    kind: 'Namespace',
    namespaced: false,
    shortNames: ['ns'],
    status: true,
    nameRule: 'label',
  },
  {gv: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, shortNames: ['cm']},
  {gv: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true},
  {gv: 'v1', resource: 'nodes', kind: 'Node', namespaced: false, shortNames: ['no'], status: true},
  {
    gv: 'v1',
    resource: 'pods',
    kind: 'Pod',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    status: true,
    extraSubresources: ['log'],
  },
  {gv: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true, shortNames: ['sa']},
  {
    gv: 'v1',
    resource: 'services',
    kind: 'Service',
    namespaced: true,
    shortNames: ['svc'],
    categories: ['all'],
    status: true,
    nameRule: 'label',
  },
  {gv: 'v1', resource: 'events', kind: 'Event', namespaced: true, shortNames: ['ev']},
  {
    gv: 'v1',
    resource: 'persistentvolumes',
    kind: 'PersistentVolume',
    namespaced: false,
    shortNames: ['pv'],
    status: true,
  },
  {
    gv: 'v1',
    resource: 'persistentvolumeclaims',
    kind: 'PersistentVolumeClaim',
    namespaced: true,
    shortNames: ['pvc'],
    status: true,
  },
  {gv: 'storage.k8s.io/v1', resource: 'storageclasses', kind: 'StorageClass', namespaced: false, shortNames: ['sc']},
  {
    gv: 'apps/v1',
    resource: 'deployments',
    kind: 'Deployment',
    namespaced: true,
    shortNames: ['deploy'],
    categories: ['all'],
    status: true,
    generation: true,
  },
  {
    gv: 'apps/v1',
    resource: 'daemonsets',
    kind: 'DaemonSet',
    namespaced: true,
    shortNames: ['ds'],
    categories: ['all'],
    status: true,
    generation: true,
  },
  {
    gv: 'apps/v1',
    resource: 'statefulsets',
    kind: 'StatefulSet',
    namespaced: true,
    shortNames: ['sts'],
    categories: ['all'],
    status: true,
    generation: true,
  },
  {
    gv: 'apps/v1',
    resource: 'replicasets',
    kind: 'ReplicaSet',
    namespaced: true,
    shortNames: ['rs'],
    categories: ['all'],
    status: true,
    generation: true,
  },
  {
    gv: 'batch/v1',
    resource: 'jobs',
    kind: 'Job',
    namespaced: true,
    categories: ['all'],
    status: true,
    generation: true,
    orphan: true,
  },
  {gv: 'rbac.authorization.k8s.io/v1', resource: 'roles', kind: 'Role', namespaced: true, nameRule: 'path-segment'},
  {
    gv: 'rbac.authorization.k8s.io/v1',
    resource: 'rolebindings',
    kind: 'RoleBinding',
    namespaced: true,
    nameRule: 'path-segment',
  },
  {
    gv: 'rbac.authorization.k8s.io/v1',
    resource: 'clusterroles',
    kind: 'ClusterRole',
    namespaced: false,
    nameRule: 'path-segment',
  },
  {
    gv: 'rbac.authorization.k8s.io/v1',
    resource: 'clusterrolebindings',
    kind: 'ClusterRoleBinding',
    namespaced: false,
    nameRule: 'path-segment',
  },
  {
    gv: 'scheduling.k8s.io/v1',
    resource: 'priorityclasses',
    kind: 'PriorityClass',
    namespaced: false,
    shortNames: ['pc'],
  },
  {
    gv: 'apiextensions.k8s.io/v1',
    resource: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    status: true,
    generation: true,
  },
  // Kinds that the JobSet and Kueue install manifests carry; stored and served, never acted on (no webhook is called).
  {
    gv: 'admissionregistration.k8s.io/v1',
    resource: 'mutatingwebhookconfigurations',
    kind: 'MutatingWebhookConfiguration',
    namespaced: false,
    generation: true,
  },
  {
    gv: 'admissionregistration.k8s.io/v1',
    resource: 'validatingwebhookconfigurations',
    kind: 'ValidatingWebhookConfiguration',
    namespaced: false,
    generation: true,
  },
  {gv: 'apiregistration.k8s.io/v1', resource: 'apiservices', kind: 'APIService', namespaced: false, status: true},
  {
    gv: 'flowcontrol.apiserver.k8s.io/v1',
    resource: 'flowschemas',
    kind: 'FlowSchema',
    namespaced: false,
    status: true,
    generation: true,
  },
  {
    gv: 'flowcontrol.apiserver.k8s.io/v1',
    resource: 'prioritylevelconfigurations',
    kind: 'PriorityLevelConfiguration',
    namespaced: false,
    status: true,
    generation: true,
  },
  {gv: 'coordination.k8s.io/v1', resource: 'leases', kind: 'Lease', namespaced: true},
  {
    gv: 'policy/v1',
    resource: 'poddisruptionbudgets',
    kind: 'PodDisruptionBudget',
    namespaced: true,
    shortNames: ['pdb'],
    status: true,
    generation: true,
  },
  {
    gv: 'networking.k8s.io/v1',
    resource: 'networkpolicies',
    kind: 'NetworkPolicy',
    namespaced: true,
    shortNames: ['netpol'],
    generation: true,
  },
]

export function splitGroupVersion(gv: string): {group: string; version: string} {
  const slash = gv.indexOf('/')
  return slash < 0 ? {group: '', version: gv} : {group: gv.slice(0, slash), version: gv.slice(slash + 1)}
}

export function groupVersion(group: string, version: string): string {
  return group ? `${group}/${version}` : version
}

export function builtinTypes(): ResourceType[] {
  return BUILTINS.map((b) => {
    const {group, version} = splitGroupVersion(b.gv)
    const subresources = [...(b.status ? ['status'] : []), ...(b.extraSubresources ?? [])]
    return {
      group,
      version,
      resource: b.resource,
      singular: b.kind.toLowerCase(),
      kind: b.kind,
      namespaced: b.namespaced,
      verbs: ALL_VERBS,
      shortNames: b.shortNames ?? [],
      categories: b.categories ?? [],
      statusSubresource: b.status ?? false,
      generation: b.generation ?? false,
      defaultPropagation: b.orphan ? 'Orphan' : 'Background',
      nameRule: b.nameRule ?? 'subdomain',
      storageKey: `${group}/${b.resource}`,
      subresources,
    }
  })
}

/**
 * The resource types a CRD serves, one per served version, or the problems that make the CRD invalid (as field
 * errors worded like the real apiextensions validation).
 */
export function crdTypes(crd: Obj): ResourceType[] {
  const spec = asObj(crd.spec)
  const names = asObj(spec.names)
  const group = String(spec.group ?? '')
  const plural = String(names.plural ?? '')
  const kind = String(names.kind ?? '')
  const versions = Array.isArray(spec.versions) ? spec.versions.filter(isObj) : []
  return versions
    .filter((v) => v.served !== false)
    .map((v) => {
      const subresources = asObj(v.subresources)
      const status = isObj(subresources.status)
      return {
        group,
        version: String(v.name),
        resource: plural,
        singular: String(names.singular ?? kind.toLowerCase()),
        kind,
        namespaced: spec.scope !== 'Cluster',
        verbs: ALL_VERBS,
        shortNames: Array.isArray(names.shortNames) ? names.shortNames.map(String) : [],
        categories: Array.isArray(names.categories) ? names.categories.map(String) : [],
        statusSubresource: status,
        generation: true,
        defaultPropagation: 'Background',
        nameRule: 'subdomain',
        storageKey: `${group}/${plural}`,
        crd: String(asObj(crd.metadata).name),
        schema: asObj(asObj(v.schema).openAPIV3Schema),
        subresources: [...(status ? ['status'] : []), ...(isObj(subresources.scale) ? ['scale'] : [])],
        ...(v.deprecated === true
          ? {
              deprecationWarning:
                typeof v.deprecationWarning === 'string'
                  ? v.deprecationWarning
                  : `${group}/${String(v.name)} ${kind} is deprecated`,
            }
          : {}),
      } satisfies ResourceType
    })
}

/** Kubernetes version priority: GA before beta before alpha, higher numbers first, then anything else by name. */
export function compareKubeVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v)
    if (!m) return {rank: 3, major: 0, minor: 0}
    return {rank: m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2, major: Number(m[1]), minor: Number(m[3] ?? 0)}
  }
  const pa = parse(a)
  const pb = parse(b)
  if (pa.rank !== pb.rank) return pa.rank - pb.rank
  if (pa.rank === 3) return a.localeCompare(b)
  return pb.major - pa.major || pb.minor - pa.minor
}

/** One APIResourceList entry per resource, plus one per subresource, as `GET /api/v1` and `/apis/g/v` list them. */
export function apiResourceList(gv: string, types: ResourceType[]): Obj {
  const resources: Obj[] = []
  for (const t of types) {
    resources.push({
      name: t.resource,
      singularName: t.singular,
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: t.verbs,
      ...(t.shortNames.length ? {shortNames: t.shortNames} : {}),
      ...(t.categories.length ? {categories: t.categories} : {}),
    })
    for (const sub of t.subresources) {
      resources.push({
        name: `${t.resource}/${sub}`,
        singularName: '',
        namespaced: t.namespaced,
        kind: sub === 'scale' ? 'Scale' : t.kind,
        verbs: sub === 'log' ? ['get'] : ['get', 'patch', 'update'],
        ...(sub === 'scale' ? {group: 'autoscaling', version: 'v1'} : {}),
      })
    }
  }
  return {kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv, resources}
}

function discoveryResource(t: ResourceType): Obj {
  return {
    resource: t.resource,
    responseKind: {group: t.group, version: t.version, kind: t.kind},
    scope: t.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: t.singular,
    verbs: t.verbs,
    ...(t.shortNames.length ? {shortNames: t.shortNames} : {}),
    ...(t.categories.length ? {categories: t.categories} : {}),
    ...(t.subresources.length
      ? {
          subresources: t.subresources.map((sub) => ({
            subresource: sub,
            responseKind:
              sub === 'scale'
                ? {group: 'autoscaling', version: 'v1', kind: 'Scale'}
                : {group: t.group, version: t.version, kind: t.kind},
            verbs: sub === 'log' ? ['get'] : ['get', 'patch', 'update'],
          })),
        }
      : {}),
  }
}

/** Groups in the order discovery lists them, each with its versions by priority. */
export function groupsOf(types: ResourceType[]): Map<string, Map<string, ResourceType[]>> {
  const groups = new Map<string, Map<string, ResourceType[]>>()
  for (const t of types) {
    const versions = groups.get(t.group) ?? new Map<string, ResourceType[]>()
    groups.set(t.group, versions)
    const list = versions.get(t.version) ?? []
    versions.set(t.version, list)
    list.push(t)
  }
  for (const [group, versions] of groups) {
    groups.set(group, new Map([...versions].sort(([a], [b]) => compareKubeVersions(a, b))))
  }
  return groups
}

/** apidiscovery.k8s.io/v2 APIGroupDiscoveryList for `/api` (legacy) or `/apis` (every named group). */
export function aggregatedDiscovery(types: ResourceType[], legacy: boolean): Obj {
  const items: Obj[] = []
  for (const [group, versions] of groupsOf(types)) {
    if ((group === '') !== legacy) continue
    items.push({
      metadata: {name: group, creationTimestamp: null},
      versions: [...versions].map(([version, list]) => ({
        version,
        resources: list.map(discoveryResource),
        freshness: 'Current',
      })),
    })
  }
  return {kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items}
}

export function apiGroup(group: string, versions: string[]): Obj {
  const list = versions.map((version) => ({groupVersion: `${group}/${version}`, version}))
  return {name: group, versions: list, preferredVersion: list[0]}
}

export function apiGroupList(types: ResourceType[]): Obj {
  const groups: Obj[] = []
  for (const [group, versions] of groupsOf(types)) {
    if (group) groups.push(apiGroup(group, [...versions.keys()]))
  }
  return {kind: 'APIGroupList', apiVersion: 'v1', groups}
}

/** `/openapi/v3/<key>` for a group-version: `api/v1`, `apis/apps/v1`. */
export function openApiKey(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`
}

/**
 * A minimal OpenAPI v3 document for one group-version: the paths of its resources with the verbs and query
 * parameters, tagged with x-kubernetes-group-version-kind. kubectl reads it to learn that the server validates
 * fields itself (`fieldValidation` on PATCH) instead of downloading schemas to validate client-side. Schemas are
 * not published.
 */
export function openApiDocument(types: ResourceType[], gitVersion: string): Obj {
  const paths: Obj = {}
  const queryParams = (names: string[]) =>
    names.map((name) => ({name, in: 'query', schema: {type: 'string'}, uniqueItems: true}))
  const writeParams = queryParams(['dryRun', 'fieldManager', 'fieldValidation', 'pretty'])
  for (const t of types) {
    const gvk = {group: t.group, version: t.version, kind: t.kind}
    const base = t.group ? `/apis/${t.group}/${t.version}` : `/api/${t.version}`
    const collection = t.namespaced ? `${base}/namespaces/{namespace}/${t.resource}` : `${base}/${t.resource}`
    const op = (action: string, parameters: Obj[]) => ({
      operationId: `${action}${t.kind}`,
      parameters,
      responses: {'200': {description: 'OK'}},
      'x-kubernetes-action': action,
      'x-kubernetes-group-version-kind': gvk,
    })
    paths[collection] = {
      get: op('list', queryParams(['labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'watch'])),
      post: op('post', writeParams),
    }
    paths[`${collection}/{name}`] = {
      get: op('get', []),
      put: op('put', writeParams),
      patch: op('patch', [...writeParams, ...queryParams(['force'])]),
      delete: op('delete', queryParams(['dryRun', 'gracePeriodSeconds', 'propagationPolicy'])),
    }
    for (const sub of t.subresources.filter((s) => s === 'status')) {
      paths[`${collection}/{name}/${sub}`] = {
        get: op('get', []),
        put: op('put', writeParams),
        patch: op('patch', [...writeParams, ...queryParams(['force'])]),
      }
    }
  }
  return {openapi: '3.0.0', info: {title: 'Kubernetes', version: gitVersion}, paths, components: {schemas: {}}}
}
