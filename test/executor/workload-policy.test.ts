// Creating a workload policy, the wait included: what used to be the Compute adapter's own polling now goes through
// the one retry policy and operation watcher, so it is tested here over the in-memory Compute port.
import {describe, expect, it} from 'vitest'

import {ApiError} from '../../src/core/errors.js'
import {DEFAULT_RETRY_POLICY} from '../../src/executor/retry.js'
import {createWorkloadPolicy} from '../../src/executor/workload-policy.js'
import type {WorkloadPolicySpec} from '../../src/ports/compute.js'
import {MemoryCompute} from '../fakes/memory-compute.js'
import {virtualClock} from '../helpers/virtual-clock.js'

const SPEC: WorkloadPolicySpec = {
  project: 'p',
  region: 'us-east5',
  name: 'tpu7x-16-2x2x2-placement-policy',
  acceleratorTopology: '2x2x2',
}
const options = (signal = new AbortController().signal) => ({
  policy: DEFAULT_RETRY_POLICY,
  clock: virtualClock(),
  signal,
  poll: {initialMs: 100, maxMs: 1000, factor: 2, fastForMs: 0},
})
/** The policy as Compute Engine would report it, in a given state. */
const policy = (status: string) => ({name: SPEC.name, acceleratorTopology: '2x2x2', type: 'HIGH_THROUGHPUT', status})
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e as ApiError,
  )

describe('createWorkloadPolicy', () => {
  it('inserts, waits for the operation, then reads the policy READY', async () => {
    const log: string[] = []
    const compute = new MemoryCompute(log)
    await createWorkloadPolicy(compute, SPEC, options())
    expect(compute.created).toEqual([SPEC])
    expect(compute.policies.get(SPEC.name)?.status).toBe('READY')
    expect(log).toEqual([`createWorkloadPolicy ${SPEC.name}`, `getWorkloadPolicy ${SPEC.name}`])
  })

  it('takes a policy that exists already (409) once it is READY, without a second insert', async () => {
    const compute = new MemoryCompute()
    compute.policies.set(SPEC.name, policy('CREATING'))
    await createWorkloadPolicy(compute, SPEC, options())
    expect(compute.created).toEqual([])
    expect(compute.policies.get(SPEC.name)?.status).toBe('READY')
  })

  it('takes an operation that ended ALREADY_EXISTS (another creator won the race) as made', async () => {
    const compute = new MemoryCompute()
    compute.operationError = new ApiError('conflict', 'already exists', {status: 'ALREADY_EXISTS', retryable: false})
    compute.policies.set(SPEC.name, policy('READY'))
    const insert = compute.insertWorkloadPolicy.bind(compute)
    // The race: our insert is accepted, and the winner's policy is what the READY check finds.
    compute.insertWorkloadPolicy = async (spec) =>
      (compute.policies.delete(spec.name), insert(spec)).then((op) => {
        compute.policies.set(SPEC.name, policy('READY'))
        return op
      })
    await expect(createWorkloadPolicy(compute, SPEC, options())).resolves.toBeUndefined()
  })

  it("throws the operation's own error otherwise", async () => {
    const compute = new MemoryCompute()
    const quota = new ApiError('quota', "Quota 'RESOURCE_POLICIES' exceeded.", {
      status: 'RESOURCE_EXHAUSTED',
      retryable: false,
    })
    compute.operationError = quota
    await expect(createWorkloadPolicy(compute, SPEC, options())).rejects.toBe(quota)
  })

  it('fails for good on a policy in a state pools cannot use, naming the state', async () => {
    const compute = new MemoryCompute()
    compute.policies.set(SPEC.name, policy('DELETING'))
    const error = await failure(createWorkloadPolicy(compute, SPEC, options()))
    expect(error).toMatchObject({kind: 'conflict', retryable: false})
    expect(error?.message).toContain('DELETING')
  })

  it('keeps checking a policy that vanished (its creator failed) within the conflict budget, then says so', async () => {
    const compute = new MemoryCompute()
    compute.policies.set(SPEC.name, policy('CREATING'))
    const get = compute.getWorkloadPolicy.bind(compute)
    compute.getWorkloadPolicy = async (...args) => (compute.policies.delete(SPEC.name), get(...args))
    const error = await failure(createWorkloadPolicy(compute, SPEC, options()))
    expect(error).toMatchObject({kind: 'conflict', retryable: false})
    expect(error?.message).toContain('disappeared')
  })

  it('stops when the signal aborts, with its reason', async () => {
    const controller = new AbortController()
    const compute = new MemoryCompute()
    compute.ticks = Infinity
    const get = compute.getRegionOperation.bind(compute)
    compute.getRegionOperation = async (...args) => (controller.abort(new Error('Ctrl-C')), get(...args))
    await expect(createWorkloadPolicy(compute, SPEC, options(controller.signal))).rejects.toThrow('Ctrl-C')
  })
})
