// The rules and plan of `storage create` (core/storage/create-plan.ts): where each tier puts the instance, the flags
// checked (defaults, units, --manifest with --vol), and the instance steps for an instance absent, READY as asked,
// CREATING, differing or in another state.
import {describe, expect, it} from 'vitest'

import {XpkError} from '../../../src/core/errors.js'
import type {FilestoreInstance} from '../../../src/core/storage/backends.js'
import {
  createRequestFromFlags,
  filestoreLocation,
  planStorageCreate,
  type CreateFlags,
  type CreatePlanInputs,
} from '../../../src/core/storage/create-plan.js'

function thrown(run: () => unknown): XpkError {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(XpkError)
    return error as XpkError
  }
  throw new Error('nothing was thrown')
}

const FLAGS: CreateFlags = {
  ...{name: 'home', type: 'gcpfilestore', autoMount: 'true', mountPoint: '/home', readonly: 'false'},
  size: '1024',
}

describe('filestoreLocation', () => {
  it.each([
    ['BASIC_HDD', 'us-central1-a'],
    ['BASIC_SSD', 'us-central1-a'],
    ['ZONAL', 'us-central1-a'],
    ['REGIONAL', 'us-central1'],
    ['ENTERPRISE', 'us-central1'],
  ] as const)('%s lives in %s', (tier, location) => {
    expect(filestoreLocation(tier, 'us-central1-a')).toBe(location)
  })
})

describe('createRequestFromFlags', () => {
  it("takes Python xpk's defaults: tier REGIONAL, instance NAME, share default", () => {
    expect(createRequestFromFlags(FLAGS)).toMatchObject({
      instance: 'home',
      tier: 'REGIONAL',
      capacityGb: 1024,
      vol: 'default',
      attach: {name: 'home', source: {kind: 'gcpfilestore', instance: 'home', vol: 'default'}},
    })
  })

  it('reads a size with a unit and a tier in any case', () => {
    expect(createRequestFromFlags({...FLAGS, size: '3T', tier: 'basic_ssd'})).toMatchObject({
      tier: 'BASIC_SSD',
      capacityGb: 3072,
    })
  })

  it('with --manifest, --vol names only the share the instance is made with', () => {
    const request = createRequestFromFlags({...FLAGS, manifest: 'fs.yaml', vol: 'share1', instance: 'fs-1'})
    expect(request).toMatchObject({instance: 'fs-1', vol: 'share1', attach: {source: {kind: 'manifest'}}})
  })

  it('reports every problem at once, each naming its flag', () => {
    const error = thrown(() => createRequestFromFlags({...FLAGS, type: 'pd', size: '10', tier: 'ZONAL', vol: 'a-b'}))
    expect(error.exitCode).toBe(2)
    for (const flag of ['--type', '--size', '--vol']) expect(error.message).toContain(flag)
  })
})

const READY: FilestoreInstance = {
  id: 'home',
  location: 'us-central1',
  tier: 'REGIONAL',
  state: 'READY',
  network: 'default',
  ipAddress: '10.0.0.2',
  fileShares: [{name: 'default', capacityGb: 1024}],
  labels: {},
}

const inputs = (existing: FilestoreInstance | undefined): CreatePlanInputs => ({
  request: createRequestFromFlags(FLAGS),
  project: 'p',
  cluster: 'demo',
  location: 'us-central1',
  network: 'vpc-1',
  existing,
  attach: (instance) => ({
    storage: 'home',
    cluster: 'demo',
    steps: [
      {action: 'check', resource: 'filestoreInstance', name: instance.id, reason: '', spec: null},
      {action: 'create', resource: 'persistentVolume', name: 'home-pv', reason: instance.ipAddress ?? '', spec: null},
    ],
    warnings: [],
  }),
})

describe('planStorageCreate', () => {
  it('absent: create on the cluster network and wait, then the attach steps (its instance check left out)', () => {
    const plan = planStorageCreate(inputs(undefined))
    expect(plan.steps.map((s) => `${s.action} ${s.resource}`)).toEqual([
      'create filestoreInstance',
      'wait filestoreInstance',
      'create persistentVolume',
    ])
    expect(plan.steps[0]!.spec).toMatchObject({
      project: 'p',
      location: 'us-central1',
      id: 'home',
      request: {tier: 'REGIONAL', network: 'vpc-1', fileShare: {name: 'default', capacityGb: 1024}},
    })
    expect(plan.steps[2]!.reason).toBe('<the address Filestore gives the instance>')
  })

  it('READY as asked: none, attached with its address; CREATING: wait', () => {
    const ready = planStorageCreate(inputs(READY))
    expect(ready.steps.map((s) => s.action)).toEqual(['none', 'create'])
    expect(ready.steps[1]!.reason).toBe('10.0.0.2')
    const creating = planStorageCreate(inputs({...READY, state: 'CREATING', ipAddress: null}))
    expect(creating.steps.map((s) => s.action)).toEqual(['wait', 'create'])
  })

  it.each([
    [{tier: 'ZONAL'} as const, 'tier ZONAL, not REGIONAL'],
    [{fileShares: [{name: 'other', capacityGb: 1024}]}, 'file share other, not default'],
    [{fileShares: [{name: 'default', capacityGb: 2048}]}, 'capacity 2048 GiB, not 1024 GiB'],
    [{state: 'ERROR'} as const, 'is ERROR'],
  ])('an instance that differs (%j) is exit 6: %s', (change, text) => {
    const error = thrown(() => planStorageCreate(inputs({...READY, ...change})))
    expect(error.exitCode).toBe(6)
    expect(error.message).toContain(text)
  })
})
