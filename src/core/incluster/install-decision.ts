/**
 * Whether to install, upgrade or leave alone the JobSet or Kueue controller a cluster already runs, decided from
 * what was observed of its Deployment (Python xpk's checks in `set_jobset_on_cluster` and `KueueManager`):
 *
 *   - no Deployment                       -> install
 *   - the wanted version                  -> skip
 *   - a newer version                     -> leave it (note)
 *   - no version in the image tag         -> leave it (note): a digest or a custom build, whose version is unknown
 *   - older, and `app.kubernetes.io/managed-by` set -> leave it (note naming the manager, e.g. Helm)
 *   - older than the breaking version (Kueue v0.15.0, which introduced v1beta2) -> breaking upgrade: every Kueue
 *     object and CRD must be deleted first, which needs the user's consent
 *   - older                               -> upgrade
 *
 * Versions are compared numerically, never as strings (as strings, v0.9.0 would sort after v0.17.1). Kueue is
 * configured in every case but a declined breaking upgrade; that is the caller's business.
 */
import {RELEASES, imageTag} from '../kube/release-manifest.js'
import type {ReleaseComponent} from '../kube/release-manifest.js'
import {KUEUE_BREAKING_VERSION} from '../versions.js'

/** The label a package manager (Helm, an operator, Config Sync...) puts on what it owns. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by'

/** What was observed of a controller's Deployment. */
export type ObservedController =
  | {readonly installed: false}
  | {
      readonly installed: true
      /** The image of the controller container. */
      readonly image: string
      /** The value of {@link MANAGED_BY_LABEL} on the Deployment; null when absent or empty. */
      readonly managedBy: string | null
    }

/** One deletion a breaking Kueue upgrade needs, in the order they must run. */
export type BreakingDeletion =
  | {readonly kind: 'all-objects-of-crd'; readonly crd: string}
  | {readonly kind: 'crd'; readonly name: string}
  | {readonly kind: 'deployment'; readonly namespace: string; readonly name: string}

interface DecisionBase {
  readonly component: ReleaseComponent
  /** The version xpk installs. */
  readonly wanted: string
  /** One plan line, e.g. `upgrade JobSet v0.9.0 -> v0.10.1`. */
  readonly reason: string
}

export type InstallDecision =
  | (DecisionBase & {readonly action: 'install'})
  | (DecisionBase & {readonly action: 'skip'; readonly installed: string})
  | (DecisionBase & {readonly action: 'upgrade'; readonly installed: string})
  | (DecisionBase & {
      readonly action: 'breaking-upgrade'
      readonly installed: string
      /** What must be deleted before installing, in order; destructive, so it needs confirmation. */
      readonly deletions: readonly BreakingDeletion[]
      readonly note: string
    })
  | (DecisionBase & {readonly action: 'leave-newer'; readonly installed: string; readonly note: string})
  | (DecisionBase & {readonly action: 'leave-unparseable'; readonly image: string; readonly note: string})
  | (DecisionBase & {
      readonly action: 'leave-managed'
      readonly installed: string
      readonly manager: string
      readonly note: string
    })

export type InstallAction = InstallDecision['action']

export interface InstallDecisionOptions {
  /** @default the release xpk installs (`RELEASES[component].version`) */
  readonly wanted?: string
  /** Versions below this cannot be upgraded in place. @default KUEUE_BREAKING_VERSION for Kueue, none for JobSet */
  readonly breakingVersion?: string | null
  /** Names of the CRDs in the cluster (`clusterqueues.kueue.x-k8s.io`, ...), for a breaking upgrade's deletions. */
  readonly crds?: readonly string[]
}

/** A release version `vMAJOR.MINOR.PATCH` (the `v` optional); anything else (rc, custom suffixes) is not one. */
export function parseReleaseVersion(text: string): readonly [number, number, number] | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(text)
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined
}

/** Orders release versions numerically; both must parse. */
export function compareReleaseVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i]
  return 0
}

/** Decides what to do about `component`'s controller (see the module comment). */
export function decideInstall(
  component: ReleaseComponent,
  observed: ObservedController,
  options: InstallDecisionOptions = {},
): InstallDecision {
  const release = RELEASES[component]
  const title = release.title
  const wanted = options.wanted ?? release.version
  const breakingVersion = options.breakingVersion !== undefined ? options.breakingVersion : defaultBreaking(component)
  const wantedParts = mustParse(wanted)
  const base = {component, wanted}
  if (!observed.installed) return {...base, action: 'install', reason: `install ${title} ${wanted}`}

  const tag = imageTag(observed.image)
  const installedParts = tag === undefined ? undefined : parseReleaseVersion(tag)
  if (tag === undefined || installedParts === undefined) {
    return {
      ...base,
      action: 'leave-unparseable',
      image: observed.image,
      reason: `leave ${title} as it is: its image ${observed.image} names no version`,
      note:
        `${title}'s controller runs ${observed.image}, a custom build or an image pinned by digest, so xpk cannot ` +
        `tell its version and does not install ${wanted} over it.`,
    }
  }
  const installed = tag
  const order = compareReleaseVersions(installedParts, wantedParts)
  if (order === 0) return {...base, action: 'skip', installed, reason: `skip: ${title} ${installed} already installed`}
  if (order > 0) {
    return {
      ...base,
      action: 'leave-newer',
      installed,
      reason: `leave ${title} ${installed}: newer than ${wanted}`,
      note: `${title} ${installed} is newer than the ${wanted} this xpk installs; xpk leaves it as it is.`,
    }
  }
  if (observed.managedBy !== null && observed.managedBy !== '') {
    const manager = observed.managedBy
    return {
      ...base,
      action: 'leave-managed',
      installed,
      manager,
      reason: `leave ${title} ${installed}: managed by ${manager}`,
      note:
        `${title} ${installed} is older than ${wanted}, but ${manager} manages it (label ${MANAGED_BY_LABEL}); ` +
        `upgrade it to ${wanted} with ${manager}.`,
    }
  }
  const breaking = breakingVersion === null ? undefined : mustParse(breakingVersion)
  if (breaking !== undefined && compareReleaseVersions(installedParts, breaking) < 0) {
    return {
      ...base,
      action: 'breaking-upgrade',
      installed,
      deletions: breakingDeletions(component, options.crds ?? []),
      reason: `upgrade ${title} ${installed} -> ${wanted}, deleting every ${title} object first`,
      note:
        `${title} ${installed} cannot be upgraded in place to ${wanted} (versions before ${breakingVersion} use an ` +
        `older API): all ${title} objects, including queued and running workloads, and its CRDs are deleted, ` +
        'then it is installed anew.',
    }
  }
  return {...base, action: 'upgrade', installed, reason: `upgrade ${title} ${installed} -> ${wanted}`}
}

function defaultBreaking(component: ReleaseComponent): string | null {
  return component === 'kueue' ? KUEUE_BREAKING_VERSION : null
}

/**
 * Python xpk's order: for each of the component's CRDs, every object of it, then the CRD itself; then the
 * controller Deployment, so the new release starts from nothing.
 */
function breakingDeletions(component: ReleaseComponent, crds: readonly string[]): BreakingDeletion[] {
  const release = RELEASES[component]
  const own = crds.filter((crd) => crd.endsWith(`.${release.group}`))
  return [
    ...own.flatMap((crd): BreakingDeletion[] => [
      {kind: 'all-objects-of-crd', crd},
      {kind: 'crd', name: crd},
    ]),
    {kind: 'deployment', namespace: release.controller.namespace, name: release.controller.name},
  ]
}

function mustParse(version: string): readonly [number, number, number] {
  const parts = parseReleaseVersion(version)
  if (parts === undefined) throw new Error(`Release version ${version} is not vMAJOR.MINOR.PATCH.`)
  return parts
}
