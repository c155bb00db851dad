/**
 * `xpk doctor`'s decisions: each check turns what was read (or why it could not be read) into pass, warn or fail,
 * with a one-line detail and the fix. Pure: the service reads, these decide, render.ts prints.
 */
import type {Accelerator} from '../catalog/types.js'
import type {ControllerState} from '../incluster/describe.js'
import {compareReleaseVersions, parseReleaseVersion} from '../incluster/install-decision.js'
import type {ErrorKind} from '../errors.js'
import {
  ALL_PLANNED_PERMISSIONS,
  PLANNED_PERMISSIONS,
  quotaMetrics,
  REQUIRED_APIS,
  REQUIRED_CRDS,
} from './requirements.js'

export type CheckStatus = 'pass' | 'warn' | 'fail'

/** One check's outcome, as the table shows it and `--json` gives it. */
export interface Check {
  /** `credentials`, `project`, `apis`, `permissions`, `quota`, `reservations`, `cluster`, `kubernetes`, ... */
  readonly name: string
  readonly status: CheckStatus
  readonly detail: string
  /** What to do; null when it passed. */
  readonly fix: string | null
}

/** What `xpk doctor` prints under `--json`: every check, and how many of each status. */
export interface DoctorReport {
  readonly checks: readonly Check[]
  readonly summary: {readonly pass: number; readonly warn: number; readonly fail: number}
}

/** Why something could not be read: the error's kind (or `timeout`: the check's time limit) and its words. */
export interface ReadFailure {
  readonly failed: true
  readonly kind: ErrorKind
  readonly message: string
  readonly hint: string | null
}

export type Read<T> = T | ReadFailure

export function isFailure<T>(read: Read<T>): read is ReadFailure {
  return typeof read === 'object' && read !== null && (read as ReadFailure).failed === true
}

const pass = (name: string, detail: string): Check => ({name, status: 'pass', detail, fix: null})
const warn = (name: string, detail: string, fix: string): Check => ({name, status: 'warn', detail, fix})
const fail = (name: string, detail: string, fix: string): Check => ({name, status: 'fail', detail, fix})

/** A read that failed fails its check, with the error's own hint as the fix. */
function failedRead(name: string, failure: ReadFailure, fix: string): Check {
  return fail(name, failure.message, failure.hint ?? fix)
}

const LOGIN = 'Run `gcloud auth application-default login`, or point GOOGLE_APPLICATION_CREDENTIALS at a key file.'

export function report(checks: readonly Check[]): DoctorReport {
  const count = (status: CheckStatus) => checks.filter((c) => c.status === status).length
  return {checks, summary: {pass: count('pass'), warn: count('warn'), fail: count('fail')}}
}

/** Where Google credentials come from, as the credentials port found them. */
export interface CredentialsFound {
  /** XPK_ACCESS_TOKEN; an ADC file named by GOOGLE_APPLICATION_CREDENTIALS or in gcloud's directory; or none. */
  readonly source: 'XPK_ACCESS_TOKEN' | 'GOOGLE_APPLICATION_CREDENTIALS' | 'gcloud' | 'none'
  readonly file: string | null
  /** The file's `type`: service_account, authorized_user, external_account, impersonated_service_account. */
  readonly type: string | null
  /** The account the file names (a service account's email); null when it names none. */
  readonly account: string | null
  /** Whether a token was obtained with them; null when not tried (a token given as it is, or no file). */
  readonly token: {readonly obtained: true} | {readonly obtained: false; readonly error: string} | null
}

export function credentialsCheck(found: Read<CredentialsFound>): Check {
  const name = 'credentials'
  if (isFailure(found)) return failedRead(name, found, LOGIN)
  if (found.source === 'XPK_ACCESS_TOKEN') {
    return pass(name, 'the token in XPK_ACCESS_TOKEN, sent as it is (whose it is is not looked up)')
  }
  if (found.source === 'none') {
    return warn(
      name,
      'no Application Default Credentials file (GOOGLE_APPLICATION_CREDENTIALS is unset and gcloud has none); on a Google Cloud VM its service account is used, which is not probed',
      LOGIN,
    )
  }
  const who =
    found.account ?? (found.type === 'authorized_user' ? 'a gcloud user login' : 'an account it does not name')
  const what = `Application Default Credentials in ${found.file} (${found.type ?? 'type not given'}, ${who})`
  if (found.token === null || found.token.obtained) return pass(name, `${what}; a token was obtained`)
  return fail(name, `${what}, but no token: ${found.token.error}`, LOGIN)
}

/** The project as Cloud Resource Manager reports it. */
export interface ProjectFound {
  readonly projectId: string
  readonly projectNumber: string
  /** ACTIVE, DELETE_REQUESTED. */
  readonly state: string
}

export function projectCheck(project: string | undefined, found: Read<ProjectFound> | undefined): Check {
  const name = 'project'
  if (project === undefined || found === undefined) {
    return fail(name, 'no project is set', 'Pass --project, or set one: `xpk config set project PROJECT`.')
  }
  if (isFailure(found)) {
    const detail =
      found.kind === 'permission' || found.kind === 'not-found'
        ? `project ${project} does not exist, or these credentials may not read it: ${found.message}`
        : found.message
    return fail(name, detail, found.hint ?? 'Check --project: `gcloud projects list` lists the projects you can use.')
  }
  if (found.state !== 'ACTIVE') {
    return fail(name, `project ${project} is ${found.state}`, 'Restore it (`gcloud projects undelete`) or use another.')
  }
  return pass(name, `${found.projectId} (number ${found.projectNumber}), ACTIVE`)
}

export function apisCheck(project: string, enabled: Read<readonly string[]>): Check {
  const name = 'apis'
  if (isFailure(enabled)) {
    return warn(
      name,
      `could not list the enabled APIs: ${enabled.message}`,
      enabled.hint ??
        `Enable the Service Usage API: \`gcloud services enable serviceusage.googleapis.com --project=${project}\`.`,
    )
  }
  const on = new Set(enabled)
  const off = REQUIRED_APIS.filter((api) => !on.has(api.service))
  const enable = `\`gcloud services enable ${off.map((a) => a.service).join(' ')} --project=${project}\``
  const listed = off.map((a) => `${a.service} (${a.usedBy})`).join(', ')
  if (off.some((a) => a.required)) return fail(name, `not enabled: ${listed}`, `Enable them: ${enable}.`)
  if (off.length > 0) return warn(name, `not enabled: ${listed}`, `If you use those commands: ${enable}.`)
  return pass(name, `enabled: ${REQUIRED_APIS.map((a) => a.title).join(', ')}`)
}

export function permissionsCheck(project: string, granted: Read<readonly string[]>): Check {
  const name = 'permissions'
  if (isFailure(granted)) return failedRead(name, granted, LOGIN)
  const have = new Set(granted)
  const lacking = PLANNED_PERMISSIONS.map((g) => ({...g, missing: g.permissions.filter((p) => !have.has(p))})).filter(
    (g) => g.missing.length > 0,
  )
  if (lacking.length === 0) return pass(name, `all ${ALL_PLANNED_PERMISSIONS.length} permissions xpk uses`)
  const detail = `missing ${lacking.map((g) => `${g.missing.join(', ')} (${g.usedBy})`).join('; ')}`
  const roles = [...new Set(lacking.map((g) => g.role))]
  const fix = `Grant ${roles.join(', ')} on project ${project}, e.g. \`gcloud projects add-iam-policy-binding ${project} --member=user:YOU@example.com --role=${roles[0]}\`.`
  return lacking.some((g) => g.required) ? fail(name, detail, fix) : warn(name, detail, fix)
}

/** One regional quota as Compute Engine reports it. */
export interface RegionQuota {
  readonly metric: string
  readonly limit: number
  readonly usage: number
}

/** The capacity asked about: `--tpu-type` (or `--device-type`), `--num-slices`, Spot or not. */
export interface CapacityRequest {
  readonly accelerator: Accelerator
  readonly numSlices: number
  readonly spot: boolean
}

/** Chips (GPUs, vCPUs) the request needs: every VM of every slice. */
export function requestedUnits(request: CapacityRequest): number {
  return request.numSlices * request.accelerator.vmsPerSlice * request.accelerator.chipsPerVm
}

/** Regional quota against the request; `quotas` undefined when the region does not exist. */
export function quotaCheck(
  request: CapacityRequest,
  where: {readonly project: string; readonly region: string},
  quotas: Read<readonly RegionQuota[] | undefined>,
): Check {
  const name = 'quota'
  if (isFailure(quotas)) return failedRead(name, quotas, 'Check --project and --zone.')
  const {metrics, unit} = quotaMetrics(request.accelerator, request.spot)
  const console = `https://console.cloud.google.com/iam-admin/quotas?project=${where.project}`
  if (quotas === undefined) {
    return fail(
      name,
      `Compute Engine has no region ${where.region}`,
      'Check --zone: its region is the part before the last hyphen.',
    )
  }
  const quota = metrics.map((m) => quotas.find((q) => q.metric === m)).find((q) => q !== undefined)
  const need = requestedUnits(request)
  const asked = `${request.numSlices} x ${request.accelerator.name}${request.spot ? ' (Spot)' : ''} needs ${need} ${unit}`
  if (!quota) {
    return warn(
      name,
      `${asked}; region ${where.region} reports no quota ${metrics.join(' or ')}`,
      `See the accelerator's quota at ${console}.`,
    )
  }
  const free = Math.max(0, quota.limit - quota.usage)
  const numbers = `${quota.metric} in ${where.region}: limit ${quota.limit}, in use ${quota.usage}, free ${free}`
  if (free >= need) return pass(name, `${asked}; ${numbers}`)
  return fail(
    name,
    `${asked}; ${numbers}`,
    `Request more at ${console} (filter by ${quota.metric}), ask for fewer slices, or use --reservation.`,
  )
}

/** The reservation verdict of `cluster create`'s check (core/cluster/reservations.ts), as read for the request. */
export interface ReservationVerdict {
  readonly items: readonly string[]
  readonly problems: readonly string[]
  readonly free: readonly string[]
  /** The shortage in numbers (reservationShortage), or null when the slices fit. */
  readonly shortage: string | null
}

export function reservationsCheck(verdict: Read<ReservationVerdict>): Check {
  const name = 'reservations'
  if (isFailure(verdict)) return failedRead(name, verdict, 'Check --reservation, --project and --zone.')
  const hint =
    '`gcloud compute reservations list --project=PROJECT` lists reservations with their zones, types and status.'
  if (verdict.problems.length > 0) return fail(name, verdict.problems.join('; '), hint)
  if (verdict.shortage !== null) {
    return fail(name, verdict.shortage, 'Ask for fewer slices, add a reservation with room, or free VMs in it.')
  }
  return pass(name, verdict.free.join('; '))
}

/** The cluster as GKE reports it. */
export interface ClusterFound {
  readonly name: string
  readonly location: string
  readonly status: string
  readonly version: string
}

export function clusterCheck(
  target: {readonly project: string; readonly cluster: string; readonly region: string},
  found: Read<ClusterFound | undefined>,
): Check {
  const name = 'cluster'
  if (isFailure(found)) return failedRead(name, found, 'Check --project, --zone and --cluster.')
  if (found === undefined) {
    return fail(
      name,
      `no cluster ${target.cluster} in project ${target.project}, ${target.region}`,
      '`xpk cluster list` lists the clusters; `xpk cluster create` makes one.',
    )
  }
  const detail = `${found.name} in ${found.location}, ${found.status}, GKE ${found.version}`
  if (found.status !== 'RUNNING') {
    return warn(
      name,
      detail,
      'Wait for GKE to finish, or see `xpk cluster describe`; re-run `xpk cluster create` to repair it.',
    )
  }
  return pass(name, detail)
}

/** The Kubernetes API reached: the server (and context), and how. */
export function kubernetesCheck(reached: Read<{readonly target: string}>, viaKubeconfig: boolean): Check {
  const name = viaKubeconfig ? 'kubeconfig' : 'kubernetes'
  if (isFailure(reached)) {
    return failedRead(
      name,
      reached,
      viaKubeconfig
        ? 'Check --kubeconfig and --context (`kubectl config get-contexts` lists them).'
        : 'The control plane may be private: run from inside its network, or see `xpk cluster describe`.',
    )
  }
  return pass(name, `reached ${reached.target}`)
}

/** A release as read in the cluster: its controller, and which of the CRDs xpk needs are there. */
export interface ReleaseFound {
  readonly controller: ControllerState
  readonly crds: readonly string[]
}

/** JobSet or Kueue: every CRD xpk needs present, the controller installed and Available, at this xpk's version. */
export function releaseCheck(component: 'jobset' | 'kueue', expected: string, found: Read<ReleaseFound>): Check {
  const name = component
  const title = component === 'jobset' ? 'JobSet' : 'Kueue'
  const install = '`xpk cluster create` (or `xpk cluster adapt` for a cluster another tool made) installs it.'
  if (isFailure(found)) return failedRead(name, found, install)
  const present = new Set(found.crds)
  const missing = REQUIRED_CRDS[component].filter((crd) => !present.has(crd))
  const c = found.controller
  if (!c.installed) return fail(name, `${title} is not installed (no controller Deployment)`, install)
  if (missing.length > 0)
    return fail(name, `${title} ${c.version ?? ''} lacks CRDs: ${missing.join(', ')}`.replace('  ', ' '), install)
  const version = c.version ?? `an untagged image (${c.image})`
  if (c.available !== true) {
    return fail(
      name,
      `${title} ${version}: the controller is not Available`,
      `Look at its pods (\`kubectl get pods -n ${component}-system\`); re-running \`xpk cluster create\` repairs the install.`,
    )
  }
  if (c.version !== expected) {
    return warn(
      name,
      `${title} ${version}; this xpk installs ${expected}`,
      `Re-run \`xpk cluster create\` with this xpk to install ${title} ${expected}.`,
    )
  }
  const crds = REQUIRED_CRDS[component].length
  return pass(name, `${title} ${version}, Available, ${crds} CRD${crds === 1 ? '' : 's'}`)
}

/** The xpk version the cluster's metadata ConfigMap holds (null: no ConfigMap, or no version in it) against ours. */
export function xpkVersionCheck(configured: Read<string | null>, ours: string): Check {
  const name = 'xpk-version'
  if (isFailure(configured))
    return failedRead(name, configured, 'Check that you may read ConfigMaps in namespace default.')
  if (configured === null) {
    return warn(
      name,
      'no xpk version in the cluster (no metadata ConfigMap): xpk did not configure it',
      '`xpk cluster adapt` adopts a cluster another tool made.',
    )
  }
  const theirs = parseReleaseVersion(configured)
  const mine = parseReleaseVersion(ours)
  const order = theirs && mine ? compareReleaseVersions(theirs, mine) : configured === ours ? 0 : null
  if (order === 0) return pass(name, `configured by xpk ${configured}, this one`)
  const which = order === null ? 'another xpk' : order < 0 ? 'an older xpk' : 'a newer xpk'
  const fix =
    order !== null && order > 0
      ? 'Upgrade this xpk, or re-run `xpk cluster create` with it to bring JobSet and Kueue to its versions.'
      : 'Re-run `xpk cluster create` with this xpk to bring JobSet and Kueue to its versions.'
  return warn(name, `configured by ${which} (${configured}); this is ${ours}`, fix)
}

/** The Docker engine: its version, or why it could not be reached. */
export function dockerCheck(engine: Read<{readonly version: string; readonly where: string}>): Check {
  const name = 'docker'
  if (isFailure(engine)) {
    return warn(
      name,
      `no Docker engine: ${engine.message}`,
      'Only `workload create` with --script-dir or --base-docker-image builds; start Docker or set DOCKER_HOST, or pass --docker-image.',
    )
  }
  return pass(name, `Docker ${engine.version} at ${engine.where}`)
}

/** Credentials for the registry images are pushed to, as the push would find them. */
export function registryCheck(
  registry: string,
  found: Read<{readonly found: boolean; readonly source: string; readonly problem: string | null}>,
): Check {
  const name = 'registry'
  if (isFailure(found)) return failedRead(name, found, LOGIN)
  if (!found.found) {
    return warn(
      name,
      `no credentials for ${registry}${found.problem ? `: ${found.problem}` : ''}; pushes go without, which most registries refuse (403)`,
      `Log in to ${registry} (\`docker login ${registry}\`), or push elsewhere with --registry.`,
    )
  }
  return pass(name, `credentials for ${registry} from ${found.source}`)
}

/** The Node.js running xpk (the CLI refuses versions before 22 when it starts). */
export function nodeCheck(version: string): Check {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1] ?? 0)
  if (major >= 22) return pass('node', `Node.js ${version}`)
  return fail('node', `Node.js ${version}; xpk needs 22 or later`, 'Install Node.js 22 or later.')
}
