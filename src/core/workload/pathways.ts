/**
 * Pathways workloads (`xpk workload create-pathways`): one JAX client drives every TPU slice through the Pathways
 * proxy. What the flags decide, checked before anything is read or sent; the JobSet is built in
 * src/core/manifests/pathways-jobset.ts. Python xpk is the reference (src/xpk/core/pathways.py,
 * src/xpk/templates/pathways_workload_create.yaml.j2).
 */
import {tryParseImageReference} from '../image/naming.js'
import {INTEGER_FLAGS, type Problems} from '../input.js'
import {escapeInline} from '../text.js'
import {PATHWAYS_DEFAULTS} from './defaults.js'

/** The CPU node pool the Pathways head runs on; `cluster create-pathways` makes it. */
export const PATHWAYS_CPU_POOL = 'cpu-np'
/** The Kueue ResourceFlavor (and resource group) that admits the head's CPU and memory on {@link PATHWAYS_CPU_POOL}. */
export const PATHWAYS_CPU_FLAVOR = 'cpu-user'
/** The replicated Job of the head (resource manager, proxy and the user's container), and of the TPU workers. */
export const PATHWAYS_HEAD_JOB = 'pathways-head'
export const PATHWAYS_WORKER_JOB = 'worker'
export const PATHWAYS_PROXY_PORT = 29000

export {PATHWAYS_DEFAULTS}

/** The Pathways flags as parsed; undefined means "not given". */
export interface PathwaysFlags {
  readonly headless?: boolean
  readonly serverImage?: string
  readonly proxyServerImage?: string
  readonly colocatedPythonSidecarImage?: string
  readonly pathwaysGcsLocation?: string
  readonly customPathwaysServerArgs?: string
  readonly customPathwaysProxyServerArgs?: string
  readonly customPathwaysWorkerArgs?: string
  readonly elasticSlices?: string | number
  readonly maxSliceRestarts?: string | number
}

/** Everything the Pathways JobSet needs beyond a workload's spec. */
export interface PathwaysSpec {
  /** `--headless`: no user container; the user's own JAX client connects to the proxy. */
  readonly headless: boolean
  readonly serverImage: string
  readonly proxyServerImage: string
  readonly colocatedPythonSidecarImage: string | null
  readonly gcsLocation: string
  readonly serverArgs: readonly string[]
  readonly proxyServerArgs: readonly string[]
  readonly workerArgs: readonly string[]
  readonly elasticSlices: number
  readonly maxSliceRestarts: number
}

/**
 * Whether a JobSet is a Pathways workload's: it has the {@link PATHWAYS_HEAD_JOB} replicated Job (the head, next to
 * the {@link PATHWAYS_WORKER_JOB} workers on the TPU VMs).
 */
export function isPathwaysJobSet(jobset: unknown): boolean {
  const jobs = (jobset as {spec?: {replicatedJobs?: unknown}} | undefined)?.spec?.replicatedJobs
  return Array.isArray(jobs) && jobs.some((job) => (job as {name?: unknown} | null)?.name === PATHWAYS_HEAD_JOB)
}

/** `grpc://W-pathways-head-0-0.W:29000`: the proxy's address inside the cluster (Python: get_proxy_address). */
export function pathwaysProxyAddress(workload: string): string {
  return `grpc://${workload}-${PATHWAYS_HEAD_JOB}-0-0.${workload}:${PATHWAYS_PROXY_PORT}`
}

const GCS_LOCATION = /^gs:\/\/[a-z0-9][-_.a-z0-9]{1,61}[a-z0-9](\/[\w.\-/=@+]*)?$/

/** Checks the Pathways flags, adding every problem to `problems`. */
export function pathwaysSpecFromFlags(flags: PathwaysFlags, problems: Problems): PathwaysSpec {
  const image = (flag: string, given: string | undefined, fallback: string): string => {
    if (given === undefined || given === '') return fallback
    if (tryParseImageReference(given) === null) {
      problems.add(`${flag} "${escapeInline(given)}" is not an image reference like us-docker.pkg.dev/P/R/IMAGE:TAG.`, {
        flag,
      })
    }
    return given
  }
  const gcsLocation = flags.pathwaysGcsLocation ?? PATHWAYS_DEFAULTS.gcsLocation
  if (!GCS_LOCATION.test(gcsLocation)) {
    problems.add(
      `--pathways-gcs-location "${escapeInline(gcsLocation)}": expected a Cloud Storage path like gs://bucket/dir.`,
      {flag: '--pathways-gcs-location'},
    )
  }
  const elasticSlices = problems.integer(
    '--elastic-slices',
    flags.elasticSlices,
    INTEGER_FLAGS['workload:elastic-slices'],
  )
  const maxSliceRestarts = problems.integer(
    '--max-slice-restarts',
    flags.maxSliceRestarts,
    INTEGER_FLAGS['workload:max-slice-restarts'],
  )
  const sidecar = flags.colocatedPythonSidecarImage
  return {
    headless: flags.headless ?? false,
    serverImage: image('--server-image', flags.serverImage, PATHWAYS_DEFAULTS.serverImage),
    proxyServerImage: image('--proxy-server-image', flags.proxyServerImage, PATHWAYS_DEFAULTS.proxyServerImage),
    colocatedPythonSidecarImage:
      sidecar === undefined || sidecar === '' ? null : image('--colocated-python-sidecar-image', sidecar, ''),
    gcsLocation,
    serverArgs: splitArgs(flags.customPathwaysServerArgs),
    proxyServerArgs: splitArgs(flags.customPathwaysProxyServerArgs),
    workerArgs: splitArgs(flags.customPathwaysWorkerArgs),
    elasticSlices: elasticSlices ?? PATHWAYS_DEFAULTS.elasticSlices,
    maxSliceRestarts: maxSliceRestarts ?? PATHWAYS_DEFAULTS.maxSliceRestarts,
  }
}

/**
 * `--custom-pathways-*-args "--a=1 --b=2"`: one argument per word. Python splits on single spaces, so two spaces
 * made an empty argument; any run of whitespace separates here.
 */
function splitArgs(text: string | undefined): string[] {
  return (text ?? '').split(/\s+/).filter((word) => word !== '')
}
