/**
 * The wire fakes of a test file, started once before its tests, reset before each (unless the file's tests build on
 * one state), stopped after all: the start-up every e2e file needs, in one place. A fake started half way (the next
 * one failed to start) is stopped too, and so is one a test starts again (an API server restarting).
 */
import {afterAll, beforeAll, beforeEach} from 'vitest'

import {FakeGke, type ClusterState, type FakeGkeOptions} from '../fakes/fake-gke.js'
import {FakeKube, type FakeKubeOptions} from '../fakes/fake-kube.js'

/** What the helper needs of a fake. */
export interface Fake {
  stop(): Promise<void>
  reset?(): void
}

export interface FileFakes {
  /** Counts `fake` among the file's (reset before each test, stopped after all), and gives it back. */
  add<F extends Fake>(fake: F): F
}

/**
 * Registers the file's hooks: `start` starts its fakes (each through `fakes.add`) before the tests, and may seed
 * what every test starts from; with `reset` (the default) each fake is reset before every test.
 */
export function fakesForFile(
  start: (fakes: FileFakes) => Promise<void>,
  options: {readonly reset?: boolean} = {},
): FileFakes {
  const started: Fake[] = []
  const fakes: FileFakes = {
    add: (fake) => {
      started.push(fake)
      return fake
    },
  }
  beforeAll(() => start(fakes))
  afterAll(async () => {
    await Promise.all(started.map((fake) => fake.stop()))
  })
  if (options.reset ?? true) {
    beforeEach(() => {
      for (const fake of started) fake.reset?.()
    })
  }
  return fakes
}

/** A Kubernetes API server and a GKE API whose clusters point at it (endpoint and CA), as GKE's would. */
export async function startKubeAndGke(
  fakes: FileFakes,
  options: {readonly kube?: FakeKubeOptions; readonly gke?: FakeGkeOptions} = {},
): Promise<{kube: FakeKube; gke: FakeGke}> {
  const kube = fakes.add(await FakeKube.start(options.kube))
  const gke = fakes.add(await FakeGke.start({...options.gke, ...kube.gkeClusterOptions()}))
  return {kube, gke}
}

/**
 * The RUNNING cluster `demo` in `project`'s us-central2, as the tests that reach inside a cluster use it: with
 * `nodes`, a default pool of that many e2e-standard-16 VMs (what workload placement reads); without, no pool.
 */
export function seedDemoCluster(gke: FakeGke, project: string, nodes?: number): ClusterState {
  return gke.seedCluster({
    project,
    location: 'us-central2',
    name: 'demo',
    ...(nodes === undefined
      ? {}
      : {nodePools: [{name: 'default-pool', initialNodeCount: nodes, config: {machineType: 'e2-standard-16'}}]}),
  })
}

/**
 * A cluster another tool made (Cluster Toolkit's pool names), for `cluster adapt`: in `project`'s us-central2, two
 * v5p-16 slices on spot (2 ct5p-hightpu-4t VMs each, compact 2x2x2) and a default pool of 3 e2-standard-16, or, with
 * `gpu`, one pool of 2 a3-highgpu-8g VMs with 8 nvidia-h100-80gb each.
 */
export function seedToolkitCluster(gke: FakeGke, project: string, name: string, gpu = false): ClusterState {
  const v5p = (pool: string) => ({
    name: pool,
    initialNodeCount: 2,
    locations: ['us-central2-b'],
    config: {machineType: 'ct5p-hightpu-4t', spot: true},
    placementPolicy: {type: 'COMPACT' as const, tpuTopology: '2x2x2'},
  })
  const h100 = {
    name: 'a3-pool',
    initialNodeCount: 2,
    locations: ['us-central2-b'],
    config: {
      machineType: 'a3-highgpu-8g',
      accelerators: [{acceleratorType: 'nvidia-h100-80gb', acceleratorCount: '8'}],
    },
  }
  return gke.seedCluster({
    project,
    location: 'us-central2',
    name,
    nodePools: [
      ...(gpu ? [h100] : [v5p(`${name}-v5p-a`), v5p(`${name}-v5p-b`)]),
      {name: 'default-pool', initialNodeCount: 3, config: {machineType: 'e2-standard-16'}},
    ],
  })
}
