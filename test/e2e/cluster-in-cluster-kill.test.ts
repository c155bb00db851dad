// kill -9 at every point of the in-cluster phase of `cluster create`: the built CLI, the GKE fake handing out the
// Kubernetes fake's endpoint, a fresh cluster. For each request the in-cluster phase sends (counted on an
// uninterrupted run), a run is killed with SIGKILL right after the fake received that request (the fake still
// carries it out, as a real API server does with a request whose client died), and then:
//   - a re-run of the same command exits 0;
//   - a further re-run sends no mutating request (the cluster has converged, nothing is applied twice);
//   - every object of both release manifests is live with every field the manifest sets, and the Kueue
//     configuration is there (ClusterQueue with the quota of 2 slices, the resources ConfigMap).
// The counts (kill points, how each one ended) are printed for the issue note.
import {describe, expect, it} from 'vitest'

import type {KubeObject, ReleaseComponent} from '../../src/core/kube/release-manifest.js'
import type {FakeGke} from '../fakes/fake-gke.js'
import type {FakeKube} from '../fakes/fake-kube.js'
import {isolatedEnv, runCli, startCli} from '../helpers/cli.js'
import {releaseWithRealCrds, writeReleaseManifest} from '../helpers/release-files.js'
import {tempDir} from '../helpers/temp.js'
import {fakesForFile, startKubeAndGke} from '../helpers/wire-fakes.js'

const PROJECT = 'e2e-project'
const ZONE = 'us-central2-b'

let gke: FakeGke
let kube: FakeKube
const manifests: Partial<Record<ReleaseComponent, string>> = {}

const env = () =>
  isolatedEnv({
    XPK_GKE_ENDPOINT: `http://${gke.endpoint}`,
    XPK_ACCESS_TOKEN: kube.token,
    XPK_POLL_INTERVAL_MS: '20',
    XPK_RETRY_INTERVAL_MS: '20',
    XPK_CONTROLLER_TIMEOUT_S: '10',
  })
const args = () => [
  ...['cluster', 'create', '--project', PROJECT, '--zone', ZONE, '--cluster', 'killed'],
  ...['--tpu-type', 'v5p-16', '--num-slices', '2', '--spot', '--force'],
  ...['--jobset-manifest', manifests.jobset!, '--kueue-manifest', manifests.kueue!],
]

/** The release objects as the manifests give them, the controllers' resources left out (xpk sizes them). */
function expectedReleaseObjects(): KubeObject[] {
  return (['jobset', 'kueue'] as const).flatMap((component) =>
    releaseWithRealCrds(component).map((o) => {
      if (o.kind !== 'Deployment') return o
      const copy = structuredClone(o) as KubeObject & {
        spec: {template: {spec: {containers: {resources?: unknown}[]}}}
      }
      for (const c of copy.spec.template.spec.containers) delete c.resources
      return copy
    }),
  )
}

/** The live object, or undefined when it or its kind (a CRD not there) is missing. */
function live(ref: {apiVersion: string; kind: string; name: string; namespace?: string}): KubeObject | undefined {
  try {
    return kube.get(ref) as KubeObject | undefined
  } catch {
    return undefined
  }
}

function count(apiVersion: string, kind: string): number {
  try {
    return kube.list(apiVersion, kind).length
  } catch {
    return 0
  }
}

/** What is missing or different of the release objects and xpk's configuration: empty once converged. */
function notConverged(expected: readonly KubeObject[]): string[] {
  const problems: string[] = []
  for (const o of expected) {
    const found = live({apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace})
    if (found === undefined) {
      problems.push(`${o.kind} ${o.metadata.name} missing`)
      continue
    }
    try {
      expect(found).toMatchObject(JSON.parse(JSON.stringify(o)) as object)
    } catch {
      problems.push(`${o.kind} ${o.metadata.name} differs`)
    }
  }
  const queue = live({apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ClusterQueue', name: 'cluster-queue'}) as
    {spec: {resourceGroups: {flavors: {name: string; resources: {nominalQuota: unknown}[]}[]}[]}} | undefined
  const flavor = queue?.spec.resourceGroups[0]?.flavors[0]
  if (flavor?.name !== '2xv5p-16' || flavor.resources[0]?.nominalQuota !== 16) problems.push('ClusterQueue')
  for (const kind of ['LocalQueue', 'ResourceFlavor']) {
    if (count('kueue.x-k8s.io/v1beta2', kind) !== 1) problems.push(kind)
  }
  const resources = live({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    name: 'killed-resources-configmap',
    namespace: 'default',
  })
  if ((resources as {data?: object} | undefined)?.data === undefined) problems.push('resources ConfigMap')
  return problems
}

/** Runs the command, killing it with SIGKILL as soon as the Kubernetes fake has received its `point`-th request. */
async function runKilledAt(point: number) {
  const run = startCli(args(), {env: env()})
  // Registered before the CLI can reach the Kubernetes fake (it talks to GKE first). A fault that never answers: it
  // only watches the requests go by (match runs before the fake carries a request out).
  let seen = 0
  kube.faults.push({
    times: Infinity,
    match: () => {
      if (++seen === point) run.child.kill('SIGKILL')
      return false
    },
  })
  const result = await run.done
  kube.faults.length = 0
  return result
}

// Each run starts from the fakes reset by hand: a whole run, then one per kill point.
fakesForFile(
  async (fakes) => {
    ;({kube, gke} = await startKubeAndGke(fakes, {kube: {rolloutMs: 30}, gke: {operationMs: 20}}))
    manifests.jobset = writeReleaseManifest('jobset', tempDir('xpk-release-'))
    manifests.kueue = writeReleaseManifest('kueue', tempDir('xpk-release-'))
  },
  {reset: false},
)

describe('cluster create killed with SIGKILL after any request of the in-cluster phase', () => {
  it('converges on re-run at every kill point', async () => {
    const expected = expectedReleaseObjects()
    // An uninterrupted run: how many requests the in-cluster phase sends.
    gke.reset()
    kube.reset()
    const whole = await runCli(args(), {env: env()})
    expect(whole.code, whole.stderr).toBe(0)
    expect(notConverged(expected)).toEqual([])
    const points = kube.requests.length
    expect(points).toBeGreaterThan(30)

    const outcomes: {
      point: number
      request: string
      killed: boolean
      rerun: number | null
      rerunChanges: number
      repaired: string[]
      further: string[]
      missing: string[]
    }[] = []
    for (let point = 1; point <= points; point++) {
      gke.reset()
      kube.reset()
      const killed = await runKilledAt(point)
      const at = kube.requests[point - 1]
      await gke.settled()
      const before = kube.requests.length
      const rerun = await runCli(args(), {env: env()})
      const mark = kube.requests.length
      const further = rerun.code === 0 ? await runCli(args(), {env: env()}) : undefined
      outcomes.push({
        point,
        request: at ? `${at.verb} ${at.resource ?? at.path}${at.name ? ` ${at.name}` : ''}` : 'none',
        killed: killed.signal === 'SIGKILL',
        rerun: rerun.code,
        rerunChanges: kube.requests.slice(before, mark).filter((r) => r.mutating).length,
        repaired: [...rerun.stderr.matchAll(/^\s+\+ (repair|install) (JobSet|Kueue)/gm)].map((m) => `${m[1]} ${m[2]}`),
        further:
          further === undefined
            ? ['not run']
            : [
                ...(further.code === 0 ? [] : [`exit ${further.code}`]),
                ...kube.requests
                  .slice(mark)
                  .filter((r) => r.mutating)
                  .map((r) => `${r.verb} ${r.path}`),
              ],
        missing: notConverged(expected),
      })
      if (rerun.code !== 0) console.error(`kill point ${point}: re-run exit ${rerun.code}\n${rerun.stderr}`)
    }
    const converged = outcomes.filter((o) => o.rerun === 0 && o.further.length === 0 && o.missing.length === 0)
    for (const o of outcomes) {
      const state = converged.includes(o) ? 'converged' : 'NOT converged'
      const how = o.repaired.length > 0 ? `, re-run: ${o.repaired.join(', ')}` : ''
      console.error(
        `  kill point ${o.point} (${o.request})${o.killed ? '' : ' [run had ended]'}: ${state}; re-run sent ` +
          `${o.rerunChanges} mutating requests${how}`,
      )
    }
    console.error(
      `in-cluster kill sweep: ${points} kill points, ${outcomes.filter((o) => o.killed).length} killed mid-run, ` +
        `${converged.length} converged (re-run exit 0, a further re-run sends 0 mutating requests, every release ` +
        'object live)',
    )
    expect(outcomes.filter((o) => !converged.includes(o))).toEqual([])
    // Most points must really interrupt the run (the last few may come after the run has answered everything).
    expect(outcomes.filter((o) => o.killed).length).toBeGreaterThan(points - 5)
  }, 1_200_000)
})
