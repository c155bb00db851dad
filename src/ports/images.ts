/**
 * Ports for building a script image: reading the script directory, the container engine that builds and pushes,
 * the registry that says what already exists, and the credentials for it.
 */

import type {ContextEntry} from '../core/image/context-digest.js'

/** A platform an image is built for. */
export type ImagePlatform = 'linux/amd64' | 'linux/arm64'

/** User name and password (or access token) for one registry. */
export interface RegistryAuth {
  readonly username: string
  readonly password: string
}

/** A script directory, listed after `.dockerignore` and hashed. */
export interface ScannedContext {
  /** Every path that will be sent, sorted by path. */
  readonly entries: readonly ContextEntry[]
  /** Total bytes of file content. */
  readonly bytes: number
  /** Paths left out because they are neither files, directories nor symlinks (sockets, devices). */
  readonly unsupported: readonly string[]
  /** Paths left out because they disappeared while the directory was being read. */
  readonly vanished: readonly string[]
  /**
   * An uncompressed tar stream: `dockerfile` as `Dockerfile` at the root and exactly {@link entries} under
   * `filesDir/`. The stream fails if a file no longer matches the hash taken when scanning.
   */
  pack(options: {readonly dockerfile: string; readonly filesDir: string}): AsyncIterable<Uint8Array>
}

/** What a script directory holds after `.dockerignore`, known before any file is read. */
export interface ContextListing {
  /** Every path that would be sent (sizes as listed; directories and symlinks count 0). */
  readonly entries: readonly Pick<ContextEntry, 'path' | 'type' | 'size'>[]
}

/** Options for {@link BuildContextSource.scan}. */
export interface ScanOptions {
  /**
   * Called once the directory is listed and before any file is read or hashed; throwing stops the scan. Lets the
   * caller look at (and refuse) a huge context before paying for reading it.
   */
  readonly beforeHashing?: (listing: ContextListing) => Promise<void> | void
}

/** Reads script directories. */
export interface BuildContextSource {
  /** Lists and hashes a directory, honouring its `.dockerignore`; tells when there is no directory to read. */
  scan(dir: string, options?: ScanOptions): Promise<ScannedContext | {readonly missing: 'absent' | 'not-a-directory'}>
}

/** An image in the engine's local store. */
export interface LocalImage {
  /** The image id (`sha256:...`, the digest of its config). */
  readonly id: string
  /** `name@sha256:...` for each registry it was pulled from or pushed to. */
  readonly repoDigests: readonly string[]
  /** `os/architecture`, e.g. `linux/amd64`. */
  readonly platform: string
}

/** What the engine reports while building. */
export type BuildEvent =
  | {readonly kind: 'step'; readonly step: number; readonly steps: number; readonly instruction: string}
  | {readonly kind: 'output'; readonly text: string}

/** A build that stopped with an error. */
export interface BuildFailure {
  readonly message: string
  /** The step that failed, when one had started. */
  readonly step: {readonly step: number; readonly steps: number; readonly instruction: string} | null
  /** The last lines of build output before the error. */
  readonly output: readonly string[]
}

/** What a layer is doing during a push. */
export type LayerPushState = 'preparing' | 'waiting' | 'pushing' | 'pushed' | 'exists' | 'mounted' | 'retrying'

/** What the engine reports while pushing. */
export type PushEvent = {
  readonly kind: 'layer'
  /** The short layer id the engine shows. */
  readonly id: string
  readonly state: LayerPushState
  /** Bytes sent so far and the layer size, while pushing; `current` never exceeds `total`. */
  readonly current?: number
  readonly total?: number
}

/** A push that stopped with an error. */
export interface PushFailure {
  readonly message: string
  /** True when the registry refused the credentials. */
  readonly denied: boolean
}

/** A container engine that builds images from a tar stream and pushes them. */
export interface ImageEngine {
  /**
   * Looks an image up in the local store.
   * @returns null when it is not there.
   * @throws XpkError 'unavailable' (or 'permission') when the engine cannot be reached.
   */
  inspectLocal(reference: string): Promise<LocalImage | null>
  /** Builds and tags an image; failures inside the build come back as a {@link BuildFailure}. */
  build(request: BuildRequest, onEvent: (event: BuildEvent) => void): Promise<BuildOutcome>
  /** Pushes `repository:tag`; the digest is the manifest digest the registry stored, when the engine tells it. */
  push(request: PushRequest, onEvent: (event: PushEvent) => void): Promise<PushOutcome>
}

/** The engine's own version, for `xpk doctor`; kept apart from {@link ImageEngine}, which builds and pushes. */
export interface EngineProbe {
  /**
   * The engine's version and where it was reached (`unix:///var/run/docker.sock`, `tcp://...`).
   * @throws XpkError 'unavailable' (or 'permission') when the engine cannot be reached.
   */
  version(): Promise<{readonly version: string; readonly where: string}>
}

/** What to build. */
export interface BuildRequest {
  /** An uncompressed tar with `Dockerfile` at its root. */
  readonly context: AsyncIterable<Uint8Array>
  /** Full local name, `repository:tag`. */
  readonly tag: string
  readonly platform: ImagePlatform
  /** Pull the base image even if a local copy exists (the local copy is for another platform). */
  readonly pull: boolean
  /** Credentials by registry host, for pulling a base image that is not local. */
  readonly registryAuth?: Readonly<Record<string, RegistryAuth>>
}

/** How a build ended. */
export type BuildOutcome =
  {readonly ok: true; readonly imageId: string | null} | {readonly ok: false; readonly failure: BuildFailure}

/** What to push: `repository:tag` from the local store. */
export interface PushRequest {
  readonly repository: string
  readonly tag: string
  readonly auth: RegistryAuth | null
}

/** How a push ended. */
export type PushOutcome =
  {readonly ok: true; readonly digest: string | null} | {readonly ok: false; readonly failure: PushFailure}

/** A manifest the registry has. */
export interface ManifestFound {
  readonly exists: true
  /** The manifest digest from `Docker-Content-Digest`, when the registry sends it. */
  readonly digest: string | null
}

/** Talks to registries over the Registry HTTP API v2. */
export interface RegistryClient {
  /**
   * Asks whether a manifest exists (`HEAD /v2/<repository>/manifests/<reference>`).
   * `auth` is only called when the registry asks for credentials.
   * @throws XpkError 'auth' when the registry refuses the credentials, 'unavailable' when it cannot be reached.
   */
  manifest(
    image: {readonly registry: string; readonly repository: string; readonly reference: string},
    auth: () => Promise<RegistryAuth | null>,
  ): Promise<ManifestFound | {readonly exists: false}>
}

/** Credentials found for a registry, and where they came from. */
export interface RegistryCredential {
  readonly auth: RegistryAuth | null
  /** Where the credentials came from, e.g. "Application Default Credentials" or "Docker config". */
  readonly source: string
  /** Why none could be found, when that is worth telling the user (e.g. a credential helper is missing). */
  readonly problem?: string
}

/** Finds credentials for registries. */
export interface RegistryCredentials {
  /** @throws XpkError 'auth' when the registry needs credentials that cannot be obtained (no ADC for Google). */
  forRegistry(registry: string): Promise<RegistryCredential>
}
