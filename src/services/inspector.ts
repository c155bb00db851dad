import {join} from 'node:path'

import type {ObservedCluster} from '../core/cluster/observed.js'
import {UsageError, XpkError} from '../core/errors.js'
import {metadataConfigMapName, resourcesConfigMapName} from '../core/incluster/configmaps.js'
import {controllerState, nodeHealth, poolNodes} from '../core/incluster/describe.js'
import {XPK_NAMESPACE} from '../core/incluster/namespace.js'
import {
  inspectorLinks,
  nodesTable,
  objectsText,
  prefixedLog,
  renderInspectorFile,
  requireInspectedKind,
  unreadSection,
  type InspectorLink,
  type InspectorSection,
} from '../core/insight/inspector.js'
import {queueInfo} from '../core/insight/queues.js'
import {RELEASES} from '../core/kube/release-manifest.js'
import {inspectorWritten, inspectorSectionsUnread} from '../core/messages/insight.js'
import {renderClusterDetails} from '../core/render/clusters.js'
import {renderQueueInfo} from '../core/render/info.js'
import {renderTable} from '../core/render/table.js'
import {renderWorkloadList} from '../core/render/workloads.js'
import {renderWorkloadDescription} from '../core/render/workload-describe.js'
import type {Timing} from '../core/timing.js'
import {JOBSET_API_VERSION, KUEUE_API_VERSION} from '../core/versions.js'
import {describeWorkload, readEvent} from '../core/workload/describe.js'
import {JOBSET_NAME_LABEL, jobSetRef, requireWorkloadName} from '../core/workload/jobsets.js'
import {JOBSET_KIND, WORKLOAD_KIND, readJobSet, readWorkload} from '../core/workload/observed.js'
import {pickWorkload, workloadRows} from '../core/workload/status.js'
import {readPod} from '../core/workload/why-observed.js'
import {retrying, type RetryOptions} from '../executor/retry.js'
import type {Console} from '../ports/console.js'
import type {LocalFiles} from '../ports/files.js'
import type {KubeClient, KubeListAllOptions, KubeObject, KubeRef} from '../ports/kube.js'
import {requireCluster, type ClusterName} from './cluster-lookup.js'
import {checkInput, listAll, type ClusterAccessDeps, type WorkloadTarget} from './workload-cluster.js'

/** What this machine runs, for the file's first sections (Python: `gcloud version`, `gcloud config get`). */
export interface LocalSetup {
  readonly xpkVersion: string
  readonly nodeVersion: string
  readonly platform: string
  /** The settings as resolved, each with where it came from (flag, environment, xpk config, gcloud). */
  readonly settings: ReadonlyArray<{readonly key: string; readonly value: string; readonly origin: string}>
}

export interface InspectorOptions extends WorkloadTarget {
  /** `--workload`: its JobSet, Kueue Workload, pods and events too. */
  readonly workload?: string
  /** `--print-to-terminal`: the file's text on stdout as well. */
  readonly printToTerminal?: boolean
  readonly timing: Pick<Timing, 'retry'>
  readonly local: LocalSetup
  /** The directory the file is written in (the system's temporary directory). */
  readonly directory: string
}

export interface InspectorDeps extends ClusterAccessDeps {
  readonly console: Console
  readonly files: Pick<LocalFiles, 'writeText'>
}

export interface InspectorResult {
  /** The file written. */
  readonly file: string
  /** Every section, in the file's order, and why one could not be read (null when it was). */
  readonly sections: ReadonlyArray<{readonly title: string; readonly source: string; readonly error: string | null}>
  readonly links: readonly InspectorLink[]
}

/** Attempts per in-cluster read, as `cluster describe`: a support tool must not hang on a control plane that is down. */
const IN_CLUSTER_READ_ATTEMPTS = 3
/** Lines of each controller's log, as Python's `kubectl logs --tail=100`. */
const CONTROLLER_LOG_LINES = 100
/** GKE's slice controller (super-slicing), as Python xpk inspects it. */
const SLICE_CONTROLLER = {namespace: 'slice-controller-system', name: 'slice-controller-controller-manager'}

/**
 * `xpk inspector`: one file with what support asks for, made by reads only: the cluster and its node pools from GKE,
 * then from inside the cluster the xpk ConfigMaps, the nodes and their pools, Kueue's queues and flavors, the JobSet,
 * Kueue (and slice) controllers with their last log lines, every workload, and with `--workload` its JobSet, Kueue
 * Workload, pods and events; the Cloud Console links last. A section that cannot be read says why in the file, and
 * the others are still written (a warning lists them): the file is most needed when the cluster is unwell.
 * @throws UsageErrors for bad input, before any request; XpkError `not-found` when GKE has no such cluster
 */
export async function inspector(options: InspectorOptions, deps: InspectorDeps): Promise<InspectorResult> {
  const workload = checkInput(options, () =>
    options.workload === undefined ? null : requireWorkloadName(options.workload),
  )
  const retry: RetryOptions = {policy: options.timing.retry, clock: deps, signal: deps.signal}
  const cluster = options.viaKubeconfig ? null : await requireCluster(deps.gke, options as ClusterName, retry)
  const inside = await connect(cluster, deps)
  const reads = new Reads(inside, {
    policy: {...options.timing.retry, attempts: Math.min(options.timing.retry.attempts, IN_CLUSTER_READ_ATTEMPTS)},
    clock: deps,
    signal: deps.signal,
  })
  const section = async (title: string, source: string, make: () => Promise<string>): Promise<InspectorSection> => {
    try {
      return {title, source, body: await make(), error: null}
    } catch (error) {
      // What the cluster (or the way to it) answered goes in the file; an abort or a bug stays what it is.
      if (!(error instanceof XpkError) || error instanceof UsageError || deps.signal.aborted) throw error
      return unreadSection(title, source, error.message)
    }
  }
  const sections = await Promise.all([
    section('Local Setup: xpk version', 'this machine', async () => localVersions(options.local)),
    section(
      'Local Setup: Project / Zone / Region',
      'xpk settings (flag > environment > xpk config > gcloud)',
      async () =>
        renderTable(
          ['setting', 'value', 'from'],
          options.local.settings.map((s) => [s.key, s.value, s.origin]),
        ),
    ),
    section('GKE: Cluster and Node pool Details', gkeSource(options), async () => gkeDetails(cluster)),
    ...[metadataConfigMapName, resourcesConfigMapName].map((name, i) =>
      section(
        `GKE: Cluster ${i === 0 ? 'Metadata' : 'Resources'} ConfigMap Details`,
        `Kubernetes API: get ConfigMap ${XPK_NAMESPACE}/${name(options.cluster ?? '<cluster>')}`,
        async () => {
          if (options.cluster === undefined)
            return 'Not read: reached through a kubeconfig, the cluster has no name here.'
          const found = await reads.get({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            namespace: XPK_NAMESPACE,
            name: name(options.cluster),
          })
          return found ? objectsText([found], '') : 'None: xpk has not configured this cluster (no such ConfigMap).'
        },
      ),
    ),
    section('Kubernetes: Nodes, and Nodes per Node Pool', 'Kubernetes API: list Node', async () => {
      const nodes = await reads.list('v1', 'Node')
      const perPool = poolNodes(cluster?.nodePools ?? null, nodes.map(nodeHealth))
      const all =
        nodes.length === 0 ? 'No node.' : renderTable(['node', 'ready', 'node pool', 'machine type'], nodesTable(nodes))
      const pools = renderTable(
        ['node pool', 'expected', 'ready', 'total'],
        perPool.map((p) => [p.name, p.expected, p.ready, p.total]),
      )
      return `${all}\n\n${perPool.length === 0 ? 'No node is in a node pool.' : pools}`
    }),
    section(
      'Kueue: Queues usage (xpk info)',
      `Kubernetes API: list ClusterQueue, LocalQueue (${KUEUE_API_VERSION})`,
      async () => {
        const [cqs, lqs] = await Promise.all([
          reads.list(KUEUE_API_VERSION, 'ClusterQueue'),
          reads.list(KUEUE_API_VERSION, 'LocalQueue'),
        ])
        const text = renderQueueInfo(queueInfo({local: true, cluster: true}, cqs, lqs), {wide: true, headers: true})
        return `${text}\n\nClusterQueues:\n${objectsText(cqs, 'None.')}\n\nLocalQueues:\n${objectsText(lqs, 'None.')}`
      },
    ),
    section(
      'Kueue: ResourceFlavor and Topology Details',
      `Kubernetes API: list ResourceFlavor, Topology (${KUEUE_API_VERSION})`,
      async () => {
        const [flavors, topologies] = await Promise.all([
          reads.list(KUEUE_API_VERSION, 'ResourceFlavor'),
          reads.list(KUEUE_API_VERSION, 'Topology'),
        ])
        const slicing = topologies.map((t) => t.metadata.name)
        const setUp = [
          ...(slicing.includes('sub-slice-topology') ? ['Sub-slicing topology set up.'] : []),
          ...(slicing.includes('super-slice-topology') ? ['Super-slicing topology set up.'] : []),
        ]
        return [
          ...setUp,
          `ResourceFlavors:\n${objectsText(flavors, 'None.')}`,
          `Topologies:\n${objectsText(topologies, 'None.')}`,
        ].join('\n\n')
      },
    ),
    controllerSections('Kueue', RELEASES.kueue.controller, reads, section, true),
    controllerSections('Jobset', RELEASES.jobset.controller, reads, section, true),
    controllerSections('Slice Controller', SLICE_CONTROLLER, reads, section, false),
    section(
      'xpk workload list --filter-by-status=EVERYTHING',
      `Kubernetes API: list JobSet (${JOBSET_API_VERSION}), Workload (${KUEUE_API_VERSION}) in ${XPK_NAMESPACE}`,
      async () => {
        const [workloads, jobsets] = await Promise.all([
          reads.list(KUEUE_API_VERSION, WORKLOAD_KIND, {namespace: XPK_NAMESPACE}),
          reads.list(JOBSET_API_VERSION, JOBSET_KIND, {namespace: XPK_NAMESPACE}),
        ])
        const rows = workloadRows(workloads.map(readWorkload), jobsets.map(readJobSet))
        return rows.length === 0 ? 'No workload.' : renderWorkloadList(rows, {wide: true, headers: true})
      },
    ),
    ...(workload === null ? [] : workloadSections(workload, cluster, options, reads, deps, section)),
  ])
  // A section may stand for several (the controllers' pair): flatten.
  const all = sections.flat()
  const links =
    cluster === null
      ? []
      : inspectorLinks({project: cluster.project, location: cluster.location, cluster: cluster.name, workload})
  const header = [
    `xpk ${options.local.xpkVersion} inspector, ${new Date(deps.now()).toISOString()}`,
    cluster
      ? `Cluster ${cluster.name} (project ${cluster.project}, location ${cluster.location})`
      : `The cluster of the kubeconfig (${inside.kube?.target ?? 'not reached'}); GKE was not asked`,
    ...(workload === null ? [] : [`Workload ${workload}`]),
    'No Secret is read, no value of one is resolved, and literal values of variables named like credentials are hidden.',
  ]
  const text = renderInspectorFile({header}, all, links)
  const file = join(options.directory, fileName(cluster?.name ?? 'kubeconfig', deps.now()))
  await deps.files.writeText(file, text)
  if (options.printToTerminal) deps.console.result(text.trimEnd())
  const unread = all.filter((s) => s.error !== null)
  if (unread.length > 0) deps.console.warn(inspectorSectionsUnread({file, sections: unread.map((s) => s.title)}))
  deps.console.info(inspectorWritten({file, bytes: Buffer.byteLength(text)}))
  deps.console.result(
    [...links.map((l) => `${l.description}: ${l.url}`), `Find xpk inspector output file: ${file}`].join('\n'),
  )
  return {file, sections: all.map((s) => ({title: s.title, source: s.source, error: s.error})), links}
}

type Section = (title: string, source: string, make: () => Promise<string>) => Promise<InspectorSection>

/** The cluster's Kubernetes API, or why it could not be reached (then every inside section says so). */
interface Inside {
  readonly kube: KubeClient | null
  readonly error: string | null
}

async function connect(cluster: ObservedCluster | null, deps: InspectorDeps): Promise<Inside> {
  try {
    return {kube: await deps.kube(cluster ?? undefined), error: null}
  } catch (error) {
    if (!(error instanceof XpkError) || error instanceof UsageError || deps.signal.aborted) throw error
    return {kube: null, error: error.message}
  }
}

/**
 * The only way the inspector reads the cluster: each read's kind is checked against the kinds the inspector may
 * read (never a Secret) before it is sent, and goes through the retry policy.
 */
class Reads {
  constructor(
    private readonly inside: Inside,
    private readonly retry: RetryOptions,
  ) {}

  private kube(): KubeClient {
    if (!this.inside.kube) throw new XpkError('unavailable', `The cluster could not be reached: ${this.inside.error}`)
    return this.inside.kube
  }

  async get(ref: KubeRef): Promise<KubeObject | undefined> {
    requireInspectedKind(ref.apiVersion, ref.kind)
    const kube = this.kube()
    return retrying(this.retry)(() => kube.get(ref))
  }

  async list(apiVersion: string, kind: string, options: Omit<KubeListAllOptions, 'retry'> = {}): Promise<KubeObject[]> {
    requireInspectedKind(apiVersion, kind)
    return listAll(this.kube(), apiVersion, kind, options, this.retry)
  }

  /** The last lines of a container's log; a log that cannot be read (the container not started) says why. */
  async logTail(namespace: string, pod: string, container: string): Promise<string> {
    const kube = this.kube()
    let text = ''
    try {
      const found = await kube.logs(
        namespace,
        pod,
        {container, tailLines: CONTROLLER_LOG_LINES, signal: this.retry.signal},
        (chunk) => (text += chunk),
      )
      if (found === 'absent') return `[pod/${pod}/${container}] (the pod is gone)`
    } catch (error) {
      if (!(error instanceof XpkError) || this.retry.signal.aborted) throw error
      return `[pod/${pod}/${container}] (log not readable: ${error.message})`
    }
    return text === '' ? `[pod/${pod}/${container}] (empty log)` : prefixedLog(`[pod/${pod}/${container}]`, text)
  }
}

function localVersions(local: LocalSetup): string {
  return `xpk ${local.xpkVersion}\nNode.js ${local.nodeVersion}\n${local.platform}`
}

function gkeSource(options: InspectorOptions): string {
  return options.viaKubeconfig
    ? 'not asked (the cluster is reached through a kubeconfig)'
    : `GKE API: get cluster ${options.cluster} in project ${options.project} (zone ${options.zone} or its region)`
}

function gkeDetails(cluster: ObservedCluster | null): string {
  if (cluster === null) return 'Not asked: the cluster is reached through a kubeconfig.'
  const details = renderClusterDetails(cluster, {wide: true, headers: true})
  const messages = [
    ...(cluster.statusMessage ? [`Cluster: ${cluster.statusMessage}`] : []),
    ...cluster.nodePools.filter((p) => p.statusMessage).map((p) => `Node pool ${p.name}: ${p.statusMessage}`),
  ]
  return messages.length === 0 ? details : `${details}\n\nStatus messages:\n${messages.join('\n')}`
}

/**
 * A controller's two sections, as Python's `kubectl describe deployment` and `kubectl logs --tail=100 --prefix`: its
 * Deployment (with its pods' state), then the last log lines of each of its pods' manager container. A controller
 * that is not installed is said so in one line; the slice controller, only present on super-slicing clusters, is
 * left out then (`always` false), as Python does.
 */
async function controllerSections(
  label: string,
  where: {readonly namespace: string; readonly name: string},
  reads: Reads,
  section: Section,
  always: boolean,
): Promise<InspectorSection[]> {
  const ref = {apiVersion: 'apps/v1', kind: 'Deployment', ...where}
  const reading = reads.get(ref)
  // Read once for both sections; a failure is each section's to report.
  const found = await reading.catch(() => undefined)
  if (!found && !always) return []
  const notInstalled = `Not installed: no Deployment ${where.namespace}/${where.name}.`
  const pods = found ? controllerPods(found, reads) : Promise.resolve([])
  pods.catch(() => undefined)
  const details = section(
    `${label}: Deployment Details`,
    `Kubernetes API: get Deployment ${where.namespace}/${where.name}`,
    async () => {
      const deployment = await reading
      if (!deployment) return notInstalled
      const state = controllerState(deployment)
      const podRows = (await pods).map((p) => {
        const r = readPod(p)
        return [r.name, r.phase, r.nodeName, r.containers.reduce((n, c) => n + c.restarts, 0)]
      })
      return [
        `Version ${state.version ?? 'unknown'}, image ${state.image ?? 'unknown'}, ${state.available ? 'Available' : 'not Available'}`,
        podRows.length === 0 ? 'No pod.' : renderTable(['pod', 'phase', 'node', 'restarts'], podRows),
        objectsText([deployment], ''),
      ].join('\n\n')
    },
  )
  const logs = section(
    `${label} Manager Logs`,
    `Kubernetes API: the last ${CONTROLLER_LOG_LINES} log lines of each pod of Deployment ${where.namespace}/${where.name}`,
    async () => {
      if (!(await reading)) return notInstalled
      const all = await pods
      if (all.length === 0) return 'No pod.'
      const tails = await Promise.all(
        all.map((p) => reads.logTail(where.namespace, p.metadata.name, managerContainer(p))),
      )
      return tails.join('\n')
    },
  )
  return Promise.all([details, logs])
}

/** The pods of a Deployment, by its selector's labels, sorted by name. */
async function controllerPods(deployment: KubeObject, reads: Reads): Promise<KubeObject[]> {
  const selector = (((deployment.spec ?? {}) as Record<string, unknown>).selector ?? {}) as Record<string, unknown>
  const labels = (selector.matchLabels ?? {}) as Record<string, unknown>
  const labelSelector = Object.entries(labels)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(',')
  if (labelSelector === '') return []
  const pods = await reads.list('v1', 'Pod', {namespace: deployment.metadata.namespace, labelSelector})
  return pods.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))
}

/** The container whose log is read: the controllers' `manager` (what both releases call it), else the first. */
function managerContainer(pod: KubeObject): string {
  const containers = ((((pod.spec ?? {}) as Record<string, unknown>).containers ?? []) as Array<{name?: unknown}>).map(
    (c) => String(c.name),
  )
  return containers.includes('manager') ? 'manager' : (containers[0] ?? 'manager')
}

/**
 * With `--workload`: `workload describe`'s view of it (wide), then its JobSet, its Kueue Workload (Kueue's, found by
 * the JobSet's uid), its pods, and every event about any of them.
 */
function workloadSections(
  name: string,
  cluster: ObservedCluster | null,
  options: InspectorOptions,
  reads: Reads,
  deps: InspectorDeps,
  section: Section,
): Array<Promise<InspectorSection>> {
  const read = (async () => {
    const [jobsetObject, pods, events] = await Promise.all([
      reads.get(jobSetRef(name)),
      reads.list('v1', 'Pod', {namespace: XPK_NAMESPACE, labelSelector: `${JOBSET_NAME_LABEL}=${name}`}),
      reads.list('v1', 'Event', {namespace: XPK_NAMESPACE}),
    ])
    if (!jobsetObject) throw new XpkError('not-found', `Workload ${name} does not exist in namespace ${XPK_NAMESPACE}.`)
    const uid = jobsetObject.metadata.uid
    const workloads =
      typeof uid === 'string'
        ? await reads.list(KUEUE_API_VERSION, WORKLOAD_KIND, {
            namespace: XPK_NAMESPACE,
            labelSelector: `kueue.x-k8s.io/job-uid=${uid}`,
          })
        : []
    return {jobsetObject, pods, events, workloads}
  })()
  // Read once, shown in four sections; a failure is each one's.
  read.catch(() => undefined)
  const jobsetSource = `Kubernetes API: get JobSet ${XPK_NAMESPACE}/${name} (${JOBSET_API_VERSION})`
  const sections = [
    section(`xpk workload describe ${name}`, `${jobsetSource}; its pods, Kueue Workload and events`, async () => {
      const {jobsetObject, pods, events, workloads} = await read
      const jobset = readJobSet(jobsetObject)
      const description = describeWorkload({
        name,
        namespace: XPK_NAMESPACE,
        now: deps.now(),
        jobsetObject,
        jobset,
        workload: pickWorkload(workloads.map(readWorkload), jobset),
        pods: pods.map(readPod),
        events: events.map(readEvent),
        place:
          cluster && options.cluster
            ? {project: cluster.project, location: cluster.location, cluster: options.cluster}
            : null,
      })
      return renderWorkloadDescription(description, {wide: true, headers: true})
    }),
    section(`Jobset config for ${name}`, jobsetSource, async () => objectsText([(await read).jobsetObject], '')),
    section(
      `Workload config for ${name}`,
      `Kubernetes API: list Workload (${KUEUE_API_VERSION}) in ${XPK_NAMESPACE} labelled kueue.x-k8s.io/job-uid=<the JobSet's uid>`,
      async () => objectsText((await read).workloads, 'None: Kueue has made no Workload for this JobSet.'),
    ),
    section(
      `Pods of ${name}`,
      `Kubernetes API: list Pod in ${XPK_NAMESPACE} labelled ${JOBSET_NAME_LABEL}=${name}`,
      async () => objectsText((await read).pods, 'None: the JobSet has no pod.'),
    ),
    section(`Events of ${name}`, `Kubernetes API: list Event in ${XPK_NAMESPACE}`, async () => {
      const {jobsetObject, pods, workloads} = await read
      const about = new Set([
        `JobSet/${jobsetObject.metadata.name}`,
        ...workloads.map((w) => `Workload/${w.metadata.name}`),
        ...pods.map((p) => `Pod/${p.metadata.name}`),
      ])
      const mine = (await read).events
        .map(readEvent)
        .filter((e) => about.has(`${e.kind}/${e.name}`))
        .sort((a, b) => (a.time ?? '').localeCompare(b.time ?? ''))
      if (mine.length === 0) return 'None.'
      return renderTable(
        ['time', 'object', 'type', 'reason', 'count', 'message'],
        mine.map((e) => [e.time, `${e.kind}/${e.name}`, e.type, e.reason, e.count, e.message]),
      )
    }),
  ]
  return sections
}

/** `xpk-inspector-<cluster>-<UTC time>.txt`: sorted by time in a listing, and unique per second and cluster. */
function fileName(cluster: string, now: number): string {
  const stamp = new Date(now)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
  return `xpk-inspector-${cluster.replace(/[^a-z0-9-]/gi, '_')}-${stamp}.txt`
}
