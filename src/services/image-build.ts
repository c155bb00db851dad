import {UsageError, XpkError} from '../core/errors.js'
import {withRetries, type RetryOptions} from '../executor/retry.js'
import {DEFAULT_SCRIPT_DIR_MAX_MB} from '../core/image/context-check.js'
import {contextDigest} from '../core/image/context-digest.js'
import {CONTEXT_FILES_DIR, layerDockerfile} from '../core/image/dockerfile.js'
import {
  contextTag,
  pinnedReference,
  registryAuthError,
  registryLoginHint,
  tryParseImageReference,
  type ImageReference,
} from '../core/image/naming.js'
import type {Console, ProgressBoard, ProgressLine} from '../ports/console.js'
import type {
  BuildContextSource,
  BuildFailure,
  ContextListing,
  ImageEngine,
  LayerPushState,
  RegistryAuth,
  RegistryClient,
  RegistryCredentials,
  ScannedContext,
} from '../ports/images.js'
import {
  imageBaseLookupFallback,
  imageBasePlatformMismatch,
  imageConfirmLargeScriptDir,
  imageCredentialProblem,
  imageDefaultScriptDir,
  imageExists,
  imageOffline,
  imagePushed,
  imageUnsupportedFiles,
  imageVanishedFiles,
  imageWouldBuild,
} from '../core/messages/image.js'
import {confirmPacking, type PackingPurpose} from './script-dir.js'

export interface ImageBuildOptions {
  readonly baseImage: string
  readonly scriptDir: string
  readonly platform: 'linux/amd64' | 'linux/arm64'
  /** Where the image goes, without tag: see `imageRepository` in src/core/image/naming.ts. */
  readonly repository: string
  /** Compute the tag and ask the registry, but build and push nothing. */
  readonly dryRun: boolean
  /** Make no network or engine call at all (implies no build); the tag may then differ from a real run's. */
  readonly offline: boolean
  /** The user did not name the script directory (it is the current one), so say what is being packed. */
  readonly scriptDirIsDefault?: boolean
  /** Ask before packing more than this many bytes; null: no limit. @default 100 MB */
  readonly maxContextBytes?: number | null
}

export interface ImageBuildResult {
  readonly repository: string
  readonly tag: string
  /** What the JobSet should run: `repository@digest`, or `repository:tag` when the digest is not known. */
  readonly reference: string
  readonly digest: string | null
  readonly action: 'pushed' | 'exists' | 'would-build' | 'would-skip' | 'offline'
  readonly layersPushed: number
  readonly layersSkipped: number
  readonly contextFiles: number
  readonly baseDigest: string | null
  /** Where `baseDigest` came from: the reference itself, the local engine, the base's registry, or nowhere. */
  readonly baseDigestSource: 'reference' | 'engine' | 'registry' | 'unresolved'
  readonly seconds: number
}

export interface ImageBuildDeps {
  readonly context: BuildContextSource
  readonly engine: ImageEngine
  readonly registry: RegistryClient
  readonly credentials: RegistryCredentials
  readonly console: Console
  /** A millisecond clock, for `seconds`. */
  readonly now: () => number
  /** The one retry policy, for the registry's reads; without it each is tried once. */
  readonly retry?: RetryOptions
}

/** A read of the registry, through the retry policy when there is one. */
function registryRead<T>(deps: ImageBuildDeps, read: () => Promise<T>): Promise<T> {
  return deps.retry ? withRetries(read, deps.retry) : read()
}

interface BuildStep {
  readonly step: number
  readonly steps: number
  readonly instruction: string
}

interface ResolvedBase {
  readonly digest: string | null
  readonly source: ImageBuildResult['baseDigestSource']
  /** What the Dockerfile's FROM names: pinned by digest when the digest came from the registry. */
  readonly from: string
  /** A local copy exists but for another platform, so the engine must pull. */
  readonly pull: boolean
}

/** An image as planned: what is known before anything is built, and how to build it when it must be. */
export interface PlannedImageBuild {
  /** The tag, the reference and whether the registry has it (`action`: exists, would-skip, would-build, offline). */
  readonly result: ImageBuildResult
  /** Builds and pushes it: set only when the registry lacks the tag and this is not a dry run. */
  readonly build: (() => Promise<ImageBuildResult>) | null
}

/**
 * Layers a script directory onto a base image and pushes it under a tag derived from the content, doing nothing
 * when the registry already has that tag. The tag covers the files (after .dockerignore), their modes, the base
 * image's digest and the platform, so the same inputs always give the same tag.
 */
export async function buildImage(options: ImageBuildOptions, deps: ImageBuildDeps): Promise<ImageBuildResult> {
  const planned = await planImage(options, deps)
  return planned.build === null ? planned.result : planned.build()
}

/**
 * The plan half of {@link buildImage}: scans the script directory (asking first when it looks like more than
 * training code), resolves the base image, derives the tag and asks the registry whether it has it. Nothing is
 * built or pushed: `build` does that, for a submit that needs it.
 */
export async function planImage(options: ImageBuildOptions, deps: ImageBuildDeps): Promise<PlannedImageBuild> {
  const started = deps.now()
  const target = parseTarget(options.repository)
  const base = parseBase(options.baseImage)
  // The base image lookup waits on the engine or the network and the scan on the disk, so both run at once; a
  // problem with the script directory is still reported first.
  const resolving = options.offline
    ? Promise.resolve(offlineBase(options.baseImage, base))
    : resolveBase(options, base, deps)
  resolving.catch(() => undefined)
  const scanned = await scanScriptDir(options, deps)
  const resolved = await resolving
  const dockerfile = layerDockerfile(resolved.from)
  // The tag hashes the Dockerfile as the user named the base, not as pinned for this build: whether the digest came
  // from the local engine or the registry must not change the tag (the digest itself is hashed separately).
  const tag = contextTag(
    contextDigest({
      entries: scanned.entries,
      dockerfile: layerDockerfile(options.baseImage),
      baseDigest: resolved.digest,
      platform: options.platform,
    }),
  )
  const local = `${options.repository}:${tag}`
  const result = (
    action: ImageBuildResult['action'],
    digest: string | null,
    layers: {pushed: number; skipped: number} = {pushed: 0, skipped: 0},
  ): ImageBuildResult => ({
    repository: options.repository,
    tag,
    reference: pinnedReference(options.repository, tag, digest),
    digest,
    action,
    layersPushed: layers.pushed,
    layersSkipped: layers.skipped,
    contextFiles: scanned.entries.filter((e) => e.type !== 'directory').length,
    baseDigest: resolved.digest,
    baseDigestSource: resolved.source,
    seconds: Math.round(deps.now() - started) / 1000,
  })
  deps.console.debug(
    `Image ${local}: ${scanned.entries.length} context entries (${scanned.bytes} bytes), base ${options.baseImage}` +
      ` at ${resolved.digest ?? 'an unresolved digest'} (from ${resolved.source}), ${options.platform}.`,
  )

  if (options.offline) {
    deps.console.info(imageOffline({reference: local, baseDigestKnown: Boolean(resolved.digest)}))
    return {result: result('offline', null), build: null}
  }

  // Looked up once, and its problem (a failing credential helper, say) told once, whichever call needs it first.
  const targetCredential = once(async () => {
    const credential = await deps.credentials.forRegistry(target.registry)
    deps.console.debug(`Credentials for ${target.registry}: ${credential.source}.`)
    if (credential.problem) deps.console.warn(imageCredentialProblem({problem: credential.problem}))
    return credential
  })
  const targetAuth = async () => (await targetCredential()).auth
  const existing = await registryRead(deps, () =>
    deps.registry.manifest({registry: target.registry, repository: target.repository, reference: tag}, targetAuth),
  )
  if (existing.exists) {
    deps.console.info(imageExists({reference: local, dryRun: options.dryRun}))
    return {result: result(options.dryRun ? 'would-skip' : 'exists', existing.digest), build: null}
  }
  if (options.dryRun) {
    deps.console.info(imageWouldBuild({reference: local}))
    return {result: result('would-build', null), build: null}
  }

  const buildAndPush = async (): Promise<ImageBuildResult> => {
    await build(local, scanned, dockerfile, options, resolved, deps)
    const pushed = await push(target, tag, options.repository, (await targetCredential()).auth, deps)
    const digest =
      pushed.digest ??
      (await registryRead(deps, () =>
        deps.registry.manifest({registry: target.registry, repository: target.repository, reference: tag}, targetAuth),
      ).then((found) => (found.exists ? found.digest : null)))
    const done = result('pushed', digest, pushed.layers)
    deps.console.info(
      imagePushed({
        reference: done.reference,
        layersPushed: pushed.layers.pushed,
        layersSkipped: pushed.layers.skipped,
        seconds: done.seconds,
      }),
    )
    return done
  }
  return {result: result('would-build', null), build: buildAndPush}
}

function parseTarget(repository: string): ImageReference {
  const parsed = tryParseImageReference(repository)
  if (parsed === null || parsed.tag !== null || parsed.digest !== null || !repository.includes('/')) {
    throw new UsageError(`"${repository}" is not an image repository (HOST/PATH, without tag).`, {
      flag: '--registry',
      hints: ['Give a registry prefix such as us-docker.pkg.dev/PROJECT/REPO, or a --project for gcr.io.'],
    })
  }
  return parsed
}

function parseBase(baseImage: string): ImageReference {
  const parsed = tryParseImageReference(baseImage)
  if (parsed === null) {
    throw new UsageError(`"${baseImage}" is not an image reference.`, {
      flag: '--base-docker-image',
      hints: ['Use the form [HOST[:PORT]/]PATH[:TAG][@sha256:DIGEST], e.g. python:3.10.'],
    })
  }
  return parsed
}

async function scanScriptDir(options: ImageBuildOptions, deps: ImageBuildDeps): Promise<ScannedContext> {
  const dir = options.scriptDir
  const scanned = await deps.context.scan(dir, {beforeHashing: (listing) => checkContext(listing, options, deps)})
  if ('missing' in scanned) {
    throw new UsageError(
      scanned.missing === 'absent' ? `The script directory ${dir} does not exist.` : `${dir} is not a directory.`,
      {flag: '--script-dir', hints: ['Pass the directory holding your training code with --script-dir.']},
    )
  }
  if (scanned.unsupported.length > 0) {
    deps.console.warn(imageUnsupportedFiles({files: scanned.unsupported}))
  }
  if (scanned.vanished.length > 0) {
    deps.console.warn(imageVanishedFiles({files: scanned.vanished}))
  }
  return scanned
}

/** Asks before packing a script directory that looks like a whole repository or is very big (services/script-dir.ts). */
async function checkContext(listing: ContextListing, options: ImageBuildOptions, deps: ImageBuildDeps): Promise<void> {
  await confirmPacking(
    listing.entries,
    {
      path: options.scriptDir,
      isDefault: options.scriptDirIsDefault ?? false,
      maxBytes: options.maxContextBytes === undefined ? DEFAULT_SCRIPT_DIR_MAX_MB * 1_000_000 : options.maxContextBytes,
    },
    IMAGE_PACKING,
    deps.console,
  )
}

const IMAGE_PACKING: PackingPurpose = {
  destination: 'into the image',
  ignoreFiles: '.dockerignore',
  messages: {defaultDir: imageDefaultScriptDir, confirm: imageConfirmLargeScriptDir},
  nothingDone: 'Nothing was built.',
}

function offlineBase(baseImage: string, base: ImageReference): ResolvedBase {
  return base.digest
    ? {digest: base.digest, source: 'reference', from: baseImage, pull: false}
    : {digest: null, source: 'unresolved', from: baseImage, pull: false}
}

/**
 * Finds the base image's digest: from the reference itself, else from the local engine (what a build would really
 * use), else from its registry (what a build would pull, so the Dockerfile pins it).
 */
async function resolveBase(
  options: ImageBuildOptions,
  base: ImageReference,
  deps: ImageBuildDeps,
): Promise<ResolvedBase> {
  if (base.digest) return {digest: base.digest, source: 'reference', from: options.baseImage, pull: false}
  let local = null
  try {
    local = await deps.engine.inspectLocal(options.baseImage)
  } catch (error) {
    const engineDown = error instanceof XpkError && (error.kind === 'unavailable' || error.kind === 'permission')
    if (!options.dryRun || !engineDown) throw error
    deps.console.warn(imageBaseLookupFallback({cause: error.message}))
  }
  if (local && local.platform === options.platform) {
    const repoDigest = local.repoDigests.map(tryParseImageReference).find((d) => d && sameRepository(d, base))
    return {digest: repoDigest?.digest ?? local.id, source: 'engine', from: options.baseImage, pull: false}
  }
  if (local) {
    deps.console.warn(
      imageBasePlatformMismatch({
        image: options.baseImage,
        localPlatform: local.platform,
        platform: options.platform,
      }),
    )
  }
  const found = await registryRead(deps, () =>
    deps.registry.manifest(
      {registry: base.registry, repository: base.repository, reference: base.tag ?? 'latest'},
      async () => {
        // A public base image needs no credentials, so failing to find any is not an error here.
        try {
          return (await deps.credentials.forRegistry(base.registry)).auth
        } catch {
          return null
        }
      },
    ),
  ).catch((error: unknown) => {
    if (error instanceof XpkError && error.kind === 'auth') throw error
    throw new XpkError('image', `Could not look up the base image ${options.baseImage}: ${(error as Error).message}`, {
      hints: ['Check your network connection, or `docker pull` the base image first.'],
      cause: error,
    })
  })
  if (!found.exists) throw missingBase(options.baseImage, base.registry, 'its registry does not have it')
  if (!found.digest) return {digest: null, source: 'unresolved', from: options.baseImage, pull: local !== null}
  return {
    digest: found.digest,
    source: 'registry',
    from: `${withoutTag(options.baseImage)}@${found.digest}`,
    pull: local !== null,
  }
}

async function build(
  local: string,
  scanned: ScannedContext,
  dockerfile: string,
  options: ImageBuildOptions,
  resolved: ResolvedBase,
  deps: ImageBuildDeps,
): Promise<void> {
  const board = deps.console.progress(`Building ${local} (${options.platform})`)
  const show = (step: BuildStep, state: string, status: ProgressLine['status'], detail?: string) =>
    board.update(`step-${step.step}`, {
      label: `Step ${step.step}/${step.steps}`,
      state,
      status,
      ...(detail ? {detail} : {}),
    })
  // The engine only says when a step starts; the previous step is done at that moment.
  const progress: {running: BuildStep | null} = {running: null}
  let outcome
  try {
    outcome = await deps.engine.build(
      {
        context: scanned.pack({dockerfile, filesDir: CONTEXT_FILES_DIR}),
        tag: local,
        platform: options.platform,
        pull: resolved.pull,
        registryAuth: await baseRegistryAuth(options.baseImage, resolved, deps),
      },
      (event) => {
        if (event.kind === 'output') {
          deps.console.debug(event.text)
          return
        }
        if (progress.running === null) {
          // Lay out every step at once, in order, so the display does not grow line by line.
          for (let n = 1; n <= event.steps; n++) {
            if (n === event.step) show(event, event.instruction, 'running')
            else show({...event, step: n}, 'waiting', 'waiting')
          }
        } else {
          show(progress.running, progress.running.instruction, 'done')
          show(event, event.instruction, 'running')
        }
        progress.running = event
      },
    )
    const last = outcome.ok ? progress.running : outcome.failure.step
    if (last)
      show(last, last.instruction, outcome.ok ? 'done' : 'failed', outcome.ok ? undefined : outcome.failure.message)
  } finally {
    board.close()
  }
  if (!outcome.ok) throw buildError(outcome.failure, options.baseImage)
}

async function push(
  target: ImageReference,
  tag: string,
  repository: string,
  auth: RegistryAuth | null,
  deps: ImageBuildDeps,
): Promise<{digest: string | null; layers: {pushed: number; skipped: number}}> {
  const board: ProgressBoard = deps.console.progress(`Pushing ${repository}:${tag}`)
  const states = new Map<string, LayerPushState>()
  let outcome
  try {
    outcome = await deps.engine.push({repository, tag, auth}, (event) => {
      states.set(event.id, event.state)
      const [state, status] = LAYER_DISPLAY[event.state]
      board.update(event.id, {
        label: `layer ${event.id}`,
        state,
        status,
        ...(event.total !== undefined ? {current: event.current ?? 0, total: event.total} : {}),
      })
    })
    if (!outcome.ok) {
      for (const [id, state] of states) {
        if (LAYER_DISPLAY[state][1] !== 'done') board.update(id, {label: `layer ${id}`, state, status: 'failed'})
      }
    }
  } finally {
    board.close()
  }
  if (!outcome.ok) {
    if (outcome.failure.denied) throw registryAuthError(target.registry, outcome.failure.message)
    throw new XpkError('image', `Pushing ${repository}:${tag} failed: ${outcome.failure.message}`, {
      hints: ['Run the command again; layers already pushed are not sent twice.'],
    })
  }
  const finals = [...states.values()]
  return {
    digest: outcome.digest,
    layers: {
      pushed: finals.filter((s) => s === 'pushed').length,
      skipped: finals.filter((s) => s === 'exists' || s === 'mounted').length,
    },
  }
}

const LAYER_DISPLAY: Record<LayerPushState, [string, 'waiting' | 'running' | 'done' | 'failed']> = {
  preparing: ['preparing', 'waiting'],
  waiting: ['waiting', 'waiting'],
  pushing: ['pushing', 'running'],
  retrying: ['retrying', 'running'],
  pushed: ['pushed', 'done'],
  exists: ['already in registry', 'done'],
  mounted: ['mounted', 'done'],
}

/** Credentials for the engine to pull the base image with, when it will have to pull it. */
async function baseRegistryAuth(
  baseImage: string,
  resolved: ResolvedBase,
  deps: ImageBuildDeps,
): Promise<Record<string, RegistryAuth>> {
  if (resolved.source !== 'registry' && !resolved.pull) return {}
  const registry = tryParseImageReference(baseImage)?.registry
  if (!registry) return {}
  const auth = await deps.credentials.forRegistry(registry).then(
    (found) => found.auth,
    () => null,
  )
  return auth ? {[registry]: auth} : {}
}

function buildError(failure: BuildFailure, baseImage: string): XpkError {
  const where = failure.step ? ` at step ${failure.step.step}/${failure.step.steps} (${failure.step.instruction})` : ''
  const output = failure.output.length > 0 ? `\n${failure.output.map((line) => `  ${line}`).join('\n')}` : ''
  if (failure.step?.step === 1 && /^FROM /i.test(failure.step.instruction)) {
    return missingBase(baseImage, tryParseImageReference(baseImage)?.registry ?? '', failure.message)
  }
  return new XpkError('image', `Building the image failed${where}: ${failure.message}${output}`, {
    hints: ['Fix the cause shown above and run the command again; finished steps are cached.'],
  })
}

function missingBase(baseImage: string, registry: string, detail: string): XpkError {
  return new XpkError('image', `The base image ${baseImage} is not available: ${detail}.`, {
    hints: [
      'Check the name and tag given with --base-docker-image, or `docker pull` it first.',
      ...(registry ? [`If it is private: ${registryLoginHint(registry)}`] : []),
    ],
  })
}

function sameRepository(a: ImageReference, b: ImageReference): boolean {
  return a.registry === b.registry && a.repository === b.repository
}

function withoutTag(reference: string): string {
  const name = reference.split('@')[0]!
  const colon = name.lastIndexOf(':')
  return colon > name.lastIndexOf('/') ? name.slice(0, colon) : name
}

function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined
  return () => (value ??= fn())
}
