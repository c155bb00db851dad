// `xpk info` and `xpk inspector` as a user runs them, over the wire fakes: GKE finds cluster demo, the Kubernetes
// fake holds JobSet and Kueue as installed, the queues with Kueue's status, a workload whose pod names a Secret. The
// wiring: the tables and --json of info; the inspector's file (its sections, in order, a golden of its structure),
// its path and links on stdout, no request for a Secret and no secret value in the file, nothing changed.
import {readFileSync, readdirSync} from 'node:fs'
import {join} from 'node:path'

import {beforeAll, describe, expect, it} from 'vitest'

import {localQueue} from '../builders/workload-cluster.js'
import {at, submittedJobSet} from '../builders/workload-states.js'
import type {FakeGke} from '../fakes/fake-gke.js'
import type {FakeKube, Obj} from '../fakes/fake-kube.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
import {poolNode, seedInstalledControllers, seedTpuClusterQueue} from '../helpers/cluster-inside.js'
import {expectGolden} from '../helpers/golden.js'
import {markRequests, mutationsSince} from '../helpers/mutations.js'
import {tempDir} from '../helpers/temp.js'
import {fakesForFile, startKubeAndGke} from '../helpers/wire-fakes.js'

const PROJECT = 'e2e-project'
const SECRET_VALUE = 'hf_wire-secret-value-never-written'
let gke: FakeGke
let kube: FakeKube

fakesForFile(
  async (wire) => {
    ;({kube, gke} = await startKubeAndGke(wire))
    gke.seedCluster({
      project: PROJECT,
      location: 'us-central2',
      name: 'demo',
      nodePools: [{name: 'demo-np-0', initialNodeCount: 1, config: {machineType: 'ct5p-hightpu-4t'}}],
    })
  },
  {reset: false},
)
beforeAll(() => {
  seedInstalledControllers(kube)
  seedTpuClusterQueue(kube, {flavor: '1xv5p-8', chips: 4, admitted: 1, pending: 0, reserving: 1, used: '4'})
  kube.seed(localQueue() as unknown as Obj, poolNode('gke-demo-np-0-a', 'demo-np-0'))
  kube.seed({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {name: 'hf', namespace: 'default'},
    stringData: {token: SECRET_VALUE},
  } as unknown as Obj)
  kube.seed(submittedJobSet('run-1', 'high', at(0)) as unknown as Obj)
  kube.seed({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'run-1-slice-job-0-0-x',
      namespace: 'default',
      labels: {'jobset.sigs.k8s.io/jobset-name': 'run-1'},
    },
    spec: {
      containers: [
        {
          name: 'jax-tpu',
          image: 'trainer',
          env: [{name: 'HF_TOKEN', valueFrom: {secretKeyRef: {name: 'hf', key: 'token'}}}],
        },
      ],
    },
  } as unknown as Obj)
})

const xpk = (args: string[], extra: Record<string, string> = {}) =>
  runCli([...args, '--project', PROJECT, '--zone', 'us-central2-b', '--cluster', 'demo'], {
    env: isolatedEnv({XPK_GKE_ENDPOINT: `http://${gke.endpoint}`, XPK_ACCESS_TOKEN: kube.token, ...extra}),
  })

describe('xpk info', () => {
  it("prints Python's tables, and the same as data with --json, changing nothing", async () => {
    const mark = markRequests({gke, kube})
    const text = await xpk(['info'])
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toContain(
      'Local Queues usage\nQUEUE              ADMITTED_WORKLOADS   PENDING_WORKLOADS   1xv5p-8:google.com/tpu\n',
    )
    expect(text.stdout).toContain(
      'Cluster Queues usage\nQUEUE           ADMITTED_WORKLOADS   PENDING_WORKLOADS   1xv5p-8:google.com/tpu\ncluster-queue   1                    0                   4/4',
    )
    const json = JSON.parse((await xpk(['info', '--clusterqueue', '--json'])).stdout)
    expect(json).toMatchObject({
      localQueues: null,
      clusterQueues: [{name: 'cluster-queue', usage: [{reserved: '4', nominalQuota: '4'}]}],
    })
    expect(mutationsSince({gke, kube}, mark)).toEqual([])
  })

  it('--clusterqueue with --localqueue: exit 2, nothing sent', async () => {
    const mark = markRequests({gke, kube})
    const result = await xpk(['info', '--clusterqueue', '--localqueue'])
    expect(result.code).toBe(2)
    expect(markRequests({gke, kube})).toEqual(mark)
  })
})

describe('xpk inspector', () => {
  it('writes its file in TMPDIR, prints the links and the path; no Secret read, no secret value written', async () => {
    const dir = tempDir('xpk-inspector-')
    const mark = markRequests({gke, kube})
    const before = kube.requests.length
    const result = await xpk(['inspector', '--workload', 'run-1'], {TMPDIR: dir})
    expect(result.code, result.stderr).toBe(0)
    const [file] = readdirSync(dir)
    expect(file).toMatch(/^xpk-inspector-demo-\d{8}T\d{6}Z\.txt$/)
    const lines = result.stdout.trimEnd().split('\n')
    expect(lines.at(-1)).toBe(`Find xpk inspector output file: ${join(dir, file!)}`)
    expect(lines[0]).toBe(
      'Cloud Console for the GKE Cluster: https://console.cloud.google.com/kubernetes/clusters/details/us-central2/demo/details?project=e2e-project',
    )
    const text = readFileSync(join(dir, file!), 'utf8')
    expect(text).not.toContain(SECRET_VALUE)
    expect(text).not.toContain(Buffer.from(SECRET_VALUE).toString('base64'))
    expect(kube.requests.slice(before).filter((r) => /\/secrets\b/.test(r.path))).toEqual([])
    expect(mutationsSince({gke, kube}, mark)).toEqual([])
    // The file's structure, its stable parts: where each section was read, and what it is.
    const structure = text
      .split('\n')
      .filter((l) => /^(Source|Description|Link Description): /.test(l))
      .join('\n')
    expectGolden('inspector/structure.txt', `${structure}\n`)
  })
})
