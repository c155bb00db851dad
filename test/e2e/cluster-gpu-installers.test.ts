// `cluster create` of GPU types that need GPUDirect's DaemonSets, end to end: the GKE fake hands out the Kubernetes
// fake, the Compute fake holds the GPU networks, and the installers' manifests come from files (the flags an
// air-gapped cluster uses), stand-ins shaped like Google's (test/fakes/memory-installer-manifests.ts): the
// Kubernetes fake validates the DaemonSets as it does any, and reports them ready after the rollout time.
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {beforeEach, describe, expect, it} from 'vitest'

import type {ReleaseComponent} from '../../src/core/kube/release-manifest.js'
import {toYamlDocuments} from '../../src/core/manifests/to-yaml.js'
import {crd, NETWORK_PARAM_SET_CRD} from '../builders/workload-cluster.js'
import {FakeCompute} from '../fakes/fake-compute.js'
import type {FakeGke} from '../fakes/fake-gke.js'
import type {FakeKube} from '../fakes/fake-kube.js'
import {installerObjects} from '../fakes/memory-installer-manifests.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
import {markRequests, mutationsSince} from '../helpers/mutations.js'
import {writeReleaseManifest} from '../helpers/release-files.js'
import {tempDir} from '../helpers/temp.js'
import {fakesForFile, startKubeAndGke} from '../helpers/wire-fakes.js'

const PROJECT = 'e2e-project'
const ZONE = 'us-central2-b'

let gke: FakeGke
let kube: FakeKube
let compute: FakeCompute
const files: Partial<Record<ReleaseComponent | 'tcpxo' | 'rdma' | 'nri' | 'not-an-installer', string>> = {}

const env = () =>
  isolatedEnv({
    XPK_GKE_ENDPOINT: `http://${gke.endpoint}`,
    XPK_COMPUTE_ENDPOINT: compute.endpoint,
    XPK_ACCESS_TOKEN: kube.token,
    XPK_POLL_INTERVAL_MS: '20',
    XPK_RETRY_INTERVAL_MS: '20',
    XPK_CONTROLLER_TIMEOUT_S: '3',
  })
const create = (type: string, cluster: string, ...extra: string[]) =>
  runCli(
    [
      ...['cluster', 'create', '--project', PROJECT, '--zone', ZONE, '--cluster', cluster],
      ...['--device-type', type, '--num-nodes', '2', '--spot', '--force'],
      ...['--jobset-manifest', files.jobset!, '--kueue-manifest', files.kueue!],
      ...extra,
    ],
    {env: env()},
  )
const daemonSet = (name: string) =>
  kube.get({apiVersion: 'apps/v1', kind: 'DaemonSet', namespace: 'kube-system', name}) as
    | {metadata: {managedFields?: {manager: string}[]}; spec: {template: {spec: {initContainers: {image: string}[]}}}}
    | undefined

fakesForFile(async (fakes) => {
  compute = fakes.add(await FakeCompute.start({operationMs: 20}))
  ;({kube, gke} = await startKubeAndGke(fakes, {
    kube: {rolloutMs: 30},
    gke: {
      operationMs: 20,
      subnetworkExists: (project, region, network, subnetwork) =>
        compute
          .subnetworks()
          .some(
            (s) =>
              s.name === subnetwork &&
              s.network.endsWith(`/projects/${project}/global/networks/${network}`) &&
              s.region.endsWith(`/regions/${region}`),
          ),
    },
  }))
  const dir = tempDir('xpk-installers-')
  files.jobset = writeReleaseManifest('jobset', dir)
  files.kueue = writeReleaseManifest('kueue', dir)
  const write = (name: string, objects: readonly unknown[]) => {
    const file = join(dir, `${name}.yaml`)
    writeFileSync(file, toYamlDocuments(objects as never))
    return file
  }
  files.tcpxo = write('tcpxo', installerObjects('nccl-tcpxo'))
  files.rdma = write('rdma', installerObjects('nccl-rdma'))
  files.nri = write('nri', installerObjects('nri-device-injector'))
  files['not-an-installer'] = write('not-an-installer', [
    {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'x', namespace: 'default'}, data: {}},
  ])
})

// GKE multi-networking's kinds, which the GPU networks' in-cluster objects are (after the fakes' reset).
beforeEach(() => {
  kube.seed(NETWORK_PARAM_SET_CRD, crd('networking.gke.io', 'Network', 'networks', 'v1', 'Cluster'))
})

describe('cluster create: the GPUDirect installers', () => {
  it('A3 Mega: applies the TCPXO installer and the NRI device injector, waits for them; a re-run writes nothing', async () => {
    const first = await create(
      'h100-mega-80gb-8',
      'mega',
      ...['--nccl-installer-manifest', files.tcpxo!, '--nri-device-injector-manifest', files.nri!],
    )
    expect(first.code, first.stderr).toBe(0)
    expect(first.stderr).toContain('NCCL TCPXO installer')
    expect(first.stderr).toContain('NRI device injector')
    for (const name of ['nccl-tcpxo-installer', 'device-injector']) {
      expect(
        daemonSet(name)?.metadata.managedFields?.map((f) => f.manager),
        name,
      ).toContain('xpk')
    }
    const mark = markRequests({kube, compute})
    const again = await create(
      'h100-mega-80gb-8',
      'mega',
      ...['--nccl-installer-manifest', files.tcpxo!, '--nri-device-injector-manifest', files.nri!],
    )
    expect(again.code, again.stderr).toBe(0)
    // GKE gets only the cluster lock's label updates (taken and released), as every run that changes nothing.
    expect(mutationsSince({kube, compute}, mark)).toEqual([])
    expect(again.stderr).toContain('= unchanged: the NCCL TCPXO installer, ready on every node')
    expect(again.stderr).toContain('= unchanged: the NRI device injector, ready on every node')
  })

  it('A3 Ultra: --dry-run --json shows the RDMA installer step and applies nothing', async () => {
    const mark = markRequests({kube, gke, compute})
    const plan = await create('h200-141gb-8', 'ultra', '--dry-run', '--json', '--nccl-installer-manifest', files.rdma!)
    expect(plan.code, plan.stderr).toBe(0)
    const steps = (JSON.parse(plan.stdout) as {inCluster: {steps: {kind: string; installer?: string}[]}}).inCluster
      .steps
    expect(steps.filter((s) => s.kind === 'gpu-installer').map((s) => s.installer)).toEqual(['nccl-rdma'])
    expect(mutationsSince({kube, gke, compute}, mark)).toEqual([])
  })

  it.each([
    [
      'a manifest with no DaemonSet',
      'h200-141gb-8',
      ['--nccl-installer-manifest', 'not-an-installer'],
      /has no DaemonSet/,
    ],
    [
      'a missing file',
      'h200-141gb-8',
      ['--nccl-installer-manifest', '/nonexistent/x.yaml'],
      /--nccl-installer-manifest/,
    ],
    [
      'the NRI flag for a type without it',
      'h200-141gb-8',
      ['--nri-device-injector-manifest', 'nri'],
      /get no NRI device injector/,
    ],
    [
      'the NCCL flag for a TPU-less GPU type',
      'a100-40gb-8',
      ['--nccl-installer-manifest', 'rdma'],
      /get no NCCL installer/,
    ],
  ])('refuses %s with exit 2 before any change', async (_label, type, [flag, value], message) => {
    const mark = markRequests({kube, gke, compute})
    const path = files[value as keyof typeof files] ?? value
    const result = await create(type, 'refused', flag, path)
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toMatch(message)
    expect(mutationsSince({kube, gke, compute}, mark)).toEqual([])
  })
})
