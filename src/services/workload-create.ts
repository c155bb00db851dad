import {imageRepository} from '../core/image/naming.js'
import {throwIfProblems, UsageError, UsageErrors, XpkError} from '../core/errors.js'
import {buildJobSet} from '../core/manifests/jobset.js'
import type {JobSet} from '../core/manifests/k8s-types.js'
import {type ResolvedSettings} from '../core/settings.js'
import {WORKLOAD_DEFAULTS, workloadInputFromFlags, type WorkloadFlags} from '../core/workload/options.js'
import type {Console} from '../ports/console.js'
import type {LocalFiles} from '../ports/files.js'
import type {ImageBuildOptions, ImageBuildResult} from './image-build.js'

export interface WorkloadCreateOptions {
  readonly flags: WorkloadFlags
  readonly envFile?: string
  readonly dockerImage?: string
  readonly baseDockerImage?: string
  readonly scriptDir?: string
  readonly outputManifestFile?: string
  readonly dryRun: boolean
  readonly offline: boolean
  /** Project, cluster and registry, resolved from flags, environment, xpk config and gcloud. */
  readonly settings: ResolvedSettings
}

export interface WorkloadCreateDeps {
  readonly console: Console
  readonly files: LocalFiles
  /** The caller's environment (bare KEY lines of --env-file copy from it). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** The default --script-dir. */
  readonly cwd: string
  /** Builds and pushes (or, in a dry run, only checks) the image; see src/services/image-build.ts. */
  readonly buildImage: (options: ImageBuildOptions) => Promise<ImageBuildResult>
}

/** How the workload's image was obtained. */
export type WorkloadImage =
  {readonly source: 'given'; readonly reference: string} | ({readonly source: 'built'} & ImageBuildResult)

export interface WorkloadCreateResult {
  readonly workload: string
  readonly cluster: string
  readonly accelerator: string
  readonly dryRun: boolean
  readonly submitted: boolean
  readonly image: WorkloadImage
  readonly manifestFile: string | null
  readonly manifest: JobSet
}

/**
 * `xpk workload create`: validates every flag first (usage errors before any network call), obtains the image
 * (given, or built from --script-dir on --base-docker-image), builds the JobSet and writes it where asked. With
 * --dry-run the JobSet is printed instead of submitted.
 */
export async function createWorkload(
  options: WorkloadCreateOptions,
  deps: WorkloadCreateDeps,
): Promise<WorkloadCreateResult> {
  // Every problem with the input is reported at once, before anything is built or sent.
  const problems: UsageError[] = []
  const collect = <T>(check: () => T): T | undefined => {
    try {
      return check()
    } catch (error) {
      if (error instanceof UsageErrors) problems.push(...error.problems)
      else if (error instanceof UsageError) problems.push(error)
      else throw error
      return undefined
    }
  }
  const envFile = options.envFile === undefined ? undefined : await readEnvFile(options.envFile, deps.files)
  if (envFile instanceof UsageError) problems.push(envFile)
  const flags = {...options.flags, cluster: options.settings.cluster.value}
  const parsed = collect(() =>
    workloadInputFromFlags(flags, envFile instanceof UsageError ? undefined : envFile, deps.env),
  )
  const repository =
    options.dockerImage === undefined
      ? collect(() =>
          imageRepository({
            registry: options.settings.registry.value,
            project: options.settings.project.value,
            // A bad --docker-name is already reported with the other flags; name the image after the default then.
            dockerName: parsed?.containerName ?? WORKLOAD_DEFAULTS.dockerName,
          }),
        )
      : undefined
  throwIfProblems(problems)
  const input = parsed as NonNullable<typeof parsed>

  let image: WorkloadImage
  if (options.dockerImage !== undefined) {
    image = {source: 'given', reference: options.dockerImage}
  } else {
    const built = await deps.buildImage({
      baseImage: options.baseDockerImage ?? WORKLOAD_DEFAULTS.baseDockerImage,
      scriptDir: options.scriptDir ?? deps.cwd,
      platform: input.accelerator.dockerPlatform,
      repository: repository as string,
      dryRun: options.dryRun,
      offline: options.offline,
    })
    image = {source: 'built', ...built}
  }

  const manifest = buildJobSet({...input, image: image.reference})
  // Loaded here rather than with the service: the YAML library is only needed by the commands that print YAML.
  const {toYaml} = await import('../core/manifests/to-yaml.js')
  const yaml = toYaml(manifest)
  if (options.outputManifestFile !== undefined) {
    await deps.files.writeText(options.outputManifestFile, yaml)
    deps.console.info(`Wrote the JobSet manifest of ${input.name} to ${options.outputManifestFile}.`)
  }

  const result: WorkloadCreateResult = {
    workload: input.name,
    cluster: input.cluster,
    accelerator: input.accelerator.name,
    dryRun: options.dryRun,
    submitted: false,
    image,
    manifestFile: options.outputManifestFile ?? null,
    manifest,
  }
  if (options.dryRun) {
    deps.console.result(yaml)
    deps.console.info(
      `Dry run: nothing was submitted. Workload ${input.name} would run on cluster ${input.cluster} ` +
        `(${input.accelerator.name}, ${describeScale(input.accelerator.kind, input.numSlices, input.numNodes)}, priority ${input.priority}).`,
    )
    return result
  }
  throw new XpkError(
    'failed',
    `The image is ready (${image.reference}), but submitting workloads to a cluster is not available in this version of xpk yet.`,
    {
      hints: [
        'Write the JobSet with --output-manifest-file FILE and apply it with `kubectl apply -f FILE` on the cluster.',
      ],
    },
  )
}

async function readEnvFile(path: string, files: LocalFiles): Promise<{path: string; text: string} | UsageError> {
  const text = await files.readText(path)
  return text === undefined ? new UsageError(`--env-file ${path}: no such file.`, {flag: '--env-file'}) : {path, text}
}

function describeScale(kind: string, slices: number, nodes: number): string {
  if (kind === 'GPU') return `${nodes} VM${nodes === 1 ? '' : 's'}`
  return `${slices} slice${slices === 1 ? '' : 's'}`
}
