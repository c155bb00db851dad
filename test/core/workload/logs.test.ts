// The pure parts of `xpk workload logs`: its flags checked before any request, where a pod sits (from the labels
// and annotations JobSet and the Job controller set), which pods are read, the --all prefix, and lines cut whole
// from a stream that splits them anywhere.
import {describe, expect, it} from 'vitest'

import {UsageError, UsageErrors} from '../../../src/core/errors.js'
import {
  LineSplitter,
  parseSince,
  podPrefix,
  readWorkloadPod,
  selectPods,
  workloadLogsInputFromFlags,
} from '../../../src/core/workload/logs.js'

const pod = (name: string, slice: string, worker: string, how: 'labels' | 'annotations' = 'labels', created = '') => ({
  metadata: {
    name,
    creationTimestamp: created,
    [how]: {'jobset.sigs.k8s.io/job-index': slice, 'batch.kubernetes.io/job-completion-index': worker},
  },
  spec: {containers: [{name: 'jax-tpu'}]},
})

const problems = (flags: Parameters<typeof workloadLogsInputFromFlags>[0]): string[] => {
  try {
    workloadLogsInputFromFlags(flags)
  } catch (error) {
    if (error instanceof UsageErrors) return error.problems.map((p) => p.message)
    if (error instanceof UsageError) return [error.message]
    throw error
  }
  return []
}

describe('workloadLogsInputFromFlags', () => {
  it('reads worker 0 of slice 0 by default', () => {
    expect(workloadLogsInputFromFlags({workload: 'run-1'})).toEqual({
      workload: 'run-1',
      follow: false,
      select: {all: false, slice: 0, worker: 0},
    })
  })

  it('takes --slice, --worker, --tail, --since and --follow', () => {
    expect(
      workloadLogsInputFromFlags({
        workload: 'run-1',
        slice: '3',
        worker: '1',
        tail: '20',
        since: '1h30m',
        follow: true,
      }),
    ).toEqual({
      workload: 'run-1',
      follow: true,
      select: {all: false, slice: 3, worker: 1},
      tailLines: 20,
      sinceSeconds: 5400,
    })
    expect(workloadLogsInputFromFlags({workload: 'run-1', all: true}).select).toEqual({all: true})
  })

  it('reports every bad value at once', () => {
    const found = problems({workload: 'Bad_Name', slice: '-1', worker: 'x', tail: '-2', since: '10 minutes'})
    expect(found).toHaveLength(5)
    expect(found.join('\n')).toMatch(/--slice/)
    expect(found.join('\n')).toMatch(/--worker/)
    expect(found.join('\n')).toMatch(/--tail/)
    expect(found.join('\n')).toMatch(/--since "10 minutes" is not a duration/)
    expect(problems({workload: 'run-1', all: true, slice: '1'})).toEqual([
      '--all reads every pod; it cannot be combined with --slice or --worker.',
    ])
  })

  it('parses --since durations and refuses zero and more than a week', () => {
    expect(parseSince('10m')).toEqual({value: 600})
    expect(parseSince('2h')).toEqual({value: 7200})
    expect(parseSince('45s')).toEqual({value: 45})
    expect(parseSince('7d')).toEqual({value: 604_800})
    expect(parseSince('0s')).toHaveProperty('problem')
    expect(parseSince('8d')).toHaveProperty('problem')
    expect(parseSince('10')).toHaveProperty('problem')
  })
})

describe('pods', () => {
  it('reads slice and worker from labels, or annotations on clusters before Kubernetes 1.28', () => {
    expect(readWorkloadPod(pod('a', '2', '5'))).toEqual({name: 'a', slice: 2, worker: 5, created: ''})
    expect(readWorkloadPod(pod('b', '0', '1', 'annotations'))).toMatchObject({slice: 0, worker: 1})
    expect(readWorkloadPod({metadata: {name: 'c', labels: {'jobset.sigs.k8s.io/job-index': '0'}}})).toBeUndefined()
  })

  it('names the first container only when the pod has several', () => {
    const two = {...pod('a', '0', '0'), spec: {containers: [{name: 'main'}, {name: 'sidecar'}]}}
    expect(readWorkloadPod(two)?.container).toBe('main')
  })

  it('selects one place or every place in slice/worker order, the newest pod of a place', () => {
    const pods = [
      pod('w-1-0', '1', '0'),
      pod('w-0-1', '0', '1'),
      pod('w-0-0-old', '0', '0', 'labels', '2026-01-01T00:00:00Z'),
      pod('w-0-0-new', '0', '0', 'labels', '2026-01-01T00:05:00Z'),
      pod('w-1-1', '1', '1'),
    ].map((p) => readWorkloadPod(p)!)
    expect(selectPods(pods, {all: true}).map((p) => p.name)).toEqual(['w-0-0-new', 'w-0-1', 'w-1-0', 'w-1-1'])
    expect(selectPods(pods, {all: false, slice: 1, worker: 0}).map((p) => p.name)).toEqual(['w-1-0'])
    expect(selectPods(pods, {all: false, slice: 2, worker: 0})).toEqual([])
  })

  it('prefixes lines with where they come from', () => {
    expect(podPrefix({slice: 3, worker: 1})).toBe('[slice 3/worker 1] ')
  })
})

describe('LineSplitter', () => {
  it('gives whole lines however the stream is cut, and the last one without a newline at the end', () => {
    const text = 'step 1 loss=2.0\nstep 2 loss=1.5\r\nstep 3 loss=1.1\nno newline'
    // Every way of cutting the text in two, and one character at a time: the same lines come out.
    for (let cut = 0; cut <= text.length; cut++) {
      const splitter = new LineSplitter()
      const lines = [...splitter.push(text.slice(0, cut)), ...splitter.push(text.slice(cut)), ...splitter.flush()]
      expect(lines).toEqual(['step 1 loss=2.0', 'step 2 loss=1.5', 'step 3 loss=1.1', 'no newline'])
    }
    const splitter = new LineSplitter()
    const lines = [...text].flatMap((c) => splitter.push(c))
    expect([...lines, ...splitter.flush()]).toHaveLength(4)
  })
})
