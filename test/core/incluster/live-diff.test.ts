import {describe, expect, it} from 'vitest'

import {cacheImageDaemonSet} from '../../../src/core/incluster/cache-image.js'
import {clusterConfigMaps} from '../../../src/core/incluster/configmaps.js'
import {kueueControllerPatch} from '../../../src/core/incluster/controller-sizing.js'
import {kueueConfiguration} from '../../../src/core/incluster/kueue.js'
import {
  applyWouldChange,
  liveDifferences,
  parseQuantity,
  patchWouldChange,
  releaseObjectWouldChange,
} from '../../../src/core/incluster/live-diff.js'
import type {KubeObject} from '../../../src/core/kube/release-manifest.js'
import type {InClusterObject} from '../../../src/core/incluster/types.js'
import {workloadRbacObjects} from '../../../src/core/incluster/workload-rbac.js'
import {aClusterShape, accelerator} from './cluster-shapes.js'

type Json = Record<string, unknown>

/** `object` as the API server returns it: identity and bookkeeping fields added, a status, nothing of ours lost. */
function asStored(object: InClusterObject, edit: (live: Json) => void = () => {}): Json {
  const live = structuredClone(object) as unknown as Json
  live.metadata = {
    ...(live.metadata as Json),
    uid: '6f1c7a0e-0000-4000-8000-000000000001',
    resourceVersion: '12345',
    generation: 1,
    creationTimestamp: '2026-01-01T00:00:00Z',
    managedFields: [{manager: 'xpk', operation: 'Apply'}],
  }
  live.status = {conditions: []}
  edit(live)
  return live
}

/** The field at a dotted path with [index] steps, for edits. */
function at(root: Json, path: string): Json {
  let node: unknown = root
  for (const step of path.split(/\.|\[(\d+)\]/).filter((s) => s !== undefined && s !== '')) {
    node = (node as Json)[step]
  }
  return node as Json
}

const config = kueueConfiguration(aClusterShape({type: 'v5p-16', numSlices: 2}), {topologyAwareScheduling: false})
const gpuConfig = kueueConfiguration(aClusterShape({type: 'h200-141gb-8'}), {topologyAwareScheduling: true})
const configMaps = clusterConfigMaps(aClusterShape({type: 'v5p-16', numSlices: 2}), {xpkVersion: '1.0.0'})
const daemonSet = cacheImageDaemonSet({cacheKey: 'containerimage', image: 'img:1', accelerator: accelerator('v5p-16')})
const [, role] = workloadRbacObjects()
const [veryLow] = config.priorityClasses

interface Case {
  readonly name: string
  readonly desired: InClusterObject
  readonly live: Json | null
  /** Paths of the differences, in order; empty when applying changes nothing. */
  readonly paths: readonly string[]
}

describe('applyWouldChange / liveDifferences', () => {
  it.each<Case>([
    {name: 'an object that does not exist', desired: config.clusterQueue, live: null, paths: ['']},
    {
      name: 'the same object with server bookkeeping',
      desired: config.clusterQueue,
      live: asStored(config.clusterQueue),
      paths: [],
    },
    {
      name: "a ClusterQueue with Kueue's defaults and its quota rewritten as a string",
      desired: config.clusterQueue,
      live: asStored(config.clusterQueue, (cq) => {
        const spec = at(cq, 'spec')
        spec.flavorFungibility = {whenCanBorrow: 'MayStopSearch', whenCanPreempt: 'TryNextFlavor'}
        spec.queueingStrategy = 'BestEffortFIFO'
        spec.stopPolicy = 'None'
        at(cq, 'spec.preemption').borrowWithinCohort = {policy: 'Never'}
        at(cq, 'spec.resourceGroups[0].flavors[0].resources[0]').nominalQuota = '16'
      }),
      paths: [],
    },
    {
      name: 'a ClusterQueue with another quota',
      desired: config.clusterQueue,
      live: asStored(config.clusterQueue, (cq) => {
        at(cq, 'spec.resourceGroups[0].flavors[0].resources[0]').nominalQuota = 8
      }),
      paths: ['spec.resourceGroups[0].flavors[0].resources[0].nominalQuota'],
    },
    {
      name: 'a ClusterQueue whose namespaceSelector selects fewer namespaces',
      desired: config.clusterQueue,
      live: asStored(config.clusterQueue, (cq) => {
        at(cq, 'spec').namespaceSelector = {matchLabels: {team: 'a'}}
      }),
      paths: ['spec.namespaceSelector.matchLabels'],
    },
    {
      name: 'a ClusterQueue with a second flavor',
      desired: config.clusterQueue,
      live: asStored(config.clusterQueue, (cq) => {
        const flavors = at(cq, 'spec.resourceGroups[0]').flavors as Json[]
        flavors.push({name: 'other', resources: [{name: 'google.com/tpu', nominalQuota: 4}]})
      }),
      paths: ['spec.resourceGroups[0].flavors'],
    },
    {
      name: 'a ResourceFlavor with an extra node label',
      desired: config.resourceFlavor,
      live: asStored(config.resourceFlavor, (rf) => {
        at(rf, 'spec.nodeLabels').extra = 'x'
      }),
      paths: ['spec.nodeLabels.extra'],
    },
    {
      name: 'a ResourceFlavor missing its topology',
      desired: gpuConfig.resourceFlavor,
      live: asStored(gpuConfig.resourceFlavor, (rf) => {
        delete at(rf, 'spec').topologyName
      }),
      paths: ['spec.topologyName'],
    },
    {
      name: 'a Topology with its levels in another order',
      desired: gpuConfig.topology as InClusterObject,
      live: asStored(gpuConfig.topology as InClusterObject, (t) => {
        ;(at(t, 'spec').levels as unknown[]).reverse()
      }),
      paths: [
        'spec.levels[0].nodeLabel',
        'spec.levels[1].nodeLabel',
        'spec.levels[2].nodeLabel',
        'spec.levels[3].nodeLabel',
      ],
    },
    {
      name: 'a ConfigMap still holding a device type from before',
      desired: configMaps.resources,
      live: asStored(configMaps.resources, (cm) => {
        at(cm, 'data')['v6e-16'] = '4'
      }),
      paths: ['data.v6e-16'],
    },
    {
      name: 'a ConfigMap with another count',
      desired: configMaps.resources,
      live: asStored(configMaps.resources, (cm) => {
        at(cm, 'data')['v5p-16'] = '2'
      }),
      paths: ['data.v5p-16'],
    },
    {
      name: 'a ConfigMap someone labelled',
      desired: configMaps.metadata,
      live: asStored(configMaps.metadata, (cm) => {
        at(cm, 'metadata').labels = {owner: 'me'}
        at(cm, 'metadata').annotations = {'kubectl.kubernetes.io/last-applied-configuration': '{}'}
      }),
      paths: [],
    },
    {
      name: 'a DaemonSet with the defaults the API server fills in',
      desired: daemonSet,
      live: asStored(daemonSet, (ds) => {
        at(ds, 'spec').revisionHistoryLimit = 10
        at(ds, 'spec.updateStrategy').rollingUpdate = {maxUnavailable: 1, maxSurge: 0}
        const pod = at(ds, 'spec.template.spec')
        Object.assign(pod, {restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler'})
        Object.assign(at(ds, 'spec.template.spec.containers[0]'), {
          imagePullPolicy: 'IfNotPresent',
          resources: {},
          terminationMessagePath: '/dev/termination-log',
        })
      }),
      paths: [],
    },
    {
      name: 'a DaemonSet without our label',
      desired: daemonSet,
      live: asStored(daemonSet, (ds) => {
        at(ds, 'metadata').labels = {other: 'x'}
      }),
      paths: ['metadata.labels.k8s-app'],
    },
    {
      name: 'a DaemonSet caching another image',
      desired: daemonSet,
      live: asStored(daemonSet, (ds) => {
        at(ds, 'spec.template.spec.containers[0]').image = 'img:0'
      }),
      paths: ['spec.template.spec.containers[0].image'],
    },
    {
      name: 'a Role with one rule more',
      desired: role,
      live: asStored(role, (r) => {
        ;(r.rules as unknown[]).push({apiGroups: [''], resources: ['secrets'], verbs: ['get']})
      }),
      paths: ['rules'],
    },
    {
      name: 'a PriorityClass with its preemption policy defaulted',
      desired: veryLow,
      live: asStored(veryLow, (pc) => {
        pc.preemptionPolicy = 'PreemptLowerPriority'
      }),
      paths: [],
    },
    {
      name: 'a PriorityClass with another value (a number is not a quantity here)',
      desired: veryLow,
      live: asStored(veryLow, (pc) => {
        pc.value = '100'
      }),
      paths: ['value'],
    },
    {
      name: 'an object whose spec is not a map',
      desired: config.localQueue,
      live: asStored(config.localQueue, (lq) => {
        lq.spec = 'broken'
      }),
      paths: ['spec'],
    },
  ])('$name: $paths', ({desired, live, paths}) => {
    expect(applyWouldChange(desired, live)).toBe(paths.length > 0)
    const wholeMaps = {
      ConfigMap: ['data'],
      ResourceFlavor: ['spec.nodeLabels'],
      ClusterQueue: ['spec.namespaceSelector'],
    }
    const differences = liveDifferences(desired, live, {wholeMaps: wholeMaps[desired.kind as keyof typeof wholeMaps]})
    expect(differences.map((d) => d.path)).toEqual(paths)
  })

  it('reports what each side holds', () => {
    const live = asStored(configMaps.resources, (cm) => {
      at(cm, 'data')['v5p-16'] = '2'
    })
    expect(liveDifferences(configMaps.resources, live)).toEqual([{path: 'data.v5p-16', desired: '4', live: '2'}])
  })

  it('ignores extra keys of maps it is not told to own whole', () => {
    const live = asStored(configMaps.resources, (cm) => {
      at(cm, 'data')['v6e-16'] = '4'
    })
    expect(liveDifferences(configMaps.resources, live)).toEqual([])
  })
})

describe('patchWouldChange', () => {
  const patch = kueueControllerPatch(70)

  /** Kueue's controller Deployment after our patch, with its quantities in canonical form. */
  function liveDeployment(manager: Json, others: Json[] = []): Json {
    return {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {name: 'kueue-controller-manager', namespace: 'kueue-system', uid: 'u'},
      spec: {
        replicas: 1,
        template: {
          spec: {containers: [...others, {name: 'manager', image: 'registry.k8s.io/kueue/kueue:v0.17.1', ...manager}]},
        },
      },
    }
  }

  it.each<{name: string; live: Json | null; change: boolean}>([
    {
      name: 'already patched (4096Mi stored as 4Gi, 2 as "2")',
      live: liveDeployment({resources: {requests: {cpu: '2', memory: '4Gi'}, limits: {cpu: 2, memory: '4Gi'}}}),
      change: false,
    },
    {
      name: 'already patched, beside another container',
      live: liveDeployment(
        {resources: {requests: {cpu: '2000m', memory: '4Gi'}, limits: {cpu: '2', memory: '4096Mi'}}},
        [{name: 'kube-rbac-proxy', image: 'proxy:1'}],
      ),
      change: false,
    },
    {
      name: 'the release defaults',
      live: liveDeployment({
        resources: {requests: {cpu: '500m', memory: '512Mi'}, limits: {cpu: '2', memory: '512Mi'}},
      }),
      change: true,
    },
    {name: 'no manager container', live: {spec: {template: {spec: {containers: [{name: 'other'}]}}}}, change: true},
    {name: 'no Deployment', live: null, change: true},
  ])('$name: change $change', ({live, change}) => {
    expect(patchWouldChange(patch, live)).toBe(change)
  })

  it('names the missing container by its key', () => {
    const live = {spec: {template: {spec: {containers: [{name: 'other'}]}}}}
    expect(liveDifferences(patch.body, live, {mergeKeys: {'spec.template.spec.containers': 'name'}})).toEqual([
      {
        path: 'spec.template.spec.containers[name=manager]',
        desired: patch.body.spec.template.spec.containers[0],
        live: undefined,
      },
    ])
  })
})

describe('parseQuantity', () => {
  const value = (text: unknown) => {
    const q = parseQuantity(text)
    return q === undefined ? undefined : Number(q.numerator) / Number(q.denominator)
  }

  it.each<[unknown, number]>([
    ['4Gi', 4 * 2 ** 30],
    ['4096Mi', 4 * 2 ** 30],
    ['0.5Gi', 2 ** 29],
    ['500m', 0.5],
    ['1.5', 1.5],
    ['.5', 0.5],
    ['2e3', 2000],
    ['2E-3', 0.002],
    ['3k', 3000],
    ['+7', 7],
    ['-1', -1],
    [32, 32],
    [1e21, 1e21],
  ])('%j is %d', (text, expected) => {
    expect(value(text)).toBe(expected)
  })

  it.each(['', 'abc', '4GB', '4 Gi', '1e1000', 'Gi', null, true, Number.NaN])('%j is not a quantity', (text) => {
    expect(parseQuantity(text)).toBeUndefined()
  })
})

describe('releaseObjectWouldChange', () => {
  const stored = (object: object, edit: (live: Json) => void = () => {}) =>
    asStored(object as unknown as InClusterObject, edit)
  const aggregated = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: {name: 'kueue-batch-admin-role'},
    aggregationRule: {clusterRoleSelectors: [{matchLabels: {'rbac.kueue.x-k8s.io/batch-admin': 'true'}}]},
    rules: [],
  }
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {name: 'kueue-controller-manager', namespace: 'kueue-system'},
    spec: {template: {spec: {containers: [{name: 'manager', image: 'registry.k8s.io/kueue/kueue:v0.17.1'}]}}},
  }
  const config = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {name: 'kueue-manager-config', namespace: 'kueue-system'},
    data: {'controller_manager_config.yaml': 'kind: Configuration'},
  }

  it.each([
    ['missing', deployment, () => undefined, true],
    ['as applied, with what the server adds', deployment, (o: object) => stored(o), false],
    [
      'a container image changed',
      deployment,
      (o: object) => stored(o, (l) => (at(l, 'spec.template.spec.containers[0]').image = 'other:v1')),
      true,
    ],
    [
      'a container added beside ours (merged by name, as apply merges it)',
      deployment,
      (o: object) =>
        stored(o, (l) => (at(l, 'spec.template.spec').containers as Json[]).push({name: 'sidecar', image: 'x:1'})),
      false,
    ],
    [
      'an aggregated ClusterRole whose rules the API server filled in',
      aggregated,
      (o: object) => stored(o, (l) => (l.rules = [{apiGroups: ['kueue.x-k8s.io'], resources: ['*'], verbs: ['*']}])),
      false,
    ],
    [
      'an aggregated ClusterRole whose selector changed',
      aggregated,
      (o: object) => stored(o, (l) => (l.aggregationRule = {clusterRoleSelectors: []})),
      true,
    ],
    [
      "a release ConfigMap with another tool's key besides ours (not ours to remove)",
      config,
      (o: object) => stored(o, (l) => ((l.data as Json).extra = 'x')),
      false,
    ],
    [
      'a release ConfigMap whose value changed',
      config,
      (o: object) => stored(o, (l) => ((l.data as Json)['controller_manager_config.yaml'] = 'x')),
      true,
    ],
  ])('%s: %s', (_name, desired, live, changes) => {
    const object = desired as unknown as KubeObject
    expect(releaseObjectWouldChange(object, live(object))).toBe(changes)
  })
})
