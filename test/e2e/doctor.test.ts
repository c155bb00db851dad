// `xpk doctor` through the built CLI against the wire fakes (GKE, Kubernetes, Compute Engine, Cloud Resource
// Manager, Service Usage): every check in one run, as a person reads it (a golden) and as data; a failing check is
// exit 1 with the report still printed; nothing it sends changes anything.
import {afterEach, describe, expect, it} from 'vitest'

import {ALL_PLANNED_PERMISSIONS, REQUIRED_APIS} from '../../src/core/doctor/requirements.js'
import {FakeCompute} from '../fakes/fake-compute.js'
import type {FakeGke} from '../fakes/fake-gke.js'
import type {FakeKube} from '../fakes/fake-kube.js'
import {FakeResourceManager} from '../fakes/fake-resource-manager.js'
import {FakeServiceUsage} from '../fakes/fake-service-usage.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
import {seedInstalledControllers} from '../helpers/cluster-inside.js'
import {expectGolden} from '../helpers/golden.js'
import {markRequests, mutationsSince} from '../helpers/mutations.js'
import {fakesForFile, seedDemoCluster, startKubeAndGke} from '../helpers/wire-fakes.js'

let gke: FakeGke
let kube: FakeKube
let compute: FakeCompute
let rm: FakeResourceManager
let su: FakeServiceUsage

fakesForFile(async (wire) => {
  ;({kube, gke} = await startKubeAndGke(wire))
  compute = wire.add(await FakeCompute.start())
  rm = wire.add(await FakeResourceManager.start())
  su = wire.add(await FakeServiceUsage.start())
})

function healthy(): void {
  seedDemoCluster(gke, 'my-project', 2)
  seedInstalledControllers(kube)
  rm.seedProject({projectId: 'my-project', projectNumber: '123456789012', granted: ALL_PLANNED_PERMISSIONS})
  su.seedProject(
    'my-project',
    REQUIRED_APIS.map((a) => a.service),
  )
  compute.seedRegionQuotas('my-project', 'us-central2', [{metric: 'TPU_PODSLICE_V5', limit: 64, usage: 16}])
}

const env = () =>
  isolatedEnv({
    XPK_GKE_ENDPOINT: `http://${gke.endpoint}`,
    XPK_COMPUTE_ENDPOINT: compute.endpoint,
    XPK_RESOURCE_MANAGER_ENDPOINT: rm.endpoint,
    XPK_SERVICE_USAGE_ENDPOINT: su.endpoint,
    XPK_ACCESS_TOKEN: kube.token,
    XPK_PROJECT: 'my-project',
    XPK_ZONE: 'us-central2-b',
    // No Docker engine here, whatever the machine has: the same answer everywhere.
    DOCKER_HOST: 'unix:///nonexistent/docker.sock',
  })

/** The run's text with what differs between machines (the Node.js version, the API server's port) made fixed. */
const steady = (text: string) =>
  text.replace(/Node\.js v\d+\.\d+\.\d+/g, 'Node.js vN').replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT')

let mark: ReturnType<typeof markRequests>
afterEach(() => {
  // Reads only: nothing GKE, Kubernetes or Compute Engine was asked changes anything, and Resource Manager got
  // only reads and testIamPermissions (a POST that changes nothing).
  expect(mutationsSince({gke, kube, compute}, mark)).toEqual([])
  expect(rm.mutatingCalls().every((c) => c.path.endsWith(':testIamPermissions'))).toBe(true)
})

describe('xpk doctor', () => {
  it('passes a healthy setup: one line per check, the Docker warning with its fix, exit 0', async () => {
    healthy()
    mark = markRequests({gke, kube, compute})
    const result = await runCli(['doctor', '--cluster', 'demo', '--tpu-type', 'v5p-8', '--num-slices', '2'], {
      env: env(),
    })
    expect(result.code, result.stderr).toBe(0)
    expectGolden('cli/doctor-healthy.txt', steady(result.stdout))
    // One round: each API was asked once.
    expect(rm.calls.map((c) => `${c.method} ${c.path}`).sort()).toEqual([
      'GET projects/my-project',
      'POST projects/my-project:testIamPermissions',
    ])
    expect(su.calls).toHaveLength(1)
  })

  it('fails a project without the APIs and permissions, hostile text escaped: exit 1, the report still printed', async () => {
    healthy()
    rm.reset()
    rm.seedProject({projectId: 'my-project', projectNumber: '123456789012', granted: []})
    su.reset()
    su.seedProject('my-project', ['compute.googleapis.com'])
    compute.faults.push({path: /regions\/us-central2$/, status: 403, message: 'denied \u001b[2J\tFAKE: ok'})
    mark = markRequests({gke, kube, compute})
    const args = ['doctor', '--tpu-type', 'v5p-8']
    const text = await runCli(args, {env: env()})
    expect(text.code).toBe(1)
    expect(text.stderr).toContain('Error: 3 of 8 checks failed: apis, permissions, quota.')
    expectGolden('cli/doctor-failing.txt', steady(text.stdout))
    compute.faults.push({path: /regions\/us-central2$/, status: 403, message: 'denied'})
    const json = await runCli([...args, '--json'], {env: env()})
    expect(json.code).toBe(1)
    const report = JSON.parse(json.stdout) as {checks: {name: string; status: string}[]; summary: object}
    expect(report.summary).toEqual({pass: 4, warn: 1, fail: 3})
    expect(report.checks.find((c) => c.name === 'quota')).toMatchObject({status: 'fail'})
  })

  it('refuses capacity flags without an accelerator before any request (exit 2)', async () => {
    mark = markRequests({gke, kube, compute})
    const result = await runCli(['doctor', '--num-slices', '2', '--reservation', 'r1'], {env: env()})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--num-slices asks about capacity for an accelerator: add --tpu-type')
    expect([...rm.calls, ...su.calls, ...compute.calls, ...gke.calls]).toEqual([])
  })
})
