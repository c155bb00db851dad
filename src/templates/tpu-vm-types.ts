/**
 * TPU VM accelerator types and runtime versions the Cloud TPU API accepts for queued resources (`xpk vm create`).
 * Static data; lookups and "did you mean" live in src/core/vm/catalog.ts.
 */

/** One TPU generation as TPU VMs name it: `<prefix>-<size>`, where size counts TensorCores (v2-v5p) or chips. */
export interface TpuVmFamily {
  readonly prefix: string
  /** The accepted sizes, smallest first. */
  readonly sizes: readonly number[]
  /** Sizes up to this are one VM (host); larger ones have `size / sizePerHost` hosts. */
  readonly singleHostMax: number
  /** How many units of size one host of a multi-host slice holds. */
  readonly sizePerHost: number
  /** Runtime version to suggest for this generation. */
  readonly defaultRuntime: string
}

const powersOfTwo = (from: number, to: number): number[] => {
  const out: number[] = []
  for (let n = from; n <= to; n *= 2) out.push(n)
  return out
}

export const TPU_VM_FAMILIES: readonly TpuVmFamily[] = [
  {prefix: 'v2', sizes: powersOfTwo(8, 512), singleHostMax: 8, sizePerHost: 8, defaultRuntime: 'tpu-vm-base'},
  {prefix: 'v3', sizes: powersOfTwo(8, 2048), singleHostMax: 8, sizePerHost: 8, defaultRuntime: 'tpu-vm-base'},
  {
    prefix: 'v4',
    sizes: powersOfTwo(8, 4096),
    singleHostMax: 8,
    sizePerHost: 8,
    defaultRuntime: 'tpu-ubuntu2204-base',
  },
  {
    prefix: 'v5litepod',
    sizes: [1, 4, 8, 16, 32, 64, 128, 256],
    singleHostMax: 8,
    sizePerHost: 4,
    defaultRuntime: 'v2-alpha-tpuv5-lite',
  },
  {
    prefix: 'v5p',
    sizes: [...powersOfTwo(8, 8192), 12288],
    singleHostMax: 8,
    sizePerHost: 8,
    defaultRuntime: 'v2-alpha-tpuv5',
  },
  {
    prefix: 'v6e',
    sizes: [1, 4, 8, 16, 32, 64, 128, 256],
    singleHostMax: 8,
    sizePerHost: 4,
    defaultRuntime: 'v2-alpha-tpuv6e',
  },
]

/** Runtime versions (software images) of TPU VMs, and the generations each runs on. */
export const TPU_VM_RUNTIME_VERSIONS: Readonly<Record<string, readonly string[]>> = {
  'tpu-ubuntu2204-base': ['v2', 'v3', 'v4', 'v5litepod', 'v5p'],
  'tpu-vm-base': ['v2', 'v3'],
  'tpu-vm-tf-2.16.1-pjrt': ['v2', 'v3'],
  'tpu-vm-tf-2.16.1-pod-pjrt': ['v2', 'v3', 'v4'],
  'tpu-vm-tf-2.17.0-pjrt': ['v2', 'v3', 'v4'],
  'tpu-vm-pt-2.0': ['v2', 'v3'],
  'tpu-vm-v4-base': ['v4'],
  'tpu-vm-v4-pt-2.0': ['v4'],
  'tpu-vm-tf-2.16.1-pjrt-v4': ['v4'],
  'v2-alpha-tpuv5-lite': ['v5litepod'],
  'v2-tpuv5-litepod': ['v5litepod'],
  'tpu-vm-tf-2.17.0-pjrt-v5e': ['v5litepod'],
  'v2-alpha-tpuv5': ['v5p'],
  'tpu-vm-tf-2.17.0-pjrt-v5p': ['v5p'],
  'v2-alpha-tpuv6e': ['v6e'],
  'tpu-vm-tf-2.18.0-pjrt-v6e': ['v6e'],
}
