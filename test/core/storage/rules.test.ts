// The input rules of `storage attach` (src/core/storage/rules.ts), table-driven: each value rule with what it takes
// and what it refuses, then the flags together: every problem reported at once, each naming its flag and the fix.
import {describe, expect, it} from 'vitest'

import {
  attachRequestFromFlags,
  bucketNameProblem,
  fileShareProblem,
  filestoreInstanceProblem,
  mountPointProblem,
  parseAccessMode,
  parseBooleanText,
  parseFilestoreCapacity,
  parseFilestoreTier,
  parseMountOptions,
  storageNameProblem,
  type AttachFlags,
} from '../../../src/core/storage/rules.js'
import {storageReferenceProblem} from '../../../src/core/storage/mounts.js'
import {usageProblems} from '../../helpers/usage-problems.js'

describe('value rules', () => {
  it.each<[string, (v: string) => string | undefined, string[], string[]]>([
    [
      'storage names',
      storageNameProblem,
      ['data', 'a', '0-checkpoints', 'x'.repeat(60)],
      ['', 'Data', 'data_1', '-data', 'data-', 'data.sets', 'x'.repeat(61), 'dätä'],
    ],
    [
      'Storage references (any name the API server takes)',
      storageReferenceProblem,
      ['data', 'data.sets', 'x'.repeat(253)],
      ['', 'Data', 'data_1', '.data', 'x'.repeat(254)],
    ],
    [
      'mount points',
      mountPointProblem,
      ['/data', '/home/shared', '/mnt/a-b_c.d', '/dev-data', '/tmp', `/${'x'.repeat(4094)}`],
      [
        'data',
        './data',
        '/',
        '/data/',
        '//data',
        '/a//b',
        '/a/./b',
        '/a/../b',
        '/dev',
        '/dev/shm',
        '/proc/x',
        '/sys',
        `/${'x'.repeat(4096)}`,
      ],
    ],
    [
      'bucket names',
      bucketNameProblem,
      ['my-bucket', 'a_b', 'abc', 'a.b.c', `${'x'.repeat(63)}.${'y'.repeat(63)}`],
      [
        'ab',
        'x'.repeat(64),
        'My-Bucket',
        '-bucket',
        'bucket-',
        'a..b',
        '192.168.1.1',
        'goog-data',
        'my-google-data',
        'g00gle',
        `${'x'.repeat(64)}.y`,
      ],
    ],
    [
      'Filestore instance ids',
      filestoreInstanceProblem,
      ['home-fs', 'a', `a${'b'.repeat(62)}`],
      ['1fs', 'Home', 'home-', 'home_fs', `a${'b'.repeat(63)}`],
    ],
    [
      'Filestore file shares',
      (v) => fileShareProblem(v),
      ['vol1', 'default', 'A_b', 'v'.repeat(32)],
      ['1vol', 'vol_', 'vol-1', 'v'.repeat(33)],
    ],
    [
      'Filestore file shares of a basic tier',
      (v) => fileShareProblem(v, 'BASIC_SSD'),
      ['v'.repeat(16)],
      ['v'.repeat(17)],
    ],
  ])('%s', (_what, problem, accepted, refused) => {
    for (const value of accepted) expect(problem(value), value).toBeUndefined()
    for (const value of refused) expect(problem(value), value).toMatch(/\w/)
  })

  it.each<[string, string, number | RegExp]>([
    ['BASIC_HDD', '1024', 1024],
    ['BASIC_HDD', '1T', 1024],
    ['BASIC_HDD', '2TB', 2048],
    ['BASIC_HDD', '1024GiB', 1024],
    ['ZONAL', '100TiB', 102_400],
    ['BASIC_SSD', '2560g', 2560],
    ['BASIC_SSD', '1T', /BASIC_SSD instance holds 2560-65434 GiB/],
    ['ENTERPRISE', '11T', /ENTERPRISE instance holds 1024-10240 GiB\./],
    ['ENTERPRISE', '11 PiB', /like 1024 or 1T \(1024-10240 GiB for ENTERPRISE\)/],
    ['ZONAL', '1.5T', /whole number of GiB/],
    ['ZONAL', '-1024', /whole number of GiB/],
    ['ZONAL', '1024 PB', /whole number of GiB/],
    ['ZONAL', '99999999999999999999', /ZONAL instance holds/],
  ])('Filestore capacity of a %s instance: %s', (tier, text, expected) => {
    const run = () => parseFilestoreCapacity('--size', text, tier as never)
    if (typeof expected === 'number') expect(run()).toBe(expected)
    else
      expect(usageProblems(run).map((p) => [p.flag, p.message])).toEqual([['--size', expect.stringMatching(expected)]])
  })

  it('tiers, access modes and booleans in any case; anything else is refused with the choices', () => {
    expect(parseFilestoreTier('--tier', 'basic_hdd')).toBe('BASIC_HDD')
    expect(parseAccessMode('--access-mode', 'readwritemany')).toBe('ReadWriteMany')
    expect(parseBooleanText('--readonly', 'True')).toBe(true)
    expect(parseBooleanText('--readonly', 'FALSE')).toBe(false)
    expect(() => parseFilestoreTier('--tier', 'premium')).toThrow(
      /use one of BASIC_HDD, BASIC_SSD, ZONAL, REGIONAL, ENTERPRISE/,
    )
    expect(() => parseAccessMode('--access-mode', 'RWX')).toThrow(
      /use one of ReadWriteOnce, ReadOnlyMany, ReadWriteMany/,
    )
    // Python xpk read anything but "true" as false.
    for (const text of ['yes', '1', 'no', 'on', ''])
      expect(() => parseBooleanText('--readonly', text)).toThrow(/write true or false/)
  })

  it('mount options: a list of single words, none empty', () => {
    expect(parseMountOptions('--mount-options', 'implicit-dirs,uid=1001,metadata-cache:ttl-secs:-1')).toEqual([
      'implicit-dirs',
      'uid=1001',
      'metadata-cache:ttl-secs:-1',
    ])
    for (const text of ['implicit-dirs,,uid=1', 'a,', ',a', 'a b', 'a, b']) {
      expect(usageProblems(() => parseMountOptions('--mount-options', text)).map((p) => p.flag)).toEqual([
        '--mount-options',
      ])
    }
  })
})

const GCSFUSE: AttachFlags = {
  name: 'data',
  type: 'gcsfuse',
  autoMount: 'true',
  mountPoint: '/data',
  readonly: 'false',
  size: '64',
}
const FILESTORE: AttachFlags = {
  name: 'home',
  type: 'gcpfilestore',
  autoMount: 'false',
  mountPoint: '/home',
  readonly: 'false',
}
const manifest = (type: string): AttachFlags => ({
  name: 'scratch',
  type,
  autoMount: 'true',
  mountPoint: '/scratch',
  readonly: 'false',
  manifest: 'pv.yaml',
})

describe('storage attach flags', () => {
  it.each<[string, AttachFlags, unknown]>([
    [
      'gcsfuse with Python xpk defaults: the bucket named after the storage, implicit-dirs, metadata prefetch',
      GCSFUSE,
      {
        name: 'data',
        type: 'gcsfuse',
        autoMount: true,
        readonly: false,
        mountPoint: '/data',
        enableLegacyLustrePort: false,
        source: {kind: 'gcsfuse', bucket: 'data', sizeGb: 64, mountOptions: ['implicit-dirs'], prefetchMetadata: true},
      },
    ],
    [
      'gcsfuse with its own flags',
      {...GCSFUSE, bucket: 'my-bucket', mountOptions: 'uid=1001', prefetchMetadata: false, readonly: 'TRUE'},
      {
        readonly: true,
        source: {kind: 'gcsfuse', bucket: 'my-bucket', mountOptions: ['uid=1001'], prefetchMetadata: false},
      },
    ],
    [
      'gcpfilestore with Python xpk defaults: the instance named after the storage, share default, ReadWriteMany',
      FILESTORE,
      {source: {kind: 'gcpfilestore', instance: 'home', vol: 'default', accessMode: 'ReadWriteMany'}},
    ],
    [
      'gcpfilestore read-only, ReadOnlyMany',
      {...FILESTORE, readonly: 'true', accessMode: 'readonlymany', instance: 'nfs-1', vol: 'vol1'},
      {readonly: true, source: {kind: 'gcpfilestore', instance: 'nfs-1', vol: 'vol1', accessMode: 'ReadOnlyMany'}},
    ],
    ...['parallelstore', 'pd', 'lustre'].map((type): [string, AttachFlags, unknown] => [
      `${type} from a manifest`,
      manifest(type),
      {type, source: {kind: 'manifest', path: 'pv.yaml', instance: null}},
    ]),
    [
      'lustre on the legacy port',
      {...manifest('lustre'), enableLegacyLustrePort: true},
      {enableLegacyLustrePort: true},
    ],
    [
      'gcsfuse from a manifest (no --size needed)',
      {...manifest('gcsfuse')},
      {source: {kind: 'manifest', path: 'pv.yaml', instance: null}},
    ],
    [
      'gcpfilestore from a manifest names the instance it is of',
      {...manifest('gcpfilestore'), instance: 'nfs-1'},
      {source: {kind: 'manifest', path: 'pv.yaml', instance: 'nfs-1'}},
    ],
  ])('takes %s', (_what, flags, expected) => {
    expect(attachRequestFromFlags(flags)).toMatchObject(expected as object)
  })

  it.each<[string, AttachFlags, [string, RegExp][]]>([
    [
      'nothing given: every required flag, each with what to give',
      {},
      [
        ['NAME', /^Missing NAME: name the storage/],
        ['--type', /^Missing --type: use one of gcsfuse, gcpfilestore, parallelstore, pd, lustre\.$/],
        ['--auto-mount', /^Missing --auto-mount: give true or false/],
        ['--readonly', /^Missing --readonly: give true or false/],
        ['--mount-point', /^Missing --mount-point: .* --mount-point \/data\.$/],
      ],
    ],
    [
      'a name that cannot name its volume',
      {...GCSFUSE, name: 'Data_1', bucket: 'b-1'},
      [['NAME', /^NAME "Data_1": use lowercase/]],
    ],
    ['an unknown type', {...GCSFUSE, type: 'nfs'}, [['--type', /^--type "nfs": use one of gcsfuse,/]]],
    [
      'a boolean that is not one',
      {...GCSFUSE, readonly: 'yes', autoMount: '1'},
      [
        ['--auto-mount', /^--auto-mount "1": write true or false\.$/],
        ['--readonly', /^--readonly "yes": write true or false\.$/],
      ],
    ],
    [
      'a relative mount point',
      {...GCSFUSE, mountPoint: 'data'},
      [['--mount-point', /^--mount-point "data": give an absolute path, like \/data\.$/]],
    ],
    [
      'gcsfuse without --size',
      {...GCSFUSE, size: undefined},
      [['--size', /^Missing --size: .* in GiB .* --size 64\.$/]],
    ],
    [
      'gcsfuse with a size out of range',
      {...GCSFUSE, size: '0'},
      [['--size', /^--size: 0 is out of range: use a whole number from 1 to 8589934591/]],
    ],
    [
      'gcsfuse named like no bucket can be',
      {...GCSFUSE, name: 'goog-data'},
      [['--bucket', /^NAME "goog-data" names the bucket too \(no --bucket\): a bucket name cannot start with "goog"/]],
    ],
    [
      'a bad --bucket',
      {...GCSFUSE, bucket: 'My_Bucket'},
      [['--bucket', /^--bucket "My_Bucket": a bucket name has lowercase/]],
    ],
    ['an empty mount option', {...GCSFUSE, mountOptions: 'implicit-dirs,'}, [['--mount-options', /empty item/]]],
    [
      'flags of another type, each named with the type it is for',
      {...GCSFUSE, instance: 'fs', vol: 'v', accessMode: 'ReadWriteOnce', enableLegacyLustrePort: true},
      [
        ['--instance', /^--instance applies to --type gcpfilestore, not gcsfuse; leave it out\.$/],
        ['--vol', /^--vol applies to --type gcpfilestore, not gcsfuse/],
        ['--access-mode', /^--access-mode applies to --type gcpfilestore/],
        ['--enable-legacy-lustre-port', /^--enable-legacy-lustre-port applies to --type lustre, not gcsfuse/],
      ],
    ],
    [
      'gcsfuse flags on a Filestore storage',
      {...FILESTORE, bucket: 'b', size: '10', mountOptions: 'x', prefetchMetadata: false},
      [
        ['--bucket', /applies to --type gcsfuse, not gcpfilestore/],
        ['--size', /applies to --type gcsfuse/],
        ['--mount-options', /applies to --type gcsfuse/],
        ['--prefetch-metadata', /applies to --type gcsfuse/],
      ],
    ],
    [
      'a Filestore storage whose name is no instance id',
      {...FILESTORE, name: '1home'},
      [
        [
          '--instance',
          /^NAME "1home" names the instance too \(no --instance\): a Filestore instance id starts with a lowercase letter/,
        ],
      ],
    ],
    ['a bad --vol', {...FILESTORE, vol: 'my-vol'}, [['--vol', /^--vol "my-vol": a file share name/]]],
    ['a bad --access-mode', {...FILESTORE, accessMode: 'RWX'}, [['--access-mode', /^--access-mode "RWX": use one of/]]],
    [
      'a read-only access mode on a writable storage',
      {...FILESTORE, accessMode: 'ReadOnlyMany'},
      [['--access-mode', /^--access-mode ReadOnlyMany with --readonly false: workloads could not write to it\.$/]],
    ],
    ...['parallelstore', 'pd', 'lustre'].map((type): [string, AttachFlags, [string, RegExp][]] => [
      `${type} without --manifest`,
      {...manifest(type), manifest: undefined},
      [['--manifest', new RegExp(`^--type ${type} is attached from a manifest: give --manifest FILE`)]],
    ]),
    [
      'flags that build the volume, with --manifest',
      {...manifest('gcsfuse'), size: '10', bucket: 'b', mountOptions: 'x'},
      [
        ['--bucket', /^--bucket has no effect with --manifest/],
        ['--size', /^--size has no effect with --manifest/],
        ['--mount-options', /^--mount-options has no effect with --manifest/],
      ],
    ],
    ['an empty --manifest', {...manifest('pd'), manifest: ' '}, [['--manifest', /^--manifest is empty/]]],
  ])('refuses %s', (_what, flags, expected) => {
    const problems = usageProblems(() => attachRequestFromFlags(flags))
    expect(problems.map((p) => p.flag)).toEqual(expected.map(([flag]) => flag))
    problems.forEach((p, i) => expect(p.message).toMatch(expected[i]![1]))
  })
})
