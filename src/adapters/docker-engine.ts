/**
 * The {@link ImageEngine} port on a Docker Engine, through dockerode (imported lazily on first use: builds and
 * pushes). Looking up a local image, which every image run does before it knows whether anything must be built,
 * is one GET on the engine's socket made with node:http, so an unchanged image never loads dockerode: loading it
 * (bundled, with tar-stream and its other dependencies) costs more than the request itself (README, Speed).
 */

import type {ClientRequest, IncomingMessage, RequestOptions} from 'node:http'
import {access} from 'node:fs/promises'
import {homedir} from 'node:os'
import {join} from 'node:path'
import {Readable} from 'node:stream'

import type Dockerode from 'dockerode'

import {XpkError} from '../core/errors.js'
import type {
  BuildEvent,
  EngineProbe,
  BuildOutcome,
  BuildRequest,
  ImageEngine,
  LocalImage,
  PushEvent,
  PushOutcome,
  PushRequest,
  RegistryAuth,
} from '../ports/images.js'
import {BuildStreamParser, type DockerMessage, PushStreamParser} from './docker-stream.js'

/** Where the engine is; by default dockerode's own rules (DOCKER_HOST, else the local socket). */
export interface DockerEngineOptions {
  /** A unix socket path, e.g. `/var/run/docker.sock`. */
  readonly socketPath?: string
  /** Environment to read DOCKER_HOST from. @default process.env */
  readonly env?: NodeJS.ProcessEnv
  /** Makes the dockerode client (tests). @default dockerode, imported on first use */
  readonly client?: () => Promise<Dockerode>
}

const CONNECTION_CODES = new Set(['ENOENT', 'ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ETIMEDOUT', 'ENOTFOUND'])

/** A Docker Engine reached over its API. */
export class DockerEngine implements ImageEngine, EngineProbe {
  private client: Promise<Dockerode> | undefined
  private readonly options: DockerEngineOptions

  constructor(options: DockerEngineOptions = {}) {
    this.options = options
  }

  async inspectLocal(reference: string): Promise<LocalImage | null> {
    const socket = await this.localSocket()
    if (socket !== undefined) return this.inspectOverSocket(socket, reference)
    const docker = await this.docker()
    try {
      const info = await docker.getImage(reference).inspect()
      return {
        id: info.Id,
        repoDigests: info.RepoDigests ?? [],
        platform: `${info.Os}/${info.Architecture}`,
      }
    } catch (error) {
      if (statusOf(error) === 404) return null
      throw this.engineError(error, `Could not inspect ${reference}`)
    }
  }

  async version(): Promise<{version: string; where: string}> {
    const docker = await this.docker()
    try {
      const info = await docker.version()
      return {version: info.Version, where: this.where()}
    } catch (error) {
      throw this.engineError(error, 'Could not ask the Docker engine its version')
    }
  }

  async build(request: BuildRequest, onEvent: (event: BuildEvent) => void): Promise<BuildOutcome> {
    const docker = await this.docker()
    const abort = new AbortController()
    let contextError: unknown
    const body = Readable.from(request.context, {objectMode: false})
    // dockerode pipes the body into the request, and a pipe does not forward errors: abort the request instead.
    body.on('error', (error) => {
      contextError = error
      abort.abort()
    })
    const parser = new BuildStreamParser()
    try {
      const stream = await docker.buildImage(
        body as unknown as NodeJS.ReadableStream,
        {
          t: request.tag,
          platform: request.platform,
          pull: request.pull,
          rm: true,
          // Without forcerm a failed step leaves its container behind.
          forcerm: true,
          version: '1',
          abortSignal: abort.signal,
          ...(request.registryAuth && Object.keys(request.registryAuth).length > 0
            ? {registryconfig: registryConfig(request.registryAuth)}
            : {}),
        } as Dockerode.ImageBuildOptions,
      )
      await follow(docker, stream, (message) => parser.feed(message).forEach(onEvent), abort.signal)
      parser.end().forEach(onEvent)
    } catch (error) {
      if (contextError !== undefined) throw contextError
      throw this.engineError(error, 'The image build failed')
    }
    if (contextError !== undefined) throw contextError
    const failure = parser.failure
    return failure ? {ok: false, failure} : {ok: true, imageId: parser.imageId}
  }

  async push(request: PushRequest, onEvent: (event: PushEvent) => void): Promise<PushOutcome> {
    const docker = await this.docker()
    const parser = new PushStreamParser()
    const registry = request.repository.split('/')[0]!
    // The engine wants an X-Registry-Auth header even for anonymous pushes; `{}` is the empty one.
    const authconfig = request.auth
      ? {username: request.auth.username, password: request.auth.password, serveraddress: registry}
      : ({} as Dockerode.AuthConfig)
    try {
      const stream = await docker.getImage(request.repository).push({tag: request.tag, authconfig})
      await follow(docker, stream, (message) => parser.feed(message).forEach(onEvent))
    } catch (error) {
      throw this.engineError(error, `Pushing ${request.repository}:${request.tag} failed`)
    }
    const failure = parser.failure
    return failure ? {ok: false, failure} : {ok: true, digest: parser.digest}
  }

  private docker(): Promise<Dockerode> {
    this.client ??=
      this.options.client?.() ??
      import('dockerode').then(({default: Docker}) =>
        this.options.socketPath ? new Docker({socketPath: this.options.socketPath}) : new Docker(),
      )
    return this.client
  }

  /**
   * The engine's unix socket, found by dockerode's own rules (docker-modem): the given path, DOCKER_HOST's
   * `unix://` path, or with no DOCKER_HOST ~/.docker/run/docker.sock (Docker Desktop) when it exists, else
   * /var/run/docker.sock. Undefined for tcp://, ssh:// and npipe:// engines, which only dockerode reaches.
   */
  private async localSocket(): Promise<string | undefined> {
    if (this.options.socketPath) return this.options.socketPath
    const host = (this.options.env ?? process.env).DOCKER_HOST
    if (host?.startsWith('unix://') && host.length > 'unix://'.length) return host.slice('unix://'.length)
    if (host && host !== 'unix://') return undefined
    if (process.platform === 'win32') return undefined
    const desktop = join(homedir(), '.docker', 'run', 'docker.sock')
    return access(desktop).then(
      () => desktop,
      () => '/var/run/docker.sock',
    )
  }

  /** `GET /images/{name}/json` on the socket, as dockerode's getImage(name).inspect() sends it. */
  private async inspectOverSocket(socketPath: string, reference: string): Promise<LocalImage | null> {
    // process.getBuiltinModule: an ESM import of node:http also loads undici (see google-rest.ts); Node 22.3+.
    const {request}: {request(options: RequestOptions, done: (reply: IncomingMessage) => void): ClientRequest} =
      process.getBuiltinModule?.('node:http') ?? (await import('node:http'))
    const reply = await new Promise<{status: number; text: string}>((resolve, reject) => {
      const outgoing = request({socketPath, path: `/images/${reference}/json`, method: 'GET'}, (incoming) => {
        const chunks: Buffer[] = []
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
        incoming.on('error', reject)
        incoming.on('end', () => resolve({status: incoming.statusCode ?? 0, text: Buffer.concat(chunks).toString()}))
      })
      outgoing.on('error', reject)
      outgoing.end()
    }).catch((error: unknown) => {
      throw this.engineError(error, `Could not inspect ${reference}`)
    })
    if (reply.status === 404) return null
    let info: {Id?: string; RepoDigests?: string[] | null; Os?: string; Architecture?: string; message?: string}
    try {
      info = JSON.parse(reply.text) as typeof info
    } catch {
      info = {message: reply.text.trim().slice(0, 200) || `HTTP status ${reply.status}`}
    }
    if (reply.status !== 200 || typeof info.Id !== 'string') {
      throw new XpkError('image', `Could not inspect ${reference}: ${info.message ?? `HTTP status ${reply.status}`}`)
    }
    return {id: info.Id, repoDigests: info.RepoDigests ?? [], platform: `${info.Os}/${info.Architecture}`}
  }

  private engineError(error: unknown, what: string): XpkError {
    if (error instanceof XpkError) return error
    const code = (error as {code?: string} | null)?.code
    const where = this.where()
    if (code === 'EACCES') {
      return new XpkError('permission', `Permission denied talking to the Docker engine at ${where}.`, {
        hints: [
          'Add your user to the "docker" group (then log in again), or set DOCKER_HOST to an engine you can use.',
        ],
        cause: error,
      })
    }
    if (code !== undefined && CONNECTION_CODES.has(code)) {
      return new XpkError('unavailable', `Cannot reach the Docker engine at ${where} (${code}).`, {
        hints: [
          'Start Docker (e.g. `sudo systemctl start docker`, or Docker Desktop) and try again.',
          'If the engine runs elsewhere, set DOCKER_HOST, e.g. DOCKER_HOST=unix:///run/user/1000/docker.sock.',
        ],
        cause: error,
      })
    }
    return new XpkError('image', `${what}: ${messageOf(error)}`, {cause: error})
  }

  private where(): string {
    const env = this.options.env ?? process.env
    return this.options.socketPath ?? env.DOCKER_HOST ?? '/var/run/docker.sock'
  }
}

/** Reads a progress stream to its end, handing each message over; resolves even when a message carries an error. */
function follow(
  docker: Dockerode,
  stream: NodeJS.ReadableStream,
  onMessage: (message: DockerMessage) => void,
  signal?: AbortSignal,
): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.addEventListener('abort', () => reject(new Error('aborted')), {once: true})
    docker.modem.followProgress(
      stream,
      (error: Error | null) => (error ? reject(error) : resolve()),
      (message: DockerMessage) => onMessage(message),
    )
  })
}

/** The engine's X-Registry-Config shape; it knows Docker Hub by its old index address. */
function registryConfig(auth: Readonly<Record<string, RegistryAuth>>): Dockerode.RegistryConfig {
  return Object.fromEntries(
    Object.entries(auth).map(([registry, {username, password}]) => [
      registry === 'docker.io' ? 'https://index.docker.io/v1/' : registry,
      {username, password},
    ]),
  )
}

function statusOf(error: unknown): number | undefined {
  return (error as {statusCode?: number} | null)?.statusCode
}

function messageOf(error: unknown): string {
  const json = (error as {json?: {message?: string}} | null)?.json
  if (json?.message) return json.message
  return error instanceof Error ? error.message : String(error)
}
