/**
 * Finds the real CRDs of the JobSet and Kueue versions xpk installs, for the schema tests (crd-schema.ts), without
 * ever copying them into the repository. Looked for, per component, in this order:
 *
 * 1. `$CRDS_DIR` (set by hand): CRD or release-manifest YAML files in `<dir>/<component>-<version>/` or `<dir>/`.
 *    Not XPK_-prefixed on purpose: test/setup.ts clears every XPK_ variable before the tests run.
 * 2. `../shared/crds/<component>-<version>/` beside the checkout (CI and the development machines have it).
 * 3. The release manifests in the user's cache (`$XDG_CACHE_HOME/xpk/manifests/`, where xpk itself caches them):
 *    the CRDs are documents inside them.
 * 4. Only when asked (`$CRDS_DOWNLOAD=1`): downloading the release manifests from GitHub into that cache, with a short
 *    timeout. Never by default: the tests reach nothing but loopback.
 *
 * When none works the schema tests are skipped with one line saying why and how to provide the CRDs, except
 * under CI, where they run and fail. Run directly (`node --import ./bench/ts-resolve.mjs test/helpers/crds.ts`), it
 * prints where each component's CRDs come from and exits 1 when any is missing (the check in .ci/run).
 */

import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs'
import {basename, join} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

import {
  defaultManifestCacheDir,
  HttpReleaseManifests,
  releaseManifestCachePath,
} from '../../src/adapters/release-manifests.js'
import {parseManifest} from '../../src/core/kube/manifest-yaml.js'
import {isCrd, RELEASE_COMPONENTS, RELEASES} from '../../src/core/kube/release-manifest.js'
import type {KubeObject, ReleaseComponent} from '../../src/core/kube/release-manifest.js'

/** Where to look for the CRDs (see the module comment for the order). */
export interface CrdSearch {
  /** `$CRDS_DIR`, when set. */
  readonly crdsDir?: string
  /** `../shared/crds` beside the checkout. */
  readonly sharedDir: string
  /** The release-manifest cache xpk uses. */
  readonly cacheDir: string
  /** Download into {@link cacheDir} when nothing else has them; `false` to stay offline. */
  readonly download: false | {readonly timeoutMs: number; readonly urls?: Partial<Record<ReleaseComponent, string>>}
}

/** The CRDs of one component and where they were found. */
export interface ComponentCrds {
  readonly component: ReleaseComponent
  /** The directory, file or URL they came from. */
  readonly source: string
  /** The CRD objects, parsed on first use: the Kueue CRDs take half a second, which JobSet tests need not pay. */
  readonly crds: () => readonly KubeObject[]
}

/** The outcome of {@link findCrds}: every component's CRDs, or one line saying what is missing and what to do. */
export type CrdLookup =
  | {readonly found: true; readonly components: readonly ComponentCrds[]}
  | {readonly found: false; readonly components: readonly ComponentCrds[]; readonly reason: string}

/** How long the schema tests wait for GitHub before skipping: enough for a real download, short when offline. */
const DOWNLOAD_TIMEOUT_MS = 10_000

/** The search the tests use: the environment, ../shared beside the checkout, the user's cache (GitHub if asked). */
export function defaultCrdSearch(env: NodeJS.ProcessEnv = process.env): CrdSearch {
  return {
    crdsDir: env.CRDS_DIR || undefined,
    sharedDir: fileURLToPath(new URL('../../../shared/crds', import.meta.url)),
    cacheDir: defaultManifestCacheDir(env),
    download: env.CRDS_DOWNLOAD ? {timeoutMs: DOWNLOAD_TIMEOUT_MS} : false,
  }
}

/** Looks for each component's CRDs in the places of `search`, in order; the first place that has any wins. */
export async function findCrds(search: CrdSearch): Promise<CrdLookup> {
  const components: ComponentCrds[] = []
  const missing: string[] = []
  for (const component of RELEASE_COMPONENTS) {
    const result = await findComponent(search, component)
    if ('crds' in result) components.push(result)
    else missing.push(result.why)
  }
  if (missing.length === 0) return {found: true, components}
  const cacheFiles = RELEASE_COMPONENTS.map((c) => basename(releaseManifestCachePath(search.cacheDir, c)))
  const reason =
    `Skipping the CRD schema tests: ${missing.join('; ')}. To run them, put the CRDs in ${search.sharedDir}/` +
    `<component>-<version>/, or the release manifests in ${search.cacheDir}/ (${cacheFiles.join(', ')}), ` +
    'or set CRDS_DIR to a directory of CRD or release-manifest YAML files (or CRDS_DOWNLOAD=1 to fetch them from GitHub).'
  return {found: false, components, reason}
}

/** Whether schema tests skip: only when CRDs are missing outside CI (under CI they run, and fail saying why). */
export function skipCrdTests(lookup: CrdLookup, env: NodeJS.ProcessEnv = process.env): boolean {
  return !lookup.found && !env.CI
}

/** What the CI check (this file run directly) prints, and its exit code. */
export function crdReport(lookup: CrdLookup): {
  readonly stdout: string
  readonly stderr: string
  readonly exitCode: number
} {
  const stdout = lookup.components.map((c) => `${RELEASES[c.component].title} CRDs: ${c.source}\n`).join('')
  if (lookup.found) return {stdout, stderr: '', exitCode: 0}
  return {
    stdout,
    stderr: `${lookup.reason.replace(/^Skipping the CRD schema tests: /, 'The CRD schema tests cannot run: ')}\n`,
    exitCode: 1,
  }
}

async function findComponent(
  search: CrdSearch,
  component: ReleaseComponent,
): Promise<ComponentCrds | {readonly why: string}> {
  const {title, version, group} = RELEASES[component]
  const tried: string[] = []
  const dirs = [
    ...(search.crdsDir === undefined ? [] : [search.crdsDir]),
    ...(existsSync(search.sharedDir) ? [join(search.sharedDir, `${component}-${version}`)] : []),
  ]
  for (const dir of dirs) {
    const found = fromDir(dir, component)
    if (found !== undefined) return found
    tried.push(`not in ${dir}`)
  }
  if (!existsSync(search.sharedDir)) tried.push(`no ${search.sharedDir}`)

  const cachePath = releaseManifestCachePath(search.cacheDir, component)
  if (search.download === false) {
    if (existsSync(cachePath) && looksLikeCrdsOf(readFileSync(cachePath, 'utf8'), group)) {
      return {component, source: cachePath, crds: once(() => crdsIn([cachePath], group))}
    }
    tried.push(`not cached at ${cachePath}`)
    return {why: `no ${title} ${version} CRDs (${tried.join('; ')})`}
  }
  const source = new HttpReleaseManifests({
    cacheDir: search.cacheDir,
    timeoutMs: search.download.timeoutMs,
    urls: search.download.urls,
  })
  try {
    const manifest = await source.load(component)
    const crds = manifest.objects.filter((o) => isCrdOf(o, group))
    if (crds.length > 0) return {component, source: manifest.source, crds: () => crds}
    tried.push(`${manifest.source} has no ${group} CRDs`)
  } catch (error) {
    tried.push(`not cached at ${cachePath}`, lowerFirst((error as Error).message).replace(/\.$/, ''))
  }
  return {why: `no ${title} ${version} CRDs (${tried.join('; ')})`}
}

/** The component's CRDs in `<dir>/<component>-<version>/` or `<dir>/`, if any file there looks like one. */
function fromDir(dir: string, component: ReleaseComponent): ComponentCrds | undefined {
  const {version, group} = RELEASES[component]
  const files = [join(dir, `${component}-${version}`), dir]
    .flatMap(yamlFiles)
    .filter((file) => looksLikeCrdsOf(readFileSync(file, 'utf8'), group))
  return files.length === 0 ? undefined : {component, source: dir, crds: once(() => crdsIn(files, group))}
}

/** A cheap look for a CRD of `group`, so that finding the files costs no YAML parsing. */
function looksLikeCrdsOf(text: string, group: string): boolean {
  const escaped = group.replaceAll('.', '\\.')
  return (
    /^kind: *CustomResourceDefinition *$/m.test(text) &&
    new RegExp(`^ +group: *["']?${escaped}["']? *$`, 'm').test(text)
  )
}

function crdsIn(files: readonly string[], group: string): KubeObject[] {
  const crds = files.flatMap((file) => parseManifest(readFileSync(file, 'utf8'), file).filter((o) => isCrdOf(o, group)))
  if (crds.length === 0) throw new Error(`No ${group} CRDs in ${files.join(', ')}.`)
  return crds
}

/** YAML files directly in `dir`, sorted (none when it does not exist). */
function yamlFiles(dir: string): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return []
  return readdirSync(dir)
    .filter((name) => /\.ya?ml$/.test(name))
    .sort()
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
}

function isCrdOf(object: KubeObject, group: string): boolean {
  return isCrd(object) && (object.spec as {group?: unknown} | undefined)?.group === group
}

function once<T>(make: () => T): () => T {
  let made: {value: T} | undefined
  return () => (made ??= {value: make()}).value
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1)
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href

/** The CRDs for this test run, looked up once per module graph. */
export const CRDS: CrdLookup = await findCrds(defaultCrdSearch())

/** Whether the schema tests skip (see {@link skipCrdTests}); when they do, one line on stderr says why. */
export const SKIP_CRD_TESTS = skipCrdTests(CRDS)

if (SKIP_CRD_TESTS && !invokedDirectly && !CRDS.found) process.stderr.write(`${CRDS.reason}\n`)

if (invokedDirectly) {
  const report = crdReport(CRDS)
  process.stdout.write(report.stdout)
  process.stderr.write(report.stderr)
  process.exitCode = report.exitCode
}

/**
 * KubeRay's RayCluster CRD (ray.io/v1, what `cluster create-ray` applies), which GKE's Ray operator addon installs
 * and xpk never does: so not a release of RELEASES, looked for in `$CRDS_DIR/kuberay-<version>/` or `$CRDS_DIR/`,
 * then `../shared/crds/kuberay-<version>/`. Missing, its tests skip with one line saying why, except under CI.
 */
export const KUBERAY_VERSION = 'v1.7.0'

/** Finds the RayCluster CRD in the places of `search` (no cache or download: no release manifest holds it). */
export function findRayClusterCrd(search: CrdSearch): {readonly crd: KubeObject} | {readonly why: string} {
  const folder = `kuberay-${KUBERAY_VERSION}`
  const dirs = [
    ...(search.crdsDir === undefined ? [] : [join(search.crdsDir, folder), search.crdsDir]),
    join(search.sharedDir, folder),
  ]
  for (const file of dirs.flatMap(yamlFiles)) {
    const text = readFileSync(file, 'utf8')
    if (!looksLikeCrdsOf(text, 'ray.io')) continue
    const crd = parseManifest(text, file).find(
      (o) => isCrdOf(o, 'ray.io') && (o.spec as {names?: {kind?: string}}).names?.kind === 'RayCluster',
    )
    if (crd !== undefined) return {crd}
  }
  return {
    why:
      `Skipping the RayCluster schema tests: no KubeRay ${KUBERAY_VERSION} RayCluster CRD in ${dirs.join(' or ')}. ` +
      `To run them, put ray.io_rayclusters.yaml of KubeRay ${KUBERAY_VERSION} in ${join(search.sharedDir, folder)}/ ` +
      '(or set CRDS_DIR).',
  }
}

const RAY_LOOKUP = findRayClusterCrd(defaultCrdSearch())

/** The RayCluster CRD, when found. */
export const RAY_CLUSTER_CRD: KubeObject | undefined = 'crd' in RAY_LOOKUP ? RAY_LOOKUP.crd : undefined

/** Whether the RayCluster schema tests skip: only when the CRD is missing outside CI. */
export const SKIP_RAY_CRD_TESTS = RAY_CLUSTER_CRD === undefined && !process.env.CI

if (SKIP_RAY_CRD_TESTS && !invokedDirectly && 'why' in RAY_LOOKUP) process.stderr.write(`${RAY_LOOKUP.why}\n`)

// The CI check (.ci/run) covers the RayCluster CRD too: missing, CI stops here with the line that says where to put it.
if (invokedDirectly) {
  if ('why' in RAY_LOOKUP) {
    process.stderr.write(`${RAY_LOOKUP.why}\n`)
    process.exitCode = 1
  } else process.stdout.write(`RayCluster CRD: KubeRay ${KUBERAY_VERSION}\n`)
}
