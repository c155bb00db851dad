/**
 * Image names: where a script image goes, how a reference splits into registry, repository, tag and digest, which
 * credentials a registry takes, and the content-derived tag.
 */

import {UsageError, XpkError} from '../errors.js'

/** An image reference split into its parts. */
export interface ImageReference {
  /** The registry host as written (`gcr.io`, `127.0.0.1:5001`); `docker.io` for Docker Hub short names. */
  readonly registry: string
  /** The repository path inside the registry (`my-project/jax-tpu`, `library/python`). */
  readonly repository: string
  readonly tag: string | null
  /** `sha256:...` when the reference pins a digest. */
  readonly digest: string | null
}

/** Which credentials a registry takes. */
export type RegistryAuthKind = 'google' | 'docker-config'

/** Where the script image goes. */
export interface ImageRepositoryInput {
  /** A registry prefix such as `us-docker.pkg.dev/PROJECT/REPO` or `127.0.0.1:5001/xpk`. */
  readonly registry?: string
  readonly project?: string
  /** The last path component of the repository, e.g. `jax-tpu`. */
  readonly dockerName: string
}

const DOCKER_HUB = 'docker.io'
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/
const TAG = /^[\w][\w.-]{0,127}$/
const REGISTRY_HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d+)?$/
const DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[0-9a-fA-F]{32,}$/

/**
 * The repository for a script image: `<registry>/<docker-name>` when a registry prefix is given, otherwise
 * `gcr.io/<project>/<docker-name>` (a domain-scoped project `example.com:p` becomes `gcr.io/example.com/p`).
 * @throws UsageError naming `--project` when there is neither a registry nor a project, or naming the flag whose
 * value makes an invalid repository name.
 */
export function imageRepository(input: ImageRepositoryInput): string {
  const dockerName = input.dockerName.trim()
  if (!PATH_COMPONENT.test(dockerName)) {
    throw new UsageError(`"${input.dockerName}" cannot be used in an image name.`, {
      flag: '--docker-name',
      hints: ['Use lowercase letters, digits and single ".", "_" or "-" separators, e.g. jax-tpu.'],
    })
  }
  const registry = input.registry?.trim().replace(/\/+$/, '')
  if (registry) {
    const repository = `${registry}/${dockerName}`
    const parsed = tryParseImageReference(repository)
    if (parsed === null || parsed.tag !== null || parsed.digest !== null || !hasExplicitRegistry(repository)) {
      throw new UsageError(`"${input.registry}" is not a registry prefix.`, {
        flag: '--registry',
        hints: ['Give a host and optional path, e.g. us-docker.pkg.dev/PROJECT/REPO or 127.0.0.1:5001/xpk.'],
      })
    }
    return repository
  }
  const project = input.project?.trim()
  if (!project) {
    throw new UsageError('A project is needed to name the image (gcr.io/<project>/<docker-name>).', {
      flag: '--project',
      hints: ['Pass --project, set a default with `gcloud config set project PROJECT`, or give a registry prefix.'],
    })
  }
  const projectPath = project.replace(':', '/')
  if (!projectPath.split('/').every((part) => PATH_COMPONENT.test(part))) {
    throw new UsageError(`Project "${project}" cannot be used in an image name.`, {flag: '--project'})
  }
  return `gcr.io/${projectPath}/${dockerName}`
}

/** Splits an image reference; returns null when it is not one. Docker Hub short names gain `docker.io/library/`. */
export function tryParseImageReference(reference: string): ImageReference | null {
  let rest = reference.trim()
  let digest: string | null = null
  const at = rest.indexOf('@')
  if (at >= 0) {
    digest = rest.slice(at + 1)
    rest = rest.slice(0, at)
    if (!DIGEST.test(digest)) return null
  }
  let tag: string | null = null
  const lastSlash = rest.lastIndexOf('/')
  const colon = rest.lastIndexOf(':')
  if (colon > lastSlash) {
    tag = rest.slice(colon + 1)
    rest = rest.slice(0, colon)
    if (!TAG.test(tag)) return null
  }
  const parts = rest.split('/')
  let registry = DOCKER_HUB
  if (parts.length > 1 && isRegistryHost(parts[0]!)) {
    registry = parts.shift()!
    if (!REGISTRY_HOST.test(registry)) return null
  }
  if (parts.length === 0 || !parts.every((part) => PATH_COMPONENT.test(part))) return null
  if (registry === DOCKER_HUB && parts.length === 1) parts.unshift('library')
  return {registry, repository: parts.join('/'), tag, digest}
}

/**
 * Splits an image reference.
 * @throws XpkError of kind 'image' when the text is not an image reference.
 */
export function parseImageReference(reference: string): ImageReference {
  const parsed = tryParseImageReference(reference)
  if (parsed === null) {
    throw new XpkError('image', `"${reference}" is not a valid image reference.`, {
      hints: ['Use the form [HOST[:PORT]/]PATH[:TAG][@sha256:DIGEST], e.g. python:3.10 or gcr.io/p/img:tag.'],
    })
  }
  return parsed
}

/** The host that serves the Registry HTTP API for a registry name (Docker Hub's API lives elsewhere). */
export function registryApiHost(registry: string): string {
  return registry === DOCKER_HUB || registry === 'index.docker.io' ? 'registry-1.docker.io' : registry
}

/**
 * Whether to speak plain HTTP to a registry: only for loopback hosts, which the Docker engine also treats as
 * insecure registries by default.
 */
export function registryUsesHttp(registry: string): boolean {
  const host = hostOnly(registry)
  return host === 'localhost' || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host)
}

/** Google registries take an OAuth access token; every other registry takes the user's Docker credentials. */
export function registryAuthKind(registry: string): RegistryAuthKind {
  const host = hostOnly(registry).toLowerCase()
  if (host === 'gcr.io' || host.endsWith('.gcr.io') || host.endsWith('-docker.pkg.dev')) return 'google'
  return 'docker-config'
}

/** The user name Google registries expect with an access token as password. */
export const GOOGLE_REGISTRY_USERNAME = 'oauth2accesstoken'

/** How to get credentials for a registry, as one sentence. */
export function registryLoginHint(registry: string): string {
  return registryAuthKind(registry) === 'google'
    ? `Run \`gcloud auth application-default login\` with an account that can push to ${registry}.`
    : `Run \`docker login ${registry}\` (or fix the credentials in your Docker config).`
}

/** The error for a registry that refused the credentials (or their absence). */
export function registryAuthError(registry: string, detail: string, cause?: unknown): XpkError {
  return new XpkError('auth', `Registry ${registry} refused access: ${detail}`, {
    hints: [registryLoginHint(registry)],
    cause,
  })
}

/** The content-derived tag for a context digest (`sha256:<hex>` or bare hex): `ctx-` and 16 hex digits. */
export function contextTag(digest: string): string {
  const hex = digest.replace(/^sha256:/, '')
  if (!/^[0-9a-f]{16,}$/.test(hex)) throw new Error(`contextTag needs a sha256 digest, got "${digest}"`)
  return `ctx-${hex.slice(0, 16)}`
}

/** The reference to run: pinned by digest when the digest is known, otherwise by tag. */
export function pinnedReference(repository: string, tag: string, digest: string | null): string {
  return digest ? `${repository}@${digest}` : `${repository}:${tag}`
}

function hasExplicitRegistry(reference: string): boolean {
  const first = reference.split('/')[0]!
  return reference.includes('/') && isRegistryHost(first)
}

// Docker's rule: the first component is a host when it has a dot or a port, or is `localhost`.
function isRegistryHost(component: string): boolean {
  return component.includes('.') || component.includes(':') || component === 'localhost'
}

function hostOnly(registry: string): string {
  if (registry.startsWith('[')) return registry.slice(1, registry.indexOf(']'))
  return registry.replace(/:\d+$/, '')
}
