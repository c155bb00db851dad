// `xpk cluster create-ray` end to end: the built CLI against the wire fakes of GKE and Kubernetes. The Kubernetes
// fake is seeded, in this test, with what GKE's Ray operator addon gives a cluster (KubeRay's RayCluster CRD, v1.7.0's
// when found, so the fake validates the RayCluster against its schema) and with nodes whose allocatable CPU and
// memory size it; the GKE fake does not install anything for the addon.
import {describe, expect, it} from 'vitest'

import type {ReleaseComponent} from '../../src/core/kube/release-manifest.js'
import type {FakeGke} from '../fakes/fake-gke.js'
import type {FakeKube} from '../fakes/fake-kube.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
import {markRequests, mutationsSince} from '../helpers/mutations.js'
import {kubeRayCrd, seedRayNodes} from '../helpers/ray.js'
import {writeReleaseManifest} from '../helpers/release-files.js'
import {tempDir} from '../helpers/temp.js'
import {fakesForFile, startKubeAndGke} from '../helpers/wire-fakes.js'

const PROJECT = 'e2e-project'
const ZONE = 'us-central2-b'
const RAY_REF = {apiVersion: 'ray.io/v1', kind: 'RayCluster', namespace: 'ray', name: 'raycluster'}

let gke: FakeGke
let kube: FakeKube
const manifests: Partial<Record<ReleaseComponent, string>> = {}

const env = () =>
  isolatedEnv({
    XPK_GKE_ENDPOINT: `http://${gke.endpoint}`,
    XPK_ACCESS_TOKEN: kube.token,
    XPK_POLL_INTERVAL_MS: '20',
    XPK_RETRY_INTERVAL_MS: '20',
    XPK_CONTROLLER_TIMEOUT_S: '3',
  })
const createRay = (version: string, ...extra: string[]) =>
  runCli(
    [
      ...['cluster', 'create-ray', '--project', PROJECT, '--zone', ZONE, '--cluster', 'demo'],
      ...['--tpu-type', 'v5p-16', '--num-slices', '2', '--spot', '--force', '--ray-version', version],
      ...['--jobset-manifest', manifests.jobset!, '--kueue-manifest', manifests.kueue!],
      ...extra,
    ],
    {env: env()},
  )

fakesForFile(async (fakes) => {
  ;({kube, gke} = await startKubeAndGke(fakes, {kube: {rolloutMs: 30}, gke: {operationMs: 20}}))
  manifests.jobset = writeReleaseManifest('jobset', tempDir('xpk-release-'))
  manifests.kueue = writeReleaseManifest('kueue', tempDir('xpk-release-'))
})

type RayClusterShape = {spec: {rayVersion: string; workerGroupSpecs: {groupName: string}[]}}

describe('cluster create-ray over the wire', () => {
  it('creates the cluster with the addon and applies the RayCluster; a re-run sends nothing; another version updates it', async () => {
    kube.seed(kubeRayCrd() as never)
    seedRayNodes(kube)
    const first = await createRay('2.38.0')
    expect(first.code, first.stderr).toBe(0)
    const creates = gke.calls.filter((c) => c.method === 'CreateCluster')
    expect(creates).toHaveLength(1)
    expect(creates[0]!.request).toMatchObject({cluster: {addonsConfig: {rayOperatorConfig: {enabled: true}}}})
    expect(gke.calls.some((c) => c.method === 'UpdateCluster')).toBe(false)
    const ray = kube.get(RAY_REF) as unknown as RayClusterShape
    expect(ray.spec.rayVersion).toBe('2.38.0')
    expect(ray.spec.workerGroupSpecs.map((g) => g.groupName)).toEqual(['workergroup0', 'workergroup1'])
    const rayApplies = kube.mutatingRequests().filter((r) => r.resource === 'rayclusters')
    expect(rayApplies.map((r) => [r.method, r.contentType])).toEqual([['PATCH', 'application/apply-patch+yaml']])

    const mark = markRequests({gke, kube})
    const again = await createRay('2.38.0')
    expect(again.code, again.stderr).toBe(0)
    expect(mutationsSince({gke, kube}, mark)).toEqual([])
    expect(again.stderr).toContain('= RayCluster ray/raycluster (Ray 2.38.0, 2 worker groups of 2 VMs): unchanged')

    kube.requests.length = 0
    const newer = await createRay('2.40.0')
    expect(newer.code, newer.stderr).toBe(0)
    expect((kube.get(RAY_REF) as unknown as RayClusterShape).spec.rayVersion).toBe('2.40.0')
    expect(kube.mutatingRequests().map((r) => r.resource)).toEqual(['namespaces', 'rayclusters'])
  })
})
