// What both Cloud Storage fakes (FakeCloudStorage on the wire, MemoryCloudStorage in memory) know of the JSON API's
// rules and words, so they refuse the same requests the same way; cloud-storage-contract.test.ts holds them to each
// other.
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
}
