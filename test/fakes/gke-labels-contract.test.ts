// The GKE port's label writes, which xpk's cluster lock rests on, run the same way against the in-memory fake
// (MemoryGke, used by the service and executor tests) and against the real REST adapter talking to the wire-level
// fake (FakeGke), so the two cannot drift apart: labels and their fingerprint read with the cluster, SetLabels with
// the current fingerprint replacing them, and a stale fingerprint refused (not retryable, recognised as a mismatch)
// without changing anything.
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {createGkeClient} from '../../src/adapters/gke-container-api.js'
import {isLabelFingerprintMismatch} from '../../src/core/cluster/gke-errors.js'
import {ApiError} from '../../src/core/errors.js'
import type {ClusterRef, GkeClient} from '../../src/ports/gke.js'
import {FakeGke} from './fake-gke.js'
import {MemoryGke} from './memory-gke.js'

const REF: ClusterRef = {project: 'test-project', location: 'us-central2', name: 'demo'}

let wire: FakeGke
beforeAll(async () => {
  wire = await FakeGke.start({operationMs: 10})
})
afterAll(async () => {
  await wire?.stop()
})

const subjects: ReadonlyArray<[string, () => Promise<GkeClient>]> = [
  ['MemoryGke', async () => new MemoryGke()],
  [
    'the REST adapter against FakeGke',
    async () => {
      wire.reset()
      wire.seedCluster({...REF, fields: {resourceLabels: {gke_product_type: 'xpk'}}})
      return createGkeClient({endpoint: `http://${wire.endpoint}`})
    },
  ],
]

const failure = async (p: Promise<unknown>) => (await p.catch((e: unknown) => e)) as ApiError

describe.each(subjects)('GKE labels, %s', (_name, make) => {
  let gke: GkeClient
  beforeEach(async () => {
    gke = await make()
  })

  it('SetLabels with the fingerprint read replaces the labels; the fingerprint changes with them', async () => {
    const before = (await gke.getCluster(REF))!
    expect(before.labels).toEqual({gke_product_type: 'xpk'})
    expect(before.labelFingerprint).not.toBe('')
    const op = await gke.setResourceLabels(REF, {gke_product_type: 'xpk', 'xpk-lock': 'abc'}, before.labelFingerprint)
    expect(op.type).toBe('SET_LABELS')
    const after = (await gke.getCluster(REF))!
    expect(after.labels).toEqual({gke_product_type: 'xpk', 'xpk-lock': 'abc'})
    expect(after.labelFingerprint).not.toBe(before.labelFingerprint)
  })

  it('a stale fingerprint is refused as a mismatch (exit 6, not retried) and changes nothing', async () => {
    const before = (await gke.getCluster(REF))!
    await gke.setResourceLabels(REF, {'xpk-lock': 'first'}, before.labelFingerprint)
    const error = await failure(gke.setResourceLabels(REF, {'xpk-lock': 'second'}, before.labelFingerprint))
    expect(error).toBeInstanceOf(ApiError)
    expect([error.status, error.kind, error.retryable, error.exitCode]).toEqual([
      'FAILED_PRECONDITION',
      'conflict',
      false,
      6,
    ])
    expect(isLabelFingerprintMismatch(error)).toBe(true)
    expect(error.message).toMatch(/^Could not .*fingerprint mismatch/)
    expect((await gke.getCluster(REF))!.labels).toEqual({'xpk-lock': 'first'})
  })

  it('two writers with the same fingerprint: exactly one succeeds', async () => {
    const {labelFingerprint} = (await gke.getCluster(REF))!
    const outcomes = await Promise.allSettled([
      gke.setResourceLabels(REF, {'xpk-lock': 'a'}, labelFingerprint),
      gke.setResourceLabels(REF, {'xpk-lock': 'b'}, labelFingerprint),
    ])
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1)
    const lost = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected')!
    expect(isLabelFingerprintMismatch(lost.reason)).toBe(true)
    expect((await gke.getCluster(REF))!.labels).toEqual({'xpk-lock': outcomes[0]!.status === 'fulfilled' ? 'a' : 'b'})
  })
})
