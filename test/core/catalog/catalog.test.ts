import {describe, expect, it} from 'vitest'

import {acceleratorCatalog} from '../../../src/core/catalog/catalog.js'

describe('accelerator catalog size', () => {
  it('has as many names per family as Python xpk', () => {
    const counts = new Map<string, number>()
    for (const a of acceleratorCatalog().values()) {
      const key = a.kind === 'TPU' ? a.family : a.kind
      counts.set(key, (counts.get(key) ?? 0) + 1)
    }
    expect(Object.fromEntries(counts)).toEqual({
      GPU: 14,
      tpu7: 19,
      tpu7x: 564,
      v6e: 16,
      v5p: 541,
      v5litepod: 12,
      v4: 868,
      CPU: 23,
    })
    expect(acceleratorCatalog().size).toBe(2057)
  })
})
