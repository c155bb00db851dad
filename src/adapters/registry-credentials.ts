/**
 * The {@link RegistryCredentials} port: Google registries get an access token from Application Default Credentials
 * (google-auth-library, imported lazily); every other registry gets what the user's Docker config holds, either
 * inline (`auths`) or from a credential helper (`credHelpers`, `credsStore`).
 */

import {readFile} from 'node:fs/promises'
import {homedir} from 'node:os'
import {join} from 'node:path'

import {UsageError, XpkError} from '../core/errors.js'
import {GOOGLE_REGISTRY_USERNAME, registryAuthKind, registryLoginHint} from '../core/image/naming.js'
import type {RegistryAuth, RegistryCredential, RegistryCredentials} from '../ports/images.js'

/** Options for {@link DockerAndGoogleCredentials}. */
export interface RegistryCredentialOptions {
  /** Where DOCKER_CONFIG and HOME come from. @default process.env */
  readonly env?: NodeJS.ProcessEnv
  /** Fetches a Google OAuth access token. @default Application Default Credentials via google-auth-library */
  readonly googleAccessToken?: () => Promise<string>
  /** How long a credential helper may take, in milliseconds. @default 15000 */
  readonly helperTimeoutMs?: number
}

interface DockerConfig {
  readonly auths?: Record<string, {auth?: string; username?: string; password?: string; identitytoken?: string}>
  readonly credsStore?: string
  readonly credHelpers?: Record<string, string>
}

const DOCKER_HUB_KEYS = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io'])
const DOCKER_HUB_SERVER = 'https://index.docker.io/v1/'
const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform'

/** Credentials from ADC for Google registries and from the Docker config for the rest; answers are cached. */
export class DockerAndGoogleCredentials implements RegistryCredentials {
  private readonly options: RegistryCredentialOptions
  private readonly cache = new Map<string, Promise<RegistryCredential>>()
  private config: Promise<DockerConfig> | undefined

  constructor(options: RegistryCredentialOptions = {}) {
    this.options = options
  }

  forRegistry(registry: string): Promise<RegistryCredential> {
    let found = this.cache.get(registry)
    if (!found) {
      found = registryAuthKind(registry) === 'google' ? this.google(registry) : this.dockerConfig(registry)
      // Do not remember failures: the user may log in and retry in the same process.
      found.catch(() => this.cache.delete(registry))
      this.cache.set(registry, found)
    }
    return found
  }

  private async google(registry: string): Promise<RegistryCredential> {
    try {
      const token = await (this.options.googleAccessToken ?? applicationDefaultAccessToken)()
      return {
        auth: {username: GOOGLE_REGISTRY_USERNAME, password: token},
        source: 'Application Default Credentials',
      }
    } catch (error) {
      throw new XpkError('auth', `No Google credentials to access ${registry}: ${(error as Error).message}`, {
        hints: [registryLoginHint(registry)],
        cause: error,
      })
    }
  }

  private async dockerConfig(registry: string): Promise<RegistryCredential> {
    const config = await this.readConfig()
    const key = normalizeRegistryKey(registry)
    const helper = config.credHelpers?.[registry] ?? findByHost(config.credHelpers ?? {}, key) ?? config.credsStore
    const inline = config.auths?.[registry] ?? findByHost(config.auths ?? {}, key)
    if (inline) {
      const auth = decodeInlineAuth(inline)
      if (auth) return {auth, source: `Docker config (${this.configPath()})`}
    }
    if (helper) return this.fromHelper(helper, key === 'docker.io' ? DOCKER_HUB_SERVER : registry)
    return {auth: null, source: 'none'}
  }

  private async fromHelper(helper: string, serverUrl: string): Promise<RegistryCredential> {
    const program = `docker-credential-${helper}`
    const source = `credential helper ${program}`
    if (!/^[\w.-]+$/.test(helper)) return {auth: null, source, problem: `"${helper}" is not a credential helper name.`}
    const result = await runHelper(program, serverUrl, this.options.helperTimeoutMs ?? 15_000, this.env())
    if (result.kind === 'missing') {
      return {auth: null, source, problem: `${program} is named in your Docker config but is not on PATH.`}
    }
    if (result.kind === 'failed') {
      // Helpers answer "credentials not found" for registries they hold nothing for; that is not a problem.
      if (/not found/i.test(result.output)) return {auth: null, source}
      // A helper's output is never shown: a failing one may still print the secret it holds.
      return {
        auth: null,
        source,
        problem:
          `${program} failed (${result.reason}) when asked for the credentials of ${serverUrl}; its output is not ` +
          `shown because it may contain secrets. To see it, run: echo ${serverUrl} | ${program} get`,
      }
    }
    try {
      const parsed = JSON.parse(result.output) as {Username?: string; Secret?: string}
      if (!parsed.Secret) return {auth: null, source}
      return {auth: {username: parsed.Username ?? '', password: parsed.Secret}, source}
    } catch {
      return {auth: null, source, problem: `${program} printed something that is not JSON.`}
    }
  }

  private readConfig(): Promise<DockerConfig> {
    this.config ??= readFile(this.configPath(), 'utf8').then(
      (text) => {
        try {
          return JSON.parse(text) as DockerConfig
        } catch (error) {
          throw new UsageError(`The Docker config ${this.configPath()} is not valid JSON.`, {
            hints: ['Fix or remove the file, then run `docker login` again.'],
            cause: error,
          })
        }
      },
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return {}
        throw new UsageError(`Cannot read the Docker config ${this.configPath()}: ${error.message}`, {cause: error})
      },
    )
    return this.config
  }

  private configPath(): string {
    const env = this.env()
    const dir = env.DOCKER_CONFIG || join(env.HOME || homedir(), '.docker')
    return join(dir, 'config.json')
  }

  private env(): NodeJS.ProcessEnv {
    return this.options.env ?? process.env
  }
}

/** The host a Docker config key stands for: `https://gcr.io/v2/` and `gcr.io` both mean `gcr.io`. */
export function normalizeRegistryKey(key: string): string {
  const host = key
    .replace(/^[a-z]+:\/\//i, '')
    .split('/')[0]!
    .toLowerCase()
  return DOCKER_HUB_KEYS.has(host) ? 'docker.io' : host
}

function findByHost<T>(entries: Record<string, T>, host: string): T | undefined {
  for (const [key, value] of Object.entries(entries)) if (normalizeRegistryKey(key) === host) return value
  return undefined
}

function decodeInlineAuth(entry: NonNullable<DockerConfig['auths']>[string]): RegistryAuth | null {
  if (entry.auth) {
    const decoded = Buffer.from(entry.auth, 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon > 0) return {username: decoded.slice(0, colon), password: decoded.slice(colon + 1)}
  }
  if (entry.username && entry.password) return {username: entry.username, password: entry.password}
  return null
}

type HelperResult = {kind: 'ok'; output: string} | {kind: 'failed'; output: string; reason: string} | {kind: 'missing'}

async function runHelper(
  program: string,
  serverUrl: string,
  timeoutMs: number,
  env: NodeJS.ProcessEnv,
): Promise<HelperResult> {
  // Loaded here: child_process costs start-up time and is only needed for Docker credential helpers.
  const {spawn} = await import('node:child_process')
  return new Promise((resolve) => {
    const child = spawn(program, ['get'], {shell: false, env, stdio: ['pipe', 'pipe', 'pipe'], timeout: timeoutMs})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('error', (error: NodeJS.ErrnoException) =>
      resolve(
        error.code === 'ENOENT'
          ? {kind: 'missing'}
          : {kind: 'failed', output: '', reason: `could not be run: ${error.code ?? 'error'}`},
      ),
    )
    child.on('close', (code, signal) =>
      resolve(
        code === 0
          ? {kind: 'ok', output: stdout}
          : {
              kind: 'failed',
              output: stdout + stderr,
              reason: signal
                ? `stopped by ${signal}${signal === 'SIGTERM' ? `, after the ${timeoutMs / 1000} s time limit` : ''}`
                : `exit code ${code}`,
            },
      ),
    )
    child.stdin.on('error', () => undefined)
    child.stdin.end(serverUrl)
  })
}

async function applicationDefaultAccessToken(): Promise<string> {
  const {GoogleAuth} = await import('google-auth-library')
  // A token needs no project; naming one stops the library from looking it up (gcloud subprocess, metadata server,
  // Resource Manager call), which costs time and network for nothing.
  const client = await new GoogleAuth({scopes: [CLOUD_PLATFORM_SCOPE], projectId: 'xpk-unused'}).getClient()
  const {token} = await client.getAccessToken()
  if (!token) throw new Error('Application Default Credentials returned no access token.')
  return token
}
