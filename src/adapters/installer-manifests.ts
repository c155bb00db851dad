import {resolve} from 'node:path'

import {UsageError, XpkError} from '../core/errors.js'
import type {GpuInstaller} from '../core/incluster/gpu-installers.js'
import {parseManifestOverride, type KubeObject} from '../core/kube/release-manifest.js'
import {textFileProblem} from '../core/text-file.js'
import type {InstallerManifest, InstallerManifestSource} from '../ports/installer-manifests.js'
import {NodeFiles} from './local-files.js'
import {downloadManifestText} from './release-manifests.js'

const LIMITS = {timeoutMs: 120_000, maxBytes: 4 * 1024 * 1024}

/**
 * {@link InstallerManifestSource} over HTTPS, without a cache: the manifests are on `master`, not a release, so a
 * cached copy would keep an installer Google has since changed; each is a few KB, downloaded once per run.
 */
export class HttpInstallerManifests implements InstallerManifestSource {
  private readonly files = new NodeFiles()

  constructor(private readonly urls: Partial<Record<GpuInstaller['name'], string>> = {}) {}

  async load(
    installer: GpuInstaller,
    options: {readonly override?: string; readonly signal?: AbortSignal} = {},
  ): Promise<InstallerManifest> {
    const flag = installer.overrideFlag
    const hints = [
      `Where GitHub cannot be reached, download ${installer.url} elsewhere and pass it with ${flag} <file>, or pass a mirror with ${flag} <https URL>.`,
    ]
    if (options.override === undefined) {
      const url = this.urls[installer.name] ?? installer.url
      const text = await downloadManifestText(
        `the ${installer.title} manifest from ${url}`,
        url,
        options.signal,
        hints,
        LIMITS,
      )
      try {
        return {objects: await parseInstaller(installer, text, url), source: url}
      } catch (error) {
        throw new XpkError('failed', (error as Error).message, {hints, cause: error})
      }
    }
    const override = options.override
    const form = parseManifestOverride(override)
    if ('problem' in form) throw new UsageError(`${flag} ${override}: ${form.problem}.`, {flag})
    let text: string
    if (form.kind === 'url') {
      try {
        text = await downloadManifestText(
          `the ${installer.title} manifest from ${form.url}`,
          form.url,
          options.signal,
          [`Check the URL given to ${flag}, or download the manifest and pass the file: ${flag} <file>.`],
          LIMITS,
        )
      } catch (error) {
        if (error instanceof XpkError && (error.kind === 'not-found' || error.kind === 'failed')) {
          throw new UsageError(`${flag}: ${error.message}`, {flag, cause: error})
        }
        throw error
      }
    } else {
      const read = await this.files.readText(resolve(form.path), {maxBytes: LIMITS.maxBytes})
      if (read.kind !== 'text') {
        throw textFileProblem(read, {
          flag,
          path: form.path,
          what: 'a Kubernetes manifest (YAML)',
          maxBytes: LIMITS.maxBytes,
        })
      }
      text = read.text
    }
    try {
      return {objects: await parseInstaller(installer, text, override), source: override}
    } catch (error) {
      throw new UsageError(`${flag}: ${(error as Error).message}`, {flag, cause: error})
    }
  }
}

/** The manifest's objects; one without a DaemonSet (an HTML error page, another file) would install nothing. */
async function parseInstaller(installer: GpuInstaller, text: string, source: string): Promise<KubeObject[]> {
  const {parseManifest} = await import('../core/kube/manifest-yaml.js')
  const objects = parseManifest(text, source)
  if (!objects.some((o) => o.apiVersion === 'apps/v1' && o.kind === 'DaemonSet')) {
    throw new XpkError('usage', `${source} is not the ${installer.title} manifest: it has no DaemonSet.`)
  }
  return objects
}
