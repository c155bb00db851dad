import {UsageError} from '../errors.js'
import type {ReleaseChannel} from './spec.js'

/** A GKE version such as 1.35.1-gke.1000000, as numbers for ordering. */
export interface GkeVersion {
  readonly text: string
  readonly parts: readonly [number, number, number, number]
}

/** Parses `major.minor.patch[-gke.build]`; undefined when the text is not a GKE version. */
export function parseGkeVersion(text: string): GkeVersion | undefined {
  const trimmed = text.trim()
  const match = /^(\d+)\.(\d+)\.(\d+)(?:-gke\.(\d+))?$/.exec(trimmed)
  if (!match) return undefined
  return {text: trimmed, parts: [Number(match[1]), Number(match[2]), Number(match[3]), Number(match[4] ?? 0)]}
}

/** Orders versions numerically (1.35.10 after 1.35.9, which string comparison gets wrong). */
export function compareGkeVersions(a: string, b: string): number {
  const pa = parseGkeVersion(a)?.parts ?? [0, 0, 0, 0]
  const pb = parseGkeVersion(b)?.parts ?? [0, 0, 0, 0]
  for (let i = 0; i < 4; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i]
  return 0
}

/** Versions offered by a release channel. */
export interface ChannelVersions {
  readonly defaultVersion: string
  readonly validVersions: readonly string[]
}

/**
 * The control-plane version: `--gke-version` when given (it must be offered by the channel), otherwise the
 * channel's default. Python xpk uses RAPID, or REGULAR when a version is pinned.
 * @throws UsageError naming `--gke-version` when the requested version is not offered
 */
export function chooseControlPlaneVersion(channel: ChannelVersions, requested: string | undefined): string {
  if (requested === undefined) return channel.defaultVersion
  if (channel.validVersions.includes(requested)) return requested
  const newest = [...channel.validVersions].sort(compareGkeVersions).reverse().slice(0, 5)
  throw new UsageError(`--gke-version ${requested} is not offered in this location.`, {
    flag: '--gke-version',
    hints: [`Newest valid versions: ${newest.join(', ')}.`],
  })
}

/** The release channel for a run: REGULAR when a version is pinned (so it is not upgraded away), else RAPID. */
export function releaseChannelFor(gkeVersion: string | undefined): ReleaseChannel {
  return gkeVersion === undefined ? 'RAPID' : 'REGULAR'
}

/**
 * The node-pool version for a control plane: the smallest valid node version at or above it within the same
 * minor release; failing that, the largest valid node version below it; failing that, the control plane's own.
 */
export function chooseNodeVersion(controlPlane: string, validNodeVersions: readonly string[]): string {
  const cp = parseGkeVersion(controlPlane)
  if (!cp) return controlPlane
  const parsed = validNodeVersions.map(parseGkeVersion).filter((v): v is GkeVersion => v !== undefined)
  const sameMinorAtOrAbove = parsed
    .filter((v) => v.parts[0] === cp.parts[0] && v.parts[1] === cp.parts[1] && compareGkeVersions(v.text, cp.text) >= 0)
    .sort((a, b) => compareGkeVersions(a.text, b.text))
  if (sameMinorAtOrAbove.length > 0) return sameMinorAtOrAbove[0].text
  const below = parsed
    .filter((v) => compareGkeVersions(v.text, cp.text) < 0)
    .sort((a, b) => compareGkeVersions(b.text, a.text))
  return below[0]?.text ?? controlPlane
}
