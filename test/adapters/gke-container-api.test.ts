import * as grpc from '@grpc/grpc-js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {createGkeClient} from '../../src/adapters/gke-container-api.js'
import {ApiError} from '../../src/core/errors.js'
import {FakeGke} from '../fakes/fake-gke.js'

let fake: FakeGke
beforeAll(async () => {
  fake = await FakeGke.start()
})
afterAll(async () => fake?.stop())

describe('the GKE adapter', () => {
  // The library's own policy retries reads and deletes on UNAVAILABLE/DEADLINE_EXCEEDED for up to 600 s, under
  // xpk's policy and deaf to Ctrl-C; xpk's executor must be the only one that retries.
  it.each([
    ['GetCluster', grpc.status.UNAVAILABLE],
    ['ListClusters', grpc.status.UNAVAILABLE],
    ['GetServerConfig', grpc.status.DEADLINE_EXCEEDED],
    ['DeleteCluster', grpc.status.UNAVAILABLE],
    ['ListOperations', grpc.status.UNAVAILABLE],
  ])('does not retry %s itself (%s): one request, one classified, retryable error', async (method, code) => {
    const gke = await createGkeClient({endpoint: `http://${fake.endpoint}`})
    const before = fake.calls.filter((c) => c.method === method).length
    fake.faults.push({method, code, message: 'injected', times: 5})
    const ref = {project: 'adapter-project', location: 'us-central2', name: 'c'}
    const call = {
      GetCluster: () => gke.getCluster(ref),
      ListClusters: () => gke.listClusters('adapter-project'),
      GetServerConfig: () => gke.getServerConfig('adapter-project', 'us-central2'),
      DeleteCluster: () => gke.deleteCluster(ref),
      ListOperations: () => gke.listOperations('adapter-project', 'us-central2'),
    }[method]!
    const error = await call().catch((e: unknown) => e)
    fake.faults.length = 0
    await gke.close()
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).retryable).toBe(true)
    expect(fake.calls.filter((c) => c.method === method).length - before).toBe(1)
  })
})
