/**
 * Every input of `xpk workload create`, read and checked before anything is planned, built or sent (issue 17): the
 * flags, --env-file, --output-manifest-file, --script-dir and the image's repository, and the target. Usage problems
 * are reported together.
 */
import {dirname, join, resolve} from 'node:path'

import {UsageError, XpkError} from '../core/errors.js'
import {imageRepository} from '../core/image/naming.js'
import {Problems} from '../core/input.js'
import {textFileProblem} from '../core/text-file.js'
import {WORKLOAD_DEFAULTS, workloadInputFromFlags, type WorkloadInput} from '../core/workload/options.js'
import type {LocalFiles} from '../ports/files.js'
import {scriptDirLimit} from './script-dir.js'
import {targetProblems, type WorkloadTarget} from './workload-cluster.js'
import type {WorkloadCreateDeps, WorkloadCreateOptions} from './workload-create.js'

/** The inputs, checked. */
export interface CheckedCreateInputs {
  readonly input: WorkloadInput
  /** Where a built image goes (without --docker-image). */
  readonly repository: string | undefined
  /** The script directory to build from (without --docker-image). */
  readonly scriptDir: CheckedScriptDir | undefined
  readonly target: WorkloadTarget & {readonly cluster: string}
  /**
   * Why a dry run does not read the cluster: `--offline`, or `target` when there is no way to find it (no project
   * and zone, nor a kubeconfig); null when it is read (always, for a submit).
   */
  readonly unread: '--offline' | 'target' | null
}

export interface CheckedScriptDir {
  readonly dir: string
  readonly isDefault: boolean
  readonly maxBytes: number | null
}

/** Checks every input at once. @throws UsageErrors listing every problem */
export async function checkCreateInputs(
  options: WorkloadCreateOptions,
  deps: WorkloadCreateDeps,
): Promise<CheckedCreateInputs> {
  const problems = new Problems()
  const collect = <T>(check: () => T): T | undefined => problems.attempt(check)
  const envFile = options.envFile === undefined ? undefined : await readEnvFile(options.envFile, deps.files)
  if (envFile instanceof UsageError) problems.push(envFile)
  const flags = {...options.flags, cluster: options.settings.cluster.value}
  const parsed = collect(() =>
    workloadInputFromFlags(flags, envFile instanceof UsageError ? undefined : envFile, deps.env),
  )
  // A headless Pathways workload has no container of the user's: nothing to build.
  const buildsImage = options.dockerImage === undefined && options.flags.pathways?.headless !== true
  const repository = buildsImage
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
  const scriptDir = buildsImage ? await checkScriptDir(options, deps) : undefined
  if (Array.isArray(scriptDir)) for (const problem of scriptDir) problems.push(problem)
  const target = {
    project: options.settings.project.value,
    zone: options.settings.zone.value,
    cluster: options.settings.cluster.value,
    viaKubeconfig: options.viaKubeconfig ?? false,
  }
  // A missing --cluster is already among the flag problems. A dry run reads the cluster when it can find it (not
  // --offline, and a kubeconfig or a project and zone); a submit must.
  const targetMissing = targetProblems(target).filter((problem) => problem.flag !== '--cluster')
  if (!options.dryRun) for (const problem of targetMissing) problems.push(problem)
  problems.throwIfAny()
  const input = parsed as NonNullable<typeof parsed>
  return {
    input,
    repository,
    // Checked above whenever there is an image to build.
    scriptDir: scriptDir as CheckedScriptDir | undefined,
    target: {...target, cluster: input.cluster},
    unread: options.dryRun ? (options.offline ? '--offline' : targetMissing.length > 0 ? 'target' : null) : null,
  }
}

/** Env files are a few lines; anything bigger is a mistake (a data file, a device) and is not read. */
export const ENV_FILE_MAX_BYTES = 1 << 20

async function readEnvFile(path: string, files: LocalFiles): Promise<{path: string; text: string} | UsageError> {
  if (path.trim() === '')
    return new UsageError('--env-file is empty: give the path of a file of KEY=VALUE lines.', {flag: '--env-file'})
  const read = await files.readText(path, {maxBytes: ENV_FILE_MAX_BYTES})
  if (read.kind === 'text') return {path, text: read.text}
  return textFileProblem(read, {
    flag: '--env-file',
    path,
    what: 'a file of KEY=VALUE lines',
    maxBytes: ENV_FILE_MAX_BYTES,
    hints:
      read.kind === 'too-large'
        ? ['Pass only the variables the workload needs; large data belongs in the image or in storage.']
        : [],
  })
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
  const maxBytes = scriptDirLimit(deps.env)
  if (maxBytes instanceof UsageError) problems.push(maxBytes)
  if (problems.length > 0) return problems
  return {dir, isDefault: options.scriptDir === undefined, maxBytes: maxBytes as number | null}
}
