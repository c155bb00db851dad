// xpk info's core: which tables are asked for, a ClusterQueue's and a LocalQueue's rows (the LocalQueue's own
// reservation against its ClusterQueue's quota), and Python's `<flavor>:<resource>` cells, table-driven.
import {describe, expect, it} from 'vitest'

import {localQueueUsage, queueInfo, queueKindsAsked, usageCell, usageColumns} from '../../../src/core/insight/queues.js'
import {clusterQueueState} from '../../../src/core/incluster/describe.js'
import type {KubeObject} from '../../../src/ports/kube.js'

const usage = (flavor: string, resources: Record<string, string | number>) => ({
  name: flavor,
  resources: Object.entries(resources).map(([name, total]) => ({name, total})),
})

function cq(name: string, quota: Record<string, Record<string, number | string>>, status?: Record<string, unknown>) {
  return {
    apiVersion: 'kueue.x-k8s.io/v1beta2',
    kind: 'ClusterQueue',
    metadata: {name},
    spec: {
      resourceGroups: [
        {
          flavors: Object.entries(quota).map(([flavor, rs]) => ({
            name: flavor,
            resources: Object.entries(rs).map(([r, q]) => ({name: r, nominalQuota: q})),
          })),
        },
      ],
    },
    ...(status ? {status} : {}),
  } as KubeObject
}

function lq(name: string, clusterQueue: string, status?: Record<string, unknown>, namespace = 'default') {
  return {
    apiVersion: 'kueue.x-k8s.io/v1beta2',
    kind: 'LocalQueue',
    metadata: {name, namespace},
    spec: {clusterQueue},
    ...(status ? {status} : {}),
  } as KubeObject
}

const CQ = cq(
  'cluster-queue',
  {'1xv5p-16': {'google.com/tpu': 16}, 'cpu-user': {cpu: 480, memory: '2000Gi'}},
  {
    admittedWorkloads: 1,
    pendingWorkloads: 2,
    reservingWorkloads: 1,
    flavorsReservation: [usage('1xv5p-16', {'google.com/tpu': 8})],
    flavorsUsage: [usage('1xv5p-16', {'google.com/tpu': 8})],
  },
)

describe('queueKindsAsked', () => {
  it.each([
    [{}, {local: true, cluster: true}],
    [{clusterqueue: true}, {local: false, cluster: true}],
    [{localqueue: true}, {local: true, cluster: false}],
    [
      {clusterqueue: false, localqueue: false},
      {local: true, cluster: true},
    ],
  ])('%j -> %j', (flags, asked) => expect(queueKindsAsked(flags)).toEqual(asked))
})

describe('a LocalQueue against its ClusterQueue', () => {
  const quota = [clusterQueueState(CQ)]
  it.each([
    [
      'its own reservation, every resource of the quota (0 where it holds none)',
      lq('multislice-queue', 'cluster-queue', {
        admittedWorkloads: 1,
        pendingWorkloads: 0,
        reservingWorkloads: 1,
        flavorsReservation: [usage('1xv5p-16', {'google.com/tpu': 8})],
        flavorsUsage: [usage('1xv5p-16', {'google.com/tpu': 4})],
      }),
      {
        counts: [1, 0, 1],
        cells: {'1xv5p-16:google.com/tpu': '8/16', 'cpu-user:cpu': '0/480', 'cpu-user:memory': '0/2000Gi'},
        used: {'1xv5p-16:google.com/tpu': '4/16'},
      },
    ],
    [
      'no status yet (Kueue has not looked): counts and reservations unknown, the quota shown',
      lq('fresh', 'cluster-queue'),
      {counts: [null, null, null], cells: {'1xv5p-16:google.com/tpu': '-/16', 'cpu-user:cpu': '-/480'}, used: {}},
    ],
    [
      "v1beta1's flavorUsage is read as flavorsUsage",
      lq('old', 'cluster-queue', {flavorsReservation: [], flavorUsage: [usage('1xv5p-16', {'google.com/tpu': 2})]}),
      {counts: [0, 0, 0], cells: {'1xv5p-16:google.com/tpu': '0/16'}, used: {'1xv5p-16:google.com/tpu': '2/16'}},
    ],
    [
      'a ClusterQueue that does not exist: what the status names, with no quota (Python stops with a KeyError)',
      lq('orphan', 'gone-queue', {flavorsReservation: [usage('f', {'google.com/tpu': 4})]}),
      {counts: [0, 0, 0], cells: {'f:google.com/tpu': '4/-'}, used: {}},
    ],
    [
      'a resource only the status names follows the quota, with none',
      lq('extra', 'cluster-queue', {flavorsReservation: [usage('old-flavor', {'google.com/tpu': 4})]}),
      {counts: [0, 0, 0], cells: {'1xv5p-16:google.com/tpu': '0/16', 'old-flavor:google.com/tpu': '4/-'}, used: {}},
    ],
  ])('%s', (_, object, want) => {
    const row = localQueueUsage(object, quota)
    expect([row.admittedWorkloads, row.pendingWorkloads, row.reservingWorkloads]).toEqual(want.counts)
    for (const [key, cell] of Object.entries(want.cells)) expect(usageCell(row, key), key).toBe(cell)
    for (const [key, cell] of Object.entries(want.used)) expect(usageCell(row, key, 'used'), key).toBe(cell)
    expect(row.namespace).toBe('default')
    expect(row.clusterQueue).toBe(object.spec && (object.spec as {clusterQueue: string}).clusterQueue)
  })
})

describe('queueInfo', () => {
  const other = cq('b-queue', {gpu: {'nvidia.com/gpu': 8}}, {admittedWorkloads: 0, pendingWorkloads: 0})
  const objects = {
    cqs: [CQ, other],
    lqs: [lq('z', 'cluster-queue', {}, 'team-b'), lq('a', 'b-queue', {}, 'team-b'), lq('q', 'cluster-queue', {})],
  }

  it('sorts each kind (ClusterQueues by name, LocalQueues by namespace then name)', () => {
    const result = queueInfo({local: true, cluster: true}, objects.cqs, objects.lqs)
    expect(result.clusterQueues!.map((q) => q.name)).toEqual(['b-queue', 'cluster-queue'])
    expect(result.localQueues!.map((q) => `${q.namespace}/${q.name}`)).toEqual(['default/q', 'team-b/a', 'team-b/z'])
  })

  it.each([
    [{local: true, cluster: false}, ['localQueues'], ['clusterQueues']],
    [{local: false, cluster: true}, ['clusterQueues'], ['localQueues']],
  ])('%j: the other kind is null, not empty', (asked, present, absent) => {
    const result = queueInfo(asked, objects.cqs, objects.lqs) as unknown as Record<string, unknown>
    for (const k of present) expect(result[k]).not.toBeNull()
    for (const k of absent) expect(result[k]).toBeNull()
  })

  it("Python's columns: every <flavor>:<resource> in first-seen order; a queue without one has no cell", () => {
    const rows = queueInfo({local: false, cluster: true}, objects.cqs, []).clusterQueues!
    expect(usageColumns(rows)).toEqual([
      'gpu:nvidia.com/gpu',
      '1xv5p-16:google.com/tpu',
      'cpu-user:cpu',
      'cpu-user:memory',
    ])
    expect(usageCell(rows[0]!, 'cpu-user:cpu')).toBeNull()
    expect(usageCell(rows[1]!, 'cpu-user:memory')).toBe('0/2000Gi')
    expect(usageCell(rows[0]!, 'gpu:nvidia.com/gpu')).toBe('0/8')
  })
})
