// `cluster cacheimage` through the real Kubernetes client (client-node over HTTPS) against the fake API server,
// reached with a kubeconfig: what the in-memory tests cannot show, that the apply, the label and field selectors
// and the status reads are requests a real API server accepts.
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {connectKube} from '../../src/adapters/kube-client.js'
import type {XpkError} from '../../src/core/errors.js'
import {DEFAULT_TIMING} from '../../src/core/timing.js'
import type {Clock} from '../../src/executor/retry.js'
import {cacheImage, type CacheImageOptions} from '../../src/services/cluster-cacheimage.js'
import {FakeKube} from '../fakes/fake-kube.js'
import {MemoryGke} from '../fakes/memory-gke.js'
import {RecordingConsole} from '../helpers/recording-console.js'
import {tempDir} from '../helpers/temp.js'
import {virtualClock} from '../helpers/virtual-clock.js'

const IMAGE = 'us-docker.pkg.dev/my-project/repo/trainer:v1'
let fake: FakeKube
let kubeconfig: string

beforeAll(async () => {
  fake = await FakeKube.start()
  kubeconfig = join(tempDir('xpk-kubeconfig-'), 'config')
  writeFileSync(kubeconfig, fake.kubeconfig())
})
afterAll(async () => fake?.stop())
beforeEach(() => fake.reset())

/** Runs the command; `onPoll` plays the DaemonSet controller and the kubelet between the service's polls. */
function run(onPoll: (poll: number) => void, overrides: Partial<CacheImageOptions> = {}) {
  const clock = virtualClock()
  let polls = 0
  const sleep: Clock['sleep'] = async (ms, signal) => {
    onPoll(++polls)
    return clock.sleep(ms, signal)
  }
  return cacheImage(
    {
      tpuType: 'v5p-16',
      dockerImage: IMAGE,
      dryRun: false,
      viaKubeconfig: true,
      timing: {
        ...DEFAULT_TIMING,
        cacheImage: {poll: {initialMs: 1000, maxMs: 5000, factor: 2}, timeoutMs: 10 * 60_000},
      },
      pullFailureGraceMs: 0,
      ...overrides,
    },
    {
      gke: async () => new MemoryGke(),
      kube: async () => connectKube({kind: 'kubeconfig', path: kubeconfig}),
      console: new RecordingConsole(),
      signal: new AbortController().signal,
      ...clock,
      sleep,
    },
  )
}

const daemonSet = {apiVersion: 'apps/v1', kind: 'DaemonSet', namespace: 'default', name: 'containerimage'}

function pod(name: string, node: string, state: object, ready: boolean) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {name, namespace: 'default', labels: {'k8s-app': 'containerimage', name: 'containerimage'}},
    spec: {nodeName: node, containers: [{name: 'containerimage', image: IMAGE, command: ['sleep', 'inf']}]},
    status: {
      phase: ready ? 'Running' : 'Pending',
      containerStatuses: [{name: 'containerimage', image: IMAGE, imageID: '', ready, restartCount: 0, state}],
    },
  }
}

describe('cluster cacheimage against the fake API server', () => {
  it('applies the DaemonSet with server-side apply and waits for it to be ready on every node', async () => {
    const result = await run((poll) => {
      if (poll === 2) fake.setDaemonSetReady('default', 'containerimage', 3)
    })
    expect(result).toMatchObject({change: 'create', nodes: 3, pulled: 3})
    const stored = fake.get(daemonSet) as {metadata: {managedFields: {manager: string; operation: string}[]}}
    expect(stored.metadata.managedFields.filter((f) => f.operation === 'Apply').map((f) => f.manager)).toEqual(['xpk'])
    // A second run finds it unchanged and sends nothing that mutates.
    const before = fake.mutatingRequests().length
    await expect(run(() => undefined)).resolves.toMatchObject({change: 'none', pulled: 3})
    expect(fake.mutatingRequests()).toHaveLength(before)
  })

  it('lists the pods and their Failed events to name the node that could not pull the image', async () => {
    fake.seed(
      pod('containerimage-a', 'node-a', {running: {startedAt: '2026-01-01T00:00:00Z'}}, true),
      pod(
        'containerimage-b',
        'node-b',
        {waiting: {reason: 'ImagePullBackOff', message: `Back-off pulling image "${IMAGE}"`}},
        false,
      ),
      {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: {name: 'containerimage-b.1', namespace: 'default'},
        involvedObject: {apiVersion: 'v1', kind: 'Pod', name: 'containerimage-b', namespace: 'default'},
        reason: 'Failed',
        type: 'Warning',
        message: `Failed to pull image "${IMAGE}": 403 Forbidden`,
        lastTimestamp: '2026-01-01T00:00:05Z',
      },
    )
    const error = (await run((poll) => {
      if (poll !== 1) return
      fake.setStatus(daemonSet, {
        observedGeneration: 1,
        desiredNumberScheduled: 2,
        currentNumberScheduled: 2,
        numberReady: 1,
        updatedNumberScheduled: 2,
        numberMisscheduled: 0,
      })
    }).catch((e: unknown) => e)) as XpkError
    expect(error.kind).toBe('failed')
    expect(error.message).toBe(
      `${IMAGE} was pulled on 1/2 nodes; 1 could not pull it:\n` +
        `  node-b: ImagePullBackOff: Failed to pull image "${IMAGE}": 403 Forbidden`,
    )
  })
})
