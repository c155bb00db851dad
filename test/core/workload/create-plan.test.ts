// The plan of `workload create` from what was read: the steps in the order they are applied, each with its reason and
// the value sent (the image reference, the JobSet read and deleted, the RBAC objects, the JobSet).
import {describe, expect, it} from 'vitest'

import {
  desiredRbac,
  planWorkloadCreate,
  rbacChanges,
  renderWorkloadPlan,
  type WorkloadPlanInputs,
} from '../../../src/core/workload/create-plan.js'
import type {KubeObject} from '../../../src/core/kube/release-manifest.js'
import {MOUNTED} from '../../builders/storage.js'
import {aWorkloadSpec} from '../../builders/workload-spec.js'

const IMAGE = 'us-docker.pkg.dev/p/r/trainer@sha256:' + 'a'.repeat(64)

function inputs(patch: Partial<WorkloadPlanInputs> = {}): WorkloadPlanInputs {
  const {image: _image, ...spec} = aWorkloadSpec({type: 'v5p-16', numSlices: 2, name: 'run-1', cluster: 'demo'})
  return {
    input: {...spec, storages: [], capacity: null},
    cluster: {
      read: true,
      capacity: {kind: 'fits', deviceType: 'v5p-16', vmsNeeded: 4, vmsAvailable: 8},
      olderKueue: false,
      queueInactive: false,
      autoprovisioning: null,
    },
    image: {source: 'given', reference: IMAGE},
    replaces: null,
    nameTaken: false,
    rbac: {read: 'in-place'},
    gpuNetworks: null,
    goneTimeoutMs: 600_000,
    storages: {read: true, mounts: []},
    ...patch,
  }
}

const lines = (plan: ReturnType<typeof planWorkloadCreate>) =>
  plan.steps.map((s) => `${s.action} ${s.resource} ${s.name}`)

describe('planWorkloadCreate', () => {
  it('a steady-state submit: the cluster checked, the image as given, RBAC in place, the JobSet created', () => {
    const plan = planWorkloadCreate(inputs())
    expect(lines(plan)).toEqual([
      'check cluster demo',
      'none image trainer',
      'none role pod-reader',
      'none roleBinding default-pod-reader-binding',
      'none roleBinding xpk-sa-pod-reader-binding',
      'none serviceAccount xpk-sa',
      'create jobSet default/run-1',
    ])
    expect(plan.steps[0]!.reason).toBe(
      "room for it: 4 of the cluster's 8 VMs of v5p-16; set up: JobSet served, LocalQueue multislice-queue, PriorityClass medium",
    )
    const jobSet = plan.steps.at(-1)!
    expect(jobSet.reason).toBe('2 slices of v5p-16 (4 VMs), priority medium, queue multislice-queue')
    expect(JSON.stringify(jobSet.spec)).toContain(IMAGE)
    expect(rbacChanges(plan).map((r) => r.change)).toEqual(['none', 'none', 'none', 'none'])
  })

  it('--replace: deletes the JobSet read (its uid the precondition) and waits before anything else is sent', () => {
    const replaces = {namespace: 'default', name: 'run-1', uid: 'u-1', created: '2026-01-01T00:00:00Z'}
    const plan = planWorkloadCreate(inputs({replaces}))
    expect(lines(plan).slice(2, 4)).toEqual(['delete jobSet default/run-1', 'wait jobSet default/run-1'])
    expect(plan.steps[2]!.spec).toEqual(replaces)
    expect(plan.steps[3]!.spec).toEqual({timeoutSeconds: 600})
  })

  it('RBAC read live: missing ones created, different ones updated, the ServiceAccount last', () => {
    const [account, role, ...bindings] = desiredRbac()
    const changedRole = {...role, rules: []} as unknown as KubeObject
    const live = [undefined, changedRole, bindings[0] as unknown as KubeObject, undefined]
    const plan = planWorkloadCreate(inputs({rbac: {read: 'live', live}}))
    expect(
      plan.steps
        .filter((s) => s.resource !== 'jobSet')
        .slice(2)
        .map((s) => `${s.action} ${s.name}`),
    ).toEqual([
      'update pod-reader',
      'none default-pod-reader-binding',
      'create xpk-sa-pod-reader-binding',
      'create xpk-sa',
    ])
    expect(plan.steps.find((s) => s.name === 'xpk-sa')!.spec).toEqual(account)
    expect(plan.steps.find((s) => s.name === 'default-pod-reader-binding')!.spec).toBeNull()
    // As the result lists them: the ServiceAccount first.
    expect(rbacChanges(plan).map((r) => `${r.kind} ${r.change}`)).toEqual([
      'ServiceAccount create',
      'Role update',
      'RoleBinding none',
      'RoleBinding create',
    ])
  })

  it('offline: the cluster and RBAC not read, the image tag computed but the registry not asked', () => {
    const plan = planWorkloadCreate(
      inputs({
        cluster: {read: false, why: 'offline'},
        rbac: {read: 'no'},
        image: {
          source: 'built',
          reference: 'gcr.io/p/jax-tpu:ctx-0123',
          repository: 'gcr.io/p/jax-tpu',
          tag: 'ctx-0123',
          action: 'offline',
          baseImage: 'python:3.10',
          platform: 'linux/amd64',
          scriptDir: '/src',
          contextFiles: 3,
        },
      }),
    )
    expect(plan.steps[0]!.reason).toMatch(/^not read \(--offline\)/)
    expect(plan.steps[1]).toMatchObject({
      action: 'build',
      name: 'jax-tpu',
      spec: {reference: 'gcr.io/p/jax-tpu:ctx-0123'},
    })
    expect(plan.steps[1]!.reason).toBe(
      'gcr.io/p/jax-tpu:ctx-0123 from /src (3 files) onto python:3.10 for linux/amd64, unless the registry has it (not asked: --offline)',
    )
    expect(plan.steps.filter((s) => s.action === 'apply')).toHaveLength(4)
    expect(plan.steps.at(-1)!.reason).toContain('its image by digest once pushed')
    expect(rbacChanges(plan)).toEqual([])
  })

  it('a taken name in a dry run: the create says a submit would be refused', () => {
    expect(planWorkloadCreate(inputs({nameTaken: true})).steps.at(-1)!.reason).toContain(
      'the name is taken, so a submit would be refused',
    )
  })

  it('renders one line per step and the summary; with a YAML writer, the RBAC objects sent under their lines', () => {
    const plan = planWorkloadCreate(inputs({rbac: {read: 'no'}}))
    const text = renderWorkloadPlan(plan)
    expect(text.split('\n')[0]).toBe('Plan for workload run-1 on cluster demo:')
    expect(text.split('\n').at(-1)).toBe('Summary: 1 to create, 4 to apply, 1 unchanged.')
    const verbose = renderWorkloadPlan(plan, (value) => `yaml of ${(value as {kind: string}).kind}\n`)
    expect(verbose).toMatch(
      / xpk-sa +not read \(--offline\): applied where missing or different\n {6}yaml of ServiceAccount\n/,
    )
  })

  it('storages: one check step each after the cluster, named on the JobSet step, mounted by its pods', () => {
    const plan = planWorkloadCreate(inputs({storages: {read: true, mounts: [MOUNTED.datasets, MOUNTED.home]}}))
    expect(lines(plan).slice(0, 4)).toEqual([
      'check cluster demo',
      'check storage datasets',
      'check storage home',
      'none image trainer',
    ])
    expect(plan.steps[2]!.reason).toBe('gcpfilestore, claim home-pvc mounted at /home/shared (auto-mount)')
    expect(plan.steps.at(-1)!.reason).toMatch(/, mounting datasets and home$/)
    expect(JSON.stringify(plan.steps.at(-1)!.spec)).toContain('"claimName":"home-pvc"')
    expect(renderWorkloadPlan(plan).split('\n')[2]).toMatch(/^ {2}= {3}check {4}storage +datasets +gcsfuse, claim/)
  })

  it('storages not read (--offline): a step for each named one says it is not mounted', () => {
    const plan = planWorkloadCreate(inputs({storages: {read: false, requested: ['datasets']}}))
    expect(plan.steps[1]).toEqual({
      action: 'check',
      resource: 'storage',
      name: 'datasets',
      reason: 'not read (--offline): not mounted in the JobSet shown',
      spec: null,
    })
    expect(JSON.stringify(plan.steps.at(-1)!.spec)).not.toContain('persistentVolumeClaim')
  })
})
