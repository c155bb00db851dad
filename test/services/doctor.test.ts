// `xpk doctor` in process, over the in-memory fakes of every port it reads: a healthy setup passes every check in
// one round; each group's failure shows in its own check and nothing else; a check that takes too long fails alone
// at its time limit; reservations are checked by cluster create's own rules.
import {describe, expect, it} from 'vitest'

import {findAccelerator} from '../../src/core/catalog/lookup.js'
import type {Check, CredentialsFound} from '../../src/core/doctor/checks.js'
import {ALL_PLANNED_PERMISSIONS, REQUIRED_APIS} from '../../src/core/doctor/requirements.js'
import {XpkError} from '../../src/core/errors.js'
import {metadataConfigMapName} from '../../src/core/incluster/configmaps.js'
import {DEFAULT_TIMING} from '../../src/core/timing.js'
import type {KubeClient} from '../../src/ports/kube.js'
import type {RegistryCredential} from '../../src/ports/images.js'
import {runDoctor, type DoctorDeps, type DoctorOptions} from '../../src/services/doctor.js'
import {MemoryCompute} from '../fakes/memory-compute.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {MemoryKube} from '../fakes/memory-kube.js'
import {MemoryResourceManager, MemoryServiceUsage} from '../fakes/memory-project-apis.js'
import {releaseObjects} from '../fakes/memory-release-manifests.js'
import {virtualClock} from '../helpers/virtual-clock.js'

const PROJECT = 'test-project'
const v5p8 = findAccelerator('v5p-8')!

function healthyCluster(xpkVersion = 'v0.1.0'): MemoryKube {
  const kube = new MemoryKube()
  for (const [component, version] of [
    ['jobset', 'v0.10.1'],
    ['kueue', 'v0.17.1'],
  ] as const) {
    for (const o of releaseObjects(component, version)) kube.seed(o, {available: o.kind === 'Deployment'})
  }
  kube.seed({apiVersion: 'v1', kind: 'Namespace', metadata: {name: 'default'}})
  kube.seed({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {name: metadataConfigMapName('demo'), namespace: 'default'},
    data: {xpk_version: xpkVersion, capacity_type: 'SPOT'},
  })
  return kube
}

interface World {
  credentials?: CredentialsFound | Error
  rm?: MemoryResourceManager
  su?: MemoryServiceUsage
  compute?: MemoryCompute
  gke?: MemoryGke
  kube?: KubeClient | Error
  engine?: {version: string; where: string} | Error
  registry?: RegistryCredential | Error
  /** A real time limit on every check, in ms (virtual time sets none). */
  timeLimitMs?: number
}

function world(given: World = {}) {
  const rm = given.rm ?? new MemoryResourceManager().seedProject(PROJECT, ALL_PLANNED_PERMISSIONS)
  const su =
    given.su ??
    new MemoryServiceUsage().seedProject(
      PROJECT,
      REQUIRED_APIS.map((a) => a.service),
    )
  const compute =
    given.compute ??
    new MemoryCompute().seedRegionQuotas(PROJECT, 'us-central2', [{metric: 'TPU_PODSLICE_V5', limit: 64, usage: 0}])
  const gke = given.gke ?? new MemoryGke()
  const answer = async <T>(value: T | Error): Promise<T> => {
    if (value instanceof Error) throw value
    return value
  }
  const clock = virtualClock()
  const deps: DoctorDeps = {
    ...clock,
    ...(given.timeLimitMs === undefined
      ? {}
      : {
          timer: (ms: number, signal: AbortSignal) =>
            new Promise<void>((resolve, reject) => {
              const timer = setTimeout(resolve, ms)
              signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason as Error)), {
                once: true,
              })
            }),
        }),
    signal: new AbortController().signal,
    credentials: async () => ({
      inspect: () =>
        answer(given.credentials ?? {source: 'XPK_ACCESS_TOKEN', file: null, type: null, account: null, token: null}),
    }),
    resourceManager: async () => rm,
    serviceUsage: async () => su,
    compute: async () => compute,
    gke: async () => gke,
    kube: async () => answer(given.kube ?? healthyCluster()),
    engine: async () => ({version: () => answer(given.engine ?? {version: '27.1.1', where: '/var/run/docker.sock'})}),
    registryCredentials: async () => ({
      forRegistry: () =>
        answer(given.registry ?? {auth: {username: 'oauth2accesstoken', password: 't'}, source: 'XPK_ACCESS_TOKEN'}),
    }),
  }
  return {deps, rm, su, compute, gke}
}

const options = (more: Partial<DoctorOptions> = {}): DoctorOptions => ({
  project: PROJECT,
  zone: 'us-central2-b',
  cluster: 'demo',
  viaKubeconfig: false,
  capacity: {request: {accelerator: v5p8, numSlices: 2, spot: false}, reservations: []},
  xpkVersion: '0.1.0',
  nodeVersion: 'v24.1.0',
  timing: DEFAULT_TIMING,
  checkTimeLimitMs: 20_000,
  ...more,
})

const statuses = (checks: readonly Check[]) => Object.fromEntries(checks.map((c) => [c.name, c.status]))

describe('runDoctor', () => {
  it('passes every check of a healthy setup, in a fixed order', async () => {
    const {deps, rm, su} = world()
    const report = await runDoctor(options(), deps)
    expect(report.checks.map((c) => [c.name, c.status])).toEqual([
      ['credentials', 'pass'],
      ['project', 'pass'],
      ['apis', 'pass'],
      ['permissions', 'pass'],
      ['quota', 'pass'],
      ['cluster', 'pass'],
      ['kubernetes', 'pass'],
      ['jobset', 'pass'],
      ['kueue', 'pass'],
      ['xpk-version', 'pass'],
      ['docker', 'pass'],
      ['registry', 'pass'],
      ['node', 'pass'],
    ])
    expect(report.summary).toEqual({pass: 13, warn: 0, fail: 0})
    expect(rm.log.sort()).toEqual([`getProject ${PROJECT}`, `testIamPermissions ${PROJECT}`])
    expect(su.log).toEqual([`listEnabledServices ${PROJECT}`])
  })

  it('runs only what applies: no cluster, no accelerator, no project', async () => {
    const {deps} = world()
    const report = await runDoctor(
      options({project: undefined, cluster: undefined, capacity: {request: null, reservations: []}}),
      deps,
    )
    expect(statuses(report.checks)).toEqual({credentials: 'pass', project: 'fail', docker: 'pass', node: 'pass'})
  })

  it.each<[string, World, Partial<DoctorOptions>, Record<string, Check['status']>]>([
    ['a project that is not there', {rm: new MemoryResourceManager()}, {}, {project: 'fail', permissions: 'fail'}],
    [
      'GKE disabled',
      {su: new MemoryServiceUsage().seedProject(PROJECT, ['compute.googleapis.com'])},
      {},
      {apis: 'fail'},
    ],
    [
      'no TPU permissions',
      {
        rm: new MemoryResourceManager().seedProject(
          PROJECT,
          ALL_PLANNED_PERMISSIONS.filter((p) => !p.startsWith('tpu.')),
        ),
      },
      {},
      {permissions: 'warn'},
    ],
    [
      'too little quota',
      {
        compute: new MemoryCompute().seedRegionQuotas(PROJECT, 'us-central2', [
          {metric: 'TPU_PODSLICE_V5', limit: 8, usage: 4},
        ]),
      },
      {},
      {quota: 'fail'},
    ],
    ['no cluster', {gke: Object.assign(new MemoryGke(), {cluster: 'gone' as const})}, {}, {cluster: 'fail'}],
    [
      'an unreachable control plane',
      {kube: new XpkError('unavailable', 'connect ECONNREFUSED 10.0.0.1:443')},
      {},
      {kubernetes: 'fail'},
    ],
    ['a cluster of an older xpk', {kube: healthyCluster('v0.0.1')}, {}, {'xpk-version': 'warn'}],
    ['no Docker', {engine: new XpkError('unavailable', 'Cannot reach the Docker engine')}, {}, {docker: 'warn'}],
    [
      'no registry login',
      {registry: new XpkError('auth', 'No Google credentials to access gcr.io')},
      {},
      {registry: 'fail'},
    ],
    [
      'no credentials file',
      {credentials: {source: 'none', file: null, type: null, account: null, token: null}},
      {},
      {credentials: 'warn'},
    ],
  ])('%s fails or warns in its own check only', async (_name, given, more, want) => {
    const {deps} = world(given)
    const report = await runDoctor(options(more), deps)
    const got = statuses(report.checks)
    for (const [name, status] of Object.entries(got)) expect([name, status]).toEqual([name, want[name] ?? 'pass'])
  })

  it('leaves out the in-cluster checks when GKE has no such cluster, and Kueue fails alone when it is missing', async () => {
    const gone = await runDoctor(
      options(),
      world({gke: Object.assign(new MemoryGke(), {cluster: 'gone' as const})}).deps,
    )
    expect(gone.checks.map((c) => c.name)).not.toContain('jobset')
    const kube = new MemoryKube()
    for (const o of releaseObjects('jobset', 'v0.10.1')) kube.seed(o, {available: o.kind === 'Deployment'})
    kube.seed({apiVersion: 'v1', kind: 'Namespace', metadata: {name: 'default'}})
    const report = await runDoctor(options(), world({kube}).deps)
    expect(statuses(report.checks)).toMatchObject({jobset: 'pass', kueue: 'fail', 'xpk-version': 'warn'})
  })

  it("checks reservations with cluster create's rules instead of the quota", async () => {
    const compute = new MemoryCompute().seedReservation({
      project: PROJECT,
      zone: 'us-central2-b',
      name: 'r1',
      specific: {machineType: v5p8.machineType, count: 3, inUseCount: 2},
    })
    const capacity = {request: {accelerator: v5p8, numSlices: 2, spot: false}, reservations: ['r1']}
    const short = await runDoctor(options({capacity}), world({compute}).deps)
    const check = short.checks.find((c) => c.name === 'reservations')!
    expect(check).toMatchObject({
      status: 'fail',
      detail: 'reservation r1 has 1 of 3 VMs free; 2 new slices of v5p-8 need 2 (1 VM each)',
    })
    expect(short.checks.map((c) => c.name)).not.toContain('quota')
    const room = await runDoctor(
      options({capacity: {...capacity, request: {...capacity.request, numSlices: 1}}}),
      world({compute}).deps,
    )
    expect(room.checks.find((c) => c.name === 'reservations')).toMatchObject({
      status: 'pass',
      detail: 'r1: 1 of 3 VMs free',
    })
  })

  it('fails a check that takes longer than its time limit, and only that one', async () => {
    const slow = new MemoryServiceUsage().seedProject(PROJECT, [])
    slow.listEnabledServices = () => new Promise(() => undefined)
    const started = Date.now()
    const report = await runDoctor(options({checkTimeLimitMs: 50}), world({su: slow, timeLimitMs: 50}).deps)
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(report.checks.find((c) => c.name === 'apis')).toMatchObject({
      status: 'warn',
      detail: 'could not list the enabled APIs: no answer within 0.05 s',
    })
    expect(report.summary.fail).toBe(0)
  })
})
