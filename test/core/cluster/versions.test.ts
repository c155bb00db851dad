import {describe, expect, it} from 'vitest'

import {
  chooseControlPlaneVersion,
  chooseNodeVersion,
  compareGkeVersions,
  parseGkeVersion,
  releaseChannelFor,
} from '../../../src/core/cluster/versions.js'
import {UsageError} from '../../../src/core/errors.js'

describe('parseGkeVersion', () => {
  it.each([
    {text: '1.35.1-gke.1000000', parts: [1, 35, 1, 1000000]},
    {text: '1.33.5-gke.1162000', parts: [1, 33, 5, 1162000]},
    {text: '1.35.10', parts: [1, 35, 10, 0]},
  ])('$text -> $parts', ({text, parts}) => {
    expect(parseGkeVersion(text)).toEqual({text, parts})
  })

  it('ignores surrounding whitespace', () => {
    expect(parseGkeVersion(' 1.34.0-gke.2\n')?.parts).toEqual([1, 34, 0, 2])
  })

  it.each(['', 'latest', '1.35', '1.35.x', 'v1.35.1', '1.35.1-gke', '1.35.1-gke.abc', '1.35.1-eks.1', '1.35.1.2'])(
    'rejects %j',
    (text) => {
      expect(parseGkeVersion(text)).toBeUndefined()
    },
  )
})

describe('compareGkeVersions', () => {
  it.each([
    {case: 'patch numerically (10 > 9)', a: '1.35.10-gke.100', b: '1.35.9-gke.100', sign: 1},
    {case: 'minor numerically (1.100 > 1.35)', a: '1.100.0', b: '1.35.0', sign: 1},
    {case: 'major first', a: '2.0.0', b: '1.99.99-gke.999', sign: 1},
    {case: 'gke build numerically', a: '1.35.1-gke.1000000', b: '1.35.1-gke.999999', sign: 1},
    {case: 'gke build ordering, smaller', a: '1.35.1-gke.2', b: '1.35.1-gke.10', sign: -1},
    {case: 'build outranked by patch', a: '1.35.1-gke.9999999', b: '1.35.2-gke.1', sign: -1},
    {case: 'missing build is build 0', a: '1.35.1', b: '1.35.1-gke.0', sign: 0},
    {case: 'equal', a: '1.35.1-gke.1000000', b: '1.35.1-gke.1000000', sign: 0},
    {case: 'unparseable sorts first', a: 'latest', b: '0.0.1', sign: -1},
  ])('$case', ({a, b, sign}) => {
    expect(Math.sign(compareGkeVersions(a, b))).toBe(sign)
    expect(Math.sign(compareGkeVersions(b, a))).toBe(-sign || 0)
  })

  it('sorts a list the way GKE means it, not as strings', () => {
    const versions = ['1.35.9-gke.1', '1.35.10-gke.1', '1.34.12-gke.5', '1.35.9-gke.20', '1.4.1']
    expect([...versions].sort(compareGkeVersions)).toEqual([
      '1.4.1',
      '1.34.12-gke.5',
      '1.35.9-gke.1',
      '1.35.9-gke.20',
      '1.35.10-gke.1',
    ])
  })
})

describe('chooseControlPlaneVersion', () => {
  const channel = {
    defaultVersion: '1.34.3-gke.1000',
    validVersions: [
      '1.33.5-gke.100',
      '1.35.9-gke.200',
      '1.34.3-gke.1000',
      '1.35.10-gke.100',
      '1.34.4-gke.10',
      '1.32.1-gke.1',
      '1.35.1-gke.5',
    ],
  }

  it("uses the channel's default without --gke-version", () => {
    expect(chooseControlPlaneVersion(channel, undefined)).toBe('1.34.3-gke.1000')
  })

  it('uses a pinned version the channel offers', () => {
    expect(chooseControlPlaneVersion(channel, '1.33.5-gke.100')).toBe('1.33.5-gke.100')
  })

  it('rejects a pinned version the channel does not offer, naming --gke-version and the newest valid versions', () => {
    let thrown: unknown
    try {
      chooseControlPlaneVersion(channel, '1.31.0-gke.1')
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(UsageError)
    const error = thrown as UsageError
    expect(error.flag).toBe('--gke-version')
    expect(error.message).toContain('1.31.0-gke.1')
    expect(error.exitCode).toBe(2)
    expect(error.hints).toEqual([
      'Newest valid versions: 1.35.10-gke.100, 1.35.9-gke.200, 1.35.1-gke.5, 1.34.4-gke.10, 1.34.3-gke.1000.',
    ])
  })

  it('does not mutate the channel list when building the hint', () => {
    const before = [...channel.validVersions]
    expect(() => chooseControlPlaneVersion(channel, '9.9.9')).toThrow(UsageError)
    expect(channel.validVersions).toEqual(before)
  })
})

describe('chooseNodeVersion', () => {
  it.each([
    {
      case: 'exact match',
      cp: '1.35.1-gke.100',
      valid: ['1.35.1-gke.100', '1.35.2-gke.1'],
      want: '1.35.1-gke.100',
    },
    {
      case: 'smallest at or above in the same minor',
      cp: '1.35.1-gke.100',
      valid: ['1.35.10-gke.1', '1.35.2-gke.5', '1.35.9-gke.1', '1.36.0-gke.1'],
      want: '1.35.2-gke.5',
    },
    {
      case: 'build number counts numerically',
      cp: '1.35.1-gke.9',
      valid: ['1.35.1-gke.100', '1.35.1-gke.10', '1.35.1-gke.8'],
      want: '1.35.1-gke.10',
    },
    {
      case: 'nothing above in the minor: largest below',
      cp: '1.35.5-gke.1',
      valid: ['1.35.1-gke.1', '1.34.9-gke.1', '1.35.4-gke.7', '1.36.0-gke.1'],
      want: '1.35.4-gke.7',
    },
    {
      case: 'largest below may be an older minor',
      cp: '1.35.0-gke.1',
      valid: ['1.33.2-gke.1', '1.34.10-gke.1', '1.34.9-gke.1', '1.36.0-gke.1'],
      want: '1.34.10-gke.1',
    },
    {
      case: 'nothing at or below: the control plane itself',
      cp: '1.35.0-gke.1',
      valid: ['1.36.0-gke.1', '1.36.1-gke.1'],
      want: '1.35.0-gke.1',
    },
    {case: 'no valid versions: the control plane itself', cp: '1.35.0-gke.1', valid: [], want: '1.35.0-gke.1'},
    {
      case: 'ignores unparseable entries',
      cp: '1.35.1-gke.1',
      valid: ['latest', '1.35', '1.35.3-gke.1'],
      want: '1.35.3-gke.1',
    },
    {case: 'unparseable control plane passes through', cp: '1.35', valid: ['1.35.1-gke.1'], want: '1.35'},
  ])('$case', ({cp, valid, want}) => {
    expect(chooseNodeVersion(cp, valid)).toBe(want)
  })

  it('does not depend on the order of the valid versions', () => {
    const valid = ['1.35.10-gke.1', '1.35.2-gke.1', '1.35.9-gke.1', '1.34.1-gke.1', '1.35.3-gke.1']
    const want = chooseNodeVersion('1.35.2-gke.5', valid)
    expect(want).toBe('1.35.3-gke.1')
    for (let shift = 1; shift < valid.length; shift++) {
      const rotated = [...valid.slice(shift), ...valid.slice(0, shift)]
      expect(chooseNodeVersion('1.35.2-gke.5', rotated)).toBe(want)
      expect(chooseNodeVersion('1.35.2-gke.5', [...rotated].reverse())).toBe(want)
    }
  })
})

describe('releaseChannelFor', () => {
  it.each([
    {gkeVersion: undefined, channel: 'RAPID'},
    {gkeVersion: '1.35.1-gke.1000000', channel: 'REGULAR'},
    {gkeVersion: '1.35', channel: 'REGULAR'},
  ])('$gkeVersion -> $channel', ({gkeVersion, channel}) => {
    expect(releaseChannelFor(gkeVersion)).toBe(channel)
  })
})
