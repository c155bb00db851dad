import {dirname, join, resolve} from 'node:path'

import {DEFAULT_SCRIPT_DIR_MAX_MB, SCRIPT_DIR_MAX_MB_VARIABLE} from '../core/image/context-check.js'
import {imageRepository} from '../core/image/naming.js'
import {UsageError, XpkError} from '../core/errors.js'
import {Problems} from '../core/input.js'
import {buildJobSet} from '../core/manifests/jobset.js'
import type {JobSet} from '../core/manifests/k8s-types.js'
import {type ResolvedSettings} from '../core/settings.js'
import {WORKLOAD_DEFAULTS, workloadInputFromFlags, type WorkloadFlags} from '../core/workload/options.js'
import type {Console} from '../ports/console.js'
import type {LocalFiles} from '../ports/files.js'
import type {ImageBuildOptions, ImageBuildResult} from './image-build.js'
import {message} from '../core/messages.js'

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
  const problems = new Problems()
  const collect = <T>(check: () => T): T | undefined => problems.attempt(check)
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
  const outputProblem = await checkOutputManifestFile(options.outputManifestFile, deps.files)
  if (outputProblem) problems.push(outputProblem)
  const scriptDir = options.dockerImage === undefined ? await checkScriptDir(options, deps) : undefined
  if (Array.isArray(scriptDir)) for (const problem of scriptDir) problems.push(problem)
  problems.throwIfAny()
  const input = parsed as NonNullable<typeof parsed>
  // Checked above whenever there is an image to build.
  const context = scriptDir as CheckedScriptDir

  let image: WorkloadImage
  if (options.dockerImage !== undefined) {
    image = {source: 'given', reference: options.dockerImage}
  } else {
    const built = await deps.buildImage({
      baseImage: options.baseDockerImage ?? WORKLOAD_DEFAULTS.baseDockerImage,
      scriptDir: context.dir,
      scriptDirIsDefault: context.isDefault,
      maxContextBytes: context.maxBytes,
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
    deps.console.info(
      message(
        'workload.manifest-written',
        `Wrote the JobSet manifest of ${input.name} to ${options.outputManifestFile}.`,
      ),
    )
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
      message(
        'workload.dry-run',
        `Dry run: nothing was submitted. Workload ${input.name} would run on cluster ${input.cluster} ` +
          `(${input.accelerator.name}, ${describeScale(input.accelerator.kind, input.numSlices, input.numNodes)}, priority ${input.priority}).`,
      ),
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

/** Env files are a few lines; anything bigger is a mistake (a data file, a device) and is not read. */
export const ENV_FILE_MAX_BYTES = 1 << 20

async function readEnvFile(path: string, files: LocalFiles): Promise<{path: string; text: string} | UsageError> {
  const problem = (message: string, hints: readonly string[] = []) =>
    new UsageError(`--env-file ${path}${message}`, {flag: '--env-file', hints})
  if (path.trim() === '')
    return new UsageError('--env-file is empty: give the path of a file of KEY=VALUE lines.', {flag: '--env-file'})
  const read = await files.readText(path, {maxBytes: ENV_FILE_MAX_BYTES})
  switch (read.kind) {
    case 'text':
      return {path, text: read.text}
    case 'missing':
      return problem(': no such file.')
    case 'unreadable':
      return problem(`: cannot read it (${read.message}).`)
    case 'directory':
      return problem(' is a directory; give a file of KEY=VALUE lines.')
    case 'not-a-file':
      return problem(' is not a regular file (a device, pipe or socket); give a file of KEY=VALUE lines.')
    case 'too-large':
      return problem(` is ${read.size} bytes; an env file may be at most ${ENV_FILE_MAX_BYTES} bytes (1 MiB).`, [
        'Pass only the variables the workload needs; large data belongs in the image or in storage.',
      ])
    case 'binary':
      return problem(` is not a text file (it contains ${read.reason}).`, [
        'Give a UTF-8 text file of KEY=VALUE lines.',
      ])
  }
}

/**
 * Checks --output-manifest-file before any work, so a long image build never ends in a write that was bound to
 * fail. The directory must already exist: creating directories the user may have mistyped hides the mistake.
 */
async function checkOutputManifestFile(path: string | undefined, files: LocalFiles): Promise<UsageError | undefined> {
  if (path === undefined) return undefined
  const problem = (message: string, hint: string) =>
    new UsageError(`--output-manifest-file ${message}`, {flag: '--output-manifest-file', hints: [hint]})
  if (path.trim() === '') {
    return problem('is empty.', 'Give the path of the YAML file to write, e.g. --output-manifest-file jobset.yaml.')
  }
  try {
    const target = await files.stat(path)
    if (target?.type === 'directory' || (target === undefined && path.endsWith('/'))) {
      return problem(
        `${path} is a directory.`,
        `Name a file in it, e.g. --output-manifest-file ${join(path, 'jobset.yaml')}.`,
      )
    }
    if (target?.type === 'other') {
      return problem(
        `${path} is not a regular file (a device, pipe or socket), and it would be replaced.`,
        'Name a regular file; to see the manifest on stdout, use --dry-run.',
      )
    }
    const parent = dirname(resolve(path))
    const folder = await files.stat(parent)
    if (folder === undefined) {
      return problem(
        `${path}: the directory ${parent} does not exist.`,
        `Create it first (mkdir -p ${parent}), or name a file in an existing directory.`,
      )
    }
    if (folder.type !== 'directory') {
      return problem(`${path}: ${parent} is not a directory.`, 'Name a file in an existing directory.')
    }
    if (!(await files.canWriteIn(parent))) {
      return problem(
        `${path}: no permission to create files in ${parent}.`,
        'Name a file in a directory you can write to.',
      )
    }
  } catch (error) {
    if (!(error instanceof XpkError)) throw error
    return problem(`${path}: ${error.message}`, 'Name a file in a directory you can write to.')
  }
  return undefined
}

// A terabyte: beyond it, the limit is surely a typo.
const MAX_SCRIPT_DIR_MAX_MB = 1_000_000

interface CheckedScriptDir {
  readonly dir: string
  readonly isDefault: boolean
  readonly maxBytes: number | null
}

/** Checks --script-dir (and the size limit) before any work: it must be a directory. */
async function checkScriptDir(
  options: WorkloadCreateOptions,
  deps: WorkloadCreateDeps,
): Promise<CheckedScriptDir | readonly UsageError[]> {
  const problems: UsageError[] = []
  const hints = [
    'Pass the directory holding your training code with --script-dir, or run a ready image with --docker-image.',
  ]
  const dir = options.scriptDir ?? deps.cwd
  if (dir.trim() === '') {
    problems.push(new UsageError('--script-dir is empty.', {flag: '--script-dir', hints}))
  } else {
    try {
      const found = await deps.files.stat(dir)
      if (found === undefined) {
        problems.push(new UsageError(`--script-dir ${dir}: no such directory.`, {flag: '--script-dir', hints}))
      } else if (found.type !== 'directory') {
        problems.push(new UsageError(`--script-dir ${dir} is not a directory.`, {flag: '--script-dir', hints}))
      }
    } catch (error) {
      if (!(error instanceof XpkError)) throw error
      problems.push(new UsageError(`--script-dir ${dir}: ${error.message}`, {flag: '--script-dir', hints}))
    }
  }
  const raw = deps.env[SCRIPT_DIR_MAX_MB_VARIABLE]
  let maxMb = DEFAULT_SCRIPT_DIR_MAX_MB
  if (raw !== undefined) {
    if (/^\d+$/.test(raw.trim()) && Number(raw) <= MAX_SCRIPT_DIR_MAX_MB) {
      maxMb = Number(raw)
    } else {
      problems.push(
        new UsageError(
          `${SCRIPT_DIR_MAX_MB_VARIABLE}=${JSON.stringify(raw)} is not a size in MB: use a whole number from 0 to ${MAX_SCRIPT_DIR_MAX_MB} (0: no size limit).`,
          {hints: [`Unset ${SCRIPT_DIR_MAX_MB_VARIABLE} to use the default of ${DEFAULT_SCRIPT_DIR_MAX_MB} MB.`]},
        ),
      )
    }
  }
  if (problems.length > 0) return problems
  return {dir, isDefault: options.scriptDir === undefined, maxBytes: maxMb === 0 ? null : maxMb * 1_000_000}
}

function describeScale(kind: string, slices: number, nodes: number): string {
  if (kind === 'GPU') return `${nodes} VM${nodes === 1 ? '' : 's'}`
  return `${slices} slice${slices === 1 ? '' : 's'}`
}
