// The Kubernetes port's writes that concurrent users depend on, run the same way against the in-memory fake
// (MemoryKube, which the service tests use) and against the real adapter talking to the wire-level fake (FakeKube),
// so the two cannot drift apart: create-if-absent (201, then 409 AlreadyExists leaving the object as it was) and a
// delete with a uid precondition (409 Conflict deleting nothing when another object holds the name).
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {connectKube} from '../../src/adapters/kube-client.js'
import {ApiError} from '../../src/core/errors.js'
import type {KubeClient, KubeObject} from '../../src/ports/kube.js'
import {JOBSET_API, jobSetCrdServing} from '../builders/workload-cluster.js'
import {FakeKube} from './fake-kube.js'
import {MemoryKube} from './memory-kube.js'

let wire: FakeKube
beforeAll(async () => {
  wire = await FakeKube.start()
})
afterAll(async () => {
  await wire?.stop()
})

interface Subject {
  readonly kube: KubeClient
  /** The mutating requests the fake received, as `VERB kind name status`. */
  readonly writes: () => string[]
}

const subjects: ReadonlyArray<[string, () => Promise<Subject>]> = [
  [
    'MemoryKube',
    async () => {
      const kube = new MemoryKube()
      kube.seed(jobSetCrdServing('v1alpha2'))
      return {
        kube,
        writes: () => kube.mutatingRequests().map((r) => `${r.verb} ${r.kind} ${r.name} ${r.status}`),
      }
    },
  ],
  [
    'the adapter against FakeKube',
    async () => {
      wire.reset()
      wire.seed(jobSetCrdServing('v1alpha2') as never)
      const kube = await connectKube({
        kind: 'gke',
        server: wire.url,
        caCertificate: wire.caData,
        token: async () => wire.token,
      })
      const kinds: Record<string, string> = {configmaps: 'ConfigMap', jobsets: 'JobSet'}
      return {
        kube,
        writes: () =>
          wire.requests
            .filter((r) => r.mutating)
            .map((r) => {
              const name = r.name ?? (r.body as KubeObject | undefined)?.metadata?.name
              return `${r.verb} ${kinds[r.resource ?? ''] ?? r.resource} ${name} ${r.status}`
            }),
      }
    },
  ],
]

const jobSet = (command: string): KubeObject => ({
  apiVersion: JOBSET_API,
  kind: 'JobSet',
  metadata: {name: 'run-1', namespace: 'default'},
  spec: {replicatedJobs: [{name: 'slice-job', replicas: 1, template: {command}}]},
})
const REF = {apiVersion: JOBSET_API, kind: 'JobSet', namespace: 'default', name: 'run-1'}
const failure = async (p: Promise<unknown>) => (await p.catch((e: unknown) => e)) as ApiError
const commandOf = (o: KubeObject | undefined) =>
  (o?.spec as {replicatedJobs: {template: {command: string}}[]} | undefined)?.replicatedJobs[0]?.template.command

describe.each(subjects)('the Kubernetes port, %s', (_name, make) => {
  let subject: Subject
  beforeEach(async () => {
    subject = await make()
  })

  it('create makes the object once; a second create of the name is a 409 AlreadyExists that changes nothing', async () => {
    const {kube, writes} = subject
    const made = await kube.create(jobSet('first'))
    expect(made).toMatchObject({
      kind: 'JobSet',
      metadata: {name: 'run-1', namespace: 'default', uid: expect.any(String)},
    })
    const error = await failure(kube.create(jobSet('second')))
    expect(error).toBeInstanceOf(ApiError)
    expect([error.status, error.kind, error.retryable, error.exitCode]).toEqual([
      'ALREADY_EXISTS',
      'conflict',
      false,
      6,
    ])
    expect(error.message).toMatch(/^Creating JobSet default\/run-1 failed: .*"run-1" already exists/)
    const live = await kube.get(REF)
    expect(commandOf(live)).toBe('first')
    expect(live!.metadata.uid).toBe(made.metadata.uid)
    expect(writes()).toEqual(['create JobSet run-1 201', 'create JobSet run-1 409'])
  })

  it('two creates of one name at once: exactly one is made, the other is told AlreadyExists', async () => {
    const {kube} = subject
    const outcomes = await Promise.allSettled([kube.create(jobSet('a')), kube.create(jobSet('b'))])
    const made = outcomes.filter((o) => o.status === 'fulfilled')
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected')
    expect(made).toHaveLength(1)
    expect((refused[0]!.reason as ApiError).status).toBe('ALREADY_EXISTS')
    expect(commandOf(await kube.get(REF))).toBe(outcomes[0]!.status === 'fulfilled' ? 'a' : 'b')
  })

  it('create in a namespace that does not exist is a 404 naming it', async () => {
    const error = await failure(subject.kube.create({...jobSet('x'), metadata: {name: 'run-1', namespace: 'nowhere'}}))
    expect([error.status, error.kind]).toEqual(['NOT_FOUND', 'not-found'])
    expect(error.message).toContain('namespaces "nowhere" not found')
  })

  it('delete with the uid read deletes it; with another uid it is a 409 Conflict and deletes nothing', async () => {
    const {kube, writes} = subject
    const first = await kube.create(jobSet('first'))
    const error = await failure(kube.delete(REF, {uid: 'not-the-uid-read'}))
    expect([error.status, error.kind, error.retryable]).toEqual(['CONFLICT', 'conflict', false])
    expect(error.message).toContain('Precondition failed: UID in precondition: not-the-uid-read')
    expect((await kube.get(REF))?.metadata.uid).toBe(first.metadata.uid)
    expect(await kube.delete(REF, {uid: first.metadata.uid as string})).toBe('deleted')
    expect(await kube.get(REF)).toBeUndefined()
    expect(await kube.delete(REF, {uid: first.metadata.uid as string})).toBe('absent')
    expect(writes()).toEqual([
      'create JobSet run-1 201',
      'delete JobSet run-1 409',
      'delete JobSet run-1 200',
      'delete JobSet run-1 404',
    ])
  })
})
