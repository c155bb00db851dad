/**
 * The {@link RegistryClient} port over the Registry HTTP API v2 (requests through http-client.ts rather than
 * `fetch`, for start-up time): anonymous first, then the authentication the registry asks for in
 * `WWW-Authenticate` (a Bearer token from its token service, or Basic).
 */

import {ApiError, XpkError} from '../core/errors.js'
import {certificateError, connectionErrorCode} from '../core/tls-errors.js'
import {registryApiHost, registryAuthError, registryUsesHttp} from '../core/image/naming.js'
import type {ManifestFound, RegistryAuth, RegistryClient} from '../ports/images.js'
import {type Fetch, type HttpInit, type HttpReply, nodeFetch} from './http-client.js'

/** Options for {@link RegistryHttpClient}. */
export interface RegistryHttpOptions {
  /** How requests are sent. @default nodeFetch (node:http and node:https) */
  readonly fetch?: Fetch
  /** Per-request timeout in milliseconds. @default 30000 */
  readonly timeoutMs?: number
}

/** One `WWW-Authenticate` challenge. */
export interface AuthChallenge {
  /** Lower-case scheme: `bearer`, `basic`, ... */
  readonly scheme: string
  readonly params: Readonly<Record<string, string>>
}

// Index types first: for a multi-platform base the index digest is the stable name of the tag.
const MANIFEST_TYPES = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
].join(', ')

/** A Registry HTTP API v2 client that keeps tokens for the life of the object. */
export class RegistryHttpClient implements RegistryClient {
  private readonly fetch: Fetch
  private readonly timeoutMs: number
  private readonly authorizations = new Map<string, string>()

  constructor(options: RegistryHttpOptions = {}) {
    this.fetch = options.fetch ?? nodeFetch
    this.timeoutMs = options.timeoutMs ?? 30_000
  }

  async manifest(
    image: {readonly registry: string; readonly repository: string; readonly reference: string},
    auth: () => Promise<RegistryAuth | null>,
  ): Promise<ManifestFound | {readonly exists: false}> {
    const scheme = registryUsesHttp(image.registry) ? 'http' : 'https'
    const url = `${scheme}://${registryApiHost(image.registry)}/v2/${image.repository}/manifests/${image.reference}`
    const cacheKey = `${image.registry}/${image.repository}`
    const head = (authorization: string | undefined) =>
      this.request(image.registry, url, {
        method: 'HEAD',
        headers: {accept: MANIFEST_TYPES, ...(authorization ? {authorization} : {})},
      })

    let response = await head(this.authorizations.get(cacheKey))
    if (response.status === 401) {
      const authorization = await this.authorize(image, response, auth)
      this.authorizations.set(cacheKey, authorization)
      response = await head(authorization)
    }
    if (response.status === 200) return {exists: true, digest: response.headers.get('docker-content-digest')}
    if (response.status === 404) return {exists: false}
    if (response.status === 401 || response.status === 403) {
      throw registryAuthError(image.registry, `HTTP ${response.status} for ${image.repository}.`)
    }
    throw new XpkError('unavailable', `Registry ${image.registry} answered HTTP ${response.status} for ${url}.`, {
      hints: ['Try again later; if it persists, check the registry address.'],
    })
  }

  /** Answers a 401 challenge with a header value for the retry. */
  private async authorize(
    image: {readonly registry: string; readonly repository: string},
    response: HttpReply,
    auth: () => Promise<RegistryAuth | null>,
  ): Promise<string> {
    const challenges = parseAuthChallenges(response.headers.get('www-authenticate') ?? '')
    const bearer = challenges.find((c) => c.scheme === 'bearer')
    const credentials = await auth()
    if (bearer?.params.realm) {
      return `Bearer ${await this.token(image, bearer, credentials)}`
    }
    if (challenges.some((c) => c.scheme === 'basic')) {
      if (!credentials) throw registryAuthError(image.registry, 'it needs credentials and none were found.')
      return basic(credentials)
    }
    throw registryAuthError(image.registry, 'it asked for an authentication scheme xpk does not support.')
  }

  private async token(
    image: {readonly registry: string; readonly repository: string},
    challenge: AuthChallenge,
    credentials: RegistryAuth | null,
  ): Promise<string> {
    const url = new URL(challenge.params.realm!)
    if (challenge.params.service) url.searchParams.set('service', challenge.params.service)
    url.searchParams.set('scope', challenge.params.scope ?? `repository:${image.repository}:pull`)
    const response = await this.request(image.registry, url.toString(), {
      headers: credentials ? {authorization: basic(credentials)} : {},
    })
    if (response.status === 401 || response.status === 403) {
      throw registryAuthError(image.registry, `its token service refused the credentials (HTTP ${response.status}).`)
    }
    if (!response.ok) {
      throw new XpkError('unavailable', `The token service of ${image.registry} answered HTTP ${response.status}.`)
    }
    const body = (await response.json()) as {token?: string; access_token?: string}
    const token = body.token ?? body.access_token
    if (!token) throw new XpkError('unavailable', `The token service of ${image.registry} sent no token.`)
    return token
  }

  /**
   * One request. No answer is UNAVAILABLE, which the retry policy retries (a connection cut during the TLS
   * handshake included); only a handshake that completed with a certificate that failed verification is a
   * certificate problem, not retried.
   */
  private async request(registry: string, url: string, init: HttpInit): Promise<HttpReply> {
    try {
      return await this.fetch(url, {...init, redirect: 'follow', signal: AbortSignal.timeout(this.timeoutMs)})
    } catch (error) {
      const certificate = certificateError(error, `The certificate of registry ${registry}`, [
        'Check the registry address; a proxy that intercepts TLS needs its CA certificate in NODE_EXTRA_CA_CERTS.',
      ])
      if (certificate) throw certificate
      const cause = connectionErrorCode(error) ?? (error as Error).message
      throw new ApiError('unavailable', `Cannot reach registry ${registry} (${cause}).`, {
        status: 'UNAVAILABLE',
        retryable: true,
        hints: ['Check the registry address and your network connection.'],
        cause: error,
      })
    }
  }
}

/** Parses a `WWW-Authenticate` header into its challenges (`Bearer realm="...",service="..."`, `Basic realm="..."`). */
export function parseAuthChallenges(header: string): AuthChallenge[] {
  const challenges: AuthChallenge[] = []
  const token = /\s*([A-Za-z][\w-]*)(?:\s+|$)/y
  const param = /\s*([\w-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))\s*,?/y
  let at = 0
  while (at < header.length) {
    token.lastIndex = at
    const scheme = token.exec(header)
    if (!scheme) break
    at = token.lastIndex
    const params: Record<string, string> = {}
    for (;;) {
      param.lastIndex = at
      const match = param.exec(header)
      // A bare word after a comma starts the next challenge rather than a parameter.
      if (!match) break
      params[match[1]!.toLowerCase()] = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : match[3]!
      at = param.lastIndex
    }
    challenges.push({scheme: scheme[1]!.toLowerCase(), params})
    while (header[at] === ',' || header[at] === ' ') at++
  }
  return challenges
}

function basic(credentials: RegistryAuth): string {
  return `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`
}
