import {resolveAccelerator} from '../catalog/lookup.js'
import type {Accelerator, AcceleratorKind} from '../catalog/types.js'
import {throwIfProblems, UsageError} from '../errors.js'
import {tryParseImageReference} from '../image/naming.js'
import {INTEGER_FLAGS, Problems, splitList} from '../input.js'
import {WORKLOAD_DEFAULTS} from './defaults.js'
import {clusterNameProblem} from '../settings.js'
import {storageReferenceProblem} from '../storage/mounts.js'
import {escapeInline} from '../text.js'
import {DEFAULT_PRIORITY, PRIORITY_NAMES, type Priority} from './priority.js'
import type {EnvVar, WorkloadSpec} from './spec.js'
import {workloadCapacityChoice, type WorkloadCapacityChoice} from './autoprovisioning.js'
import {pathwaysSpecFromFlags, type PathwaysFlags, type PathwaysSpec} from './pathways.js'
import {findAccelerator} from '../catalog/lookup.js'

/** `workload create` flags as parsed, before validation. Undefined means "not given". */
export interface WorkloadFlags {
  readonly workload?: string
  readonly cluster?: string
  readonly command?: string
  readonly tpuType?: string
  readonly deviceType?: string
  /** Integers arrive as the text the user typed (parsed exactly here), or as numbers from in-process callers. */
  readonly numSlices?: string | number
  readonly numNodes?: string | number
  readonly priority?: string
  readonly maxRestarts?: string | number
  readonly restartOnExitCodes?: string
  readonly ttlSecondsAfterFinished?: string | number
  readonly terminationGracePeriodSeconds?: string | number
  readonly env?: readonly string[]
  readonly debugDumpGcs?: string
  readonly dockerName?: string
  readonly scheduler?: string
  readonly imagePullSecret?: string
  /** `--docker-image`, checked here with the other flags; the service decides whether to build. */
  readonly dockerImage?: string
  readonly enableDebugLogs?: boolean
  readonly useParallelContainers?: boolean
  /** `--storage`, repeated: Storage objects to mount besides the auto-mount ones. */
  readonly storage?: readonly string[]
  /** The capacity node auto-provisioning is asked for (at most one). */
  readonly onDemand?: boolean
  readonly spot?: boolean
  readonly reservation?: string
  readonly flex?: boolean
  /** `workload create-pathways`: its own flags (src/core/workload/pathways.ts). */
  readonly pathways?: PathwaysFlags
}

/** The contents of `--env-file`, read by the caller. */
export interface EnvFileInput {
  readonly path: string
  readonly text: string
}

/**
 * Everything of a {@link WorkloadSpec} except the image, which is built (or given) afterwards, and the names of the
 * storages to mount (`--storage`), which the cluster's Storage objects resolve (src/core/storage/mounts.ts).
 */
export type WorkloadInput = Omit<WorkloadSpec, 'image'> & {
  readonly storages: readonly string[]
  /** `--on-demand | --spot | --reservation | --flex`: capacity for node auto-provisioning, when given. */
  readonly capacity: WorkloadCapacityChoice | null
}

export {WORKLOAD_DEFAULTS}

/**
 * The longest workload name: JobSet and Kueue derive pod, Service and Workload names from it
 * (`jobset-<name>-<hash>`, `<name>-slice-job-<i>-<j>-<suffix>`), which must fit Kubernetes' 63-character limit.
 */
export const MAX_WORKLOAD_NAME = 40

const RFC1123_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
/**
 * The schedulers a cluster xpk made has, by accelerator kind: Kubernetes' own everywhere, and GKE's topology-aware
 * scheduler on GPU clusters. A pod naming any other scheduler is never scheduled (it stays Pending with no event), so
 * another name is refused rather than submitted.
 */
export const SCHEDULERS: Readonly<Record<AcceleratorKind, readonly string[]>> = {
  TPU: ['default-scheduler'],
  CPU: ['default-scheduler'],
  GPU: ['default-scheduler', 'gke.io/topology-aware-auto'],
}
/** Exit codes that always restart the JobSet (within --max-restarts): 42 and 127-255, as in Python xpk. */
const BUILT_IN_RESTART_CODES = [42, ...Array.from({length: 129}, (_, i) => 127 + i)]
/** Kubernetes caps the values of a podFailurePolicy onExitCodes rule at 255 entries. */
const MAX_EXIT_CODE_VALUES = 255

/** Why a workload name is unacceptable, or undefined. */
export function workloadNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'it is empty'
  if (name.length > MAX_WORKLOAD_NAME) {
    return (
      `it is ${name.length} characters long; the limit is ${MAX_WORKLOAD_NAME} because JobSet and Kueue build pod, ` +
      `Service and Workload names from it (jobset-<name>-<hash>, <name>-slice-job-0-0-<suffix>) and Kubernetes ` +
      `caps those at 63 characters`
    )
  }
  if (!RFC1123_LABEL.test(name)) {
    return 'use lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen (RFC 1123)'
  }
  return undefined
}

/**
 * Parses `--restart-on-exit-codes` ("3,5-7") into a sorted list of codes. Codes are 0-255; a range a-b needs a <= b.
 * @throws UsageError naming the flag
 */
export function parseExitCodes(text: string): number[] {
  const flag = '--restart-on-exit-codes'
  const codes = new Set<number>()
  for (const item of splitList(flag, text)) {
    const range = /^(\d+)\s*-\s*(\d+)$/.exec(item)
    const single = /^\d+$/.exec(item)
    if (!range && !single) {
      throw new UsageError(`${flag}: "${escapeInline(item)}" is not an exit code or a range like 5-7.`, {flag})
    }
    const [low, high] = range ? [Number(range[1]), Number(range[2])] : [Number(item), Number(item)]
    if (low > 255 || high > 255) throw new UsageError(`${flag}: exit codes go from 0 to 255 ("${item}").`, {flag})
    if (low > high)
      throw new UsageError(`${flag}: in "${item}" the range starts after it ends; write ${high}-${low}.`, {flag})
    for (let code = low; code <= high; code++) codes.add(code)
  }
  return [...codes].sort((a, b) => a - b)
}

/**
 * Parses repeated `--env KEY=VALUE` values. Later assignments to the same name win, in the place of the first.
 * @throws UsageError naming `--env`
 */
export function parseEnvAssignments(assignments: readonly string[]): EnvVar[] {
  const vars: EnvVar[] = []
  for (const assignment of assignments) {
    const eq = assignment.indexOf('=')
    const name = eq < 0 ? assignment : assignment.slice(0, eq)
    if (eq < 0 || !ENV_NAME.test(name)) {
      throw new UsageError(
        `--env "${escapeInline(assignment)}": expected KEY=VALUE with KEY made of letters, digits and _.`,
        {
          flag: '--env',
          hints: [
            'Repeat --env for each variable, e.g. --env LIBTPU_INIT_ARGS=--xla_enable_async=true --env STEPS=100.',
          ],
        },
      )
    }
    vars.push({name, value: assignment.slice(eq + 1)})
  }
  return dedupeEnv(vars)
}

/**
 * Parses an env file: `KEY=VALUE` lines (an optional leading `export ` is allowed), blank lines and `#` comments
 * ignored, and a bare `KEY` copying the variable from the local environment. Values are taken literally, quotes
 * included, as with `docker run --env-file`. Every bad line is reported with its file and line number.
 * @throws UsageError naming `--env-file`
 */
export function parseEnvFile(file: EnvFileInput, localEnv: Readonly<Record<string, string | undefined>>): EnvVar[] {
  const vars: EnvVar[] = []
  const problems: UsageError[] = []
  file.text.split(/\r?\n/).forEach((raw, index) => {
    const where = `${file.path}:${index + 1}`
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) return
    const body = line.startsWith('export ') ? line.slice('export '.length).trimStart() : line
    const eq = body.indexOf('=')
    const name = eq < 0 ? body : body.slice(0, eq)
    if (!ENV_NAME.test(name)) {
      problems.push(
        new UsageError(
          `--env-file ${escapeInline(where)}: "${escapeInline(raw.trim())}" is not KEY=VALUE (KEY: letters, digits and _).`,
          {
            flag: '--env-file',
          },
        ),
      )
      return
    }
    if (eq >= 0) {
      vars.push({name, value: body.slice(eq + 1)})
      return
    }
    const inherited = localEnv[name]
    if (inherited === undefined) {
      problems.push(
        new UsageError(`--env-file ${escapeInline(where)}: ${name} has no value and is not set in your environment.`, {
          flag: '--env-file',
          hints: [`Write ${name}=VALUE in the file, or export ${name} before running xpk.`],
        }),
      )
      return
    }
    vars.push({name, value: inherited})
  })
  throwIfProblems(problems)
  return dedupeEnv(vars)
}

// As Python xpk's dict: a repeated name keeps the position of its first occurrence and the value of its last.
function dedupeEnv(vars: readonly EnvVar[]): EnvVar[] {
  const byName = new Map<string, EnvVar>()
  for (const v of vars) byName.set(v.name, v)
  return [...byName.values()]
}

/** A Kubernetes secret name is a DNS subdomain: at most 253 lowercase letters, digits, '-' and '.'. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/
/** A Cloud Storage path passed to the container: a bucket name and a path without spaces or shell syntax. */
const GCS_PATH = /^gs:\/\/[a-z0-9][-_.a-z0-9]{1,61}[a-z0-9](\/[\w.\-/=@+]*)?$/

/**
 * Validates `workload create` flags and turns them into everything the JobSet needs except the image. Collects
 * every problem and throws them together, before any network call.
 * @throws UsageError or UsageErrors
 */
export function workloadInputFromFlags(
  flags: WorkloadFlags,
  envFile: EnvFileInput | undefined,
  localEnv: Readonly<Record<string, string | undefined>>,
): WorkloadInput {
  // One collector for every concern, so all problems are reported together, in flag order.
  const problems = new Problems()
  checkIdentity(flags, problems)
  const accelerator = pathwaysRefusesType(flags, problems)
    ? undefined
    : problems.attempt(() => resolveAccelerator({tpuType: flags.tpuType, deviceType: flags.deviceType}))
  const pathways = flags.pathways === undefined ? undefined : pathwaysSpecFromFlags(flags.pathways, problems)
  const {numSlices, numNodes, maxRestarts, ttlSecondsAfterFinished, terminationGracePeriodSeconds} = checkNumbers(
    flags,
    problems,
    accelerator,
  )
  const priority = checkPriority(flags, problems)
  const userCodes = checkRestartCodes(flags, problems)
  const {env, debugDumpGcs} = checkEnvironment(flags, problems, envFile, localEnv)
  const {scheduler, dockerName} = checkContainer(flags, problems, accelerator)
  const storages = checkStorages(flags, problems)
  const capacity = problems.attempt(() => workloadCapacityChoice(flags)) ?? null

  problems.throwIfAny()
  const a = accelerator as Accelerator
  return {
    name: flags.workload as string,
    cluster: flags.cluster as string,
    accelerator: a,
    command: flags.command ?? '',
    containerName: dockerName,
    numSlices: a.kind === 'GPU' ? 1 : (numSlices ?? WORKLOAD_DEFAULTS.numSlices),
    numNodes: numNodes ?? WORKLOAD_DEFAULTS.numNodes,
    priority: priority as Priority,
    maxRestarts: maxRestarts ?? WORKLOAD_DEFAULTS.maxRestarts,
    restartOnExitCodes: userCodes,
    ttlSecondsAfterFinished: ttlSecondsAfterFinished ?? WORKLOAD_DEFAULTS.ttlSecondsAfterFinished,
    terminationGracePeriodSeconds: terminationGracePeriodSeconds ?? WORKLOAD_DEFAULTS.terminationGracePeriodSeconds,
    env,
    debugDumpGcs,
    scheduler,
    imagePullSecret: flags.imagePullSecret ?? null,
    enableDebugLogs: flags.enableDebugLogs ?? false,
    parallelContainers: flags.useParallelContainers === false ? 1 : a.parallelContainers,
    storages,
    capacity,
    ...(pathways === undefined ? {} : {pathways: {...pathways} satisfies PathwaysSpec}),
  }
}

/**
 * Pathways runs on TPUs only: another known type given to --tpu-type is refused saying so (the general message would
 * point at --device-type, which create-pathways does not have). False when the general lookup should decide.
 */
function pathwaysRefusesType(flags: WorkloadFlags, problems: Problems): boolean {
  if (flags.pathways === undefined || flags.tpuType === undefined) return false
  const found = findAccelerator(flags.tpuType)
  if (found === undefined || found.kind === 'TPU') return false
  problems.add(
    `--tpu-type=${escapeInline(flags.tpuType)}: ${found.name} is a ${found.kind}; Pathways runs on TPUs only.`,
    {
      flag: '--tpu-type',
      hints: [
        `Run ${found.kind} workloads with \`xpk workload create --device-type ${found.name}\`, or pick a TPU type (\`xpk accelerator list\`).`,
      ],
    },
  )
  return true
}

/** --storage: each a name a Storage object can have; a name given twice is mounted once. */
function checkStorages(flags: WorkloadFlags, problems: Problems): string[] {
  const names = flags.storage ?? []
  for (const name of names) {
    const problem = storageReferenceProblem(name)
    if (problem) problems.add(`--storage "${escapeInline(name)}": ${problem}.`, {flag: '--storage'})
  }
  return [...new Set(names)]
}

function numNodesProblem(accelerator: Accelerator): UsageError {
  const detail =
    accelerator.kind === 'CPU'
      ? `the VM count of a CPU type is part of its name (${accelerator.name} = ${accelerator.vmsPerSlice} VMs per slice)`
      : `a TPU slice's VM count comes from its type (${accelerator.name} = ${accelerator.vmsPerSlice} VMs)`
  return new UsageError(`--num-nodes applies to GPU types only: ${detail}. Use --num-slices to run more slices.`, {
    flag: '--num-nodes',
  })
}

/** --workload, --command and --cluster. */
function checkIdentity(flags: WorkloadFlags, problems: Problems): void {
  if (flags.workload === undefined) {
    problems.add('Missing --workload: name the workload, e.g. --workload my-run-1.', {flag: '--workload'})
  } else {
    const problem = workloadNameProblem(flags.workload)
    if (problem) problems.add(`--workload "${escapeInline(flags.workload)}": ${problem}.`, {flag: '--workload'})
  }
  // A headless Pathways workload runs no command (its flag excludes --command).
  if (flags.pathways?.headless === true) {
    // Nothing to check.
  } else if (flags.command === undefined || flags.command.trim() === '') {
    problems.add(
      flags.pathways === undefined
        ? 'Missing --command: what to run in each container, e.g. --command "python3 train.py".'
        : 'Missing --command: what the Pathways head runs, e.g. --command "python3 train.py"; or --headless to connect your own JAX client to the proxy.',
      {flag: '--command'},
    )
  }
  if (flags.cluster === undefined) {
    problems.add('Missing --cluster: the cluster the workload is for.', {
      flag: '--cluster',
      hints: ['Pass --cluster, set XPK_CLUSTER, or run `xpk config set cluster NAME`.'],
    })
  } else {
    const problem = clusterNameProblem(flags.cluster)
    if (problem) problems.add(`--cluster "${escapeInline(flags.cluster)}": ${problem}.`, {flag: '--cluster'})
  }
}

/** Slices, nodes, restarts and timings: each parsed exactly within its API field's range. */
function checkNumbers(flags: WorkloadFlags, problems: Problems, accelerator: Accelerator | undefined) {
  const numSlices = problems.integer('--num-slices', flags.numSlices, INTEGER_FLAGS['workload:num-slices'])
  const numNodes = problems.integer('--num-nodes', flags.numNodes, INTEGER_FLAGS['workload:num-nodes'])
  const maxRestarts = problems.integer('--max-restarts', flags.maxRestarts, INTEGER_FLAGS['workload:max-restarts'])
  const ttlSecondsAfterFinished = problems.integer(
    '--ttl-seconds-after-finished',
    flags.ttlSecondsAfterFinished,
    INTEGER_FLAGS['workload:ttl-seconds-after-finished'],
  )
  const terminationGracePeriodSeconds = problems.integer(
    '--termination-grace-period-seconds',
    flags.terminationGracePeriodSeconds,
    INTEGER_FLAGS['workload:termination-grace-period-seconds'],
  )
  if (accelerator && accelerator.kind !== 'GPU' && flags.numNodes !== undefined) {
    problems.push(numNodesProblem(accelerator))
  }
  if (accelerator?.kind === 'GPU' && numSlices !== undefined && numSlices !== 1) {
    problems.add(`--num-slices applies to TPU and CPU types; scale ${accelerator.name} with --num-nodes.`, {
      flag: '--num-slices',
    })
  }
  return {numSlices, numNodes, maxRestarts, ttlSecondsAfterFinished, terminationGracePeriodSeconds}
}

/** --priority, in any case. */
function checkPriority(flags: WorkloadFlags, problems: Problems): string {
  const priority = (flags.priority ?? DEFAULT_PRIORITY).trim().toLowerCase()
  if (!PRIORITY_NAMES.includes(priority as Priority)) {
    problems.add(`--priority "${escapeInline(flags.priority ?? '')}": use one of ${PRIORITY_NAMES.join(', ')}.`, {
      flag: '--priority',
    })
  }
  return priority
}

/** --restart-on-exit-codes, within Kubernetes' limit once the built-in codes are added. */
function checkRestartCodes(flags: WorkloadFlags, problems: Problems): number[] {
  const userCodes =
    flags.restartOnExitCodes === undefined
      ? []
      : (problems.attempt(() => parseExitCodes(flags.restartOnExitCodes!)) ?? [])
  const allCodes = new Set([...BUILT_IN_RESTART_CODES, ...userCodes])
  if (allCodes.size > MAX_EXIT_CODE_VALUES) {
    problems.add(
      `--restart-on-exit-codes: with the built-in 42 and 127-255 this makes ${allCodes.size} codes; Kubernetes allows ${MAX_EXIT_CODE_VALUES}.`,
      {flag: '--restart-on-exit-codes', hints: ['List only the codes your program uses to ask for a restart.']},
    )
  }
  return userCodes
}

/** --env, --env-file and the XLA_FLAGS that --debug-dump-gcs sets. */
function checkEnvironment(
  flags: WorkloadFlags,
  problems: Problems,
  envFile: EnvFileInput | undefined,
  localEnv: Readonly<Record<string, string | undefined>>,
) {
  const fromFlags = problems.attempt(() => parseEnvAssignments(flags.env ?? [])) ?? []
  const fromFile = envFile ? (problems.attempt(() => parseEnvFile(envFile, localEnv)) ?? []) : []
  let env = [...fromFile, ...fromFlags]

  const debugDumpGcs = flags.debugDumpGcs ?? null
  if (debugDumpGcs !== null) {
    if (!GCS_PATH.test(debugDumpGcs)) {
      problems.add(
        `--debug-dump-gcs "${escapeInline(debugDumpGcs)}": expected a Cloud Storage path like gs://bucket/dir (letters, digits and _ . - / = @ + only).`,
        {flag: '--debug-dump-gcs'},
      )
    }
    if (env.some((v) => v.name === 'XLA_FLAGS')) {
      problems.add('--debug-dump-gcs sets XLA_FLAGS=--xla_dump_to=/tmp/xla_dump/, but XLA_FLAGS is already set.', {
        flag: '--debug-dump-gcs',
        hints: ['Add --xla_dump_to=/tmp/xla_dump/ to your own XLA_FLAGS and drop --debug-dump-gcs, or drop XLA_FLAGS.'],
      })
    }
    env = [...env, {name: 'XLA_FLAGS', value: '--xla_dump_to=/tmp/xla_dump/'}]
  }
  return {env, debugDumpGcs}
}

/** The scheduler, the container's name, the pull secret and a given image. */
function checkContainer(flags: WorkloadFlags, problems: Problems, accelerator: Accelerator | undefined) {
  const scheduler = flags.scheduler ?? WORKLOAD_DEFAULTS.scheduler
  const known = accelerator === undefined ? undefined : SCHEDULERS[accelerator.kind]
  if (known !== undefined && !known.includes(scheduler)) {
    problems.add(
      `--scheduler "${escapeInline(scheduler)}": ${accelerator!.kind} clusters have ${known.join(' or ')}; a pod naming another scheduler is never scheduled.`,
      {flag: '--scheduler', hints: [`Leave --scheduler out to use ${WORKLOAD_DEFAULTS.scheduler}.`]},
    )
  } else if (!/^[a-z0-9]([-a-z0-9./]*[a-z0-9])?$/.test(scheduler) || scheduler.length > 253) {
    problems.add(`--scheduler "${escapeInline(scheduler)}" is not a scheduler name like default-scheduler.`, {
      flag: '--scheduler',
    })
  }
  const dockerName = flags.dockerName ?? WORKLOAD_DEFAULTS.dockerName
  if (!RFC1123_LABEL.test(dockerName) || dockerName.length > 60) {
    problems.add(
      `--docker-name "${escapeInline(dockerName)}": a container name is a lowercase RFC 1123 label (at most 60 characters).`,
      {flag: '--docker-name'},
    )
  }
  const pullSecret = flags.imagePullSecret
  if (pullSecret !== undefined && (!DNS_SUBDOMAIN.test(pullSecret) || pullSecret.length > 253)) {
    problems.add(
      `--docker-image-pull-secret "${escapeInline(pullSecret)}" is not a Kubernetes secret name (lowercase letters, digits, '-' and '.', at most 253).`,
      {flag: '--docker-image-pull-secret'},
    )
  }
  if (flags.dockerImage !== undefined && tryParseImageReference(flags.dockerImage) === null) {
    problems.add(
      `--docker-image "${escapeInline(flags.dockerImage)}" is not an image reference like us-docker.pkg.dev/PROJECT/REPO/IMAGE:TAG.`,
      {flag: '--docker-image', hints: ['Use [HOST[:PORT]/]PATH[:TAG][@sha256:DIGEST] in lowercase, e.g. python:3.10.']},
    )
  }
  return {scheduler, dockerName}
}
