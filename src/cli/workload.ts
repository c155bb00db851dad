/**
 * The `workload` topic: the flags of its commands, and their wiring (settings, timing and the adapters behind each
 * service). The flags are read when the CLI starts (help, parsing); everything else is imported when a command
 * runs, by the function that needs it, so `--help` and the other topics never load it.
 */
import {homedir} from 'node:os'
import {join} from 'node:path'

import * as Flags from '@oclif/core/flags'

import {PATHWAYS_DEFAULTS, WORKLOAD_DEFAULTS} from '../core/workload/defaults.js'
// The default alone: core/timing.ts reads the environment table, which --help has no need to load.
import {DEFAULT_GONE_TIMEOUT_MS} from '../core/workload/jobsets.js'
import {DEFAULT_WAIT_TIMEOUT_SECONDS} from '../core/workload/list-options.js'
import {DEFAULT_PRIORITY, PRIORITY_NAMES} from '../core/workload/priority.js'
import {STATUS_FILTERS} from '../core/workload/status.js'
import type {PathwaysFlags} from '../core/workload/pathways.js'
import type {Console} from '../ports/console.js'
import type {ImageBuildDeps} from '../services/image-build.js'
import type {WorkloadCreateResult} from '../services/workload-create.js'
import type {WorkloadDeleteResult} from '../services/workload-delete.js'
import type {WorkloadListResult} from '../services/workload-list.js'
import type {WorkloadWhyResult} from '../services/workload-why.js'
import type {WorkloadDescription} from '../core/workload/describe.js'
import type {WorkloadLogsResult} from '../services/workload-logs.js'
import type {FsBuildContextOptions} from '../adapters/build-context.js'
import type {DockerEngineOptions} from '../adapters/docker-engine.js'
import type {RegistryCredentialOptions} from '../adapters/registry-credentials.js'
import type {RegistryHttpOptions} from '../adapters/registry-http.js'
import type {Invocation} from './base-command.js'
import {insideCluster, startCommand} from './command-start.js'
import {choiceFlag, integerFlag, pathFlag, valueShape, type FlagOptions} from './flag-kinds.js'
import {
  acceleratorFlags,
  changeFlags,
  gkeEndpointFlag,
  kubeAccessFlags,
  offlineFlag,
  outputFlags,
  noChangeDryRunFlag,
  targetFlags,
} from './flags.js'

/** The flags of `xpk workload create`, grouped as in `--help`. Defaults are applied (and documented) in src/core. */
export const workloadCreateFlags = {
  ...targetFlags,
  ...gkeEndpointFlag,
  ...acceleratorFlags,
  workload: Flags.string({description: 'Workload name: lowercase letters, digits and hyphens, at most 40 characters.'}),
  command: Flags.string({
    ...valueShape('text'),
    description: 'Command run in every container, e.g. "python3 train.py --steps=100".',
  }),
  'num-slices': integerFlag('workload:num-slices', {
    description: 'TPU/CPU: number of slices (JobSet replicas).',
    default: WORKLOAD_DEFAULTS.numSlices,
  }),
  'num-nodes': integerFlag('workload:num-nodes', {
    description: 'GPU only: number of VMs.',
    default: WORKLOAD_DEFAULTS.numNodes,
  }),
  priority: choiceFlag(PRIORITY_NAMES, {
    description: 'Kueue scheduling priority; higher priorities preempt lower ones.',
    default: DEFAULT_PRIORITY,
  }),
  'max-restarts': integerFlag('workload:max-restarts', {
    description: 'Times the whole JobSet may restart after a failure.',
    default: WORKLOAD_DEFAULTS.maxRestarts,
  }),
  'restart-on-exit-codes': Flags.string({
    ...valueShape('list'),
    description: 'Extra exit codes that restart instead of failing, e.g. "3,5-7" (42 and 127-255 always do).',
  }),
  'ttl-seconds-after-finished': integerFlag('workload:ttl-seconds-after-finished', {
    description: 'Delete the JobSet this long after it finishes.',
    default: WORKLOAD_DEFAULTS.ttlSecondsAfterFinished,
  }),
  'termination-grace-period-seconds': integerFlag('workload:termination-grace-period-seconds', {
    description: 'Seconds between SIGTERM and SIGKILL.',
    default: WORKLOAD_DEFAULTS.terminationGracePeriodSeconds,
  }),
  env: Flags.string({
    ...valueShape('text'),
    description: 'Environment variable KEY=VALUE for the containers; repeat for more.',
    multiple: true,
    exclusive: ['env-file'],
    helpGroup: 'ENVIRONMENT',
  }),
  'env-file': pathFlag('file', {
    description: 'File of KEY=VALUE lines (# comments; a bare KEY copies your local value).',
    exclusive: ['env'],
    helpGroup: 'ENVIRONMENT',
  }),
  'debug-dump-gcs': Flags.string({description: 'Upload XLA dumps to this gs:// path when the command ends.'}),
  'enable-debug-logs': Flags.boolean({description: 'Turn on verbose TPU runtime logging.'}),
  scheduler: Flags.string({description: 'Kubernetes scheduler; GPU: default-scheduler or gke.io/topology-aware-auto.'}),
  'use-parallel-containers': Flags.boolean({
    description: "tpu7/tpu7x: split each VM's chips across parallel containers. [default: true]",
    allowNo: true,
  }),
  'docker-image': Flags.string({
    description: 'Run this image as it is (no build).',
    exclusive: ['base-docker-image', 'script-dir'],
    helpGroup: 'IMAGE',
  }),
  'base-docker-image': Flags.string({
    description: `Base image to layer --script-dir onto. [default: ${WORKLOAD_DEFAULTS.baseDockerImage}]`,
    helpGroup: 'IMAGE',
  }),
  'script-dir': pathFlag('directory', {
    description:
      'Directory copied to /app in the image (honours .dockerignore). Asks first when it holds node_modules or .git, or more than XPK_SCRIPT_DIR_MAX_MB (default 100, 0: no limit) MB; --force packs it without asking. [default: current directory]',
    helpGroup: 'IMAGE',
  }),
  'docker-name': Flags.string({
    description: `Name of the image and of its container. [default: ${WORKLOAD_DEFAULTS.dockerName}]`,
    helpGroup: 'IMAGE',
  }),
  registry: Flags.string({
    description:
      'Where to push built images, e.g. us-docker.pkg.dev/PROJECT/REPO. [default: gcr.io/PROJECT] [env: XPK_REGISTRY]',
    helpGroup: 'IMAGE',
  }),
  'docker-image-pull-secret': Flags.string({
    description: 'Kubernetes secret for pulling a private image.',
    helpGroup: 'IMAGE',
  }),
  storage: Flags.string({
    description:
      'Mount this storage (`xpk storage list`) at its mount point; repeat for more. Storages attached with --auto-mount true are mounted anyway.',
    multiple: true,
  }),
  'output-manifest-file': pathFlag('output-file', {
    description: 'Also write the JobSet YAML to this file (works with --dry-run).',
  }),
  // Capacity for node auto-provisioning (clusters made with --enable-autoprovisioning); at most one.
  'on-demand': Flags.boolean({
    description: 'Node auto-provisioning: on-demand VMs. [default: the capacity the cluster was created with]',
    exclusive: ['spot', 'reservation', 'flex'],
    helpGroup: 'AUTOPROVISIONING',
  }),
  spot: Flags.boolean({
    description: 'Node auto-provisioning: Spot VMs.',
    exclusive: ['on-demand', 'reservation', 'flex'],
    helpGroup: 'AUTOPROVISIONING',
  }),
  reservation: Flags.string({
    description: 'Node auto-provisioning: VMs of this reservation (NAME or projects/P/reservations/NAME[/...]).',
    exclusive: ['on-demand', 'spot', 'flex'],
    helpGroup: 'AUTOPROVISIONING',
  }),
  flex: Flags.boolean({
    description: 'Node auto-provisioning: flex-start VMs (Dynamic Workload Scheduler).',
    exclusive: ['on-demand', 'spot', 'reservation'],
    helpGroup: 'AUTOPROVISIONING',
  }),
  replace: Flags.boolean({
    description:
      'If a workload of this name exists, delete it (stopping its pods; asks first, --force does not), wait until it is gone, then submit. Without it, an existing name is refused (exit 6).',
  }),
  ...kubeAccessFlags,
  ...changeFlags,
  ...offlineFlag,
}

/**
 * The flags of `xpk workload create-pathways`: those of `workload create` that Python xpk's create-pathways takes
 * (TPU types only: no --device-type, --num-nodes, --scheduler, --debug-dump-gcs, --restart-on-exit-codes; no
 * --storage, which Python accepts and ignores), and Pathways' own. Defaults are Python's
 * (src/core/workload/pathways.ts).
 */
export const workloadCreatePathwaysFlags = (() => {
  const {
    'device-type': _deviceType,
    'num-nodes': _numNodes,
    scheduler: _scheduler,
    'debug-dump-gcs': _debugDumpGcs,
    'restart-on-exit-codes': _restartCodes,
    storage: _storage,
    'tpu-type': _tpuType,
    ...shared
  } = workloadCreateFlags
  const noImage = ['command', 'docker-image', 'base-docker-image', 'script-dir']
  return {
    ...shared,
    'tpu-type': Flags.string({
      description:
        'TPU type of each slice, e.g. v5p-8, v6e-256 (Pathways runs on TPUs only; see `xpk accelerator list`).',
      helpGroup: 'ACCELERATOR',
    }),
    command: Flags.string({
      ...valueShape('text'),
      description: 'Command the Pathways head runs, e.g. "python3 train.py"; required unless --headless.',
    }),
    headless: Flags.boolean({
      description:
        'No command of yours: run the Pathways head (proxy and resource manager) and workers only, for your own JAX client (a notebook) to connect to the proxy.',
      exclusive: noImage,
      helpGroup: 'PATHWAYS',
    }),
    'server-image': Flags.string({
      description: `Image of the Pathways resource manager and workers. [default: ${PATHWAYS_DEFAULTS.serverImage}]`,
      helpGroup: 'PATHWAYS',
    }),
    'proxy-server-image': Flags.string({
      description: `Image of the Pathways proxy. [default: ${PATHWAYS_DEFAULTS.proxyServerImage}]`,
      helpGroup: 'PATHWAYS',
    }),
    'colocated-python-sidecar-image': Flags.string({
      description: "Image of a colocated Python sidecar beside each worker (port 50051, the workers' /tmp shared).",
      helpGroup: 'PATHWAYS',
    }),
    'pathways-gcs-location': Flags.string({
      description: `Cloud Storage path for Pathways' scratch files. [default: ${PATHWAYS_DEFAULTS.gcsLocation}]`,
      helpGroup: 'PATHWAYS',
    }),
    'custom-pathways-server-args': Flags.string({
      ...valueShape('text'),
      description: 'More arguments for the resource manager, space separated, e.g. "--flag_a=1 --flag_b=2".',
      helpGroup: 'PATHWAYS',
    }),
    'custom-pathways-proxy-server-args': Flags.string({
      ...valueShape('text'),
      description: 'More arguments for the proxy, space separated.',
      helpGroup: 'PATHWAYS',
    }),
    'custom-pathways-worker-args': Flags.string({
      ...valueShape('text'),
      description: 'More arguments for the workers, space separated.',
      helpGroup: 'PATHWAYS',
    }),
    'elastic-slices': integerFlag('workload:elastic-slices', {
      description: 'Slices the workload may lose and keep running (the proxy is told; each slice restarts on its own).',
      default: PATHWAYS_DEFAULTS.elasticSlices,
      helpGroup: 'PATHWAYS',
    }),
    'max-slice-restarts': integerFlag('workload:max-slice-restarts', {
      description: 'With --elastic-slices: times each slice may restart.',
      default: PATHWAYS_DEFAULTS.maxSliceRestarts,
      helpGroup: 'PATHWAYS',
    }),
  }
})()

/** The flags of `xpk workload delete`. */
export const workloadDeleteFlags = {
  ...targetFlags,
  ...gkeEndpointFlag,
  workload: Flags.string({
    description:
      'Delete this workload (its JobSet; Kueue and JobSet objects made for it go with it). No question asked.',
    exclusive: ['filter-by-job', 'filter-by-status'],
  }),
  'filter-by-job': Flags.string({
    description:
      'Without --workload: delete every workload whose name contains this text (all of them without it), after listing them and asking.',
  }),
  'filter-by-status': choiceFlag(STATUS_FILTERS, {
    description:
      'Without --workload: only the workloads in this state, as `workload list` shows them (any case): QUEUED, RUNNING, FINISHED, and of those FAILED or SUCCESSFUL.',
    default: 'EVERYTHING',
  }),
  wait: Flags.boolean({
    description: `Return only once the workloads and their pods are gone (at most XPK_WORKLOAD_DELETE_TIMEOUT_S, default ${DEFAULT_GONE_TIMEOUT_MS / 60_000} min; then exit 124).`,
  }),
  ...kubeAccessFlags,
  ...changeFlags,
}

/** The flags of `xpk workload list`. Values are checked in src/core. */
export const workloadListFlags = {
  ...targetFlags,
  ...gkeEndpointFlag,
  'filter-by-status': choiceFlag(STATUS_FILTERS, {
    description:
      'Only workloads in this state (any case): QUEUED (waiting, or preempted and back in the queue), RUNNING (admitted), FINISHED, and of those FAILED or SUCCESSFUL.',
    default: 'EVERYTHING',
    exclusive: ['wait-for-job-completion'],
  }),
  'filter-by-job': Flags.string({
    description: 'Only workloads whose name contains this text.',
    exclusive: ['wait-for-job-completion'],
  }),
  'wait-for-job-completion': Flags.string({
    description:
      'Watch this workload until it finishes, then show it: exit 0 when it succeeded, 125 when it failed, 124 on timeout.',
    helpValue: '<workload>',
  }),
  timeout: {
    ...integerFlag('workload:timeout', {
      description: 'With --wait-for-job-completion: seconds to wait.',
      default: `${DEFAULT_WAIT_TIMEOUT_SECONDS} (one week)`,
    }),
    dependsOn: ['wait-for-job-completion'],
  },
  ...kubeAccessFlags,
  ...outputFlags,
  ...noChangeDryRunFlag,
}

/** The flags of `xpk workload logs` (the workload is its argument). Values are checked in src/core. */
export const workloadLogsFlags = {
  ...targetFlags,
  ...gkeEndpointFlag,
  follow: Flags.boolean({
    char: 'f',
    description: 'Keep printing what the containers write until they exit (or Ctrl-C).',
  }),
  slice: integerFlag('workload:slice', {
    description: 'The slice whose pod to read (of a Pathways workload: among its workers).',
    default: '0',
    exclusive: ['all', 'head'],
  }),
  worker: integerFlag('workload:worker', {
    description: 'The worker (pod index within the slice) to read.',
    default: '0',
    exclusive: ['all', 'head'],
  }),
  all: Flags.boolean({
    description:
      "Read every pod of the workload, each line prefixed with [slice S/worker W] (a Pathways head's with [head]), as lines arrive.",
    exclusive: ['head'],
  }),
  head: Flags.boolean({
    description:
      "Read the Pathways head's pod (of a workload made by workload create-pathways): the user's container, or a headless workload's proxy.",
    exclusive: ['slice', 'worker', 'all'],
  }),
  tail: integerFlag('workload:tail', {description: 'Only the last N lines of each log so far.'}),
  since: Flags.string({
    description: 'Only lines written in this last while: 30s, 10m, 2h, 1h30m (at most 7d).',
    helpValue: '<duration>',
  }),
  ...kubeAccessFlags,
}

/** The flags of `xpk workload describe` (the workload is its argument). */
export const workloadDescribeFlags = {...targetFlags, ...gkeEndpointFlag, ...kubeAccessFlags, ...outputFlags}

/** The flags of `xpk workload why` (the workload is its argument). */
export const workloadWhyFlags = {...targetFlags, ...gkeEndpointFlag, ...kubeAccessFlags}

/**
 * `xpk workload create`: the image build's SDKs load only if an image is actually built, GKE and the Kubernetes
 * client only when the workload is submitted.
 */
export async function createWorkload(
  options: FlagOptions<typeof workloadCreateFlags> | PathwaysCreateOptions,
  run: Invocation,
): Promise<WorkloadCreateResult> {
  const [{wiring, settings, timing}, {createWorkload}, {NodeFiles}] = await Promise.all([
    startCommand(import('./wiring.js'), options, run),
    import('../services/workload-create.js'),
    import('../adapters/local-files.js'),
  ])
  return createWorkload(
    {
      flags: {...options, imagePullSecret: options.dockerImagePullSecret},
      envFile: options.envFile,
      dockerImage: options.dockerImage,
      baseDockerImage: options.baseDockerImage,
      scriptDir: options.scriptDir,
      outputManifestFile: options.outputManifestFile,
      dryRun: options.dryRun,
      offline: options.offline,
      settings,
      replace: options.replace,
      viaKubeconfig: wiring.viaKubeconfig(options),
      verbose: options.verbose,
      timing,
    },
    {
      ...wiring.clusterAccess(settings, options, run),
      files: new NodeFiles(),
      env: process.env,
      cwd: process.cwd(),
      planImage: async (build) => {
        const {planImage} = await import('../services/image-build.js')
        return planImage(build, {
          ...(await imageBuildDeps(run.console)),
          retry: {policy: timing.retry, clock: wiring.systemClock, signal: run.signal},
        })
      },
    },
  )
}

type PathwaysCreateOptions = FlagOptions<typeof workloadCreatePathwaysFlags> & {readonly pathways: PathwaysFlags}

/** `xpk workload create-pathways`: `workload create`'s service, with the Pathways flags. */
export async function createPathwaysWorkload(
  options: FlagOptions<typeof workloadCreatePathwaysFlags>,
  run: Invocation,
): Promise<WorkloadCreateResult> {
  return createWorkload({...options, pathways: options}, run)
}

/** `xpk workload delete`: GKE (to find the cluster) and its Kubernetes API on first use. */
export async function deleteWorkloads(
  options: FlagOptions<typeof workloadDeleteFlags>,
  run: Invocation,
): Promise<WorkloadDeleteResult> {
  return insideCluster(
    import('./wiring.js'),
    options,
    run,
    import('../services/workload-delete.js').then((m) => m.deleteWorkloads),
  )
}

/** `xpk workload list`: GKE (to find the cluster) and its Kubernetes API on first use. */
export async function listWorkloads(
  options: FlagOptions<typeof workloadListFlags>,
  run: Invocation,
): Promise<WorkloadListResult> {
  return insideCluster(
    import('./wiring.js'),
    {...options, output: run.output},
    run,
    import('../services/workload-list.js').then((m) => m.listWorkloads),
  )
}

/** `xpk workload logs`: GKE (to find the cluster) and its Kubernetes API on first use. */
export async function workloadLogs(
  options: FlagOptions<typeof workloadLogsFlags> & {readonly workload: string},
  run: Invocation,
): Promise<WorkloadLogsResult> {
  return insideCluster(
    import('./wiring.js'),
    options,
    run,
    import('../services/workload-logs.js').then((m) => m.workloadLogs),
  )
}

/** `xpk workload describe`: GKE (to find the cluster) and its Kubernetes API; reads only. */
export async function workloadDescribe(
  options: FlagOptions<typeof workloadDescribeFlags> & {readonly workload: string},
  run: Invocation,
): Promise<WorkloadDescription> {
  return insideCluster(
    import('./wiring.js'),
    {...options, output: run.output},
    run,
    import('../services/workload-describe.js').then((m) => m.workloadDescribe),
  )
}

/** `xpk workload why`: GKE (to find the cluster and its node pools) and its Kubernetes API; reads only. */
export async function workloadWhy(
  options: FlagOptions<typeof workloadWhyFlags> & {readonly workload: string},
  run: Invocation,
): Promise<WorkloadWhyResult> {
  return insideCluster(
    import('./wiring.js'),
    options,
    run,
    import('../services/workload-why.js').then((m) => m.workloadWhy),
  )
}

/** Overrides for {@link imageBuildDeps}; everything defaults to the local machine's own setup. */
export interface ImageBuildDepsOptions {
  /** @default file digests remembered in $XDG_CACHE_HOME/xpk/digests (~/.cache/xpk/digests) */
  readonly context?: FsBuildContextOptions
  readonly engine?: DockerEngineOptions
  readonly registry?: RegistryHttpOptions
  readonly credentials?: RegistryCredentialOptions
  /** @default Date.now */
  readonly now?: () => number
}

/**
 * The real dependencies of `buildImage` (src/services/image-build.ts): the local file system, the Docker engine
 * (DOCKER_HOST or the local socket), the Registry HTTP API, and credentials from ADC or the Docker config. No SDK is
 * loaded until it is used.
 */
export async function imageBuildDeps(console: Console, options: ImageBuildDepsOptions = {}): Promise<ImageBuildDeps> {
  const [{FsBuildContextSource}, {DockerEngine}, {DockerAndGoogleCredentials}, {RegistryHttpClient}, {xdgDirectory}] =
    await Promise.all([
      import('../adapters/build-context.js'),
      import('../adapters/docker-engine.js'),
      import('../adapters/registry-credentials.js'),
      import('../adapters/registry-http.js'),
      import('../core/environment.js'),
    ])
  // $XDG_CACHE_HOME/xpk/digests; XDG says a relative XDG_CACHE_HOME is to be ignored (as bin/run.js does).
  const digestCacheDir = join(xdgDirectory(process.env, 'XDG_CACHE_HOME', homedir()), 'xpk', 'digests')
  return {
    context: new FsBuildContextSource(options.context ?? {digestCacheDir}),
    engine: new DockerEngine(options.engine),
    registry: new RegistryHttpClient(options.registry),
    credentials: new DockerAndGoogleCredentials(options.credentials),
    console,
    now: options.now ?? Date.now,
  }
}
