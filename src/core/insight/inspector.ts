/**
 * The file `xpk inspector` writes for support: Python xpk's sections (section 7.7 of the behaviour reference), each
 * made from API reads instead of the output of a gcloud or kubectl command, with the Cloud Console links last.
 *
 * Secrets are kept out by construction: the only Kubernetes kinds read are {@link INSPECTED_KINDS} (Secret is not one
 * of them, and {@link requireInspectedKind} refuses any other before a request is made), an environment variable
 * taken from a Secret is only ever its reference (`valueFrom.secretKeyRef`, `envFrom.secretRef`: the API returns no
 * value and nothing here resolves one), and a literal value of a variable whose name says it holds a credential is
 * replaced by its length ({@link withoutSecrets}).
 */
import type {ObservedCluster} from '../cluster/observed.js'
import type {KubeObject} from '../kube/release-manifest.js'
import {toYaml} from '../manifests/to-yaml.js'
import {escapeControl, redactCredentials} from '../text.js'

/** The kinds `xpk inspector` reads from Kubernetes, by API group: nothing else, and never a Secret. */
export const INSPECTED_KINDS: Readonly<Record<string, readonly string[]>> = {
  '': ['ConfigMap', 'Node', 'Pod', 'Event'],
  apps: ['Deployment'],
  'kueue.x-k8s.io': ['ClusterQueue', 'LocalQueue', 'ResourceFlavor', 'Topology', 'Workload'],
  'jobset.x-k8s.io': ['JobSet'],
}

/**
 * Refuses a read of any kind {@link INSPECTED_KINDS} does not list, before it is sent: a later section that asks for
 * a Secret (or anything else) fails its tests instead of putting it in a file people send around.
 * @throws Error (a bug, not a user's mistake) for a kind outside the list
 */
export function requireInspectedKind(apiVersion: string, kind: string): void {
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.lastIndexOf('/')) : ''
  if (kind === 'Secret' || !(INSPECTED_KINDS[group] ?? []).includes(kind)) {
    throw new Error(`xpk inspector reads no ${kind} (${apiVersion}): only the kinds of INSPECTED_KINDS`)
  }
}

/** Names of environment variables whose literal values are credentials more often than not. */
const CREDENTIAL_NAME = /SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|AUTH/i

/** What a hidden value is replaced with. */
export function hiddenValue(value: string): string {
  return `<hidden by xpk inspector: ${value.length} characters>`
}

/**
 * The object as it is written in the file: without `metadata.managedFields` and kubectl's last-applied annotation
 * (bookkeeping, and a second copy of the spec), and with the literal value of every environment variable named like
 * a credential hidden, wherever an `env` list appears (a JobSet's pod templates, a Pod, a Deployment). References
 * to Secrets stay what they are: references, with no value.
 */
export function withoutSecrets(object: KubeObject): KubeObject {
  const copy = scrub(object) as KubeObject
  const metadata = {...copy.metadata}
  delete metadata.managedFields
  const annotations = metadata.annotations
  if (annotations && typeof annotations === 'object') {
    const rest = {...(annotations as Record<string, unknown>)}
    delete rest['kubectl.kubernetes.io/last-applied-configuration']
    metadata.annotations = rest
    if (Object.keys(rest).length === 0) delete metadata.annotations
  }
  return {...copy, metadata}
}

function scrub(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) {
    return value.map((item) => {
      if (key === 'env' && item && typeof item === 'object') {
        const variable = item as Record<string, unknown>
        if (
          typeof variable.name === 'string' &&
          typeof variable.value === 'string' &&
          CREDENTIAL_NAME.test(variable.name)
        ) {
          return {...variable, value: hiddenValue(variable.value)}
        }
      }
      return scrub(item)
    })
  }
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrub(v, k)]))
  }
  return value
}

/** Objects as YAML documents, each without secrets, or a line saying there is none. */
export function objectsText(objects: readonly KubeObject[], none: string): string {
  if (objects.length === 0) return none
  return objects.map((o) => toYaml(withoutSecrets(o)).trimEnd()).join('\n---\n')
}

/** One section of the file: what it holds, where it was read, and what was read (or why it could not be). */
export interface InspectorSection {
  /** Python xpk's "Command Description" (`Kueue: ClusterQueue Details`). */
  readonly title: string
  /** The reads it was made from, in place of Python's command (`Kubernetes API: list ClusterQueue (kueue...)`). */
  readonly source: string
  readonly body: string
  /** Why it could not be read; the body then says it too. */
  readonly error: string | null
}

/** A Cloud Console link of the file, as Python xpk lists them. */
export interface InspectorLink {
  readonly description: string
  readonly url: string
}

/** Python xpk's separator between entries. */
export const SPACER = '========================================================'

/**
 * The whole file: Python's banner, what it is about, then each section (`Source`, `Description`, the body) and each
 * link between spacers. The text of every section is made safe to print on a terminal (`--print-to-terminal`):
 * control characters escaped, credentials in URLs hidden.
 */
export function renderInspectorFile(
  about: {readonly header: readonly string[]},
  sections: readonly InspectorSection[],
  links: readonly InspectorLink[],
): string {
  const parts = ['==================\nXPK inspector OUTPUT:\n==================', about.header.join('\n'), SPACER]
  for (const s of sections) {
    parts.push(`Source: ${s.source}\nDescription: ${s.title}\n\n${s.body.trimEnd()}\n${SPACER}`)
  }
  for (const l of links) parts.push(`Link Description: ${l.description}\nLink: ${l.url}\n${SPACER}`)
  return escapeControl(redactCredentials(`${parts.join('\n')}\n`))
}

/** A section that could not be read: its body says why. */
export function unreadSection(title: string, source: string, error: string): InspectorSection {
  return {title, source, body: `Could not be read: ${error}`, error}
}

/**
 * Python xpk's links: the cluster's page, all its workloads, IAM, quotas, and with a workload, its page. Every part
 * of a path is percent-encoded (names come from flags and settings).
 */
export function inspectorLinks(place: {
  readonly project: string
  readonly location: string
  readonly cluster: string
  readonly workload: string | null
}): InspectorLink[] {
  const q = encodeURIComponent
  const project = q(place.project)
  const links: InspectorLink[] = [
    {
      description: 'Cloud Console for the GKE Cluster',
      url: `https://console.cloud.google.com/kubernetes/clusters/details/${q(place.location)}/${q(place.cluster)}/details?project=${project}`,
    },
    {
      description: 'Cloud Console for all workloads in GKE Cluster',
      url: `https://console.cloud.google.com/kubernetes/workload/overview?project=${project}&pageState=((gke%2F${q(place.location)}%2F${q(place.cluster)}))`,
    },
    {
      description: 'Cloud Console for IAM Permissions',
      url: `https://console.cloud.google.com/iam-admin/iam?project=${project}`,
    },
    {
      description: 'Cloud Console for Quotas',
      url: `https://console.cloud.google.com/iam-admin/quotas?project=${project}`,
    },
  ]
  if (place.workload !== null) {
    links.push({
      description: `Cloud Console for the workload ${place.workload}`,
      url: `https://console.cloud.google.com/kubernetes/service/${q(place.location)}/${q(place.cluster)}/default/${q(place.workload)}/details?project=${project}`,
    })
  }
  return links
}

/** Python's "All Nodes": each node's name, Ready status and node pool (and machine type), sorted by name. */
export function nodesTable(nodes: readonly KubeObject[]): Array<[string, string, string | null, string | null]> {
  return nodes
    .map((node): [string, string, string | null, string | null] => {
      const labels = (node.metadata.labels ?? {}) as Record<string, unknown>
      const conditions = (((node.status ?? {}) as Record<string, unknown>).conditions ?? []) as unknown[]
      const ready = conditions.map((c) => (c ?? {}) as Record<string, unknown>).find((c) => c.type === 'Ready')?.status
      return [
        node.metadata.name,
        typeof ready === 'string' ? ready : 'Unknown',
        typeof labels['cloud.google.com/gke-nodepool'] === 'string' ? labels['cloud.google.com/gke-nodepool'] : null,
        typeof labels['node.kubernetes.io/instance-type'] === 'string'
          ? labels['node.kubernetes.io/instance-type']
          : null,
      ]
    })
    .sort((a, b) => a[0].localeCompare(b[0]))
}

/** The GKE facts of the cluster as the file shows them, without its CA certificate (noise, and not for support). */
export function clusterForFile(cluster: ObservedCluster): ObservedCluster {
  return {...cluster, caCertificate: cluster.caCertificate ? '<present>' : null}
}

/** Log text with each line prefixed by where it came from, as `kubectl logs --prefix` does. */
export function prefixedLog(prefix: string, text: string): string {
  const lines = text.replace(/\n$/, '').split('\n')
  return lines.map((line) => `${prefix} ${line}`).join('\n')
}
