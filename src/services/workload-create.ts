import {DEFAULT_TIMING} from '../core/timing.js'
import {
  workloadClusterUnchecked,
  workloadConfirmReplace,
  workloadDryRun,
  workloadGpuNetworksAssumed,
  workloadManifestWritten,
  workloadReplacePlanned,
} from '../core/messages/workload.js'
import {XPK_NAMESPACE} from '../core/incluster/namespace.js'
import type {JobSet} from '../core/manifests/k8s-types.js'
import {type ResolvedSettings, zoneToRegion} from '../core/settings.js'
import {
  describeScale,
  rbacChanges,
  renderWorkloadPlan,
  type RbacChange,
  type ReplacedJobSet,
  type WorkloadPlanStep,
} from '../core/workload/create-plan.js'
import {nextCommands, workloadLinks, type WorkloadLinks} from '../core/workload/links.js'
import type {WorkloadFlags, WorkloadInput} from '../core/workload/options.js'
import {pathwaysProxyAddress} from '../core/workload/pathways.js'
import type {Console} from '../ports/console.js'
import type {LocalFiles} from '../ports/files.js'
import {confirmOrStop} from './confirm.js'
import type {ImageBuildOptions, ImageBuildResult, PlannedImageBuild} from './image-build.js'
import type {ClusterAccessDeps} from './workload-cluster.js'
import {applySubmit} from './workload-create-apply.js'
import {checkCreateInputs, type CheckedCreateInputs} from './workload-create-inputs.js'
import {planSubmit, type PlannedSubmit} from './workload-create-plan.js'
import type {WorkloadTiming} from './workload-delete.js'

export {ENV_FILE_MAX_BYTES} from './workload-create-inputs.js'
export type {RbacChange, ReplacedJobSet} from '../core/workload/create-plan.js'

export interface WorkloadCreateOptions {
  readonly flags: WorkloadFlags
  readonly envFile?: string
  readonly dockerImage?: string
  readonly baseDockerImage?: string
  readonly scriptDir?: string
  readonly outputManifestFile?: string
  readonly dryRun: boolean
  readonly offline: boolean
  /** Project, zone, cluster and registry, resolved from flags, environment, xpk config and gcloud. */
  readonly settings: ResolvedSettings
  /**
   * `--replace`: delete the JobSet of the same name that was read (asking first, unless --force), wait until it is
   * gone, then create this one, instead of refusing.
   */
  readonly replace?: boolean
  /** `--kubeconfig` / `--context` reach the cluster: GKE is not asked where it is. */
  readonly viaKubeconfig?: boolean
  /** `--verbose`: the dry run's plan shows the RBAC objects it would apply, as YAML. */
  readonly verbose?: boolean
  /** @default DEFAULT_TIMING */
  readonly timing?: WorkloadTiming
}

export interface WorkloadCreateDeps extends ClusterAccessDeps {
  readonly console: Console
  readonly files: LocalFiles
  /** The caller's environment (bare KEY lines of --env-file copy from it). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** The default --script-dir. */
  readonly cwd: string
  /**
   * Plans the image (its tag, and whether the registry has it) and gives how to build and push it; see
   * src/services/image-build.ts.
   */
  readonly planImage: (options: ImageBuildOptions) => Promise<PlannedImageBuild>
}

/** How the workload's image was obtained. */
export type WorkloadImage =
  | {readonly source: 'given'; readonly reference: string}
  /** A headless Pathways workload: no container of the user's, no image. */
  | {readonly source: 'none'; readonly reference: ''}
  | ({readonly source: 'built'} & ImageBuildResult)

export interface WorkloadCreateResult {
  readonly workload: string
  readonly cluster: string
  readonly accelerator: string
  readonly dryRun: boolean
  readonly submitted: boolean
  readonly image: WorkloadImage
  readonly manifestFile: string | null
  /** The JobSet as built (created in namespace `default`). */
  readonly manifest: JobSet
  readonly jobSet: {readonly namespace: string; readonly name: string}
  /** Whether --replace deleted an existing JobSet of the name first. */
  readonly replaced: boolean
  /**
   * With --replace, the JobSet of the name that was read: the one deleted (or, in a dry run, that would be), and
   * only that one (its uid is a precondition of the delete); null when the name was free.
   */
  readonly replaces: ReplacedJobSet | null
  /** The ServiceAccount, Role and RoleBindings, compared with the cluster's; empty when not read (--offline). */
  readonly rbac: readonly RbacChange[]
  /** tcpxo and rdma GPU types: the networks the pods attach, read from the cluster or (dry run) assumed. */
  readonly gpuNetworks: {readonly source: 'cluster' | 'assumed'; readonly names: readonly string[]} | null
  /** The Cloud Console and Cloud Logging links; null when the cluster's project and location are unknown. */
  readonly links: WorkloadLinks | null
  /** The xpk commands to follow the workload. */
  readonly next: readonly string[]
  /**
   * The plan, as data: one step per thing checked or sent, each with its reason and the value sent (the image
   * reference, the JobSet that was read and is deleted, the RBAC objects, the JobSet).
   */
  readonly steps: readonly WorkloadPlanStep[]
  /**
   * `workload create-pathways`: the proxy's address inside the cluster (what a headless workload's JAX client
   * connects to, through a port-forward from outside) and whether it is headless; null for other workloads.
   */
  readonly pathways: {readonly proxyAddress: string; readonly headless: boolean} | null
}

/**
 * `xpk workload create`: checks every input first (usage errors before any network call), reads the cluster (can it
 * ever run the workload, is it set up for it, is the name free), plans the image (given, or built from --script-dir
 * on --base-docker-image) and makes the plan (src/core/workload/create-plan.ts). A dry run shows the plan and the
 * JobSet; a submit asks before --replace deletes anything, then applies the plan through the step graph: the image
 * built and pushed, the old JobSet deleted and gone, the RBAC objects that are missing or differ, and the JobSet
 * created (create-if-absent: a name another submit took in the meantime is refused, never overwritten).
 */
export async function createWorkload(
  options: WorkloadCreateOptions,
  deps: WorkloadCreateDeps,
): Promise<WorkloadCreateResult> {
  const checked = await checkCreateInputs(options, deps)
  const {input} = checked
  const timing = options.timing ?? DEFAULT_TIMING
  const planned = await planSubmit(checked, options, deps, timing)
  if (planned.replaces !== null) await confirmReplace(input, planned.replaces, options.dryRun, deps)
  // The YAML is made only where it is written or printed (not on a plain submit, nor for --dry-run --json), and its
  // emitter loaded only then.
  const emitter = () => import('../core/manifests/to-yaml.js')
  const writeManifest = async (manifest: JobSet) => {
    if (options.outputManifestFile === undefined) return
    await deps.files.writeText(options.outputManifestFile, (await emitter()).toYaml(manifest))
    deps.console.info(workloadManifestWritten({workload: input.name, file: options.outputManifestFile}))
  }
  const base = resultBase(checked, planned, options)

  if (options.dryRun) {
    await writeManifest(base.manifest)
    const {toYaml} = await emitter()
    deps.console.result(
      () => `${renderWorkloadPlan(planned.plan, options.verbose ? toYaml : undefined)}\n\n${toYaml(base.manifest)}`,
    )
    if (checked.unread !== null) {
      deps.console.info(
        workloadClusterUnchecked({
          cluster: input.cluster,
          reason: checked.unread === '--offline' ? 'offline' : 'no-target',
        }),
      )
    }
    if (base.gpuNetworks?.source === 'assumed') {
      deps.console.info(workloadGpuNetworksAssumed({networks: base.gpuNetworks.names}))
    }
    deps.console.info(
      workloadDryRun({
        workload: input.name,
        cluster: input.cluster,
        accelerator: input.accelerator.name,
        scale: describeScale(input.accelerator.kind, input.numSlices, input.numNodes),
        priority: input.priority,
      }),
    )
    return {...base, submitted: false, replaced: false}
  }

  deps.console.debug(renderWorkloadPlan(planned.plan))
  const applied = await applySubmit(planned, writeManifest, timing, deps)
  const result: WorkloadCreateResult = {
    ...base,
    image: applied.image,
    manifest: applied.manifest,
    submitted: true,
    replaced: applied.replaced,
    rbac: applied.rbac,
  }
  deps.console.result(() => submittedText(result, input))
  return result
}

/** What the result says whether or not anything was sent. */
function resultBase(
  checked: CheckedCreateInputs,
  planned: PlannedSubmit,
  options: WorkloadCreateOptions,
): Omit<WorkloadCreateResult, 'submitted' | 'replaced'> {
  const {input, target} = checked
  const place = planned.reached
    ? planned.reached.gke
    : target.project !== undefined && target.zone !== undefined && !target.viaKubeconfig
      ? {project: target.project, location: zoneToRegion(target.zone) ?? target.zone}
      : null
  const jobSetStep = planned.plan.steps.find((s) => s.resource === 'jobSet' && s.action === 'create')!
  return {
    workload: input.name,
    cluster: input.cluster,
    accelerator: input.accelerator.name,
    dryRun: options.dryRun,
    image: planned.image,
    manifestFile: options.outputManifestFile ?? null,
    manifest: jobSetStep.spec as JobSet,
    jobSet: {namespace: XPK_NAMESPACE, name: input.name},
    replaces: planned.replaces,
    rbac: rbacChanges(planned.plan),
    gpuNetworks: planned.inputs.gpuNetworks,
    links:
      place === null
        ? null
        : workloadLinks({...place, cluster: input.cluster, workload: input.name}, input.pathways !== undefined),
    next: nextCommands(input.cluster, input.name),
    steps: planned.plan.steps,
    pathways:
      input.pathways === undefined
        ? null
        : {proxyAddress: pathwaysProxyAddress(input.name), headless: input.pathways.headless},
  }
}

/**
 * --replace deletes a workload that may be running (its pods are stopped; a JobSet cannot be changed in place, as
 * its spec is immutable): asked first like every destructive step, --force skips the question, and with nobody to
 * ask it stops (exit 2 naming --force). A dry run says what would be deleted instead.
 */
async function confirmReplace(
  input: WorkloadInput,
  replaces: ReplacedJobSet,
  dryRun: boolean,
  deps: WorkloadCreateDeps,
): Promise<void> {
  if (dryRun) {
    deps.console.info(workloadReplacePlanned({workload: input.name, cluster: input.cluster, replaces}))
    return
  }
  await confirmOrStop(deps.console, workloadConfirmReplace({workload: input.name, cluster: input.cluster, replaces}), {
    nothingDone: 'Nothing was deleted or submitted.',
    hints: ['Pick another --workload name, or re-run with --force.'],
  })
}

/** The submit's report on stdout: what was sent, where to follow it, what to run next. */
function submittedText(result: WorkloadCreateResult, input: WorkloadInput): string {
  const lines = [
    `${result.replaced ? 'Replaced' : 'Submitted'} workload ${result.workload} on cluster ${result.cluster}: ` +
      `JobSet ${result.jobSet.namespace}/${result.jobSet.name}, ${describeScale(input.accelerator.kind, input.numSlices, input.numNodes)} ` +
      `of ${input.accelerator.name}, priority ${input.priority}.`,
    ...(result.image.source === 'none' ? [] : [`Image: ${result.image.reference}`]),
  ]
  if (result.pathways) lines.push(...pathwaysLines(result.pathways, result.workload))
  if (result.links?.headLogs) {
    lines.push(
      `Follow it: ${result.links.console}`,
      `Logs of the Pathways head: ${result.links.headLogs}`,
      `Logs of worker 0 of slice 0 (adjust the pod name for other workers): ${result.links.logs}`,
    )
  } else if (result.links) {
    lines.push(
      `Follow it: ${result.links.console}`,
      `Logs of slice 0, worker 0 (adjust the pod name for other workers): ${result.links.logs}`,
    )
  }
  lines.push('Next:', ...result.next.map((command) => `  ${command}`))
  return lines.join('\n')
}

/**
 * Where the Pathways proxy listens. A headless workload is driven from the user's own JAX client: inside the cluster
 * at the proxy's address, from outside through a port-forward to the head pod (Python xpk prints the same).
 */
function pathwaysLines(pathways: NonNullable<WorkloadCreateResult['pathways']>, workload: string): string[] {
  const lines = [`Pathways proxy: ${pathways.proxyAddress}`]
  if (pathways.headless) {
    lines.push(
      'Connect your JAX client once the head pod is running: inside the cluster with ' +
        `JAX_PLATFORMS=proxy JAX_BACKEND_TARGET=${pathways.proxyAddress}; from your machine, forward the port ` +
        `(kubectl port-forward pod/${workload}-pathways-head-0-0-<suffix> 29000:29000) and use ` +
        'JAX_PLATFORMS=proxy JAX_BACKEND_TARGET=grpc://127.0.0.1:29000.',
    )
  }
  return lines
}
