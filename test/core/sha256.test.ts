import {createHash, randomBytes} from 'node:crypto'
import {describe, expect, it} from 'vitest'

import {Sha256, sha256Hex} from '../../src/core/sha256.js'

const native = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex')

describe('Sha256', () => {
  it.each([
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    [
      'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq',
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    ],
  ])('matches the FIPS 180-4 vector for %j', (input, digest) => {
    expect(sha256Hex(input)).toBe(digest)
  })

  it('matches node:crypto for every length around the block and padding boundaries', () => {
    const data = randomBytes(300)
    for (let length = 0; length <= 300; length++) {
      expect(sha256Hex(data.subarray(0, length)), `length ${length}`).toBe(native(data.subarray(0, length)))
    }
  })

  it('gives the same digest however the input is split into updates', () => {
    const data = randomBytes(10_000)
    const hash = new Sha256()
    let offset = 0
    for (const size of [1, 63, 64, 65, 127, 1000, 3, 4096]) {
      hash.update(data.subarray(offset, offset + size))
      offset += size
    }
    hash.update(data.subarray(offset))
    expect(hash.hex()).toBe(native(data))
  })

  it('hashes strings as UTF-8', () => {
    expect(sha256Hex('naïve ☃ 𝄞')).toBe(native(Buffer.from('naïve ☃ 𝄞', 'utf8')))
  })

  it('refuses updates after the digest was taken', () => {
    const hash = new Sha256().update('x')
    hash.hex()
    expect(() => hash.update('y')).toThrow(/after hex/)
  })
})
