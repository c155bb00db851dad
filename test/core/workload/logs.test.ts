// The pure parts of `xpk workload logs`: its flags checked before any request, where a pod sits (from the labels
// and annotations JobSet and the Job controller set), which pods are read, the --all prefix, lines cut whole
// from a stream that splits them anywhere, and for --follow which container comes next and when following ends.
import {describe, expect, it} from 'vitest'

import {UsageError, UsageErrors} from '../../../src/core/errors.js'
import {
  followEnd,
  LineSplitter,
  LogLines,
  logTimeNanos,
  nextContainer,
  parseSince,
  placeText,
  podPrefix,
  readFollowedPod,
  readWorkloadPod,
  reopenAsked,
  restartNote,
  selectPods,
  stillRunning,
  workloadLogsInputFromFlags,
  type FollowedPod,
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

  it('--head selects the Pathways head, alone: not with --slice, --worker or --all', () => {
    expect(workloadLogsInputFromFlags({workload: 'run-1', head: true}).select).toEqual({all: false, head: true})
    expect(workloadLogsInputFromFlags({workload: 'run-1', head: false}).select).toEqual({
      all: false,
      slice: 0,
      worker: 0,
    })
    expect(problems({workload: 'run-1', head: true, all: true, worker: '2'})).toEqual([
      "--head reads the Pathways head's pod; it cannot be combined with --all or --worker.",
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

  it('tells a Pathways head from a worker by its replicated Job, both with the indexes 0/0', () => {
    const labelled = (name: string, job: string, where: 'labels' | 'annotations') => {
      const p = pod(name, '0', '0', where)
      const keys = (p.metadata as Record<string, unknown>)[where] as Record<string, string>
      return {...p, metadata: {...p.metadata, [where]: {...keys, 'jobset.sigs.k8s.io/replicatedjob-name': job}}}
    }
    const head = readWorkloadPod(labelled('h', 'pathways-head', 'labels'))!
    const worker = readWorkloadPod(labelled('w', 'worker', 'labels'))!
    expect(head).toMatchObject({head: true, slice: 0, worker: 0})
    expect(worker.head).toBeUndefined()
    expect(readWorkloadPod(labelled('a', 'pathways-head', 'annotations'))?.head).toBe(true)
    // The head is read only for --head (or --all, first); --slice 0 --worker 0 is the worker, however new the head.
    const pods = [{...worker, created: '1'}, {...head, created: '2'}, readWorkloadPod(pod('w-1-0', '1', '0'))!]
    expect(selectPods(pods, {all: false, slice: 0, worker: 0}).map((p) => p.name)).toEqual(['w'])
    expect(selectPods(pods, {all: false, head: true}).map((p) => p.name)).toEqual(['h'])
    expect(selectPods(pods, {all: true}).map((p) => p.name)).toEqual(['h', 'w', 'w-1-0'])
    expect(podPrefix(head)).toBe('[head] ')
    expect(placeText(head)).toBe('the Pathways head')
    expect(placeText(worker)).toBe('slice 0, worker 0')
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

describe('following across restarts', () => {
  /** A pod at slice 0, worker 1 as the kubelet reports it. */
  const observed = (
    name: string,
    state: object,
    {
      restartCount = 0,
      created = '2026-01-01T00:00:00Z',
      deleting = false,
      attempt = undefined as string | undefined,
    } = {},
  ) => ({
    metadata: {
      name,
      creationTimestamp: created,
      ...(deleting ? {deletionTimestamp: '2026-01-01T01:00:00Z'} : {}),
      labels: {
        'jobset.sigs.k8s.io/job-index': '0',
        'batch.kubernetes.io/job-completion-index': '1',
        ...(attempt === undefined ? {} : {'jobset.sigs.k8s.io/restart-attempt': attempt}),
      },
    },
    spec: {containers: [{name: 'jax-tpu'}, {name: 'sidecar'}]},
    status: {
      phase: 'Running',
      containerStatuses: [
        {name: 'sidecar', restartCount: 9, state: {running: {}}},
        {name: 'jax-tpu', restartCount, state},
      ],
    },
  })
  const follow = (o: Parameters<typeof readFollowedPod>[0]) => readFollowedPod(o)!
  const running = {running: {startedAt: '2026-01-01T00:00:01Z'}}

  it("reads the main container's restartCount and whether it has run, and whether the pod is being deleted", () => {
    expect(follow(observed('a', running, {restartCount: 2, attempt: '1'}))).toMatchObject({
      name: 'a',
      slice: 0,
      worker: 1,
      container: 'jax-tpu',
      restarts: 2,
      started: true,
      terminating: false,
      restartAttempt: 1,
    })
    expect(follow(observed('a', {terminated: {exitCode: 1}}))).toMatchObject({started: true, restarts: 0})
    expect(follow(observed('a', {waiting: {reason: 'CrashLoopBackOff'}}, {restartCount: 3}))).toMatchObject({
      started: false,
      restarts: 3,
    })
    expect(follow(observed('a', running, {deleting: true})).terminating).toBe(true)
    expect(follow(observed('a', running)).restartAttempt).toBeUndefined()
    // No container statuses: the phase says whether it ran.
    expect(follow({...pod('b', '0', '0'), status: {phase: 'Pending'}}).started).toBe(false)
    expect(follow({...pod('b', '0', '0'), status: {phase: 'Succeeded'}}).started).toBe(true)
    expect(follow(pod('b', '0', '0')).started).toBe(false)
  })

  it('picks a new started pod of the place, else the restarted container, else nothing yet', () => {
    const current: FollowedPod = follow(observed('w-old', running, {restartCount: 1}))
    const seen = new Set(['w-old'])
    const next = (...pods: ReturnType<typeof observed>[]) => nextContainer(current, seen, pods.map(follow))
    // Nothing new: the same container, a restart not started yet (back-off), a deleted pod.
    expect(next(observed('w-old', {terminated: {exitCode: 1}}, {restartCount: 1}))).toBeUndefined()
    expect(next(observed('w-old', {waiting: {reason: 'CrashLoopBackOff'}}, {restartCount: 2}))).toBeUndefined()
    expect(next(observed('w-old', running, {restartCount: 2, deleting: true}))).toBeUndefined()
    // The container restarted.
    expect(next(observed('w-old', running, {restartCount: 2}))).toMatchObject({
      pod: {name: 'w-old', restarts: 2},
      why: 'container',
    })
    // A new pod for the place, once its container runs (the newest, when there are two); it wins over a restart.
    const later = '2026-01-01T00:10:00Z'
    expect(next(observed('w-new', {waiting: {reason: 'ContainerCreating'}}, {created: later}))).toBeUndefined()
    expect(
      next(
        observed('w-old', running, {restartCount: 2}),
        observed('w-new', running, {created: later}),
        observed('w-newer', running, {created: '2026-01-01T00:20:00Z'}),
      ),
    ).toMatchObject({pod: {name: 'w-newer'}, why: 'pod'})
    // Not a pod read before, nor one older than the current one, nor another place's.
    expect(
      nextContainer(current, new Set(['w-old', 'w-new']), [follow(observed('w-new', running, {created: later}))]),
    ).toBeUndefined()
    expect(next(observed('w-older', running, {created: '2025-12-31T00:00:00Z'}))).toBeUndefined()
    const elsewhere = {...observed('w-x', running, {created: later})}
    elsewhere.metadata.labels['batch.kubernetes.io/job-completion-index'] = '2'
    expect(next(elsewhere)).toBeUndefined()
    // A pod whose first container could not be read: it is read once started, restarted or not.
    const unread = {...current, started: false}
    expect(nextContainer(unread, seen, [follow(observed('w-old', running, {restartCount: 1}))])).toMatchObject({
      why: 'started',
    })
  })

  it('says what restarted and what is followed now', () => {
    const p = follow(observed('w-2', running, {restartCount: 2, attempt: '3'}))
    expect(restartNote({pod: p, why: 'container'})).toBe(
      'slice 0/worker 1 restarted (container restart 2); following the new container.',
    )
    expect(restartNote({pod: p, why: 'pod'})).toBe(
      'slice 0/worker 1 restarted (JobSet restart 3, new pod w-2); following the new pod.',
    )
    expect(restartNote({pod: {...p, restartAttempt: undefined}, why: 'pod'})).toBe(
      'slice 0/worker 1 restarted (new pod w-2); following the new pod.',
    )
    expect(restartNote({pod: p, why: 'started'})).toBe(
      'slice 0/worker 1: the container of pod w-2 started; following it.',
    )
  })

  it('ends following when the JobSet has completed, failed or gone', () => {
    const jobset = (...conditions: {type: string; status: string}[]) => ({status: {conditions}})
    expect(followEnd(jobset({type: 'Completed', status: 'True'}))).toBe('completed')
    expect(followEnd(jobset({type: 'Completed', status: 'True'}, {type: 'Failed', status: 'True'}))).toBe('failed')
    expect(followEnd(undefined)).toBe('deleted')
    expect(followEnd(jobset({type: 'Failed', status: 'False'}))).toBeUndefined()
    expect(followEnd(jobset({type: 'Suspended', status: 'False'}))).toBeUndefined()
    expect(followEnd({})).toBeUndefined()
  })
})

describe('reading on in a log cut short', () => {
  const pod = (over: Partial<FollowedPod> = {}): FollowedPod => ({
    name: 'p',
    slice: 0,
    worker: 0,
    created: '2026-01-01T00:00:00Z',
    restarts: 1,
    started: true,
    running: true,
    terminating: false,
    ...over,
  })

  it('a pod still runs the container read while its restartCount is the same, it runs, and is not being deleted', () => {
    expect(stillRunning(pod(), pod())).toBe(true)
    expect(stillRunning(pod(), undefined)).toBe(false)
    expect(stillRunning(pod(), pod({restarts: 2}))).toBe(false)
    expect(stillRunning(pod(), pod({running: false}))).toBe(false)
    expect(stillRunning(pod(), pod({terminating: true}))).toBe(false)
    expect(stillRunning(pod(), pod({name: 'q'}))).toBe(false)
  })

  it('readFollowedPod says whether the main container runs now', () => {
    const status = (state: object) => ({
      metadata: {
        name: 'p',
        labels: {'jobset.sigs.k8s.io/job-index': '0', 'batch.kubernetes.io/job-completion-index': '0'},
      },
      spec: {containers: [{name: 'main'}]},
      status: {phase: 'Running', containerStatuses: [{name: 'main', restartCount: 0, state}]},
    })
    expect(readFollowedPod(status({running: {}}))!.running).toBe(true)
    expect(readFollowedPod(status({terminated: {exitCode: 0}}))!.running).toBe(false)
    expect(readFollowedPod(status({waiting: {}}))!.running).toBe(false)
  })

  it('times are compared exactly, to the nanosecond, whatever the offset and however many digits', () => {
    expect(logTimeNanos('2026-01-01T00:00:05Z')).toBe(1_767_225_605_000_000_000n)
    expect(logTimeNanos('2026-01-01T00:00:05.1Z')! > logTimeNanos('2026-01-01T00:00:05.09Z')!).toBe(true)
    expect(logTimeNanos('2026-01-01T00:00:05.000000001Z')! - logTimeNanos('2026-01-01T00:00:05Z')!).toBe(1n)
    expect(logTimeNanos('2026-01-01T01:00:05+01:00')).toBe(logTimeNanos('2026-01-01T00:00:05Z'))
    expect(logTimeNanos('yesterday')).toBeUndefined()
  })

  it('takes the times off the lines, and after a cut drops the lines printed before, however many share a time', () => {
    const lines = new LogLines(true)
    const T = '2026-01-01T00:00:05.25Z'
    expect(lines.push(`2026-01-01T00:00:04.9Z zero\n${T} one\n${T} tw`)).toEqual(['zero', 'one'])
    expect(lines.push(`o\n${T} thr`)).toEqual(['two'])
    // The half line is dropped: it comes again whole.
    expect(lines.reopen()).toBe('2026-01-01T00:00:05Z')
    expect(lines.push(`${T} one\n${T} two\n${T} three\n2026-01-01T00:00:05.3Z four\n`)).toEqual(['three', 'four'])
    // A line of the same time after the reading on caught up is new.
    expect(lines.push(`2026-01-01T00:00:05.3Z five\n`)).toEqual(['five'])
    expect(lines.reopen()).toBe('2026-01-01T00:00:05Z')
    expect(lines.push(`${T} one\n2026-01-01T00:00:05.3Z four\n2026-01-01T00:00:05.3Z five\n`)).toEqual([])
    expect(lines.push(`2026-01-01T00:00:05.3Z six\nno time at all`)).toEqual(['six'])
    expect(lines.flush()).toEqual(['no time at all'])
  })

  it('a log read without timestamps keeps lines that start with a time whole; nothing printed, nothing to read on from', () => {
    const lines = new LogLines(false)
    expect(lines.push('2026-01-01T00:00:05Z my own time\n')).toEqual(['2026-01-01T00:00:05Z my own time'])
    expect(new LogLines(true).reopen()).toBeUndefined()
  })

  it('before any line was printed, reads on as first asked', () => {
    expect(reopenAsked({tailLines: 10}, '2026-01-01T00:00:05Z', 9000)).toEqual({sinceTime: '2026-01-01T00:00:05Z'})
    expect(reopenAsked({tailLines: 10}, undefined, 9000)).toEqual({})
    expect(reopenAsked({}, undefined, 9000)).toEqual({})
    expect(reopenAsked({tailLines: 0}, undefined, 9001)).toEqual({sinceSeconds: 10})
    expect(reopenAsked({tailLines: 0}, undefined, 0)).toEqual({sinceSeconds: 1})
    expect(reopenAsked({sinceSeconds: 600}, undefined, 4500)).toEqual({sinceSeconds: 605})
  })
})
