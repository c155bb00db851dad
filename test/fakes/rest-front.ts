// The REST side of a gRPC fake, the way Google's front ends serve an API over HTTP/JSON: each unary method is
// reached at the path its `google.api.http` annotation gives, the request is built from the path variables, the
// query and the JSON body by the proto3 JSON mapping, and errors come back as Google's JSON error body with the
// HTTP status of their gRPC code. The fake's `serve` sees the same request objects as over gRPC.
//
// The messages are read with the protobufjs and proto3-json-serializer copies that google-gax uses for its own REST
// transport, so the JSON mapping here is the client library's.
import type {IncomingMessage, ServerResponse} from 'node:http'
import {createRequire} from 'node:module'
import * as grpc from '@grpc/grpc-js'
import type {protobuf as Protobuf} from 'google-gax'

import {GRPC_STATUS} from '../../src/core/cluster/gke-errors.js'
import {closeServer, grpcErrorReply, readBody, startHttpServer} from './fake-server.js'
import type {ServeUnary} from './grpc-server.js'

type Root = InstanceType<typeof Protobuf.Root>
type Type = InstanceType<typeof Protobuf.Type>
type Json = Record<string, unknown>

interface Serializer {
  fromProto3JSON(type: Type, json: unknown): InstanceType<typeof Protobuf.Message> | null
  toProto3JSON(message: InstanceType<typeof Protobuf.Message>, options?: {numericEnums: boolean}): unknown
}

/** How the fake's gRPC side decodes messages (proto-loader options), so both sides hand `serve` the same shapes. */
export interface DecodeOptions {
  readonly longs: typeof String
  readonly enums: typeof String
  readonly defaults: boolean
  readonly oneofs: boolean
}

/** One REST binding of a method: HTTP verb, path pattern with its variables, and where the body goes. */
interface Route {
  readonly method: string
  readonly verb: string
  readonly pattern: RegExp
  readonly variables: readonly string[]
  readonly body: string | undefined
  readonly requestType: Type
  readonly responseType: Type
  readonly serve: ServeUnary
}

/** Another version of the API served beside the main one: only `methods` of `service`, each answered by `serve`. */
export interface ExtraService {
  readonly service: string
  readonly methods: readonly string[]
  readonly serve: ServeUnary
}

const VERBS = ['get', 'put', 'post', 'delete', 'patch'] as const

/** `/v1/{name=projects/*\/locations/*}/serverConfig` as a regular expression and its variable names. */
function compileTemplate(template: string): {pattern: RegExp; variables: string[]} {
  const variables: string[] = []
  const segmentPattern = (text: string) =>
    text
      .split('/')
      .map((part) =>
        part === '**' ? '.+' : part === '*' ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\:]/g, (c) => `\\${c}`),
      )
      .join('/')
  let source = ''
  let rest = template
  for (let match = /\{([\w.]+)(?:=([^}]+))?\}/.exec(rest); match; match = /\{([\w.]+)(?:=([^}]+))?\}/.exec(rest)) {
    source += segmentPattern(rest.slice(0, match.index))
    variables.push(match[1]!)
    source += `(${segmentPattern(match[2] ?? '*')})`
    rest = rest.slice(match.index + match[0].length)
  }
  source += segmentPattern(rest)
  return {pattern: new RegExp(`^${source}$`), variables}
}

/** The primary REST binding of every unary method of `service` in `root` (or of those named in `only`). */
function routesOf(root: Root, service: string, serve: ServeUnary, only?: readonly string[]): Route[] {
  const definition = root.lookupService(service)
  const routes: Route[] = []
  for (const method of Object.values(definition.methods)) {
    if (method.requestStream || method.responseStream) continue
    if (only && !only.includes(method.name)) continue
    const options = (method.options ?? {}) as Record<string, string>
    const verb = VERBS.find((v) => options[`(google.api.http).${v}`])
    if (!verb) continue
    const {pattern, variables} = compileTemplate(options[`(google.api.http).${verb}`]!)
    routes.push({
      method: method.name,
      verb: verb.toUpperCase(),
      pattern,
      variables,
      body: options['(google.api.http).body'],
      // Relative to the service: the root holds other versions of the API with messages of the same names.
      requestType: definition.lookupType(method.requestType),
      responseType: definition.lookupType(method.responseType),
      serve,
    })
  }
  return routes
}

/** Sets `a.b.c` in a JSON object. */
function setPath(target: Json, dotted: string, value: unknown): void {
  const keys = dotted.split('.')
  let at = target
  for (const key of keys.slice(0, -1)) at = (at[key] ??= {}) as Json
  at[keys.at(-1)!] = value
}

/**
 * A query parameter's value as the field it sets takes it in JSON: query strings are text, but a bool (`force=true`)
 * or a 32-bit number is not, and the JSON mapping refuses text for them.
 */
function queryValue(type: Type, dotted: string, text: string): unknown {
  const keys = dotted.split('.')
  let at: Type | undefined = type
  for (const key of keys.slice(0, -1)) {
    const nested: unknown = at?.fields[key]?.resolve().resolvedType
    at = typeof nested === 'object' && nested !== null && 'fields' in nested ? (nested as Type) : undefined
  }
  const kind = at?.fields[keys.at(-1)!]?.type ?? ''
  if (kind === 'bool' && (text === 'true' || text === 'false')) return text === 'true'
  if (SMALL_NUMBERS.has(kind) && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text)
  return text
}

/** Number types whose JSON form is a number (64-bit integers are strings in JSON). */
const SMALL_NUMBERS = new Set(['int32', 'uint32', 'sint32', 'fixed32', 'sfixed32', 'double', 'float'])

/** lower_snake proto field paths to the JSON names (lowerCamelCase) the proto3 mapping uses. */
const jsonName = (path: string) => path.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())

export interface RestFront {
  readonly port: number
  close(): Promise<void>
}

/**
 * Serves the unary methods of `service` (e.g. `google.container.v1.ClusterManager`) from `protosJson` (a protobufjs
 * JSON bundle, as the client libraries ship) on a free loopback port, answering each through `serve`; `extra` adds
 * methods of other versions at their own paths (`/v1beta1/...`), read and answered with their own messages.
 */
export async function startRestFront(
  protosJson: object,
  service: string,
  decode: DecodeOptions,
  serve: ServeUnary,
  extra: readonly ExtraService[] = [],
): Promise<RestFront> {
  const require = createRequire(createRequire(import.meta.url).resolve('@google-cloud/container'))
  const gaxFallback = require('google-gax/fallback') as {protobuf: typeof Protobuf}
  const serializer = createRequire(require.resolve('google-gax'))('proto3-json-serializer') as Serializer
  const root = gaxFallback.protobuf.Root.fromJSON(protosJson as Protobuf.INamespace)
  const routes = [
    ...routesOf(root, service, serve),
    ...extra.flatMap((e) => routesOf(root, e.service, e.serve, e.methods)),
  ]

  const reply = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, {'content-type': 'application/json; charset=UTF-8'}).end(JSON.stringify(body))
  }
  const replyError = (response: ServerResponse, code: number, message: string) => {
    const {httpStatus, body} = grpcErrorReply(GRPC_STATUS[code] ?? 'UNKNOWN', message)
    reply(response, httpStatus, body)
  }

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://fake')
    let route: Route | undefined
    let match: RegExpExecArray | null = null
    for (const candidate of routes) {
      if (candidate.verb !== request.method) continue
      match = candidate.pattern.exec(url.pathname)
      if (match) {
        route = candidate
        break
      }
    }
    const text = await readBody(request)
    if (!route || !match) {
      return replyError(
        response,
        grpc.status.NOT_FOUND,
        `The requested URL ${url.pathname} was not found on this server.`,
      )
    }
    const json: Json = {}
    // `$alt=json;enum-encoding=int` (google-gax's REST transport) asks for enums as numbers.
    const numericEnums = /enum-encoding=int/.test(url.searchParams.get('$alt') ?? '')
    for (const [key, value] of url.searchParams) {
      if (!key.startsWith('$')) setPath(json, jsonName(key), queryValue(route.requestType, jsonName(key), value))
    }
    if (route.body && text) {
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        return replyError(response, grpc.status.INVALID_ARGUMENT, 'Invalid JSON payload received.')
      }
      if (route.body === '*') Object.assign(json, body)
      else setPath(json, jsonName(route.body), body)
    }
    route.variables.forEach((name, i) => setPath(json, jsonName(name), decodeURIComponent(match[i + 1]!)))
    let decoded: Json
    try {
      const message = serializer.fromProto3JSON(route.requestType, json)
      decoded = route.requestType.toObject(message!, decode) as Json
    } catch (error) {
      return replyError(response, grpc.status.INVALID_ARGUMENT, `Invalid JSON payload received. ${String(error)}`)
    }
    route.serve(route.method, decoded, (error, value) => {
      if (error) return replyError(response, error.code ?? grpc.status.UNKNOWN, error.details ?? '')
      const message = route.responseType.fromObject(value ?? {})
      reply(response, 200, serializer.toProto3JSON(message, {numericEnums}))
    })
  }

  const {server, port} = await startHttpServer('rest-front', (request, response) =>
    handle(request, response).catch((error: unknown) =>
      replyError(response, grpc.status.INTERNAL, `rest-front: ${error instanceof Error ? error.stack : String(error)}`),
    ),
  )
  return {port, close: () => closeServer(server)}
}
