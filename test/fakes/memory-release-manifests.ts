// An in-memory ReleaseManifestSource: small but realistic JobSet and Kueue release manifests (namespace, CRDs,
// RBAC, the webhook Service, the controller Deployment with its `manager` container and the release's image tag,
// webhook configurations), rendered to YAML and parsed back as the real source does, with every load counted.
// `releaseObjects` builds the same objects for any version, so tests can seed a cluster with an older release.
import {UsageError} from '../../src/core/errors.js'
import {parseManifest} from '../../src/core/kube/manifest-yaml.js'
import {RELEASES, type KubeObject, type ReleaseComponent} from '../../src/core/kube/release-manifest.js'
import {toYamlDocuments} from '../../src/core/manifests/to-yaml.js'
import type {
  LoadReleaseManifestOptions,
  ReleaseManifest,
  ReleaseManifestSource,
} from '../../src/ports/release-manifests.js'

/** The kinds of Kueue's CRDs in these manifests, with their scope: every kind xpk configures, and Workload. */
const KUEUE_KINDS: readonly {kind: string; plural: string; namespaced: boolean}[] = [
  {kind: 'AdmissionCheck', plural: 'admissionchecks', namespaced: false},
  {kind: 'ClusterQueue', plural: 'clusterqueues', namespaced: false},
  {kind: 'LocalQueue', plural: 'localqueues', namespaced: true},
  {kind: 'ProvisioningRequestConfig', plural: 'provisioningrequestconfigs', namespaced: false},
  {kind: 'ResourceFlavor', plural: 'resourceflavors', namespaced: false},
  {kind: 'Topology', plural: 'topologies', namespaced: false},
  {kind: 'Workload', plural: 'workloads', namespaced: true},
]

/** Names of the Kueue CRDs in these manifests (`clusterqueues.kueue.x-k8s.io`, ...). */
export const KUEUE_CRD_NAMES = KUEUE_KINDS.map((k) => `${k.plural}.${RELEASES.kueue.group}`)

/** Kueue before v0.15 served only v1beta1; from v0.15 on v1beta2 is the storage version and v1beta1 is deprecated. */
function kueueVersions(version: string): {name: string; served: boolean; storage: boolean; deprecated?: boolean}[] {
  const [, minor] = /^v?0\.(\d+)\./.exec(version) ?? []
  if (minor !== undefined && Number(minor) < 15) return [{name: 'v1beta1', served: true, storage: true}]
  return [
    {name: 'v1beta1', served: true, storage: false, deprecated: true},
    {name: 'v1beta2', served: true, storage: true},
  ]
}

function crd(
  group: string,
  names: {kind: string; plural: string; namespaced: boolean},
  versions: readonly {name: string; served: boolean; storage: boolean; deprecated?: boolean}[],
): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {name: `${names.plural}.${group}`, annotations: {'controller-gen.kubebuilder.io/version': 'v0.17.2'}},
    spec: {
      group,
      names: {
        kind: names.kind,
        listKind: `${names.kind}List`,
        plural: names.plural,
        singular: names.kind.toLowerCase(),
      },
      scope: names.namespaced ? 'Namespaced' : 'Cluster',
      versions: versions.map((v) => ({
        name: v.name,
        served: v.served,
        storage: v.storage,
        ...(v.deprecated ? {deprecated: true} : {}),
        schema: {openAPIV3Schema: {type: 'object', 'x-kubernetes-preserve-unknown-fields': true}},
        subresources: {status: {}},
      })),
    },
  }
}

/** The objects of `component`'s release manifest at `version` (the version xpk installs by default). */
export function releaseObjects(component: ReleaseComponent, version = RELEASES[component].version): KubeObject[] {
  const release = RELEASES[component]
  const {namespace, name: deploymentName} = release.controller
  const prefix = component
  const labels = {'app.kubernetes.io/name': component, 'control-plane': 'controller-manager'}
  const crds =
    component === 'kueue'
      ? KUEUE_KINDS.map((k) => crd(release.group, k, kueueVersions(version)))
      : [
          crd(release.group, {kind: 'JobSet', plural: 'jobsets', namespaced: true}, [
            {name: 'v1alpha2', served: true, storage: true},
          ]),
        ]
  const service = `${prefix}-webhook-service`
  const webhook = (kind: 'Mutating' | 'Validating') => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: `${kind}WebhookConfiguration`,
    metadata: {name: `${prefix}-${kind.toLowerCase()}-webhook-configuration`},
    webhooks: crds.map((c) => {
      const spec = c.spec as {names: {plural: string; singular: string}}
      return {
        admissionReviewVersions: ['v1'],
        clientConfig: {service: {name: service, namespace, path: `/${kind.toLowerCase()}-${spec.names.singular}`}},
        failurePolicy: 'Fail',
        name: `${kind === 'Mutating' ? 'm' : 'v'}${spec.names.singular}.${release.group}`,
        rules: [
          {
            apiGroups: [release.group],
            apiVersions: ['*'],
            operations: kind === 'Mutating' ? ['CREATE'] : ['CREATE', 'UPDATE'],
            resources: [spec.names.plural],
          },
        ],
        sideEffects: 'None',
      }
    }),
  })
  return [
    {apiVersion: 'v1', kind: 'Namespace', metadata: {name: namespace, labels: {'control-plane': 'controller-manager'}}},
    ...crds,
    {apiVersion: 'v1', kind: 'ServiceAccount', metadata: {name: `${prefix}-controller-manager`, namespace}},
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: {name: `${prefix}-manager-role`},
      rules: [
        {
          apiGroups: [''],
          resources: ['pods', 'nodes', 'events'],
          verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
        },
        {apiGroups: [release.group], resources: ['*'], verbs: ['*']},
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: {name: `${prefix}-manager-rolebinding`},
      roleRef: {apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${prefix}-manager-role`},
      subjects: [{kind: 'ServiceAccount', name: `${prefix}-controller-manager`, namespace}],
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {name: service, namespace},
      spec: {
        ports: [{port: 443, protocol: 'TCP', targetPort: 9443}],
        selector: {'control-plane': 'controller-manager'},
      },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {name: deploymentName, namespace, labels},
      spec: {
        replicas: 1,
        selector: {matchLabels: {'control-plane': 'controller-manager'}},
        template: {
          metadata: {annotations: {'kubectl.kubernetes.io/default-container': 'manager'}, labels},
          spec: {
            containers: [
              {
                name: 'manager',
                image: `registry.k8s.io/${component}/${component}:${version}`,
                command: ['/manager'],
                args: ['--config=/controller_manager_config.yaml', '--zap-log-level=2'],
                ports: [{containerPort: 9443, name: 'webhook-server', protocol: 'TCP'}],
                livenessProbe: {httpGet: {path: '/healthz', port: 8081}, initialDelaySeconds: 15, periodSeconds: 20},
                readinessProbe: {httpGet: {path: '/readyz', port: 8081}, initialDelaySeconds: 5, periodSeconds: 10},
                resources: {limits: {cpu: '2', memory: '512Mi'}, requests: {cpu: '500m', memory: '128Mi'}},
                securityContext: {allowPrivilegeEscalation: false},
                volumeMounts: [{mountPath: '/tmp/k8s-webhook-server/serving-certs', name: 'cert', readOnly: true}],
              },
            ],
            securityContext: {runAsNonRoot: true},
            serviceAccountName: `${prefix}-controller-manager`,
            terminationGracePeriodSeconds: 10,
            volumes: [{name: 'cert', secret: {defaultMode: 420, secretName: `${prefix}-webhook-server-cert`}}],
          },
        },
      },
    },
    webhook('Mutating'),
    webhook('Validating'),
  ]
}

/** Serves the manifests of {@link releaseObjects}; overrides are files or URLs given by the test, by name. */
export class MemoryReleaseManifests implements ReleaseManifestSource {
  /** Every load, in order, with the override asked for. */
  readonly loads: {component: ReleaseComponent; override?: string}[] = []

  constructor(
    private readonly versions: Partial<Record<ReleaseComponent, string>> = {},
    private readonly overrides: Readonly<Record<string, readonly KubeObject[]>> = {},
  ) {}

  async load(component: ReleaseComponent, options: LoadReleaseManifestOptions = {}): Promise<ReleaseManifest> {
    this.loads.push(options.override === undefined ? {component} : {component, override: options.override})
    const flag = RELEASES[component].overrideFlag
    if (options.override !== undefined) {
      const objects = this.overrides[options.override]
      if (objects === undefined) throw new UsageError(`${flag}: ${options.override} does not exist.`, {flag})
      const text = toYamlDocuments(objects)
      return {text, objects: parseManifest(text, options.override), source: options.override, origin: 'override-file'}
    }
    const release = RELEASES[component]
    const text = toYamlDocuments(releaseObjects(component, this.versions[component] ?? release.version))
    return {text, objects: parseManifest(text, release.url), source: release.url, origin: 'cache'}
  }

  /** How many times `component`'s manifest was loaded. */
  loadsOf(component: ReleaseComponent): number {
    return this.loads.filter((l) => l.component === component).length
  }
}
