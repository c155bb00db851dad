// What both Filestore fakes (FakeFilestore on the wire, MemoryFilestore in memory) know of the API's rules and
// words, so they refuse the same requests the same way; filestore-contract.test.ts holds them to each other.
import type {FilestoreTier} from '../../src/core/storage/backends.js'
import {LABEL_KEY_RE, LABEL_VALUE_RE} from './gke-wording.js'

/** An instance id the API takes: a lowercase letter, then up to 62 lowercase letters, digits and hyphens. */
export const INSTANCE_ID = /^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/

const ZONE = /^[a-z]+-[a-z]+\d+-[a-z]$/
const REGION = /^[a-z]+-[a-z]+\d+$/

/** Where each tier's instances live, its file share's size range (GiB) and the longest share name. */
const TIERS: Readonly<Record<FilestoreTier, {zonal: boolean; minGb: number; maxGb: number; shareName: number}>> = {
  BASIC_HDD: {zonal: true, minGb: 1024, maxGb: 65_434, shareName: 16},
  BASIC_SSD: {zonal: true, minGb: 2560, maxGb: 65_434, shareName: 16},
  ZONAL: {zonal: true, minGb: 1024, maxGb: 102_400, shareName: 63},
  REGIONAL: {zonal: false, minGb: 1024, maxGb: 102_400, shareName: 63},
  ENTERPRISE: {zonal: false, minGb: 1024, maxGb: 10_240, shareName: 63},
}

/** An instance as a create request asks for it, in the API's terms. */
export interface InstanceAsked {
  readonly tier: string
  readonly network: string
  readonly shareName: string
  readonly capacityGb: number
  readonly labels: Readonly<Record<string, string>>
}

/** Why the API refuses to create the instance (INVALID_ARGUMENT), or undefined. */
export function createProblem(location: string, id: string, asked: InstanceAsked): string | undefined {
  if (!INSTANCE_ID.test(id)) {
    return `Invalid instance_id "${id}": it must be 1-63 lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen.`
  }
  const tier = TIERS[asked.tier as FilestoreTier] as (typeof TIERS)[FilestoreTier] | undefined
  if (!tier) return `Invalid value at 'instance.tier': "${asked.tier}".`
  if (tier.zonal ? !ZONE.test(location) : !REGION.test(location)) {
    return `Tier ${asked.tier} instances are created in a ${tier.zonal ? 'zone' : 'region'}; "${location}" is not one.`
  }
  if (!/^[a-z][a-z0-9_]*$/.test(asked.shareName) || asked.shareName.length > tier.shareName) {
    return `Invalid file share name "${asked.shareName}": it must be 1-${tier.shareName} lowercase letters, digits and underscores, starting with a letter.`
  }
  if (!Number.isInteger(asked.capacityGb) || asked.capacityGb < tier.minGb || asked.capacityGb > tier.maxGb) {
    return `Invalid file share capacity ${asked.capacityGb} GB for tier ${asked.tier}: it must be ${tier.minGb}-${tier.maxGb} GB.`
  }
  if (asked.network === '') return 'A network is required: instance.networks[0].network is empty.'
  for (const [key, value] of Object.entries(asked.labels)) {
    if (!LABEL_KEY_RE.test(key) || !LABEL_VALUE_RE.test(value)) return `Invalid label "${key}": "${value}".`
  }
  return undefined
}

/** What the Filestore API says, worded once for both fakes. */
export const filestoreSays = {
  notFound: (name: string) => `Resource '${name}' was not found`,
  alreadyExists: (name: string) => `Resource '${name}' already exists`,
  /** A delete refused while the instance's own operation runs. */
  busy: (name: string, state: string) =>
    `Instance ${name} is ${state}: an operation is in progress on it; try again once it is done.`,
  operationNotFound: (name: string) => `Operation ${name} was not found.`,
}

/** The address the n-th instance a fake makes is reachable at. */
export const instanceAddress = (n: number) => `10.${Math.floor(n / 250)}.${n % 250}.2`
