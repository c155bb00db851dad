import {mkdir} from 'node:fs/promises'
import {homedir} from 'node:os'
import {join, resolve} from 'node:path'

import {xdgDirectory} from '../core/environment.js'
import {ApiError, UsageError, XpkError} from '../core/errors.js'
import type {ErrorKind} from '../core/errors.js'
import {textFileProblem} from '../core/text-file.js'
import {certificateError} from '../core/tls-errors.js'
import {findControllerDeployment, parseManifestOverride, RELEASES} from '../core/kube/release-manifest.js'
import type {KubeObject, Release, ReleaseComponent} from '../core/kube/release-manifest.js'
import type {
  LoadReleaseManifestOptions,
  ReleaseManifest,
  ReleaseManifestOrigin,
  ReleaseManifestSource,
} from '../ports/release-manifests.js'
import {NodeFiles} from './local-files.js'

/** Options for {@link HttpReleaseManifests}. */
export interface HttpReleaseManifestsOptions {
  /** Where downloaded manifests are kept. @default {@link defaultManifestCacheDir}() */
  readonly cacheDir?: string
  /** Replaces a release's own URL (tests). */
  readonly urls?: Partial<Record<ReleaseComponent, string>>
  /** Limit for one download, the whole body included, in milliseconds. @default 120000 */
  readonly timeoutMs?: number
  /** Largest manifest accepted, in bytes; the Kueue release manifest is a few MB. @default 64 MiB */
  readonly maxBytes?: number
}

const DEFAULT_TIMEOUT_MS = 120_000
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024

/**
 * `$XDG_CACHE_HOME/xpk/manifests`, or `~/.cache/xpk/manifests` when XDG_CACHE_HOME is unset or relative (the XDG
 * specification says to ignore a relative one), as bin/run.js does for the compile cache.
 */
export function defaultManifestCacheDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const cacheHome = xdgDirectory(env, 'XDG_CACHE_HOME', home)
  return join(cacheHome, 'xpk', 'manifests')
}

/** The cached copy of a component's release manifest: one file per version, so an upgrade downloads afresh. */
export function releaseManifestCachePath(cacheDir: string, component: ReleaseComponent): string {
  const {version} = RELEASES[component]
  return join(cacheDir, `${component}-${version}.yaml`)
}

/**
 * {@link ReleaseManifestSource} over HTTPS with a cache in the user's cache directory: each release is
 * downloaded once, checked, then written atomically, so a failed or partial download never leaves a file behind.
 */
export class HttpReleaseManifests implements ReleaseManifestSource {
  readonly cacheDir: string
  private readonly urls: Partial<Record<ReleaseComponent, string>>
  private readonly timeoutMs: number
  private readonly maxBytes: number
  private readonly files = new NodeFiles()

  constructor(options: HttpReleaseManifestsOptions = {}) {
    this.cacheDir = options.cacheDir ?? defaultManifestCacheDir()
    this.urls = options.urls ?? {}
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES
  }

  async load(component: ReleaseComponent, options: LoadReleaseManifestOptions = {}): Promise<ReleaseManifest> {
    const release = RELEASES[component]
    if (options.override !== undefined) return this.loadOverride(release, options.override, options.signal)

    const cachePath = releaseManifestCachePath(this.cacheDir, component)
    const cached = await this.readCached(release, cachePath)
    if (cached !== undefined) return cached

    const url = this.urls[component] ?? release.url
    const hints = downloadHints(release, cachePath)
    const text = await this.download(release, url, options.signal, hints)
    let objects: readonly KubeObject[]
    try {
      objects = await this.parse(release, text, url)
    } catch (error) {
      // Not the user's input, so not a usage error: the message already names the URL and what is wrong.
      throw new XpkError('failed', (error as Error).message, {hints, cause: error})
    }
    await this.writeCache(cachePath, text)
    return {text, objects, source: url, origin: 'download'}
  }

  /** A cached copy that still passes the checks, else undefined (a damaged copy is downloaded again). */
  private async readCached(release: Release, path: string): Promise<ReleaseManifest | undefined> {
    const read = await this.files.readText(path, {maxBytes: this.maxBytes})
    if (read.kind !== 'text') return undefined
    try {
      return {text: read.text, objects: await this.parse(release, read.text, path), source: path, origin: 'cache'}
    } catch {
      return undefined
    }
  }

  private async loadOverride(
    release: Release,
    override: string,
    signal: AbortSignal | undefined,
  ): Promise<ReleaseManifest> {
    const flag = release.overrideFlag
    const form = parseManifestOverride(override)
    if ('problem' in form) throw new UsageError(`${flag} ${override}: ${form.problem}.`, {flag})
    let text: string
    let origin: ReleaseManifestOrigin
    if (form.kind === 'url') {
      const hints = [`Check the URL given to ${flag}, or download the manifest and pass the file: ${flag} <file>.`]
      try {
        text = await this.download(release, form.url, signal, hints)
      } catch (error) {
        // The URL answered, and what it answered is not a manifest (404, 403, too large): the URL is wrong, which is
        // bad input; an unreachable host or a timeout stays what it is.
        if (error instanceof XpkError && (error.kind === 'not-found' || error.kind === 'failed')) {
          throw new UsageError(`${flag}: ${error.message}`, {flag, hints, cause: error})
        }
        throw error
      }
      origin = 'override-url'
    } else {
      text = await this.readOverrideFile(flag, form.path)
      origin = 'override-file'
    }
    try {
      return {text, objects: await this.parse(release, text, override), source: override, origin}
    } catch (error) {
      throw new UsageError(`${flag}: ${(error as Error).message}`, {flag, cause: error})
    }
  }

  private async readOverrideFile(flag: string, path: string): Promise<string> {
    const read = await this.files.readText(resolve(path), {maxBytes: this.maxBytes})
    if (read.kind === 'text') return read.text
    throw textFileProblem(read, {flag, path, what: 'a release manifest (YAML)', maxBytes: this.maxBytes})
  }

  private download(
    release: Release,
    url: string,
    signal: AbortSignal | undefined,
    hints: readonly string[],
  ): Promise<string> {
    const what = `the ${describeRelease(release)} release manifest from ${url}`
    return downloadManifestText(what, url, signal, hints, {timeoutMs: this.timeoutMs, maxBytes: this.maxBytes})
  }

  /**
   * The manifest's objects, from a JSON copy of them kept beside the cache and keyed by the text's SHA-256: parsing
   * the 2.4 MB of JobSet and Kueue YAML with js-yaml took most of an install's CPU, JSON.parse of the same objects a
   * small part of it (README, Speed; bench:in-cluster). A missing, unreadable or damaged copy only means parsing the YAML again.
   */
  private async parse(release: Release, text: string, source: string): Promise<KubeObject[]> {
    const {createHash} = await import('node:crypto')
    const path = join(
      this.cacheDir,
      'parsed',
      `${release.component}-${createHash('sha256').update(text).digest('hex')}.json`,
    )
    const read = await this.files.readText(path, {maxBytes: this.maxBytes * 2})
    if (read.kind === 'text') {
      try {
        const objects = JSON.parse(read.text) as KubeObject[]
        if (Array.isArray(objects) && findControllerDeployment(objects, release.component)) return objects
      } catch {
        // Damaged: parsed again below and rewritten.
      }
    }
    // Parsed for the first time: only now is the YAML parser (js-yaml) loaded.
    const {parseManifest} = await import('../core/kube/manifest-yaml.js')
    const objects = checkRelease(release, parseManifest(text, source), source)
    if (await makeDirectory(join(this.cacheDir, 'parsed'))) {
      await this.files.writeText(path, JSON.stringify(objects)).catch(() => undefined)
    }
    return objects
  }

  /** Best effort: a cache directory that cannot be made or written only means downloading again next time. */
  private async writeCache(path: string, text: string): Promise<void> {
    if (!(await makeDirectory(this.cacheDir))) return
    await this.files.writeText(path, text).catch(() => undefined)
  }
}

/** The whole body of `url` as UTF-8 text; any failure is an XpkError naming `what` (which file, from which URL) and why. */
export async function downloadManifestText(
  what: string,
  url: string,
  signal: AbortSignal | undefined,
  hints: readonly string[],
  limits: {readonly timeoutMs: number; readonly maxBytes: number},
): Promise<string> {
  const timeout = AbortSignal.timeout(limits.timeoutMs)
  const combined = signal === undefined ? timeout : AbortSignal.any([signal, timeout])
  // No answer, or a server error, is UNAVAILABLE: the retry policy tries again.
  const fail = (kind: ErrorKind, why: string, cause?: unknown): XpkError =>
    kind === 'unavailable'
      ? new ApiError(kind, `Cannot download ${what}: ${why}.`, {status: 'UNAVAILABLE', retryable: true, hints, cause})
      : new XpkError(kind, `Cannot download ${what}: ${why}.`, {hints, cause})
  try {
    const response = await fetch(url, {signal: combined, redirect: 'follow'})
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined)
      throw fail(
        statusKind(response.status),
        `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`,
      )
    }
    // A body cut short (fewer bytes than Content-Length, a dropped connection) makes fetch's reader throw.
    const bytes = await readBody(response, limits.maxBytes)
    if (bytes === undefined) throw fail('failed', `the file is larger than ${limits.maxBytes} bytes`)
    try {
      return new TextDecoder('utf-8', {fatal: true}).decode(bytes)
    } catch (error) {
      throw fail('failed', 'the file is not UTF-8 text', error)
    }
  } catch (error) {
    if (error instanceof XpkError) throw error
    if (signal?.aborted) throw new XpkError('interrupted', `Stopped downloading ${what}.`, {cause: error})
    // Only a completed handshake whose certificate failed verification is a certificate problem; a connection
    // cut during the handshake is unavailable like any other.
    const certificate = certificateError(error, `Cannot download ${what}: its certificate`, [
      ...hints,
      'A proxy that intercepts TLS needs its CA certificate in NODE_EXTRA_CA_CERTS.',
    ])
    if (certificate) throw certificate
    if (timeout.aborted) {
      throw fail('unavailable', `no complete answer within ${limits.timeoutMs / 1000} s`, error)
    }
    throw fail('unavailable', networkReason(error), error)
  }
}

/**
 * Checks that a parsed release manifest is the component's: a manifest without the controller Deployment
 * (an HTML error page that parses as YAML, another component's file) would install nothing that works.
 */
function checkRelease(release: Release, objects: KubeObject[], source: string): KubeObject[] {
  if (findControllerDeployment(objects, release.component) === undefined) {
    const {namespace, name} = release.controller
    throw new XpkError(
      'usage',
      `${source} is not a ${release.title} release manifest: it has no Deployment ${namespace}/${name}.`,
    )
  }
  return objects
}

function describeRelease(release: Release): string {
  return `${release.title} ${release.version}`
}

function downloadHints(release: Release, cachePath: string): string[] {
  const flag = release.overrideFlag
  return [
    `Where GitHub cannot be reached, download ${release.url} elsewhere and pass it with ${flag} <file>, or pass a mirror with ${flag} <https URL>.`,
    `Or put the file at ${cachePath}, where xpk looks before downloading.`,
  ]
}

function statusKind(status: number): ErrorKind {
  if (status === 404 || status === 410) return 'not-found'
  if (status === 408 || status === 429 || status >= 500) return 'unavailable'
  return 'failed'
}

/** fetch reports network failures as "fetch failed" with the system error as its cause; that cause is the news. */
function networkReason(error: unknown): string {
  const cause = (error as {cause?: unknown}).cause ?? error
  const code = (cause as NodeJS.ErrnoException).code
  const reasons: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'the connection was reset',
    UND_ERR_SOCKET: 'the connection closed unexpectedly',
    ENOTFOUND: 'the host name does not resolve',
    EAI_AGAIN: 'the host name could not be resolved (DNS failure)',
    ETIMEDOUT: 'the connection timed out',
    EHOSTUNREACH: 'the host is unreachable',
    ENETUNREACH: 'the network is unreachable',
  }
  const message = (cause as Error).message ?? String(cause)
  if (code !== undefined && reasons[code] !== undefined) return `${reasons[code]} (${code})`
  return code === undefined ? message : `${message} (${code})`
}

/** The body, or undefined once it exceeds `maxBytes` (the rest is not read). */
async function readBody(response: Response, maxBytes: number): Promise<Uint8Array | undefined> {
  if (response.body === null) return new Uint8Array()
  const chunks: Uint8Array[] = []
  let length = 0
  const reader = response.body.getReader()
  for (;;) {
    const {done, value} = await reader.read()
    if (done) break
    length += value.length
    if (length > maxBytes) {
      await reader.cancel().catch(() => undefined)
      return undefined
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks, length)
}

/** mkdir -p, one level at a time: Node's recursive mkdir spins forever on some unwritable paths (see bin/run.js). */
async function makeDirectory(path: string): Promise<boolean> {
  let at = ''
  for (const part of resolve(path).split('/').filter(Boolean)) {
    at += `/${part}`
    try {
      await mkdir(at, {mode: 0o700})
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false
    }
  }
  return true
}
