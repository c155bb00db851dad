// The links `workload create` prints: the exact Cloud Console page and Cloud Logging query of Python xpk (section
// 4.9 of the behaviour reference), a Pathways workload's for its head and its workers, and the next commands.
import {describe, expect, it} from 'vitest'

import {
  headLogsUrl,
  nextCommands,
  workerLogsUrl,
  workloadConsoleUrl,
  workloadLinks,
} from '../../../src/core/workload/links.js'

const place = {project: 'my-project', location: 'us-central2', cluster: 'demo', workload: 'run-1'}

describe('workload links', () => {
  it('the Cloud Console page of the workload', () => {
    expect(workloadConsoleUrl(place)).toBe(
      'https://console.cloud.google.com/kubernetes/service/us-central2/demo/default/run-1/details?project=my-project',
    )
  })

  it('the Cloud Logging query for slice 0 worker 0, every character but unreserved ones percent-encoded', () => {
    const url = workerLogsUrl(place)
    expect(url).toMatch(
      /^https:\/\/console\.cloud\.google\.com\/logs\/query;query=[^;]+;storageScope=project;duration=P1D\?project=my-project$/,
    )
    const query = decodeURIComponent(/query=([^;]+);/.exec(url)![1]!)
    expect(query.split('\n')).toEqual([
      'resource.type="k8s_container"',
      'resource.labels.project_id="my-project"',
      'resource.labels.location="us-central2"',
      'resource.labels.cluster_name="demo"',
      'resource.labels.namespace_name="default"',
      'resource.labels.pod_name:"run-1-slice-job-0-0-"',
      'severity>=DEFAULT',
    ])
    // Python's quote(safe=''): no raw quote, equals sign, colon or newline survives.
    expect(/query=([^;]+);/.exec(url)![1]).toMatch(/^[A-Za-z0-9_.~%-]+$/)
    expect(url).toContain('resource.type%3D%22k8s_container%22%0Aresource.labels.project_id')
  })

  it('other workers, and a domain-scoped project whose colon is encoded', () => {
    expect(decodeURIComponent(workerLogsUrl(place, 3, 1))).toContain('pod_name:"run-1-slice-job-3-1-"')
    const scoped = workloadLinks({...place, project: 'example.com:proj'})
    expect(scoped.console).toMatch(/\?project=example\.com%3Aproj$/)
    expect(scoped.logs).toMatch(/\?project=example\.com%3Aproj$/)
  })

  it('a Pathways workload: its head pod and its workers, named after their replicated Jobs', () => {
    const podFilter = (url: string | null) => decodeURIComponent(url ?? '').match(/pod_name:"[^"]*"/)?.[0]
    expect(podFilter(headLogsUrl(place))).toBe('pod_name:"run-1-pathways-head-0-0-"')
    expect(podFilter(workerLogsUrl(place, 1, 2, true))).toBe('pod_name:"run-1-worker-1-2-"')
    const pathways = workloadLinks(place, true)
    expect(podFilter(pathways.headLogs)).toBe('pod_name:"run-1-pathways-head-0-0-"')
    expect(podFilter(pathways.logs)).toBe('pod_name:"run-1-worker-0-0-"')
    // The rest of the query is the same as any workload's: only the pod name differs.
    expect(pathways.logs.replace('worker-0-0', 'slice-job-0-0')).toBe(workerLogsUrl(place))
    expect(workloadLinks(place).headLogs).toBeNull()
  })

  it('next commands: the list filtered to the workload, then its logs', () => {
    expect(nextCommands('demo', 'run-1')).toEqual([
      'xpk workload list --cluster demo --filter-by-job run-1',
      'xpk workload logs --cluster demo run-1',
    ])
  })
})
