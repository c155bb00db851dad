import * as Flags from '@oclif/core/flags'

import {DEFAULT_CACHE_KEY} from '../core/incluster/cache-image.js'
import {kubeAccessFlags} from './flags.js'

/** The flags of `xpk cluster cacheimage` besides the target, accelerator and global ones. */
export const cacheImageFlags = {
  'docker-image': Flags.string({
    description: 'The image to cache on every node of the type, as workloads will name it.',
    required: true,
  }),
  'cache-key': Flags.string({
    description: `Names the DaemonSet that caches the image; another key caches a second image beside the first. [default: ${DEFAULT_CACHE_KEY}]`,
  }),
  ...kubeAccessFlags,
  'dry-run': Flags.boolean({
    description: 'Show the DaemonSet that would be applied; make no network call.',
    helpGroup: 'GLOBAL',
  }),
}
