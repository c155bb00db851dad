import type {KubeObject, ReleaseComponent} from '../core/kube/release-manifest.js'

/** Options for {@link ReleaseManifestSource.load}. */
export interface LoadReleaseManifestOptions {
  /**
   * A local file path or an http(s) URL that replaces the release's own URL (the `--jobset-manifest` /
   * `--kueue-manifest` flags): for clusters that cannot reach GitHub, and for tests. Read every time, never cached.
   */
  readonly override?: string
  /** Cancels a download in progress (Ctrl-C). */
  readonly signal?: AbortSignal
}

/** Where a loaded manifest came from. */
export type ReleaseManifestOrigin = 'cache' | 'download' | 'override-file' | 'override-url'

/** A release manifest, checked to be a Kubernetes manifest holding the component's controller Deployment. */
export interface ReleaseManifest {
  /** The file as read or downloaded. */
  readonly text: string
  /** Its objects, in file order (see `parseManifest`). */
  readonly objects: readonly KubeObject[]
  /** Where it was read from (a path or URL), for messages. */
  readonly source: string
  readonly origin: ReleaseManifestOrigin
}

/** The release manifests of the components xpk installs. */
export interface ReleaseManifestSource {
  /**
   * The release manifest of `component` at the version xpk installs: from the override when given, else from the
   * user's cache, else downloaded once and cached. Fails with an XpkError that names the file or URL, says why,
   * and tells how to use the override.
   */
  load(component: ReleaseComponent, options?: LoadReleaseManifestOptions): Promise<ReleaseManifest>
}
