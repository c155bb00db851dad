// `cluster create --enable-autoprovisioning` through the built CLI against the GKE wire fake: node auto-provisioning
// in the CreateCluster request of a new cluster, one UpdateCluster for an existing one, nothing on a re-run; a type
// it does not apply to is refused before any request that changes anything.
import {describe, expect, it} from 'vitest'

import {FakeGke} from '../fakes/fake-gke.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
import {markRequests, mutationsSince} from '../helpers/mutations.js'
import {fakesForFile} from '../helpers/wire-fakes.js'

const PROJECT = 'e2e-project'
const ZONE = 'us-central2-b'
const REGION = 'us-central2'

let fake: FakeGke
const env = () => isolatedEnv({XPK_GKE_ENDPOINT: `http://${fake.endpoint}`})
const create = (cluster: string, ...extra: string[]) =>
  runCli(
    [
      'cluster',
      'create',
      '--project',
      PROJECT,
      '--zone',
      ZONE,
      '--cluster',
      cluster,
      '--skip-in-cluster',
      ...(extra.includes('--device-type') ? [] : ['--tpu-type', 'tpu7x-8']),
      '--on-demand',
      ...extra,
    ],
    {env: env()},
  )
const NAP = ['--enable-autoprovisioning', '--autoprovisioning-max-chips', '16']
const updates = () => fake.calls.filter((c) => c.method === 'UpdateCluster')

fakesForFile(async (fakes) => {
  fake = fakes.add(await FakeGke.start({operationMs: 30}))
})

describe('cluster create --enable-autoprovisioning against the GKE API', () => {
  it('sends node auto-provisioning with a new cluster, and nothing on a re-run', async () => {
    const first = await create('nap-new', ...NAP)
    expect(first.stderr).toContain('created the cluster')
    expect(first.code).toBe(0)
    const autoscaling = fake.cluster(PROJECT, REGION, 'nap-new')!.autoscaling!
    expect(autoscaling.enableNodeAutoprovisioning).toBe(true)
    expect(autoscaling.autoscalingProfile).toBe('OPTIMIZE_UTILIZATION')
    expect(autoscaling.autoprovisioningLocations).toEqual([ZONE])
    expect(autoscaling.resourceLimits?.map((l) => [l.resourceType, String(l.minimum), String(l.maximum)])).toEqual([
      ['cpu', '1', '1000000'],
      ['memory', '1', '10000000'],
      ['tpu7x', '0', '16'],
    ])
    // As Python xpk: --num-slices (1) fixed pools beside it.
    expect(fake.nodePools(PROJECT, REGION, 'nap-new').map((p) => p.name)).toContain('nap-new-np-0')

    const again = await create('nap-new', ...NAP, '--dry-run', '--json')
    expect(again.code).toBe(0)
    const plan = JSON.parse(again.stdout) as {steps: {resource: string; action: string}[]}
    expect(plan.steps.filter((s) => s.resource === 'clusterUpdate').map((s) => s.action)).toEqual(['none'])
    expect(updates()).toEqual([])
  })

  it('enables it on an existing cluster with one UpdateCluster, then leaves it', async () => {
    expect((await create('nap-later')).code).toBe(0)
    expect(fake.cluster(PROJECT, REGION, 'nap-later')!.autoscaling?.enableNodeAutoprovisioning).toBeFalsy()
    const enabled = await create('nap-later', ...NAP, '--force')
    expect(enabled.code).toBe(0)
    // One change, sent again only while GKE refused it (the lock's SetLabels operation still running).
    const kinds = updates().map((c) => Object.keys(c.request.update as object).join())
    expect(kinds.length).toBeGreaterThan(0)
    expect(new Set(kinds)).toEqual(new Set(['desiredClusterAutoscaling']))
    expect(fake.cluster(PROJECT, REGION, 'nap-later')!.autoscaling?.enableNodeAutoprovisioning).toBe(true)

    const mark = markRequests({gke: fake})
    const rerun = await create('nap-later', ...NAP)
    expect(rerun.code).toBe(0)
    expect(mutationsSince({gke: fake}, mark)).toEqual([])
  })

  it.each([
    ['a GPU type', ['--enable-autoprovisioning', '--device-type', 'h100-80gb-8'], '--enable-autoprovisioning'],
    ['a maximum not above the minimum', [...NAP, '--autoprovisioning-min-chips', '16'], '--autoprovisioning-max-chips'],
    ['an unknown host maintenance interval', ['--host-maintenance-interval', 'WEEKLY'], '--host-maintenance-interval'],
    ['an unmapped cluster flag', ['--custom-cluster-arguments', '--enable-tpu'], '--custom-cluster-arguments'],
  ])('refuses %s (exit 2, naming the flag) and changes nothing', async (_case, extra, flag) => {
    const mark = markRequests({gke: fake})
    const result = await create('nap-refused', ...extra)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(flag)
    expect(mutationsSince({gke: fake}, mark)).toEqual([])
  })
})
