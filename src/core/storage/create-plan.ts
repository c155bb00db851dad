/**
 * The plan of `xpk storage create`: the Filestore instance created on the cluster's VPC network and waited for until
 * READY, then attached exactly as `storage attach --type gcpfilestore --instance I` attaches it (the attach plan's
 * steps, taken as they are). Made from what was read; pure.
 *
 * Python xpk (commands/storage.py `storage_create`, core/filestore.py) creates the instance and waits on the
 * operation, then installs the CRD and applies the objects. Here:
 *   - the flags are checked before anything is sent, the capacity against the tier's range (Python passed `--size`
 *     through to the API, which refused it after the cluster had been read);
 *   - an instance of the id that exists with the same tier, share and capacity is `none` (a re-run finishes an
 *     interrupted create); one that differs is a conflict (exit 6) naming the differences (Python failed on the API's
 *     ALREADY_EXISTS);
 *   - the instance's address is known only once it is READY: the plan shows the volume with it pending, and the
 *     attach's steps are planned again with the instance as read before they are applied.
 */
import {XpkError} from '../errors.js'
import {Problems} from '../input.js'
import {zoneToRegion} from '../settings.js'
import {escapeInline} from '../text.js'
import type {AttachStep, StorageAttachPlan} from './attach-plan.js'
import {type FilestoreInstance, type FilestoreInstanceRequest, type FilestoreTier} from './backends.js'
import type {FilestoreInstanceRef} from './delete-plan.js'
import {
  attachRequestFromFlags,
  fileShareProblem,
  parseFilestoreCapacity,
  parseFilestoreTier,
  ATTACH_DEFAULTS,
  type AttachFlags,
  type AttachRequest,
} from './rules.js'

/** `storage create` flags as parsed: the attach's, with the instance's capacity and tier. */
export interface CreateFlags extends Omit<AttachFlags, 'size'> {
  /** The capacity: GiB, or with a unit (`1024`, `1T`), as typed. */
  readonly size?: string
  readonly tier?: string
}

/** A `storage create`, checked. */
export interface CreateRequest {
  /** The attach that follows the creation (`--type gcpfilestore --instance I`, or `--manifest`). */
  readonly attach: AttachRequest
  readonly instance: string
  readonly tier: FilestoreTier
  readonly capacityGb: number
  /** The file share the instance is made with (`--vol`). */
  readonly vol: string
}

/** Python xpk's default tier. */
export const CREATE_DEFAULT_TIER: FilestoreTier = 'REGIONAL'

/** Tiers whose instances live in a zone; the others live in a region. */
const ZONAL_TIERS: readonly FilestoreTier[] = ['BASIC_HDD', 'BASIC_SSD', 'ZONAL']

/**
 * Checks the flags of `storage create`: the attach's rules, the type (Filestore only), the tier, the capacity in its
 * range and the share name for the tier. Every problem at once.
 * @throws UsageError or UsageErrors
 */
export function createRequestFromFlags(flags: CreateFlags): CreateRequest {
  const problems = new Problems()
  if (flags.type !== undefined && flags.type !== 'gcpfilestore') {
    problems.add(
      `--type "${escapeInline(flags.type)}": storage create makes Filestore instances only; give --type gcpfilestore.`,
      {flag: '--type', hints: ['Attach an existing bucket or a manifest with `xpk storage attach`.']},
    )
  }
  const {size, tier: tierText, ...rest} = flags
  const manifest = flags.manifest !== undefined
  const attach = problems.attempt(() =>
    attachRequestFromFlags({
      ...rest,
      type: flags.type === undefined ? undefined : 'gcpfilestore',
      // With --manifest the manifest holds the volume: --vol names only the share the instance is made with.
      ...(manifest ? {vol: undefined, accessMode: undefined} : {}),
    }),
  )
  const tier = problems.attempt(() => parseFilestoreTier('--tier', tierText ?? CREATE_DEFAULT_TIER))
  let capacityGb: number | undefined
  if (size === undefined) {
    problems.add('Missing --size: the capacity of the Filestore instance, in GiB or with a unit (1024, 1T).', {
      flag: '--size',
    })
  } else if (tier !== undefined) {
    capacityGb = problems.attempt(() => parseFilestoreCapacity('--size', size, tier))
  }
  const vol = flags.vol ?? ATTACH_DEFAULTS.vol
  if (!problems.has('--vol') && tier !== undefined) {
    const problem = fileShareProblem(vol, tier)
    if (problem) problems.add(`--vol "${escapeInline(vol)}": ${problem}.`, {flag: '--vol'})
  }
  problems.throwIfAny()
  const {source} = attach!
  const instance = (source.kind === 'gcsfuse' ? null : source.instance) ?? attach!.name
  return {attach: attach!, instance, tier: tier!, capacityGb: capacityGb!, vol}
}

/** Where an instance of `tier` lives for a cluster in `zone`: the zone (zonal tiers) or its region. */
export function filestoreLocation(tier: FilestoreTier, zone: string): string {
  return ZONAL_TIERS.includes(tier) ? zone : (zoneToRegion(zone) ?? zone)
}

/** What the Filestore API is asked for: the tier, one share of the capacity, on the cluster's network. */
export function instanceRequest(request: CreateRequest, cluster: string, network: string): FilestoreInstanceRequest {
  return {
    tier: request.tier,
    network,
    fileShare: {name: request.vol, capacityGb: request.capacityGb},
    description: `xpk storage ${request.attach.name} of cluster ${cluster}`,
  }
}

/** Shown (and sent in the PersistentVolume) in place of the instance's address until it is READY. */
export const PENDING_ADDRESS = '<the address Filestore gives the instance>'

/** What an instance create makes: the instance to be created. */
export interface FilestoreCreateSpec extends FilestoreInstanceRef {
  readonly request: FilestoreInstanceRequest
}

export interface InstanceStep {
  readonly action: 'create' | 'wait' | 'none'
  readonly resource: 'filestoreInstance'
  readonly name: string
  readonly reason: string
  /** create: what is sent; wait: the instance waited for; none: null. */
  readonly spec: FilestoreCreateSpec | FilestoreInstanceRef | null
}

export type CreateStep = InstanceStep | AttachStep

export interface StorageCreatePlan {
  readonly storage: string
  readonly cluster: string
  readonly instance: FilestoreInstanceRef
  readonly steps: readonly CreateStep[]
  readonly warnings: readonly string[]
}

export interface CreatePlanInputs {
  readonly request: CreateRequest
  readonly project: string
  readonly cluster: string
  /** The instance's location (filestoreLocation). */
  readonly location: string
  /** The cluster's VPC network, which the instance is created on. */
  readonly network: string
  /** The instance as read (undefined: absent). */
  readonly existing: FilestoreInstance | undefined
  /** The attach of an instance, as `storage attach` plans it. */
  readonly attach: (instance: FilestoreInstance) => StorageAttachPlan
}

/**
 * The instance the attach is planned with: the one read when READY, or the one the create (or the wait) ends with,
 * READY with its address pending.
 */
export function instanceToAttach(inputs: Omit<CreatePlanInputs, 'attach'>): FilestoreInstance {
  const {request, existing} = inputs
  return existing?.state === 'READY'
    ? existing
    : {
        id: request.instance,
        location: inputs.location,
        tier: request.tier,
        state: 'READY',
        network: inputs.network,
        ipAddress: PENDING_ADDRESS,
        fileShares: [{name: request.vol, capacityGb: request.capacityGb}],
        labels: {},
      }
}

/** How an instance read differs from the one asked for (tier, share, capacity), as `field: has, asked`. */
export function instanceDifferences(instance: FilestoreInstance, request: CreateRequest): string[] {
  const differences: string[] = []
  if (instance.tier !== request.tier) differences.push(`tier ${instance.tier}, not ${request.tier}`)
  const share = instance.fileShares.find((s) => s.name === request.vol)
  if (share === undefined) {
    const shares = instance.fileShares.map((s) => s.name).join(', ') || 'none'
    differences.push(`file share ${shares}, not ${request.vol}`)
  } else if (share.capacityGb !== request.capacityGb) {
    differences.push(`capacity ${share.capacityGb} GiB, not ${request.capacityGb} GiB`)
  }
  return differences
}

/**
 * @throws XpkError conflict (exit 6) for an instance of the id that differs from the one asked for, or is in a state
 *   other than CREATING or READY; whatever the attach's plan throws
 */
export function planStorageCreate(inputs: CreatePlanInputs): StorageCreatePlan {
  const {request, existing} = inputs
  const ref: FilestoreInstanceRef = {project: inputs.project, location: inputs.location, id: request.instance}
  const shares = `share ${request.vol} of ${request.capacityGb} GiB`
  const asked = `${request.tier} in ${inputs.location}, ${shares}`
  let instanceSteps: InstanceStep[]
  if (existing === undefined) {
    instanceSteps = [
      {
        action: 'create',
        resource: 'filestoreInstance',
        name: request.instance,
        reason: `${asked}, on network ${inputs.network} (the cluster's)`,
        spec: {...ref, request: instanceRequest(request, inputs.cluster, inputs.network)},
      },
      waitStep(ref, 'until READY: the volume needs its address'),
    ]
  } else {
    const differences = instanceDifferences(existing, request)
    if (differences.length > 0) {
      throw new XpkError(
        'conflict',
        `Filestore instance ${request.instance} exists in ${inputs.location} and differs from the one asked for: ` +
          `${differences.join('; ')}. Nothing was changed.`,
        {
          hints: [
            `Attach it as it is with \`xpk storage attach ${request.attach.name} --type gcpfilestore --instance ${request.instance} ...\`, or create another with --instance.`,
          ],
        },
      )
    }
    if (existing.state === 'READY') {
      instanceSteps = [
        {action: 'none', resource: 'filestoreInstance', name: request.instance, reason: `exists: ${asked}`, spec: null},
      ]
    } else if (existing.state === 'CREATING') {
      instanceSteps = [waitStep(ref, 'CREATING (an earlier create): until READY')]
    } else {
      throw new XpkError(
        'conflict',
        `Filestore instance ${request.instance} is ${existing.state}: it cannot be attached until it is READY. Nothing was changed.`,
        {hints: ['See it with `gcloud filestore instances describe`; run this again once it is READY.']},
      )
    }
  }
  const attach = inputs.attach(instanceToAttach(inputs))
  return {
    storage: attach.storage,
    cluster: attach.cluster,
    instance: ref,
    // The attach's check of the instance is the steps above.
    steps: [...instanceSteps, ...attach.steps.filter((s) => s.resource !== 'filestoreInstance')],
    warnings: attach.warnings,
  }
}

function waitStep(ref: FilestoreInstanceRef, reason: string): InstanceStep {
  return {action: 'wait', resource: 'filestoreInstance', name: ref.id, reason, spec: ref}
}
