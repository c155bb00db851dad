/**
 * `cluster cacheimage`: a DaemonSet that runs `sleep inf` in the given image on every accelerator node, so each
 * node pulls the image once, ahead of the workloads that use it. Python xpk deletes and re-applies it on each run.
 *
 * The object's name, its labels and its container's name are the cache key (`--cache-key`, default
 * `containerimage`), as in Python; a second key caches a second image beside the first.
 *
 * One deliberate difference: Python selects CPU nodes by an accelerator label with an empty key, which the API
 * server rejects; CPU types here select every node outside `default-pool`, as CPU workloads do.
 */
import type {Accelerator} from '../catalog/types.js'
import {KIND_TRAITS} from '../catalog/types.js'
import type {DaemonSet, NodeSelectorRequirement} from '../manifests/k8s-types.js'
import {XPK_NAMESPACE} from './namespace.js'

/** `--cache-key` when not given. */
export const DEFAULT_CACHE_KEY = 'containerimage'

const RFC1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/
const MAX_LABEL = 63

/**
 * Why `key` cannot be a cache key, or undefined when it can: it names the DaemonSet and its container and is a
 * label value, so it must be an RFC 1123 label of at most 63 characters.
 */
export function cacheKeyProblem(key: string): string | undefined {
  if (key.length > MAX_LABEL) return `at most ${MAX_LABEL} characters (it has ${key.length})`
  if (!RFC1123_LABEL.test(key)) {
    return 'use lowercase letters, digits and hyphens, starting and ending with a letter or digit (RFC 1123)'
  }
  return undefined
}

export interface CacheImageRequest {
  readonly cacheKey: string
  /** The image to cache, as the workloads will name it. */
  readonly image: string
  readonly accelerator: Accelerator
}

/** The DaemonSet that caches `image` on the nodes of `accelerator`'s kind. */
export function cacheImageDaemonSet(request: CacheImageRequest): DaemonSet {
  const key = request.cacheKey
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {name: key, namespace: XPK_NAMESPACE, labels: {'k8s-app': key}},
    spec: {
      selector: {matchLabels: {'k8s-app': key}},
      updateStrategy: {type: 'RollingUpdate'},
      template: {
        metadata: {labels: {name: key, 'k8s-app': key}},
        spec: {
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [{matchExpressions: [acceleratorNodes(request.accelerator)]}],
              },
            },
          },
          // Accelerator nodes are tainted (google.com/tpu, nvidia.com/gpu); the cache must run on them all.
          tolerations: [{operator: 'Exists'}],
          containers: [{name: key, image: request.image, command: ['sleep', 'inf']}],
        },
      },
    },
  }
}

function acceleratorNodes(accelerator: Accelerator): NodeSelectorRequirement {
  const label = KIND_TRAITS[accelerator.kind].acceleratorLabel
  if (label !== null) return {key: label, operator: 'Exists'}
  return {key: 'cloud.google.com/gke-nodepool', operator: 'NotIn', values: ['default-pool']}
}
