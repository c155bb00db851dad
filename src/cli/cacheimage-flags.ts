import * as Flags from '@oclif/core/flags'

import {DEFAULT_CACHE_KEY} from '../core/incluster/cache-image.js'

/** The flags of `xpk cluster cacheimage` besides the target, accelerator and global ones. */
export const cacheImageFlags = {
  'docker-image': Flags.string({
    description: 'The image to cache on every node of the type, as workloads will name it.',
    required: true,
  }),
  'cache-key': Flags.string({
    description: `Names the DaemonSet that caches the image; another key caches a second image beside the first. [default: ${DEFAULT_CACHE_KEY}]`,
  }),
  kubeconfig: Flags.string({
    description:
      'Reach the cluster through this kubeconfig instead of the GKE endpoint (kind, minikube, a cluster made elsewhere).',
    helpGroup: 'TARGET',
  }),
  context: Flags.string({
    description: 'The kubeconfig context to use (default: its current context).',
    helpGroup: 'TARGET',
  }),
  'dry-run': Flags.boolean({
    description: 'Show the DaemonSet that would be applied; make no network call.',
    helpGroup: 'GLOBAL',
  }),
}
