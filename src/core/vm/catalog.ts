import {TPU_VM_FAMILIES, TPU_VM_RUNTIME_VERSIONS, type TpuVmFamily} from '../../templates/tpu-vm-types.js'
import {UsageError} from '../errors.js'
import {closestMatches, orList} from '../suggest.js'

/** A TPU VM accelerator type, e.g. v4-16: two hosts (workers) per slice. */
export interface TpuVmType {
  readonly name: string
  readonly family: string
  readonly size: number
  /** VMs (workers) in one slice. */
  readonly hosts: number
  readonly defaultRuntime: string
}

function typeOf(family: TpuVmFamily, size: number): TpuVmType {
  const hosts = size <= family.singleHostMax ? 1 : size / family.sizePerHost
  return {name: `${family.prefix}-${size}`, family: family.prefix, size, hosts, defaultRuntime: family.defaultRuntime}
}

/** Every accepted TPU VM type, by name. */
export const TPU_VM_TYPES: ReadonlyMap<string, TpuVmType> = new Map(
  TPU_VM_FAMILIES.flatMap((family) => family.sizes.map((size) => typeOf(family, size))).map((t) => [t.name, t]),
)

/** Names people use for a family that the TPU API spells differently. */
const NICKNAMES: Readonly<Record<string, string>> = {v5e: 'v5litepod', v5lite: 'v5litepod', v6: 'v6e'}

/** Resolves `--tpu-type` for TPU VMs; unknown names are a usage error naming the closest valid ones. */
export function resolveTpuVmType(name: string, flag = '--tpu-type'): TpuVmType {
  const found = TPU_VM_TYPES.get(name.toLowerCase())
  if (found) return found
  const [prefix, ...rest] = name.toLowerCase().split('-')
  const renamed = NICKNAMES[prefix ?? ''] ? [NICKNAMES[prefix ?? ''], ...rest].join('-') : undefined
  const names = [...TPU_VM_TYPES.keys()]
  const suggestions = renamed && TPU_VM_TYPES.has(renamed) ? [renamed] : closestMatches(name, names, 5)
  throw new UsageError(`${flag}=${name}: unknown TPU VM type. Did you mean ${orList(suggestions)}?`, {
    flag,
    hints: [
      `TPU VM types are <generation>-<size>: ${TPU_VM_FAMILIES.map((f) => `${f.prefix}-${f.sizes[0]}`).join(', ')} and larger.`,
    ],
  })
}

/** Checks `--runtime-version` against the known runtime versions and the type's generation. */
export function validateRuntimeVersion(runtime: string, type: TpuVmType, flag = '--runtime-version'): void {
  const families = TPU_VM_RUNTIME_VERSIONS[runtime]
  if (!families) {
    const suggestions = closestMatches(runtime, Object.keys(TPU_VM_RUNTIME_VERSIONS), 3)
    throw new UsageError(`${flag}=${runtime}: unknown TPU runtime version. Did you mean ${orList(suggestions)}?`, {
      flag,
      hints: [`For ${type.name}, ${type.defaultRuntime} is a good default.`],
    })
  }
  if (!families.includes(type.family)) {
    const fitting = Object.entries(TPU_VM_RUNTIME_VERSIONS)
      .filter(([, f]) => f.includes(type.family))
      .map(([name]) => name)
    throw new UsageError(
      `${flag}=${runtime} does not run on ${type.family} TPUs (${type.name}). Use ${orList(fitting)}.`,
      {flag},
    )
  }
}

/**
 * `--tpu-type` and `--runtime-version` (the type generation's base image when not given) checked together, each
 * problem added to `problems` so that it is reported with the command's others.
 */
export function checkTypeAndRuntime(
  tpuType: string,
  runtimeVersion: string | undefined,
  problems: UsageError[],
): {type?: TpuVmType; runtimeVersion: string} {
  let type: TpuVmType | undefined
  try {
    type = resolveTpuVmType(tpuType)
  } catch (error) {
    problems.push(error as UsageError)
  }
  const runtime = runtimeVersion ?? type?.defaultRuntime ?? ''
  if (type) {
    try {
      validateRuntimeVersion(runtime, type)
    } catch (error) {
      problems.push(error as UsageError)
    }
  }
  return {...(type ? {type} : {}), runtimeVersion: runtime}
}
