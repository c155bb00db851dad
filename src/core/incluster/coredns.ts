/**
 * CoreDNS in place of kube-dns, as Python xpk's `update_coredns_if_necessary` does on `cluster create`: where
 * kube-system has no `coredns` Deployment, the objects of coredns/deployment (src/templates/coredns.ts) are applied
 * with kube-dns's cluster IP, upstream nameservers and stub domains (what `deploy.sh` reads), `kube-dns-autoscaler`
 * and `kube-dns` are scaled to 0, and CoreDNS runs min(15, default-pool nodes) replicas (Python's count: the large
 * scale guide's 15 for 5,000 VMs). Large clusters resolve names faster and more reliably through CoreDNS. Nothing
 * is cloned or run: the objects are built here and applied through the Kubernetes API.
 */
import type {KubeObject} from '../kube/release-manifest.js'
import {
  COREDNS_CLUSTER_ROLE_RULES,
  COREDNS_CONTAINER,
  COREDNS_SELECTOR,
  COREFILE_TEMPLATE,
  STUB_DOMAIN_TEMPLATE,
} from '../../templates/coredns.js'

export const DNS_NAMESPACE = 'kube-system'
export const COREDNS_NAME = 'coredns'
export const KUBE_DNS_NAME = 'kube-dns'
/** Scaled to 0 in this order: the autoscaler first, or it scales kube-dns back up. */
export const KUBE_DNS_DEPLOYMENTS = ['kube-dns-autoscaler', 'kube-dns'] as const
/** Python's cap: the large-scale guide's CoreDNS replicas for 5,000 VMs. */
export const MAX_COREDNS_REPLICAS = 15

/** What `deploy.sh` reads from kube-dns: its Service's cluster IP and its ConfigMap's data. */
export interface KubeDnsSettings {
  readonly clusterIp: string
  /** `upstreamNameservers` of the kube-dns ConfigMap: a JSON list of addresses. */
  readonly upstreamNameservers?: string
  /** `stubDomains` of the kube-dns ConfigMap: JSON, domain to a list of addresses. */
  readonly stubDomains?: string
}

/** CoreDNS replicas for a cluster whose default pool has `defaultPoolNodes` nodes. */
export function coreDnsReplicas(defaultPoolNodes: number): number {
  return Math.min(MAX_COREDNS_REPLICAS, defaultPoolNodes)
}

/** The Corefile `deploy.sh` renders for these kube-dns settings. */
export function corefile(settings: Omit<KubeDnsSettings, 'clusterIp'>): string {
  // deploy.sh: `tr -d '[",]'` of the JSON list, so `["8.8.8.8", "8.8.4.4"]` forwards to `8.8.8.8 8.8.4.4`.
  const upstream = (settings.upstreamNameservers ?? '').replace(/[[\]",]/g, '').trim()
  const stubs = stubDomainBlocks(settings.stubDomains)
  return COREFILE_TEMPLATE.replace('UPSTREAMNAMESERVER', upstream === '' ? '/etc/resolv.conf' : upstream).replace(
    'STUBDOMAINS',
    stubs,
  )
}

/** Each stub domain's server block, forwarding to its first address (deploy.sh's `jq '.[dom][0]'`). */
function stubDomainBlocks(stubDomains: string | undefined): string {
  if (stubDomains === undefined || stubDomains.trim() === '') return ''
  let parsed: unknown
  try {
    parsed = JSON.parse(stubDomains)
  } catch {
    return ''
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return ''
  return Object.keys(parsed)
    .sort()
    .flatMap((domain) => {
      const first = (parsed as Record<string, unknown>)[domain]
      const address = Array.isArray(first) ? first[0] : undefined
      if (typeof address !== 'string') return []
      return [STUB_DOMAIN_TEMPLATE.replace('SD_DOMAIN', domain).replace('SD_DESTINATION', address)]
    })
    .join('\n')
}

/** Every object `deploy.sh | kubectl apply -f -` applies, in its order, with `replicas` CoreDNS pods. */
export function coreDnsObjects(settings: KubeDnsSettings, replicas: number): KubeObject[] {
  const ns = DNS_NAMESPACE
  const bootstrapping = {'kubernetes.io/bootstrapping': 'rbac-defaults'}
  return [
    {apiVersion: 'v1', kind: 'ServiceAccount', metadata: {name: COREDNS_NAME, namespace: ns}},
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: {labels: bootstrapping, name: 'system:coredns'},
      rules: COREDNS_CLUSTER_ROLE_RULES,
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: {
        annotations: {'rbac.authorization.kubernetes.io/autoupdate': 'true'},
        labels: bootstrapping,
        name: 'system:coredns',
      },
      roleRef: {apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:coredns'},
      subjects: [{kind: 'ServiceAccount', name: COREDNS_NAME, namespace: ns}],
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {name: COREDNS_NAME, namespace: ns},
      data: {Corefile: corefile(settings)},
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: COREDNS_NAME,
        namespace: ns,
        labels: {'k8s-app': 'kube-dns', 'kubernetes.io/name': 'CoreDNS', 'app.kubernetes.io/name': 'coredns'},
      },
      spec: {
        // The template leaves replicas out; Python scales it right after the apply.
        replicas,
        strategy: {type: 'RollingUpdate', rollingUpdate: {maxUnavailable: 1}},
        selector: {matchLabels: COREDNS_SELECTOR},
        template: {
          metadata: {labels: COREDNS_SELECTOR},
          spec: {
            priorityClassName: 'system-cluster-critical',
            serviceAccountName: COREDNS_NAME,
            tolerations: [{key: 'CriticalAddonsOnly', operator: 'Exists'}],
            nodeSelector: {'kubernetes.io/os': 'linux'},
            affinity: {
              podAntiAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: [
                  {
                    labelSelector: {matchExpressions: [{key: 'k8s-app', operator: 'In', values: ['kube-dns']}]},
                    topologyKey: 'kubernetes.io/hostname',
                  },
                ],
              },
            },
            containers: [COREDNS_CONTAINER],
            dnsPolicy: 'Default',
            volumes: [
              {name: 'config-volume', configMap: {name: COREDNS_NAME, items: [{key: 'Corefile', path: 'Corefile'}]}},
            ],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: KUBE_DNS_NAME,
        namespace: ns,
        annotations: {'prometheus.io/port': '9153', 'prometheus.io/scrape': 'true'},
        labels: {
          'k8s-app': 'kube-dns',
          'kubernetes.io/cluster-service': 'true',
          'kubernetes.io/name': 'CoreDNS',
          'app.kubernetes.io/name': 'coredns',
        },
      },
      spec: {
        selector: COREDNS_SELECTOR,
        clusterIP: settings.clusterIp,
        ports: [
          {name: 'dns', port: 53, protocol: 'UDP'},
          {name: 'dns-tcp', port: 53, protocol: 'TCP'},
          {name: 'metrics', port: 9153, protocol: 'TCP'},
        ],
      },
    },
  ]
}

/** A scale of a Deployment to 0, as server-side apply of its replicas alone (what `kubectl scale` changes). */
export function scaledToZero(name: string): KubeObject {
  return {apiVersion: 'apps/v1', kind: 'Deployment', metadata: {name, namespace: DNS_NAMESPACE}, spec: {replicas: 0}}
}
