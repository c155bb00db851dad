/**
 * API endpoint overrides (`--gke-endpoint`, `--compute-endpoint`, `--tpu-endpoint`, like gcloud's
 * api_endpoint_overrides). One rule for all, checked when a value is saved, resolved or used, before any request:
 * a scheme (https; plain http only on loopback, for local test servers) and a host, no credentials (they would be
 * printed by --verbose and sent in clear), no query or fragment. A value without a scheme is refused rather than
 * guessed: `tpu.googleapis.com` may mean https, but `localhost:8080` or a typo would be retried as a host that cannot
 * be reached until the retries run out.
 */
import {UsageError} from './errors.js'
import {escapeInline, redactCredentials} from './text.js'

/** A checked endpoint override. */
export interface Endpoint {
  readonly host: string
  readonly port: number
  /** Plain http to a loopback test server. */
  readonly insecure: boolean
  /** `scheme://host[:port]` with no path. */
  readonly origin: string
  /** The path, always ending in `/`. */
  readonly path: string
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1'])

/** Whether a URL's host name is this machine's loopback, the only place plain http is accepted. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.has(hostname)
}

const EXAMPLE =
  'a URL like https://us-central1-container.googleapis.com/ (or http://127.0.0.1:PORT/ for a local test server)'

/** Parses an endpoint override, or returns why it is not acceptable. */
export function parseEndpoint(text: string): Endpoint | {problem: string} {
  if (text.trim() === '') return {problem: `it is empty; give ${EXAMPLE}`}
  if (/\s/.test(text)) return {problem: 'it contains white space'}
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return {problem: `it has no scheme; give ${EXAMPLE}`}
  // The URL parser would take the first path segment of `https:///v1` as the host.
  if (/^[a-z][a-z0-9+.-]*:\/\/([/?#]|$)/i.test(text)) return {problem: `it has no host; give ${EXAMPLE}`}
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return {problem: `it is not ${EXAMPLE}`}
  }
  if (url.hostname === '') return {problem: `it has no host; give ${EXAMPLE}`}
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return {problem: 'it must use https:// (or http:// on 127.0.0.1 for local test servers)'}
  }
  if (url.username || url.password) {
    return {problem: 'it contains credentials (user:password@); xpk authenticates with OAuth tokens instead'}
  }
  if (url.search || url.hash) return {problem: 'it has a query or fragment; give only scheme, host, port and path'}
  const insecure = url.protocol === 'http:'
  if (insecure && !isLoopbackHost(url.hostname))
    return {problem: 'plain http is only allowed on loopback; use https://'}
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port || (insecure ? 80 : 443)),
    insecure,
    origin: `${url.protocol}//${url.host}`,
    path: url.pathname.replace(/\/*$/, '/'),
  }
}

/** Why an endpoint override is not acceptable, or undefined. */
export function endpointProblem(text: string): string | undefined {
  const parsed = parseEndpoint(text)
  return 'problem' in parsed ? parsed.problem : undefined
}

/** An API's endpoint override: the flag that sets it, the variable that sets it when the flag is not given, and an example. */
export interface EndpointSetting {
  /** With its dashes: `--tpu-endpoint`. */
  readonly flag: string
  readonly variable: string
  /** Its default, given as the example of a good value: `https://tpu.googleapis.com/`. */
  readonly example: string
}

/**
 * Parses an endpoint override given by its flag, by the rule every endpoint follows; anything else is a usage error
 * naming the flag.
 */
export function parseEndpointOverride(text: string, setting: EndpointSetting): Endpoint {
  const parsed = parseEndpoint(text)
  if ('problem' in parsed) {
    throw new UsageError(`${setting.flag} "${redactCredentials(escapeInline(text))}": ${parsed.problem}.`, {
      flag: setting.flag,
      hints: [`For example ${setting.flag} ${setting.example} (or set ${setting.variable}).`],
    })
  }
  return parsed
}
