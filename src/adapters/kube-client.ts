import type * as K8s from '@kubernetes/client-node'

import {UsageError, XpkError} from '../core/errors.js'
import {kubeApiError, kubeNetworkError, type KubeStatusBody} from '../core/kube/kube-errors.js'
import {
  FIELD_MANAGER,
  type KubeAccess,
  type KubeClient,
  type KubeListOptions,
  type KubeObject,
  type KubePage,
  type KubeRef,
} from '../ports/kube.js'

/**
 * Connects to a cluster's Kubernetes API through `@kubernetes/client-node` (loaded on first use: it is large and
 * most commands never need it). GKE access is built in memory from the cluster's endpoint, CA and an access
 * token, so nothing is written to ~/.kube and no gke-gcloud-auth-plugin is needed.
 */
export async function connectKube(access: KubeAccess): Promise<KubeClient> {
  const [k8s, wire] = await Promise.all([import('@kubernetes/client-node'), wireForm()])
  const config = new k8s.KubeConfig()
  let target: string
  if (access.kind === 'gke') {
    const token = await access.token()
    config.loadFromOptions({
      clusters: [{name: 'gke', server: access.server, caData: access.caCertificate, skipTLSVerify: false}],
      users: [{name: 'xpk', token}],
      contexts: [{name: 'xpk', cluster: 'gke', user: 'xpk'}],
      currentContext: 'xpk',
    })
    target = access.server
  } else {
    try {
      if (access.path) config.loadFromFile(access.path)
      else config.loadFromDefault()
    } catch (error) {
      throw new UsageError(
        `Could not read the kubeconfig${access.path ? ` ${access.path}` : ''}: ${(error as Error).message}`,
        {
          flag: '--kubeconfig',
          hints: ['Pass a kubeconfig file that kubectl can use, or leave --kubeconfig out to use the GKE cluster.'],
        },
      )
    }
    if (access.context) {
      const known = config.getContexts().map((c) => c.name)
      if (!known.includes(access.context)) {
        throw new UsageError(`The kubeconfig has no context "${access.context}".`, {
          flag: '--context',
          hints: [known.length > 0 ? `Its contexts: ${known.join(', ')}.` : 'It defines no contexts.'],
        })
      }
      config.setCurrentContext(access.context)
    }
    const server = config.getCurrentCluster()?.server
    if (!server) {
      throw new UsageError('The kubeconfig names no cluster for its current context.', {
        flag: access.context ? '--context' : '--kubeconfig',
        hints: ['Pick a context with --context.'],
      })
    }
    target = `${server} (context ${config.getCurrentContext()})`
  }
  return new ClientNodeKube(k8s, wire, config, target)
}

/**
 * KubernetesObjectApi sends and returns built-in kinds in client-node's typed form (`xKubernetesPreserveUnknownFields`,
 * Date objects), serializing by property name: a plain manifest's `x-kubernetes-preserve-unknown-fields` or `$ref`
 * would be silently dropped from a CRD (the Kubernetes fake caught this on the JobSet and Kueue CRDs). Objects are
 * therefore converted to the typed form before sending and back to the wire form after reading. The serializer is
 * not exported from the package root, hence the deep imports (the package declares no `exports` map).
 */
interface WireForm {
  toTyped(object: KubeObject): K8s.KubernetesObject
  toWire<T>(object: T): T
}

async function wireForm(): Promise<WireForm> {
  const [{ObjectSerializer}, {getSerializationType}] = await Promise.all([
    import('@kubernetes/client-node/dist/gen/models/ObjectSerializer.js'),
    import('@kubernetes/client-node/dist/util.js'),
  ])
  const typeOf = (o: {apiVersion?: string; kind?: string}) => getSerializationType(o.apiVersion, o.kind)
  return {
    toTyped: (object) => ObjectSerializer.deserialize(object, typeOf(object), '') as K8s.KubernetesObject,
    toWire: (object) =>
      ObjectSerializer.serialize(object, typeOf(object as {apiVersion?: string}), '') as typeof object,
  }
}

class ClientNodeKube implements KubeClient {
  private readonly objects: K8s.KubernetesObjectApi

  constructor(
    private readonly k8s: typeof K8s,
    private readonly wire: WireForm,
    config: K8s.KubeConfig,
    readonly target: string,
  ) {
    this.objects = k8s.KubernetesObjectApi.makeApiClient(config)
  }

  async get(ref: KubeRef): Promise<KubeObject | undefined> {
    try {
      const found = await this.objects.read(header(ref) as Parameters<K8s.KubernetesObjectApi['read']>[0])
      return this.wire.toWire({apiVersion: ref.apiVersion, kind: ref.kind, ...found}) as KubeObject
    } catch (error) {
      if (isGone(error)) return undefined
      throw this.failure(error, `Reading ${describe(ref)}`)
    }
  }

  async list(apiVersion: string, kind: string, options: KubeListOptions = {}): Promise<KubePage> {
    try {
      const page = await this.objects.list(
        apiVersion,
        kind,
        options.namespace,
        undefined,
        undefined,
        undefined,
        options.fieldSelector,
        options.labelSelector,
        options.limit,
        options.continue,
      )
      const items = page.items.map((item) => this.wire.toWire({apiVersion, kind, ...item}) as KubeObject)
      return page.metadata?._continue ? {items, continue: page.metadata._continue} : {items}
    } catch (error) {
      if (isGone(error)) return {items: []}
      throw this.failure(error, `Listing ${kind} objects`)
    }
  }

  async apply(object: KubeObject, options: {readonly force?: boolean} = {}): Promise<KubeObject> {
    try {
      const applied = await this.objects.patch(
        this.wire.toTyped(object),
        undefined,
        undefined,
        FIELD_MANAGER,
        options.force ?? false,
        this.k8s.PatchStrategy.ServerSideApply,
      )
      return this.wire.toWire({apiVersion: object.apiVersion, kind: object.kind, ...applied}) as KubeObject
    } catch (error) {
      throw this.failure(error, `Applying ${describe(object)}`)
    }
  }

  async delete(ref: KubeRef): Promise<'deleted' | 'absent'> {
    try {
      await this.objects.delete(header(ref), undefined, undefined, undefined, undefined, 'Background')
      return 'deleted'
    } catch (error) {
      if (isGone(error)) return 'absent'
      throw this.failure(error, `Deleting ${describe(ref)}`)
    }
  }

  private failure(error: unknown, doing: string): XpkError {
    if (error instanceof XpkError) return error
    if (error instanceof this.k8s.ApiException) return kubeApiError(error.code, statusBody(error.body), doing)
    if (error instanceof Error && /Unrecognized API version and kind/i.test(error.message)) {
      return new XpkError('failed', `${doing} failed: the cluster does not serve that kind (${error.message}).`, {
        hints: ['Its CustomResourceDefinition is not installed yet: `xpk cluster create` installs JobSet and Kueue.'],
      })
    }
    return kubeNetworkError(error as Error, this.target, doing)
  }
}

function header(ref: KubeRef): K8s.KubernetesObject & {metadata: {name: string}} {
  return {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    metadata: ref.namespace === undefined ? {name: ref.name} : {name: ref.name, namespace: ref.namespace},
  }
}

function describe(ref: KubeRef | KubeObject): string {
  const name = 'metadata' in ref ? ref.metadata.name : ref.name
  const namespace = 'metadata' in ref ? ref.metadata.namespace : ref.namespace
  return `${ref.kind} ${namespace ? `${namespace}/` : ''}${name}`
}

/** A 404, or a kind the server does not serve (client-node finds that out from discovery and throws plainly). */
function isGone(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  if ((error as {code?: unknown}).code === 404) return true
  return error instanceof Error && /Unrecognized API version and kind/i.test(error.message)
}

function statusBody(body: unknown): KubeStatusBody | undefined {
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as KubeStatusBody
    } catch {
      return body.trim() ? {message: body.trim()} : undefined
    }
  }
  return typeof body === 'object' && body !== null ? (body as KubeStatusBody) : undefined
}
