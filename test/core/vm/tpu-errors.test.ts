import {describe, expect, it} from 'vitest'

import {tpuApiError} from '../../../src/core/vm/tpu-errors.js'

const where = {action: 'provision queued resource q', project: 'p', zone: 'us-east5-a'}

describe('TPU API failures', () => {
  it.each([
    [8, 'There is no more capacity in the zone "us-east5-a"; you can try again later.', 'stockout', false, /stockout/],
    [8, "Quota 'TPUV5sPodPerProjectPerZoneForTPUAPI' exhausted. Limit 16 in zone us-east5-a", 'quota', false, /quota/i],
    [8, 'Rate limit exceeded: too many requests per minute', 'quota', true, /retries/],
    [
      3,
      'Runtime version "tpu-vm-v4-base" is not supported for accelerator type v6e-8',
      'usage',
      false,
      /--runtime-version/,
    ],
    [7, 'Permission tpu.nodes.create denied', 'permission', false, /roles\/tpu\.admin/],
    [14, 'connection reset', 'unavailable', true, /transiently/],
    [9, 'Operation is in progress on the node', 'conflict', true, /state/],
    [6, "Resource 'q' already exists", 'conflict', false, /xpk vm delete/],
  ])('code %i "%s" is %s (retryable: %s)', (code, message, kind, retryable, hint) => {
    const error = tpuApiError({code, message}, where)
    expect(error).toMatchObject({kind, retryable})
    expect(error.message).toBe(`Could not provision queued resource q: ${message} (${error.status}).`)
    expect(error.hints.join(' ')).toMatch(hint)
  })
})
