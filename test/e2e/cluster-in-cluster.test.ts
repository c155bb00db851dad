// `xpk cluster create` end to end with its in-cluster half: the GKE fake hands out the Kubernetes fake's endpoint
// and CA, as GKE does for a real cluster, and the unmodified client-node client talks HTTPS to it. The release
// manifests come from files (--jobset-manifest / --kueue-manifest, as on an air-gapped cluster); they carry the
// real JobSet and Kueue CRDs when the tests can find them, so the fake validates every Kueue object xpk applies
// against the real schemas.
import {describe, expect, it} from 'vitest'

import type {ReleaseComponent} from '../../src/core/kube/release-manifest.js'
import {FakeGke, gkeErrors} from '../fakes/fake-gke.js'
import {FakeKube} from '../fakes/fake-kube.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
import {writeReleaseManifest} from '../helpers/release-files.js'
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
    XPK_CONTROLLER_TIMEOUT_S: '3',
  })
const create = (slices: number, ...extra: string[]) =>
  runCli(
    [
      ...['cluster', 'create', '--project', PROJECT, '--zone', ZONE, '--cluster', 'demo'],
      ...['--tpu-type', 'v5p-16', '--num-slices', String(slices), '--spot', '--force'],
      ...['--jobset-manifest', manifests.jobset!, '--kueue-manifest', manifests.kueue!],
      ...extra,
    ],
    {env: env()},
  )

const wire = fakesForFile(async (fakes) => {
  ;({kube, gke} = await startKubeAndGke(fakes, {kube: {rolloutMs: 30}, gke: {operationMs: 20}}))
  manifests.jobset = writeReleaseManifest('jobset', tempDir('xpk-release-'))
  manifests.kueue = writeReleaseManifest('kueue', tempDir('xpk-release-'))
})

describe('cluster create: inside the cluster', () => {
  it('installs JobSet and Kueue, sizes them, and leaves queues, quota, priorities and ConfigMaps; a re-run sends no mutating request', async () => {
    const first = await create(2)
    expect(first.code, first.stderr).toBe(0)
    expect(first.stderr).toContain('installed JobSet')
    expect(first.stderr).toContain('installed Kueue')

    const get = (apiVersion: string, kind: string, name: string, namespace?: string) =>
      kube.get({apiVersion, kind, name, namespace})
    const queue = get('kueue.x-k8s.io/v1beta2', 'ClusterQueue', 'cluster-queue') as {
      spec: {resourceGroups: {flavors: {name: string; resources: {name: string; nominalQuota: unknown}[]}[]}[]}
    }
    // 2 slices of v5p-16: 2 VMs of 4 chips each per slice.
    expect(queue.spec.resourceGroups[0].flavors[0]).toMatchObject({
      name: '2xv5p-16',
      resources: [{name: 'google.com/tpu', nominalQuota: 16}],
    })
    expect(get('kueue.x-k8s.io/v1beta2', 'LocalQueue', 'multislice-queue', 'default')).toBeDefined()
    for (const name of ['very-low', 'low', 'medium', 'high', 'very-high']) {
      expect(get('scheduling.k8s.io/v1', 'PriorityClass', name), name).toBeDefined()
    }
    const resources = get('v1', 'ConfigMap', 'demo-resources-configmap', 'default') as {data: Record<string, string>}
    expect(resources.data).toEqual({'v5p-16': '4'})
    const jobset = get('apps/v1', 'Deployment', 'jobset-controller-manager', 'jobset-system') as {
      metadata: {managedFields: {manager: string}[]}
      spec: {template: {spec: {containers: {name: string; resources: {limits: Record<string, string>}}[]}}}
    }
    expect(jobset.spec.template.spec.containers.find((c) => c.name === 'manager')?.resources.limits.memory).toBe(
      '4096Mi',
    )
    expect(jobset.metadata.managedFields.map((f) => f.manager)).toContain('xpk')

    kube.requests.length = 0
    const again = await create(2)
    expect(again.code, again.stderr).toBe(0)
    expect(kube.mutatingRequests()).toEqual([])
  })

  it('growing 2 -> 4 slices updates the quota in place, and --dry-run shows it without changing anything', async () => {
    expect((await create(2)).code).toBe(0)
    kube.requests.length = 0
    const plan = await create(4, '--dry-run')
    expect(plan.code, plan.stderr).toBe(0)
    expect(plan.stdout).toContain('update ClusterQueue cluster-queue: quota 16 -> 32')
    expect(kube.mutatingRequests()).toEqual([])

    const grown = await create(4)
    expect(grown.code, grown.stderr).toBe(0)
    const queue = kube.get({apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ClusterQueue', name: 'cluster-queue'}) as {
      spec: {resourceGroups: {flavors: {resources: {nominalQuota: unknown}[]}[]}[]}
    }
    expect(queue.spec.resourceGroups[0].flavors[0].resources[0].nominalQuota).toBe(32)
    // The flavor of 2 slices goes once the queue names the one of 4.
    expect(plan.stdout).toContain('delete ResourceFlavor 2xv5p-16: left by an earlier size of the cluster')
    expect(
      kube.list('kueue.x-k8s.io/v1beta2', 'ResourceFlavor').map((f) => (f.metadata as {name: string}).name),
    ).toEqual(['4xv5p-16'])
  })

  it('a grow 2 -> 4 whose new pools meet a stockout exits 5 with the quota and ConfigMap of the 2 RUNNING pools', async () => {
    expect((await create(2)).code).toBe(0)
    const stockout = (pool: string) =>
      gke.failOperations({type: 'CREATE_NODE_POOL', match: (t) => t.nodePool === pool, ...gkeErrors.stockout()})
    stockout('demo-np-2')
    stockout('demo-np-3')
    const queue = () =>
      kube.get({apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'ClusterQueue', name: 'cluster-queue'}) as {
        spec: {resourceGroups: {flavors: {name: string; resources: {nominalQuota: unknown}[]}[]}[]}
      }
    const flavors = () =>
      kube.list('kueue.x-k8s.io/v1beta2', 'ResourceFlavor').map((f) => (f.metadata as {name: string}).name)
    const vms = () =>
      (
        kube.get({apiVersion: 'v1', kind: 'ConfigMap', name: 'demo-resources-configmap', namespace: 'default'}) as {
          data: Record<string, string>
        }
      ).data

    const failed = await create(4)
    expect(failed.code, failed.stderr).toBe(5)
    expect(failed.stderr).toContain('created 0/2 node pools')
    // The plan shows the quota of 4 slices, applied only after the pool steps and for the pools RUNNING then: 2.
    expect(failed.stderr).toContain(
      'update ClusterQueue cluster-queue: quota 16 -> 32 (after the node-pool steps, for the pools RUNNING then)',
    )
    expect(queue().spec.resourceGroups[0]!.flavors[0]).toMatchObject({
      name: '2xv5p-16',
      resources: [{nominalQuota: 16}],
    })
    expect(flavors()).toEqual(['2xv5p-16'])
    expect(vms()).toEqual({'v5p-16': '4'})

    // The capacity is back: the re-run recreates the two pools, and the quota follows them.
    const retried = await create(4)
    expect(retried.code, retried.stderr).toBe(0)
    expect(queue().spec.resourceGroups[0]!.flavors[0]).toMatchObject({
      name: '4xv5p-16',
      resources: [{nominalQuota: 32}],
    })
    expect(flavors()).toEqual(['4xv5p-16'])
    expect(vms()).toEqual({'v5p-16': '8'})
  })

  it('--json on --dry-run includes the in-cluster steps and the objects they apply', async () => {
    const result = await create(2, '--dry-run', '--json')
    expect(result.code, result.stderr).toBe(0)
    const json = JSON.parse(result.stdout) as {inCluster: {fromLive: boolean; steps: {kind: string; reason: string}[]}}
    expect(json.inCluster.fromLive).toBe(false)
    expect(json.inCluster.steps.map((s) => s.reason)).toEqual(
      expect.arrayContaining([
        'install JobSet v0.10.1',
        'install Kueue v0.17.1',
        'create ClusterQueue cluster-queue (after the node-pool steps, for the pools RUNNING then)',
      ]),
    )
  })

  it('times out naming the Deployment and its conditions when a controller never becomes Available', async () => {
    await kube.stop()
    kube = wire.add(await FakeKube.start({rolloutMs: Infinity, token: kube.token}))
    const {clusterEndpoint, clusterCaCertificate} = kube.gkeClusterOptions()
    await gke.stop()
    gke = wire.add(await FakeGke.start({operationMs: 20, clusterEndpoint, clusterCaCertificate}))
    const result = await create(1)
    expect(result.code).toBe(124)
    expect(result.stderr).toMatch(
      /Deployment jobset-system\/jobset-controller-manager \(JobSet\) did not become Available within 3 s/,
    )
    expect(result.stderr).toContain('Skipped')
  })

  it('--skip-in-cluster changes only GKE', async () => {
    const result = await runCli(
      [
        ...['cluster', 'create', '--project', PROJECT, '--zone', ZONE, '--cluster', 'demo'],
        ...['--tpu-type', 'v5p-16', '--spot', '--skip-in-cluster'],
      ],
      {env: env()},
    )
    expect(result.code, result.stderr).toBe(0)
    expect(kube.requests).toEqual([])
  })
})

describe('cluster create: CoreDNS in place of kube-dns (the Kubernetes API fake takes its objects)', () => {
  it('installs CoreDNS, scales kube-dns down and waits; the dry run after shows no CoreDNS step', async () => {
    // A cluster of its own: the tests before may leave a Kubernetes API whose rollouts never end.
    await kube.stop()
    kube = wire.add(await FakeKube.start({rolloutMs: 30, token: kube.token}))
    const {clusterEndpoint, clusterCaCertificate} = kube.gkeClusterOptions()
    await gke.stop()
    gke = wire.add(await FakeGke.start({operationMs: 20, clusterEndpoint, clusterCaCertificate}))
    for (const name of ['kube-dns', 'kube-dns-autoscaler']) {
      kube.seed({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: {name, namespace: 'kube-system'},
        spec: {
          replicas: 2,
          selector: {matchLabels: {'k8s-app': name}},
          template: {metadata: {labels: {'k8s-app': name}}, spec: {containers: [{name, image: `${name}:1`}]}},
        },
      })
    }
    kube.seed({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {name: 'kube-dns', namespace: 'kube-system'},
      spec: {selector: {'k8s-app': 'kube-dns'}, clusterIP: '10.8.0.10', ports: [{port: 53, protocol: 'UDP'}]},
    })
    // The cluster exists (GKE's half only), so the plan reads kube-dns from the live cluster.
    const gkeHalf = await runCli(
      [
        ...['cluster', 'create', '--project', PROJECT, '--zone', ZONE, '--cluster', 'demo'],
        ...['--tpu-type', 'v5p-16', '--num-slices', '2', '--spot', '--force', '--skip-in-cluster'],
      ],
      {env: env()},
    )
    expect(gkeHalf.code, gkeHalf.stderr).toBe(0)
    const dry = await create(2, '--dry-run')
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toContain("+ install CoreDNS (6 replicas, kube-dns's IP 10.8.0.10)")
    const run = await create(2)
    expect(run.code, run.stderr).toBe(0)
    const deployment = (name: string) =>
      kube.get({apiVersion: 'apps/v1', kind: 'Deployment', name, namespace: 'kube-system'}) as {
        spec: {replicas: number}
      }
    expect(deployment('coredns').spec.replicas).toBe(6)
    expect(deployment('kube-dns').spec.replicas).toBe(0)
    expect(deployment('kube-dns-autoscaler').spec.replicas).toBe(0)
    const again = await create(2, '--dry-run')
    expect(again.stdout).not.toContain('CoreDNS')
  })
})
