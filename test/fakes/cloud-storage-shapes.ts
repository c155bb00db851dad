// What both Cloud Storage fakes (FakeCloudStorage on the wire, MemoryCloudStorage in memory) know of the JSON API's
// rules and words, so they refuse the same requests the same way; cloud-storage-contract.test.ts holds them to each
// other.
import {createHash} from 'node:crypto'

import type {IamBinding} from '../../src/core/storage/backends.js'

/**
 * Why Cloud Storage refuses a bucket name, or undefined: 3-63 characters (up to 222 with dots, 63 between dots) of
 * lowercase letters, digits, `-`, `_` and `.`, starting and ending with a letter or digit, not an IP address, not
 * starting with "goog" nor holding "google" or a look-alike.
 */
export function bucketNameProblem(name: string): string | undefined {
  const parts = name.split('.')
  const valid =
    /^[a-z0-9][a-z0-9._-]*[a-z0-9]$/.test(name) &&
    name.length >= 3 &&
    (parts.length === 1 ? name.length <= 63 : name.length <= 222 && parts.every((p) => p.length <= 63)) &&
    !/^\d+\.\d+\.\d+\.\d+$/.test(name) &&
    !name.startsWith('goog') &&
    !/g[0o][0o]g[1l][e3]/.test(name)
  return valid ? undefined : storageSays.invalidBucketName(name)
}

const ROLE = /^(roles\/[A-Za-z0-9_.]+|(projects|organizations)\/[^/]+\/roles\/[A-Za-z0-9_.]+)$/
const MEMBER =
  /^(allUsers|allAuthenticatedUsers|(user|serviceAccount|group|domain|projectOwner|projectEditor|projectViewer|deleted:user|deleted:serviceAccount|deleted:group):[^\s]+|principal(Set)?:\/\/iam\.googleapis\.com\/[^\s]+)$/

/** Why Cloud Storage refuses to set this policy (400), or undefined. */
export function policyProblem(version: number, bindings: readonly IamBinding[]): string | undefined {
  if (![1, 2, 3].includes(version)) return `Invalid policy version ${version}: it must be 1, 2 or 3.`
  for (const binding of bindings) {
    if (!ROLE.test(binding.role)) return `Role ${binding.role} is not a valid role.`
    const member = binding.members.find((m) => !MEMBER.test(m))
    if (member !== undefined) return `Invalid member "${member}" of role ${binding.role}.`
    if (binding.condition && version < 3) {
      return `A binding of role ${binding.role} has a condition: the policy's version must be 3, not ${version}.`
    }
  }
  return undefined
}

/**
 * The etag of a policy's n-th version, as Cloud Storage writes them: base64 of a small protocol buffer holding a
 * counter (`CAE=` for the first).
 */
export function policyEtag(generation: number): string {
  const bytes = [0x08]
  let n = generation
  do {
    bytes.push((n & 0x7f) | (n >= 0x80 ? 0x80 : 0))
    n >>>= 7
  } while (n > 0)
  return Buffer.from(bytes).toString('base64')
}

/** The policy a new bucket with uniform bucket-level access has: the project's owners, editors and viewers. */
export function defaultBindings(project: string): IamBinding[] {
  return [
    {role: 'roles/storage.legacyBucketOwner', members: [`projectEditor:${project}`, `projectOwner:${project}`]},
    {role: 'roles/storage.legacyBucketReader', members: [`projectViewer:${project}`]},
    {role: 'roles/storage.legacyObjectOwner', members: [`projectEditor:${project}`, `projectOwner:${project}`]},
    {role: 'roles/storage.legacyObjectReader', members: [`projectViewer:${project}`]},
  ]
}

/** What the Cloud Storage JSON API says, worded once for both fakes. */
export const storageSays = {
  bucketNotFound: 'The specified bucket does not exist.',
  invalidBucketName: (name: string) => `Invalid bucket name: '${name}'`,
  /** A write whose etag is not the policy's current one. */
  preconditionFailed: 'Precondition Failed',
  noSuchObject: (bucket: string, name: string) => `No such object: ${bucket}/${name}`,
  /** An object write whose ifGenerationMatch is not the live object's generation. */
  objectPreconditionFailed: 'At least one of the pre-conditions you specified did not hold.',
  invalidObjectName: (name: string) => `The specified object name is not valid: '${name}'`,
  invalidGeneration: (value: string) => `Invalid argument for ifGenerationMatch: '${value}'`,
}

/**
 * Why Cloud Storage refuses an object name, or undefined: 1-1024 bytes of UTF-8, no carriage return or line feed,
 * not `.` or `..`, not under `.well-known/acme-challenge/`.
 */
export function objectNameProblem(name: string): string | undefined {
  const bytes = Buffer.byteLength(name, 'utf8')
  const valid =
    bytes >= 1 &&
    bytes <= 1024 &&
    !/[\r\n]/.test(name) &&
    name !== '.' &&
    name !== '..' &&
    !name.startsWith('.well-known/acme-challenge/')
  return valid ? undefined : storageSays.invalidObjectName(name)
}

/** A generation condition as the API reads it: a non-negative int64 in decimal, or undefined when it is not one. */
export function generationCondition(value: string | number): bigint | undefined {
  const text = String(value)
  return /^\d{1,19}$/.test(text) ? BigInt(text) : undefined
}

const CRC32C_TABLE = Array.from({length: 256}, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

/** The content's CRC32C (Castagnoli) as Cloud Storage writes it: base64 of the 4 bytes, big-endian. */
export function crc32c(data: Uint8Array): string {
  let crc = 0xffffffff
  for (const byte of data) crc = CRC32C_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8)
  const out = Buffer.alloc(4)
  out.writeUInt32BE((crc ^ 0xffffffff) >>> 0)
  return out.toString('base64')
}

/** The content's MD5 as Cloud Storage writes it: base64 of the digest. */
export function md5Base64(data: Uint8Array): string {
  return createHash('md5').update(data).digest('base64')
}

/**
 * One listing of the names under `prefix`: the names (in order) and, with a delimiter, the prefixes that fold those
 * whose rest holds it, as `objects.list` lists them.
 */
export function listNames(
  names: readonly string[],
  prefix: string,
  delimiter: string | undefined,
): {names: string[]; prefixes: string[]} {
  const listed: string[] = []
  const folded = new Set<string>()
  for (const name of [...names].sort(byBytes)) {
    if (!name.startsWith(prefix)) continue
    const at = delimiter ? name.indexOf(delimiter, prefix.length) : -1
    if (at >= 0) folded.add(name.slice(0, at + delimiter!.length))
    else listed.push(name)
  }
  return {names: listed, prefixes: [...folded].sort(byBytes)}
}

/** Cloud Storage lists in the lexicographic order of the names' UTF-8 bytes. */
export function byBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))
}
