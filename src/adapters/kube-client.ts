import type * as K8s from '@kubernetes/client-node'
import {delimiter, dirname, resolve} from 'node:path'
import type {Agent, RequestOptions} from 'node:https'

import {UsageError, XpkError} from '../core/errors.js'
import {NodeFiles} from './local-files.js'
import {textFileProblem} from '../core/text-file.js'
import {redactCredentials} from '../core/text.js'
import type {KubeAccess, KubeClient} from '../ports/kube.js'
import {HttpsTransport, type TlsSettings} from './kube-transport.js'
import {HttpKube} from './kube-verbs.js'

/**
 * Connects to a cluster's Kubernetes API as `access` says (GKE's endpoint and CA with an access token, or a
 * kubeconfig's cluster and user): plain HTTPS and JSON (node:https, kube-transport.ts), sending and returning objects
 * in their wire form (kube-verbs.ts), kinds found as kube-discovery.ts says.
 *
 * Why not @kubernetes/client-node's KubernetesObjectApi: loading the package (its ESM build is some 900 modules)
 * costs more CPU than the rest of a command, and it converts every object to and from its typed form, which drops
 * keys it does not model (`x-kubernetes-preserve-unknown-fields` of CRDs) unless converted back by hand, at a cost
 * per apply that grows with the object, the Kueue workloads CRD (1.4 MB of YAML) most (README, Speed, has both
 * measurements). The package is still used to read kubeconfig files (`--kubeconfig`,
 * KUBECONFIG): exec plugins, auth providers, client certificates and proxies are its business; GKE access needs
 * none of that (endpoint, CA and an access token) and never loads it.
 */
export async function connectKube(access: KubeAccess): Promise<KubeClient> {
  if (access.kind === 'gke') {
    const token = await access.token()
    const ca = access.caCertificate
    const transport = new HttpsTransport(access.server, {
      target: access.server,
      // No CA for DNS endpoints: their certificate is publicly trusted.
      tls: ca ? {ca: pemOf(ca)} : {},
      auth: async () => ({authorization: `Bearer ${token}`}),
    })
    return new HttpKube(transport, 'default')
  }
  const k8s = await import('@kubernetes/client-node')
  const config = await loadKubeconfig(k8s, access)
  const cluster = config.getCurrentCluster()
  const server = cluster?.server
  if (!server) {
    throw new UsageError('The kubeconfig names no cluster for its current context.', {
      flag: access.context ? '--context' : '--kubeconfig',
      hints: ['Pick a context with --context.'],
    })
  }
  const context = config.getContextObject(config.getCurrentContext())
  let tls: TlsSettings
  try {
    tls = await kubeconfigTls(config)
  } catch (error) {
    throw new XpkError('auth', `Could not use the kubeconfig's credentials: ${(error as Error).message}`, {
      hints: ['Check the certificate and key files it names, or pass another --context.'],
      cause: error,
    })
  }
  // The server as shown (describe, errors, --verbose): a password in its URL is never printed.
  const shown = `${redactCredentials(server)} (context ${config.getCurrentContext()})`
  const transport = new HttpsTransport(server, {
    target: shown,
    tls,
    // Per request, as client-node does: exec plugins and auth providers hand out tokens that expire.
    auth: async () => {
      const options: RequestOptions = {headers: {}}
      await config.applyToHTTPSOptions(options)
      const headers = lowerCaseHeaders(options.headers)
      // A kubeconfig user with username and password (basic auth, for servers that still take it).
      if (options.auth && !headers.authorization) {
        headers.authorization = `Basic ${Buffer.from(options.auth).toString('base64')}`
      }
      return headers
    },
    // A proxy-url in the kubeconfig: client-node's agent (HTTP CONNECT or SOCKS) carries the requests.
    proxyAgent: cluster.proxyUrl
      ? async () => {
          const options: RequestOptions = {}
          await config.applyToHTTPSOptions(options)
          return options.agent as Agent
        }
      : undefined,
  })
  return new HttpKube(transport, context?.namespace || 'default')
}

/** A kubeconfig is a few KB; client-node would read a device or a huge file whole (and block on a pipe). */
const MAX_KUBECONFIG_BYTES = 16 * 1024 * 1024

/**
 * The kubeconfig file's text, checked first on the open file (a regular UTF-8 text file of bounded size), so a
 * directory, /dev/zero or a pipe is a usage error naming it instead of a hang or a crash.
 */
async function readKubeconfigFile(path: string, flag: string): Promise<string> {
  const read = await new NodeFiles().readText(path, {maxBytes: MAX_KUBECONFIG_BYTES})
  if (read.kind === 'text') return read.text
  throw textFileProblem(read, {
    flag,
    path,
    what: 'a kubeconfig file',
    maxBytes: MAX_KUBECONFIG_BYTES,
    hints: ['Pass a kubeconfig file that kubectl can use, or leave --kubeconfig out to use the GKE cluster.'],
  })
}

async function loadKubeconfig(
  k8s: typeof K8s,
  access: Extract<KubeAccess, {kind: 'kubeconfig'}>,
): Promise<K8s.KubeConfig> {
  const config = new k8s.KubeConfig()
  // The files are read by xpk (checked, bounded); client-node only parses them.
  const files = access.path
    ? [{path: access.path, flag: '--kubeconfig'}]
    : (process.env.KUBECONFIG ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((path) => ({path, flag: 'KUBECONFIG'}))
  const texts = await Promise.all(files.map(async (f) => ({...f, text: await readKubeconfigFile(f.path, f.flag)})))
  try {
    if (texts.length === 0) config.loadFromDefault()
    for (const [i, f] of texts.entries()) {
      const one = i === 0 ? config : new k8s.KubeConfig()
      one.loadFromString(f.text)
      one.makePathsAbsolute(dirname(resolve(f.path)))
      if (one !== config) config.mergeConfig(one)
    }
  } catch (error) {
    throw new UsageError(
      `Could not read the kubeconfig${access.path ? ` ${access.path}` : ''}: ${(error as Error).message}`,
      {
        flag: '--kubeconfig',
        hints: ['Pass a kubeconfig file that kubectl can use, or leave --kubeconfig out to use the GKE cluster.'],
      },
    )
  }
  if (!access.path && madeUpDefault(config)) {
    throw new UsageError('There is no kubeconfig to read: KUBECONFIG is not set and ~/.kube/config does not exist.', {
      flag: access.context ? '--context' : '--kubeconfig',
      hints: [
        access.context
          ? 'Name the kubeconfig with --kubeconfig FILE (or KUBECONFIG), or leave --context out to reach the GKE cluster.'
          : 'Name the kubeconfig with --kubeconfig FILE, or leave it out to reach the GKE cluster.',
      ],
    })
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
  return config
}

/**
 * Whether client-node found no kubeconfig at all: it then makes one up, a context "loaded-context" for
 * http://localhost:8080 (config.js loadFromDefault), which xpk must neither name in a hint nor connect to.
 */
function madeUpDefault(config: K8s.KubeConfig): boolean {
  const contexts = config.getContexts()
  return (
    contexts.length === 1 &&
    contexts[0]!.name === 'loaded-context' &&
    config.getClusters().length === 1 &&
    config.getClusters()[0]!.server === 'http://localhost:8080'
  )
}

/** The TLS settings of the kubeconfig's current cluster and user (CA, client certificate, server name, verify). */
async function kubeconfigTls(config: K8s.KubeConfig): Promise<TlsSettings> {
  const options: RequestOptions = {}
  await config.applyToHTTPSOptions(options)
  return {
    ca: options.ca as Buffer | undefined,
    cert: options.cert as Buffer | undefined,
    key: options.key as Buffer | undefined,
    servername: options.servername,
    rejectUnauthorized: options.rejectUnauthorized,
  }
}

/** GKE hands out the cluster CA base64-encoded (`masterAuth.clusterCaCertificate`); a PEM is taken as is. */
function pemOf(ca: string): string {
  return ca.includes('-----BEGIN') ? ca : Buffer.from(ca, 'base64').toString('utf8')
}

function lowerCaseHeaders(headers: RequestOptions['headers']): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value !== undefined) out[name.toLowerCase()] = String(value)
  }
  return out
}
