/**
 * CoreDNS as Python xpk deploys it: the objects of coredns/deployment's `kubernetes/coredns.yaml.sed` (commit
 * 7853d4a, January 2025), which Python's `update_coredns` clones and renders with `deploy.sh` (its defaults: cluster
 * domain `cluster.local`, every reverse zone, upstream `/etc/resolv.conf` unless kube-dns's ConfigMap names
 * upstream nameservers, and kube-dns's stub domains). Static data: the builder in src/core/incluster/coredns.ts fills
 * in the cluster DNS IP, the upstream, the stub domains and the replica count.
 */

/** The Corefile with `deploy.sh`'s placeholders: UPSTREAMNAMESERVER and STUBDOMAINS. */
export const COREFILE_TEMPLATE = `.:53 {
    errors
    health {
      lameduck 5s
    }
    ready
    kubernetes cluster.local in-addr.arpa ip6.arpa {
      fallthrough in-addr.arpa ip6.arpa
    }
    prometheus :9153
    forward . UPSTREAMNAMESERVER {
      max_concurrent 1000
    }
    cache 30
    loop
    reload
    loadbalance
}STUBDOMAINS
`

/** One stub domain's server block, as `deploy.sh` writes it (SD_DOMAIN, SD_DESTINATION). */
export const STUB_DOMAIN_TEMPLATE = `
    SD_DOMAIN:53 {
      errors
      cache 30
      loop
      forward . SD_DESTINATION {
        max_concurrent 1000
      }
    }`

export const COREDNS_IMAGE = 'coredns/coredns:1.9.4'

export const COREDNS_CLUSTER_ROLE_RULES = [
  {apiGroups: [''], resources: ['endpoints', 'services', 'pods', 'namespaces'], verbs: ['list', 'watch']},
  {apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch']},
]

/** The pod labels CoreDNS's Deployment selects and the kube-dns Service sends to. */
export const COREDNS_SELECTOR = {'k8s-app': 'kube-dns', 'app.kubernetes.io/name': 'coredns'}

/** The `coredns` container of the Deployment, as the template writes it. */
export const COREDNS_CONTAINER = {
  name: 'coredns',
  image: COREDNS_IMAGE,
  imagePullPolicy: 'IfNotPresent',
  resources: {limits: {memory: '170Mi'}, requests: {cpu: '100m', memory: '70Mi'}},
  args: ['-conf', '/etc/coredns/Corefile'],
  volumeMounts: [{name: 'config-volume', mountPath: '/etc/coredns', readOnly: true}],
  ports: [
    {containerPort: 53, name: 'dns', protocol: 'UDP'},
    {containerPort: 53, name: 'dns-tcp', protocol: 'TCP'},
    {containerPort: 9153, name: 'metrics', protocol: 'TCP'},
  ],
  securityContext: {
    allowPrivilegeEscalation: false,
    capabilities: {add: ['NET_BIND_SERVICE'], drop: ['all']},
    readOnlyRootFilesystem: true,
  },
  livenessProbe: {
    httpGet: {path: '/health', port: 8080, scheme: 'HTTP'},
    initialDelaySeconds: 60,
    timeoutSeconds: 5,
    successThreshold: 1,
    failureThreshold: 5,
  },
  readinessProbe: {httpGet: {path: '/ready', port: 8181, scheme: 'HTTP'}},
}
