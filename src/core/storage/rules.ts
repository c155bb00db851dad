/**
 * The input rules of the storage commands, checked before anything is read or sent: the storage's name, its type,
 * where workloads mount it, whether they may write, and what each type takes (a bucket and a size for GCS FUSE, an
 * instance, a file share and an access mode for Filestore, a manifest for the others). Every problem is collected and
 * reported together, each naming its flag and the fix (README, Bad input). Python xpk checked almost none of these:
 * `--readonly yes` meant false, `--bucket` with `--type gcpfilestore` was ignored, a Filestore capacity of 1024 was
 * written as 1024 bytes; see the README's Storage section for what changed.
 */
import {UsageError} from '../errors.js'
import {INTEGER_FLAGS, Problems, splitList, type IntegerRange} from '../input.js'
import type {AccessMode} from '../manifests/k8s-types.js'
import {escapeInline} from '../text.js'
import {FILESTORE_TIERS, type FilestoreTier} from './backends.js'
import {ACCESS_MODES, isStorageType, STORAGE_TYPES, type StorageType} from './types.js'

/** `storage attach` flags as parsed, before validation; undefined means not given. */
export interface AttachFlags {
  /** The NAME argument. */
  readonly name?: string
  readonly type?: string
  /** `true` or `false` (any case), as Python xpk's flags take them. */
  readonly autoMount?: string
  readonly mountPoint?: string
  readonly readonly?: string
  readonly bucket?: string
  /** GiB, as the text typed (or a number from in-process callers). */
  readonly size?: string | number
  readonly mountOptions?: string
  readonly prefetchMetadata?: boolean
  readonly instance?: string
  readonly vol?: string
  readonly accessMode?: string
  /** The path of the manifest file; its contents are read and checked apart (user-manifest.ts). */
  readonly manifest?: string
  readonly enableLegacyLustrePort?: boolean
}

/** What every storage is, whatever its type: the Storage object's own fields. */
export interface StorageSettings {
  readonly name: string
  readonly type: StorageType
  readonly autoMount: boolean
  readonly mountPoint: string
  readonly readonly: boolean
}

/** Where the PersistentVolume and its claim come from. */
export type AttachSource =
  | {
      readonly kind: 'gcsfuse'
      readonly bucket: string
      readonly sizeGb: number
      readonly mountOptions: readonly string[]
      readonly prefetchMetadata: boolean
    }
  | {readonly kind: 'gcpfilestore'; readonly instance: string; readonly vol: string; readonly accessMode: AccessMode}
  /** A file of the user's; Filestore ones name the instance, which must exist (as Python xpk checks). */
  | {readonly kind: 'manifest'; readonly path: string; readonly instance: string | null}

/** A `storage attach`, checked. */
export interface AttachRequest extends StorageSettings {
  readonly source: AttachSource
  /** Lustre: the CSI driver uses the legacy port (instances made with --gke-support-enabled, GKE < 1.33.2). */
  readonly enableLegacyLustrePort: boolean
}

/**
 * `--size` of a GCS FUSE storage, in GiB: any capacity a PersistentVolume can state (an int64 of bytes). One entry of
 * INTEGER_FLAGS (src/core/input.ts), which holds the range of every whole-number flag.
 */
export const STORAGE_SIZE_GIB: IntegerRange = INTEGER_FLAGS['storage:size']

/** Python xpk's defaults. */
export const ATTACH_DEFAULTS = {
  mountOptions: 'implicit-dirs',
  prefetchMetadata: true,
  vol: 'default',
  accessMode: 'ReadWriteMany',
} as const

/**
 * The longest storage name: xpk names its PersistentVolume `<name>-pv`, and that name is also the volume's name in
 * every pod that mounts it, which Kubernetes holds to 63 characters (an RFC 1123 label).
 */
export const MAX_STORAGE_NAME = 60

const RFC1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/
/** A Linux path is at most PATH_MAX (4096) bytes. */
const MAX_PATH = 4096
/** Paths that belong to the container runtime: a volume mounted there breaks the container. */
const SYSTEM_PATHS = ['/dev', '/proc', '/sys']

/** Why a name is not one `storage attach` can give a storage (and the objects named after it), or undefined. */
export function storageNameProblem(name: string): string | undefined {
  if (name.length > MAX_STORAGE_NAME) {
    return (
      `it is ${name.length} characters long; the limit is ${MAX_STORAGE_NAME}, as its PersistentVolume, ` +
      `<name>-pv, names the volume in every pod that mounts it and Kubernetes allows 63 characters there`
    )
  }
  if (!RFC1123_LABEL.test(name)) {
    return 'use lowercase letters, digits and hyphens, starting and ending with a letter or digit (RFC 1123)'
  }
  return undefined
}

/** Why a path cannot be where workloads mount a storage, or undefined. */
export function mountPointProblem(path: string): string | undefined {
  if (!path.startsWith('/')) return 'give an absolute path, like /data'
  if (path === '/')
    return 'a volume cannot replace the whole file system of the container; give a directory, like /data'
  if (path.length > MAX_PATH) return `it is ${path.length} characters long; Linux paths are at most ${MAX_PATH}`
  const parts = path.slice(1).split('/')
  if (parts.some((p) => p === '')) return 'it has an empty part (// or a / at the end); write it as /a/b'
  if (parts.some((p) => p === '.' || p === '..')) return 'it has a . or .. part; write the path it stands for'
  const system = SYSTEM_PATHS.find((s) => path === s || path.startsWith(`${s}/`))
  if (system) return `${system} belongs to the container runtime; mount the storage elsewhere, like /data`
  return undefined
}

/** Why a name is not a Cloud Storage bucket's, or undefined (Cloud Storage's naming rules). */
export function bucketNameProblem(name: string): string | undefined {
  const dotted = name.includes('.')
  if (name.length < 3 || name.length > (dotted ? 222 : 63)) {
    return `a bucket name has 3 to 63 characters (222 with dots); this one has ${name.length}`
  }
  if (!/^[a-z0-9][-_.a-z0-9]*[a-z0-9]$/.test(name)) {
    return 'a bucket name has lowercase letters, digits, -, _ and ., and starts and ends with a letter or digit'
  }
  if (dotted && name.split('.').some((part) => part.length > 63 || part === '')) {
    return 'each dot-separated part of a bucket name has 1 to 63 characters'
  }
  if (/^\d+\.\d+\.\d+\.\d+$/.test(name)) return 'a bucket name cannot be an IP address'
  if (name.startsWith('goog') || /g[o0][o0]gle/.test(name)) {
    return 'a bucket name cannot start with "goog" or contain "google"'
  }
  return undefined
}

/** Why a name is not a Filestore instance id, or undefined (the Filestore API's rule). */
export function filestoreInstanceProblem(name: string): string | undefined {
  if (!/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/.test(name)) {
    return (
      'a Filestore instance id starts with a lowercase letter, has lowercase letters, digits and hyphens, ' +
      'does not end with a hyphen, and has at most 63 characters'
    )
  }
  return undefined
}

/** Basic tiers hold shorter file share names. */
const BASIC_TIERS: readonly FilestoreTier[] = ['BASIC_HDD', 'BASIC_SSD']

/** Why a name is not a Filestore file share's (`--vol`), or undefined; basic tiers allow 16 characters, others 32. */
export function fileShareProblem(name: string, tier?: FilestoreTier): string | undefined {
  const max = tier !== undefined && BASIC_TIERS.includes(tier) ? 16 : 32
  if (name.length > max || !/^[A-Za-z]([A-Za-z0-9_]*[A-Za-z0-9])?$/.test(name)) {
    return (
      `a file share name starts with a letter, has letters, digits and underscores, does not end with an ` +
      `underscore, and has at most ${max} characters${tier === undefined ? '' : ` (${tier})`}`
    )
  }
  return undefined
}

/**
 * The capacity range of each Filestore tier, in GiB (Filestore's "service tiers": a GB there is 2^30 bytes). The
 * API also holds zonal and regional capacities to steps (256 GiB below 10 TiB, 2.5 TiB above) and says so itself.
 */
export const FILESTORE_CAPACITY_GB: Readonly<Record<FilestoreTier, {readonly min: number; readonly max: number}>> = {
  BASIC_HDD: {min: 1024, max: 65_434},
  BASIC_SSD: {min: 2560, max: 65_434},
  ZONAL: {min: 1024, max: 102_400},
  REGIONAL: {min: 1024, max: 102_400},
  ENTERPRISE: {min: 1024, max: 10_240},
}

/**
 * Parses a Filestore capacity (`storage create --size`): a whole number of GiB, or with a unit, `1024G`, `1024GB`,
 * `1T`, `2.5` is refused (Python xpk's "gigabytes or terabytes; gigabytes if no unit"), and checks it against the
 * tier's range.
 * @throws UsageError naming `flag`
 */
export function parseFilestoreCapacity(flag: string, text: string, tier: FilestoreTier): number {
  const match = /^(\d+)\s?(g|gb|gib|t|tb|tib)?$/i.exec(text)
  const {min, max} = FILESTORE_CAPACITY_GB[tier]
  const range = `${min}-${max} GiB for ${tier}`
  if (!match) {
    throw new UsageError(
      `${flag} "${escapeInline(text)}": give a whole number of GiB, or of TiB with a unit, like 1024 or 1T (${range}).`,
      {flag},
    )
  }
  const gb = Number(match[1]) * (match[2]?.toLowerCase().startsWith('t') ? 1024 : 1)
  if (!Number.isSafeInteger(gb) || gb < min || gb > max) {
    throw new UsageError(`${flag} ${text}: a ${tier} instance holds ${min}-${max} GiB.`, {
      flag,
      hints: [`Pick a size in that range, or another --tier (${FILESTORE_TIERS.join(', ')}).`],
    })
  }
  return gb
}

/** A Filestore tier given in any case, as the API spells it. @throws UsageError naming `flag` */
export function parseFilestoreTier(flag: string, text: string): FilestoreTier {
  const tier = FILESTORE_TIERS.find((t) => t === text.toUpperCase())
  if (tier === undefined) {
    throw new UsageError(`${flag} "${escapeInline(text)}": use one of ${FILESTORE_TIERS.join(', ')}.`, {flag})
  }
  return tier
}

/** An access mode given in any case, as Kubernetes spells it. @throws UsageError naming `flag` */
export function parseAccessMode(flag: string, text: string): AccessMode {
  const mode = ACCESS_MODES.find((m) => m.toLowerCase() === text.toLowerCase())
  if (mode === undefined) {
    throw new UsageError(`${flag} "${escapeInline(text)}": use one of ${ACCESS_MODES.join(', ')}.`, {flag})
  }
  return mode
}

/**
 * `true` or `false`, in any case. Python xpk read anything but `true` as false (`--readonly yes` gave a writable
 * storage); here anything else is refused.
 * @throws UsageError naming `flag`
 */
export function parseBooleanText(flag: string, text: string): boolean {
  const lower = text.toLowerCase()
  if (lower === 'true' || lower === 'false') return lower === 'true'
  throw new UsageError(`${flag} "${escapeInline(text)}": write true or false.`, {flag})
}

/** `--mount-options`: comma-separated GCS FUSE options, none empty, none with white space in it. */
export function parseMountOptions(flag: string, text: string): string[] {
  const options = splitList(flag, text)
  const spaced = options.find((o) => /\s/.test(o))
  if (spaced !== undefined) {
    throw new UsageError(`${flag}: "${escapeInline(spaced)}" holds white space; mount options are single words.`, {
      flag,
      hints: ['Write them like implicit-dirs,metadata-cache:ttl-secs:-1 (the GCS FUSE CSI driver options).'],
    })
  }
  return options
}

/** Which flags apply to which types (Python xpk ignored them elsewhere; here they are refused). */
const TYPE_FLAGS: Readonly<Record<string, readonly StorageType[]>> = {
  '--bucket': ['gcsfuse'],
  '--size': ['gcsfuse'],
  '--mount-options': ['gcsfuse'],
  '--prefetch-metadata': ['gcsfuse'],
  '--instance': ['gcpfilestore'],
  '--vol': ['gcpfilestore'],
  '--access-mode': ['gcpfilestore'],
  '--enable-legacy-lustre-port': ['lustre'],
}

/** Flags that build the PersistentVolume and its claim: with --manifest, the manifest does. */
const BUILDING_FLAGS = ['--bucket', '--size', '--mount-options', '--prefetch-metadata', '--vol', '--access-mode']

/** Types attached only from a manifest (Python xpk: "currently supported only with --manifest"). */
const MANIFEST_ONLY: readonly StorageType[] = ['parallelstore', 'pd', 'lustre']

/**
 * Checks the flags of `storage attach` and turns them into a request. Every problem is reported at once.
 * @throws UsageError or UsageErrors
 */
export function attachRequestFromFlags(flags: AttachFlags): AttachRequest {
  const problems = new Problems()
  const name = checkName(flags.name, problems)
  const type = checkType(flags.type, problems)
  const autoMount = required(
    problems,
    '--auto-mount',
    flags.autoMount,
    'true or false: whether every workload mounts it',
  )
  const readonly = required(problems, '--readonly', flags.readonly, 'true or false: whether workloads may only read it')
  const mountPoint = flags.mountPoint
  if (mountPoint === undefined) {
    problems.add('Missing --mount-point: where workloads find the storage, e.g. --mount-point /data.', {
      flag: '--mount-point',
    })
  } else {
    const problem = mountPointProblem(mountPoint)
    if (problem) problems.add(`--mount-point "${escapeInline(mountPoint)}": ${problem}.`, {flag: '--mount-point'})
  }
  const given = givenFlags(flags)
  if (type !== undefined) {
    for (const flag of given) {
      const types = TYPE_FLAGS[flag]
      if (types !== undefined && !types.includes(type)) {
        problems.add(`${flag} applies to --type ${types.join(' or ')}, not ${type}; leave it out.`, {flag})
      }
    }
  }
  if (flags.manifest !== undefined) {
    for (const flag of given.filter((f) => BUILDING_FLAGS.includes(f) && !problems.has(f))) {
      problems.add(
        `${flag} has no effect with --manifest: the manifest's PersistentVolume and claim are used as written.`,
        {
          flag,
          hints: ['Leave out either --manifest or the flags that describe the volume.'],
        },
      )
    }
  } else if (type !== undefined && MANIFEST_ONLY.includes(type)) {
    problems.add(
      `--type ${type} is attached from a manifest: give --manifest FILE holding its PersistentVolume and claim.`,
      {
        flag: '--manifest',
        hints: [`Python xpk's examples/storage/ has one per type to start from.`],
      },
    )
  }
  const source = type === undefined || name === undefined ? undefined : checkSource(type, name, flags, problems)
  if (readonly === false && source?.kind === 'gcpfilestore' && source.accessMode === 'ReadOnlyMany') {
    problems.add('--access-mode ReadOnlyMany with --readonly false: workloads could not write to it.', {
      flag: '--access-mode',
      hints: ['Give --readonly true, or --access-mode ReadWriteMany.'],
    })
  }
  problems.throwIfAny()
  return {
    name: name!,
    type: type!,
    autoMount: autoMount!,
    mountPoint: mountPoint!,
    readonly: readonly!,
    source: source!,
    enableLegacyLustrePort: flags.enableLegacyLustrePort ?? false,
  }
}

function checkName(name: string | undefined, problems: Problems): string | undefined {
  if (name === undefined) {
    problems.add('Missing NAME: name the storage, e.g. `xpk storage attach datasets ...`.', {flag: 'NAME'})
    return undefined
  }
  const problem = storageNameProblem(name)
  if (problem) problems.add(`NAME "${escapeInline(name)}": ${problem}.`, {flag: 'NAME'})
  return problem ? undefined : name
}

function checkType(type: string | undefined, problems: Problems): StorageType | undefined {
  if (type !== undefined && isStorageType(type)) return type
  const what = type === undefined ? 'Missing --type' : `--type "${escapeInline(type)}"`
  problems.add(`${what}: use one of ${STORAGE_TYPES.join(', ')}.`, {flag: '--type'})
  return undefined
}

function required(problems: Problems, flag: string, text: string | undefined, what: string): boolean | undefined {
  if (text === undefined) {
    problems.add(`Missing ${flag}: give ${what}.`, {flag})
    return undefined
  }
  return problems.attempt(() => parseBooleanText(flag, text))
}

function givenFlags(flags: AttachFlags): string[] {
  const byFlag: Record<string, unknown> = {
    '--bucket': flags.bucket,
    '--size': flags.size,
    '--mount-options': flags.mountOptions,
    '--prefetch-metadata': flags.prefetchMetadata,
    '--instance': flags.instance,
    '--vol': flags.vol,
    '--access-mode': flags.accessMode,
    // A boolean flag is given only when true (it has no --no- form).
    '--enable-legacy-lustre-port': flags.enableLegacyLustrePort === true ? true : undefined,
  }
  return Object.entries(byFlag).flatMap(([flag, value]) => (value === undefined ? [] : [flag]))
}

/** The type's own flags, with Python xpk's defaults: the bucket and the instance are named after the storage. */
function checkSource(
  type: StorageType,
  name: string,
  flags: AttachFlags,
  problems: Problems,
): AttachSource | undefined {
  const instance = type === 'gcpfilestore' ? checkInstance(flags.instance ?? name, flags.instance, problems) : null
  if (flags.manifest !== undefined) {
    if (flags.manifest.trim() === '') {
      problems.add('--manifest is empty: give the path of a YAML file.', {flag: '--manifest'})
    }
    return {kind: 'manifest', path: flags.manifest, instance: instance ?? null}
  }
  if (type === 'gcsfuse') {
    const bucket = flags.bucket ?? name
    const bucketProblem = bucketNameProblem(bucket)
    if (bucketProblem) {
      const what =
        flags.bucket === undefined
          ? `NAME "${escapeInline(name)}" names the bucket too (no --bucket)`
          : `--bucket "${escapeInline(bucket)}"`
      problems.add(`${what}: ${bucketProblem}.`, {
        flag: '--bucket',
        hints: flags.bucket === undefined ? ['Name the bucket with `xpk storage attach --bucket`.'] : [],
      })
    }
    const sizeGb = problems.integer('--size', flags.size, STORAGE_SIZE_GIB)
    if (flags.size === undefined) {
      problems.add('Missing --size: the capacity the volume states, in GiB (a bucket has no size), e.g. --size 64.', {
        flag: '--size',
      })
    }
    const mountOptions = problems.attempt(() =>
      parseMountOptions('--mount-options', flags.mountOptions ?? ATTACH_DEFAULTS.mountOptions),
    )
    return {
      kind: 'gcsfuse',
      bucket,
      sizeGb: sizeGb!,
      mountOptions: mountOptions ?? [],
      prefetchMetadata: flags.prefetchMetadata ?? ATTACH_DEFAULTS.prefetchMetadata,
    }
  }
  if (type === 'gcpfilestore') {
    const vol = flags.vol ?? ATTACH_DEFAULTS.vol
    const volProblem = fileShareProblem(vol)
    if (volProblem) problems.add(`--vol "${escapeInline(vol)}": ${volProblem}.`, {flag: '--vol'})
    const accessMode = problems.attempt(() =>
      parseAccessMode('--access-mode', flags.accessMode ?? ATTACH_DEFAULTS.accessMode),
    )
    return {kind: 'gcpfilestore', instance: instance!, vol, accessMode: accessMode!}
  }
  // Manifest-only types without --manifest: already reported.
  return undefined
}

function checkInstance(instance: string, given: string | undefined, problems: Problems): string | undefined {
  const problem = filestoreInstanceProblem(instance)
  if (problem === undefined) return instance
  const what =
    given === undefined
      ? `NAME "${escapeInline(instance)}" names the instance too (no --instance)`
      : `--instance "${escapeInline(instance)}"`
  problems.add(`${what}: ${problem}.`, {
    flag: '--instance',
    hints: given === undefined ? ['Name the Filestore instance with --instance.'] : [],
  })
  return undefined
}
