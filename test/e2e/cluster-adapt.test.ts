// `xpk cluster adapt` end to end, the built CLI against the wire fakes: a cluster Cluster Toolkit made (two v5p-16
// slices on spot and its default pool) gets JobSet, Kueue, the queues and ConfigMaps from the Kubernetes fake's
// point of view, with not one mutating request to GKE; a re-run sends none at all; the dry run's plan text is a
// golden; a refusal (several types) sends nothing.
import {describe, expect, it} from 'vitest'

import type {ReleaseComponent} from '../../src/core/kube/release-manifest.js'
import type {FakeGke} from '../fakes/fake-gke.js'
import type {FakeKube} from '../fakes/fake-kube.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
import {expectGolden} from '../helpers/golden.js'
import {markRequests, mutationsSince} from '../helpers/mutations.js'
import {writeReleaseManifest} from '../helpers/release-files.js'
import {tempDir} from '../helpers/temp.js'
import {fakesForFile, seedToolkitCluster, startKubeAndGke} from '../helpers/wire-fakes.js'

const PROJECT = 'e2e-project'
const ZONE = 'us-central2-b'

let gke: FakeGke
let kube: FakeKube
const manifests: Partial<Record<ReleaseComponent, string>> = {}

const env = () =>
  isolatedEnv({
    XPK_GKE_ENDPOINT: `http://${gke.endpoint}`,
    XPK_ACCESS_TOKEN: kube.token,
    XPK_CONTROLLER_TIMEOUT_S: '3',
  })
const adapt = (...extra: string[]) =>
  runCli(
    [
      ...['cluster', 'adapt', '--project', PROJECT, '--zone', ZONE, '--cluster', 'ct'],
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

const fakes = () => ({gke, kube})
const gkeMutations = (mark: ReturnType<typeof markRequests>) =>
  mutationsSince(fakes(), mark).filter((m) => m.startsWith('gke '))

describe('cluster adapt on a Cluster Toolkit cluster', () => {
  it('the dry run shows what it found and what it adds, and changes nothing (golden)', async () => {
    seedToolkitCluster(gke, PROJECT, 'ct')
    const mark = markRequests(fakes())
    const plan = await adapt('--dry-run')
    expect(plan.code, plan.stderr).toBe(0)
    expect(mutationsSince(fakes(), mark)).toEqual([])
    expectGolden(
      'plans/adapt-toolkit-v5p-16-2-slices-spot.txt',
      `# xpk cluster adapt --cluster ct --dry-run\n# observed: ct-v5p-a, ct-v5p-b (v5p-16 on spot), default-pool; nothing installed\n${plan.stdout}`,
    )
  })

  it('installs JobSet, Kueue, the queue for 2 slices and the ConfigMaps with no GKE change; a re-run sends nothing', async () => {
    seedToolkitCluster(gke, PROJECT, 'ct')
    const mark = markRequests(fakes())
    const first = await adapt('--force')
    expect(first.code, first.stderr).toBe(0)
    expect(first.stderr).toContain('installed JobSet')
    expect(first.stderr).toContain('installed Kueue')
    expect(first.stderr).toContain('its node pools were left as they are')
    expect(gkeMutations(mark)).toEqual([])
    expect(mutationsSince(fakes(), mark).length).toBeGreaterThan(0)
    const queue = kube.get({apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ClusterQueue', name: 'cluster-queue'}) as {
      spec: {resourceGroups: {flavors: {name: string; resources: {name: string; nominalQuota: unknown}[]}[]}[]}
    }
    expect(queue.spec.resourceGroups[0]!.flavors[0]).toMatchObject({
      name: '2xv5p-16',
      resources: [{name: 'google.com/tpu', nominalQuota: 16}],
    })
    const configMap = (name: string) =>
      (kube.get({apiVersion: 'v1', kind: 'ConfigMap', name, namespace: 'default'}) as {data: unknown}).data
    expect(configMap('ct-resources-configmap')).toEqual({'v5p-16': '4'})
    expect(configMap('ct-metadata-configmap')).toMatchObject({capacity_type: 'SPOT'})
    expect(gke.cluster(PROJECT, 'us-central2', 'ct')?.nodePools?.map((p) => p.name)).toEqual([
      'ct-v5p-a',
      'ct-v5p-b',
      'default-pool',
    ])

    const again = markRequests(fakes())
    const second = await adapt('--json')
    expect(second.code, second.stderr).toBe(0)
    expect(mutationsSince(fakes(), again)).toEqual([])
    expect(JSON.parse(second.stdout)).toMatchObject({
      applied: true,
      outcomes: [],
      found: {accelerator: 'v5p-16', slicesFound: 2, vmsFound: 4},
    })
  })

  it('several accelerator types without --tpu-type: exit 2 naming what it found, nothing sent', async () => {
    seedToolkitCluster(gke, PROJECT, 'ct')
    gke.seedNodePool(PROJECT, 'us-central2', 'ct', {
      name: 'gpus',
      initialNodeCount: 1,
      config: {
        machineType: 'a3-highgpu-8g',
        accelerators: [{acceleratorType: 'nvidia-h100-80gb', acceleratorCount: '8'}],
      },
    })
    const mark = markRequests(fakes())
    const refused = await adapt('--force')
    expect(refused.code, refused.stderr).toBe(2)
    expect(refused.stderr).toContain('Cluster ct has v5p-16 (2 pools), h100-80gb-8 (1 pool)')
    expect(refused.stderr).toContain('--tpu-type')
    expect(mutationsSince(fakes(), mark)).toEqual([])
  })

  it('a cluster that does not exist: exit 4, nothing sent', async () => {
    const mark = markRequests(fakes())
    const missing = await adapt('--force')
    expect(missing.code, missing.stderr).toBe(4)
    expect(mutationsSince(fakes(), mark)).toEqual([])
  })
})
