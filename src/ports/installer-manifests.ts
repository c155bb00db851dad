import type {GpuInstaller} from '../core/incluster/gpu-installers.js'
import type {KubeObject} from '../core/kube/release-manifest.js'

/** A GPU installer's manifest, checked to hold at least one DaemonSet. */
export interface InstallerManifest {
  readonly objects: readonly KubeObject[]
  /** Where it was read from (a path or URL), for messages. */
  readonly source: string
}

/** Google's GPUDirect manifests (see gpu-installers.ts). */
export interface InstallerManifestSource {
  /**
   * The installer's manifest: from `override` (a file or URL, the installer's flag) when given, else downloaded from
   * its URL. Fails with an XpkError naming the file or URL and the flag.
   */
  load(
    installer: GpuInstaller,
    options?: {readonly override?: string; readonly signal?: AbortSignal},
  ): Promise<InstallerManifest>
}
