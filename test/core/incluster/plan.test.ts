// The in-cluster planner, pure: what it installs, resizes and applies for what was observed of the cluster.
import {describe, expect, it} from 'vitest'

import {jobSetControllerPatch, kueueControllerPatch} from '../../../src/core/incluster/controller-sizing.js'
import {MANAGED_BY_LABEL} from '../../../src/core/incluster/install-decision.js'
import {
  desiredObjects,
  objectsToRead,
  objectKey,
  planInCluster,
  sizedController,
  type InClusterInputs,
  type InClusterStep,
  type ObservedInCluster,
} from '../../../src/core/incluster/plan.js'
import {
  findControllerDeployment,
  type KubeObject,
  type ReleaseComponent,
} from '../../../src/core/kube/release-manifest.js'
import {KUEUE_CRD_NAMES, releaseObjects} from '../../fakes/memory-release-manifests.js'
import {aClusterShape} from './cluster-shapes.js'

const inputs = (numSlices = 2, expectedNodes = 5): InClusterInputs => ({
  shape: aClusterShape({numSlices}),
  xpkVersion: '1.2.3',
  expectedNodes,
  placement: {compactPlacementPool: false},
})

/** The release's controller Deployment at `version`, sized for `nodes`, as the API server would return it. */
function liveController(
  component: ReleaseComponent,
  version: string,
  nodes: number,
  labels: Record<string, string> = {},
) {
  const release = findControllerDeployment(releaseObjects(component, version), component)!
  const sizing = component === 'jobset' ? jobSetControllerPatch(nodes) : kueueControllerPatch(nodes)
  const deployment = sizedController(release, sizing)
  const live = {
    ...deployment,
    metadata: {
      ...deployment.metadata,
      labels: {...(deployment.metadata.labels as object), ...labels},
      uid: 'u-1',
      generation: 1,
    },
    status: {
      observedGeneration: 1,
      replicas: 1,
      updatedReplicas: 1,
      availableReplicas: 1,
      conditions: [{type: 'Available', status: 'True'}],
    },
  }
  const image = `registry.k8s.io/${component}/${component}:${version}`
  return {installed: true as const, image, managedBy: labels[MANAGED_BY_LABEL] ?? null, deployment: live}
}

/** What the API server returns for objects xpk applied: the same fields plus what the server adds. */
function asLive(objects: readonly object[]): Map<string, unknown> {
  return new Map(
    objects.map((o) => {
      const copy = structuredClone(o) as KubeObject & {status?: unknown}
      const live = {...copy, metadata: {...copy.metadata, uid: 'u', resourceVersion: '7', generation: 1}, status: {}}
      return [objectKey(copy), live]
    }),
  )
}

/** Both releases as xpk installs them: every object of their manifests, the controllers sized for `nodes`. */
function liveReleases(nodes: number): object[] {
  return (['jobset', 'kueue'] as const).flatMap((component) => {
    const controller = liveController(component, component === 'jobset' ? 'v0.10.1' : 'v0.17.1', nodes).deployment
    return releaseObjects(component).map((o) => (o.kind === 'Deployment' ? controller : o))
  })
}

/** A cluster on which a previous run with `previous` inputs converged, now with `nodeCount` nodes. */
function converged(previous: InClusterInputs, nodeCount = previous.expectedNodes): ObservedInCluster {
  return {
    nodeCount,
    controllers: {
      jobset: liveController('jobset', 'v0.10.1', previous.expectedNodes),
      kueue: liveController('kueue', 'v0.17.1', previous.expectedNodes),
    },
    kueueCrds: KUEUE_CRD_NAMES,
    live: asLive([...desiredObjects(previous), ...liveReleases(previous.expectedNodes)]),
    releases: {jobset: releaseObjects('jobset'), kueue: releaseObjects('kueue')},
  }
}

const reasons = (steps: readonly InClusterStep[]) => steps.map((s) => s.reason)
const changing = (steps: readonly InClusterStep[]) => steps.filter((s) => s.kind !== 'apply' || s.change !== 'none')

describe('planInCluster', () => {
  it('plans a fresh cluster as installs, waits and creates, in dependency order', () => {
    const plan = planInCluster(inputs(), null)
    expect(plan.fromLive).toBe(false)
    expect(plan.destructive).toBe(false)
    expect(plan.notes).toEqual([])
    expect(reasons(plan.steps)).toEqual([
      'install JobSet v0.10.1',
      "wait until JobSet's controller is Available",
      'install Kueue v0.17.1',
      "wait until Kueue's controller is Available",
      'create ResourceFlavor 2xv5p-16',
      'create ProvisioningRequestConfig dws-config',
      'create ClusterQueue cluster-queue',
      'create LocalQueue multislice-queue',
      'create PriorityClass very-low',
      'create PriorityClass low',
      'create PriorityClass medium',
      'create PriorityClass high',
      'create PriorityClass very-high',
      'create ConfigMap demo-resources-configmap',
      'create ConfigMap demo-metadata-configmap',
    ])
  })

  it('sizes the controllers it installs for the nodes expected', () => {
    const plan = planInCluster(inputs(2, 5000), null)
    const installs = plan.steps.filter((s) => s.kind === 'install')
    expect(installs.map((s) => s.sizing)).toEqual([jobSetControllerPatch(5000), kueueControllerPatch(5000)])
  })

  it('marks only Kueue objects as needing Kueue', () => {
    const applies = planInCluster(inputs(), null).steps.filter((s) => s.kind === 'apply')
    expect(applies.filter((s) => s.needsKueue).map((s) => s.object.kind)).toEqual([
      'ResourceFlavor',
      'ProvisioningRequestConfig',
      'ClusterQueue',
      'LocalQueue',
    ])
  })

  it('plans nothing that changes a cluster on which the same inputs converged', () => {
    const plan = planInCluster(inputs(), converged(inputs()))
    expect(plan.fromLive).toBe(true)
    expect(changing(plan.steps)).toEqual([])
    expect(plan.steps.every((s) => s.reason.startsWith('unchanged: '))).toBe(true)
  })

  it('ignores what the API server adds: quantities rewritten, defaults filled in, labels of others', () => {
    const observed = converged(inputs())
    const live = new Map(observed.live)
    const queue = structuredClone(live.get('ClusterQueue//cluster-queue')) as {
      spec: {resourceGroups: {flavors: {resources: {nominalQuota: unknown}[]}[]}[]; cohort?: string}
      metadata: {labels?: object}
    }
    queue.spec.resourceGroups[0]!.flavors[0]!.resources[0]!.nominalQuota = '16'
    queue.metadata.labels = {'team.example.com/owner': 'ml'}
    live.set('ClusterQueue//cluster-queue', queue)
    expect(changing(planInCluster(inputs(), {...observed, live}).steps)).toEqual([])
  })

  it('2 -> 4 slices: updates the quota in place and creates the flavor named for 4 slices', () => {
    const plan = planInCluster(inputs(4), converged(inputs(2)))
    expect(reasons(changing(plan.steps))).toEqual([
      'create ResourceFlavor 4xv5p-16',
      'update ClusterQueue cluster-queue: quota 16 -> 32',
      'update ConfigMap demo-resources-configmap',
    ])
    const queue = plan.steps.find((s) => s.kind === 'apply' && s.object.kind === 'ClusterQueue')
    expect(queue?.kind === 'apply' && queue.object).toMatchObject({
      spec: {
        resourceGroups: [{flavors: [{name: '4xv5p-16', resources: [{name: 'google.com/tpu', nominalQuota: 32}]}]}],
      },
    })
  })

  describe('the flavor of an earlier size', () => {
    /** A cluster converged at 2 slices whose flavor `2xv5p-16` was applied by `manager`, plus `extra` live objects. */
    function grownFrom2(manager: string, extra: Record<string, unknown>[] = [], flavorName = '2xv5p-16') {
      const observed = converged(inputs(2))
      const live = new Map(observed.live)
      const old = structuredClone(live.get('ResourceFlavor//2xv5p-16')) as {metadata: Record<string, unknown>}
      live.delete('ResourceFlavor//2xv5p-16')
      old.metadata = {...old.metadata, name: flavorName, managedFields: [{manager, operation: 'Apply'}]}
      live.set(`ResourceFlavor//${flavorName}`, old)
      for (const o of extra) live.set(objectKey(o as KubeObject), o)
      return planInCluster(inputs(4), {...observed, live})
    }

    it.each([
      ['xpk applied it, no other queue names it', 'xpk', [], '2xv5p-16', true],
      ['another tool applied it', 'kubectl-client-side-apply', [], '2xv5p-16', false],
      ['it is not named like an xpk flavor', 'xpk', [], 'spot-flavor', false],
      [
        'another ClusterQueue names it',
        'xpk',
        [
          {
            apiVersion: 'kueue.x-k8s.io/v1beta2',
            kind: 'ClusterQueue',
            metadata: {name: 'team-queue'},
            spec: {resourceGroups: [{flavors: [{name: '2xv5p-16', resources: []}]}]},
          },
        ],
        '2xv5p-16',
        false,
      ],
    ])('is deleted after the resize only when %s', (_why, manager, extra, name, deleted) => {
      const plan = grownFrom2(manager, extra, name)
      const deletes = plan.steps.filter((s) => s.kind === 'delete')
      expect(deletes.map((s) => s.reason)).toEqual(
        deleted ? [`delete ResourceFlavor ${name}: left by an earlier size of the cluster`] : [],
      )
    })

    it('is never deleted by a breaking Kueue upgrade plan (everything Kueue is recreated there)', () => {
      const observed = converged(inputs(2))
      const plan = planInCluster(inputs(4), {
        ...observed,
        controllers: {...observed.controllers, kueue: liveController('kueue', 'v0.14.2', 5)},
      })
      expect(plan.destructive).toBe(true)
      expect(plan.steps.filter((s) => s.kind === 'delete')).toEqual([])
    })
  })

  it('leaves the flavor of the old slice count alone when xpk did not apply it: no step names it', () => {
    const plan = planInCluster(inputs(4), converged(inputs(2)))
    expect(plan.steps.filter((s) => s.kind === 'apply' && s.object.metadata.name === '2xv5p-16')).toEqual([])
  })

  it('says only "update" for a ClusterQueue whose quota is unchanged but whose flavor is not', () => {
    const observed = converged(inputs(2))
    const live = new Map(observed.live)
    const queue = structuredClone(live.get('ClusterQueue//cluster-queue')) as {
      spec: {resourceGroups: {flavors: {name: string}[]}[]}
    }
    queue.spec.resourceGroups[0]!.flavors[0]!.name = 'something-else'
    live.set('ClusterQueue//cluster-queue', queue)
    const plan = planInCluster(inputs(2), {...observed, live})
    expect(reasons(changing(plan.steps))).toEqual(['update ClusterQueue cluster-queue'])
  })

  it.each([
    {version: 'v0.16.0', action: 'upgrade', reason: 'upgrade Kueue v0.16.0 -> v0.17.1'},
    {version: 'v0.15.0', action: 'upgrade', reason: 'upgrade Kueue v0.15.0 -> v0.17.1'},
  ])('upgrades Kueue $version in place and waits for it', ({version, action, reason}) => {
    const observed = {...converged(inputs()), controllers: {...converged(inputs()).controllers}}
    observed.controllers.kueue = liveController('kueue', version, 5)
    const plan = planInCluster(inputs(), observed)
    expect(plan.destructive).toBe(false)
    expect(changing(plan.steps).map((s) => [s.kind, s.reason])).toEqual([
      ['install', reason],
      ['await', "wait until Kueue's controller is Available"],
    ])
    expect(plan.steps.find((s) => s.kind === 'install')).toMatchObject({decision: {action}})
  })

  it.each([
    {
      name: 'a newer Kueue',
      kueue: liveController('kueue', 'v0.18.0', 5),
      note: 'Kueue v0.18.0 is newer than the v0.17.1 this xpk installs; xpk leaves it as it is.',
    },
    {
      name: 'an older Kueue that Helm manages',
      kueue: liveController('kueue', 'v0.16.0', 5, {[MANAGED_BY_LABEL]: 'Helm'}),
      note: 'Kueue v0.16.0 is older than v0.17.1, but Helm manages it (label app.kubernetes.io/managed-by); upgrade it to v0.17.1 with Helm.',
    },
  ])('leaves $name alone with a note, and still configures it', ({kueue, note}) => {
    const plan = planInCluster(inputs(), {
      ...converged(inputs()),
      controllers: {...converged(inputs()).controllers, kueue},
    })
    expect(plan.notes).toEqual([note])
    expect(plan.steps.some((s) => s.kind !== 'apply')).toBe(false)
    expect(plan.steps.filter((s) => s.kind === 'apply').length).toBe(desiredObjects(inputs()).length)
  })

  it('leaves alone a controller whose image names no version, even when it is too small', () => {
    const kueue = {
      ...liveController('kueue', 'v0.17.1', 5),
      image: 'registry.k8s.io/kueue/kueue@sha256:' + 'a'.repeat(64),
    }
    const plan = planInCluster(inputs(2, 5000), {
      ...converged(inputs()),
      controllers: {...converged(inputs()).controllers, kueue},
    })
    expect(plan.notes).toHaveLength(1)
    expect(plan.notes[0]).toMatch(/custom build or an image pinned by digest/)
    expect(
      plan.steps
        .flatMap((s) =>
          s.kind === 'apply' || s.kind === 'delete' || s.kind === 'coredns' || s.kind === 'gpu-installer' ? [] : [s],
        )
        .map((s) => `${s.kind}:${s.component}`),
    ).toEqual(['resize:jobset', 'await:jobset'])
  })

  it('plans a Kueue older than v0.15 as destructive: every Kueue object and CRD goes, then the controller', () => {
    const observed: ObservedInCluster = {
      ...converged(inputs()),
      controllers: {...converged(inputs()).controllers, kueue: liveController('kueue', 'v0.14.2', 5)},
      kueueCrds: ['clusterqueues.kueue.x-k8s.io', 'workloads.kueue.x-k8s.io'],
    }
    const plan = planInCluster(inputs(), observed)
    expect(plan.destructive).toBe(true)
    const install = plan.steps.find((s) => s.kind === 'install')
    expect(install?.kind === 'install' && install.decision).toMatchObject({
      action: 'breaking-upgrade',
      deletions: [
        {kind: 'all-objects-of-crd', crd: 'clusterqueues.kueue.x-k8s.io'},
        {kind: 'crd', name: 'clusterqueues.kueue.x-k8s.io'},
        {kind: 'all-objects-of-crd', crd: 'workloads.kueue.x-k8s.io'},
        {kind: 'crd', name: 'workloads.kueue.x-k8s.io'},
        {kind: 'deployment', namespace: 'kueue-system', name: 'kueue-controller-manager'},
      ],
    })
  })

  it('recreates every Kueue object after a breaking upgrade, even those that looked unchanged', () => {
    const observed: ObservedInCluster = {
      ...converged(inputs()),
      controllers: {...converged(inputs()).controllers, kueue: liveController('kueue', 'v0.14.2', 5)},
      kueueCrds: KUEUE_CRD_NAMES,
    }
    const applies = planInCluster(inputs(), observed).steps.filter((s) => s.kind === 'apply')
    expect(applies.filter((s) => s.needsKueue).map((s) => s.change)).toEqual(['create', 'create', 'create', 'create'])
    expect(applies.filter((s) => !s.needsKueue).every((s) => s.change === 'none')).toBe(true)
  })

  it('resizes the controllers of the version it wants when the cluster has grown, for the larger count', () => {
    const plan = planInCluster(inputs(2, 5), converged(inputs(2, 5), 4000))
    expect(changing(plan.steps).map((s) => [s.kind, s.reason])).toEqual([
      ['resize', "resize JobSet's controller for 4000 nodes"],
      ['await', "wait until JobSet's controller is Available"],
      ['resize', "resize Kueue's controller for 4000 nodes"],
      ['await', "wait until Kueue's controller is Available"],
    ])
    const resizes = plan.steps.filter((s) => s.kind === 'resize')
    expect(resizes.map((s) => s.sizing)).toEqual([jobSetControllerPatch(4000), kueueControllerPatch(4000)])
  })

  it('sizes for the nodes expected once the GKE steps are done, when that is more than there are now', () => {
    const plan = planInCluster(inputs(2, 4000), converged(inputs(2, 5), 5))
    expect(plan.steps.filter((s) => s.kind === 'resize').map((s) => s.sizing)).toEqual([
      jobSetControllerPatch(4000),
      kueueControllerPatch(4000),
    ])
  })

  it('does not shrink what it sized for more nodes when the count only changes a little', () => {
    // Both sizes are at their floors below ~3400 nodes, so 5 -> 50 nodes changes nothing.
    expect(changing(planInCluster(inputs(2, 5), converged(inputs(2, 5), 50)).steps)).toEqual([])
  })
})

describe('sizedController', () => {
  const release = findControllerDeployment(releaseObjects('kueue'), 'kueue')!

  it("sets the manager container's resources and leaves the rest of the Deployment as the release has it", () => {
    const sized = sizedController(release, kueueControllerPatch(4000)) as typeof release & {
      spec: {template: {spec: {containers: {name: string; resources: unknown}[]}}}
    }
    expect(sized.spec.template.spec.containers[0]!.resources).toEqual({
      requests: {cpu: '16', memory: '128000Mi'},
      limits: {cpu: '16', memory: '128000Mi'},
    })
    const {spec: _, ...rest} = sized
    const {spec: __, ...releaseRest} = release
    expect(rest).toEqual(releaseRest)
    const withoutResources = (d: KubeObject) =>
      JSON.stringify(d, (k, v: unknown) => (k === 'resources' ? undefined : v))
    expect(withoutResources(sized)).toBe(withoutResources(release))
  })

  it('does not change the release object it is given', () => {
    const before = structuredClone(release)
    sizedController(release, jobSetControllerPatch(10_000))
    expect(release).toEqual(before)
  })

  it('leaves containers other than the manager alone', () => {
    const twoContainers = structuredClone(release) as KubeObject & {
      spec: {template: {spec: {containers: {name: string; resources?: unknown}[]}}}
    }
    twoContainers.spec.template.spec.containers.push({name: 'kube-rbac-proxy', resources: {limits: {cpu: '500m'}}})
    const sized = sizedController(twoContainers, kueueControllerPatch(10)) as typeof twoContainers
    expect(sized.spec.template.spec.containers[1]).toEqual({
      name: 'kube-rbac-proxy',
      resources: {limits: {cpu: '500m'}},
    })
  })
})

describe('objectKey', () => {
  it('names cluster-scoped objects with an empty namespace', () => {
    expect(objectKey({kind: 'ClusterQueue', metadata: {name: 'cluster-queue'}})).toBe('ClusterQueue//cluster-queue')
    expect(objectKey({kind: 'LocalQueue', metadata: {name: 'q', namespace: 'default'}})).toBe('LocalQueue/default/q')
  })
})

describe('planInCluster: the gke-default Topology of a GPU cluster', () => {
  const gpu = (capacity: 'flex' | 'reservation' | 'spot', compactPools: string[] = []): InClusterInputs => ({
    shape: aClusterShape({type: 'h200-141gb-8', capacity, numNodes: 2}),
    xpkVersion: '1.2.3',
    expectedNodes: 8,
    placement: {compactPlacementPool: compactPools.length > 0, compactPools},
  })
  const topologyLines = (steps: readonly InClusterStep[]) =>
    reasons(
      steps.filter((s) => s.kind === 'apply' && (s.object.kind === 'Topology' || s.object.kind === 'ResourceFlavor')),
    )
  const flavorOf = (steps: readonly InClusterStep[]) =>
    steps.find(
      (s): s is Extract<InClusterStep, {kind: 'apply'}> => s.kind === 'apply' && s.object.kind === 'ResourceFlavor',
    )?.object as {spec: {topologyName?: string}} | undefined

  it.each<{name: string; now: InClusterInputs; before: InClusterInputs | null; lines: string[]; notes: number}>([
    {
      name: 'fresh flex cluster: Topology created before the flavor that names it',
      now: gpu('flex'),
      before: null,
      lines: [
        'create Topology gke-default (topology-aware scheduling: flex-start nodes carry GKE network-topology labels)',
        'create ResourceFlavor 1xh200-141gb-8 (topology-aware scheduling: flex-start nodes carry GKE network-topology labels)',
      ],
      notes: 0,
    },
    {
      name: 'fresh reserved cluster with a COMPACT pool: the reason names the pool',
      now: gpu('reservation', ['a3u-compact']),
      before: null,
      lines: [
        'create Topology gke-default (topology-aware scheduling: node pool a3u-compact has COMPACT placement)',
        'create ResourceFlavor 1xh200-141gb-8 (topology-aware scheduling: node pool a3u-compact has COMPACT placement)',
      ],
      notes: 0,
    },
    {
      name: 'no COMPACT pool, not flex: no Topology, the flavor names none',
      now: gpu('spot'),
      before: null,
      lines: ['create ResourceFlavor 1xh200-141gb-8'],
      notes: 0,
    },
    {
      name: 'unchanged re-run: nothing to do',
      now: gpu('reservation', ['a3u-compact']),
      before: gpu('reservation', ['a3u-compact']),
      lines: [
        'unchanged: Topology gke-default (topology-aware scheduling: node pool a3u-compact has COMPACT placement)',
        'unchanged: ResourceFlavor 1xh200-141gb-8 (topology-aware scheduling: node pool a3u-compact has COMPACT placement)',
      ],
      notes: 0,
    },
    {
      name: 'a COMPACT pool appears: Topology created, flavor updated to name it (Kueue allows adding it)',
      now: gpu('reservation', ['a3u-compact']),
      before: gpu('reservation'),
      lines: [
        'create Topology gke-default (topology-aware scheduling: node pool a3u-compact has COMPACT placement)',
        'update ResourceFlavor 1xh200-141gb-8 (topology-aware scheduling: node pool a3u-compact has COMPACT placement)',
      ],
      notes: 0,
    },
    {
      name: 'the COMPACT pools are gone: flavor and Topology kept (Kueue forbids removing topologyName), with a note',
      now: gpu('reservation'),
      before: gpu('reservation', ['a3u-compact']),
      lines: [
        'unchanged: Topology gke-default (topology-aware scheduling: kept, the flavor already names it)',
        'unchanged: ResourceFlavor 1xh200-141gb-8 (topology-aware scheduling: kept, the flavor already names it)',
      ],
      notes: 1,
    },
  ])('$name', ({now, before, lines, notes}) => {
    const plan = planInCluster(now, before === null ? null : converged(before))
    expect(topologyLines(plan.steps)).toEqual(lines)
    expect(plan.notes).toHaveLength(notes)
    const topology = plan.steps.some((s) => s.kind === 'apply' && s.object.kind === 'Topology')
    expect(flavorOf(plan.steps)?.spec.topologyName).toBe(topology ? 'gke-default' : undefined)
  })

  it('the kept Topology is said once, in a note naming the way out', () => {
    const plan = planInCluster(gpu('reservation'), converged(gpu('reservation', ['a3u-compact'])))
    expect(plan.notes).toEqual([
      'ResourceFlavor 1xh200-141gb-8 keeps Topology gke-default although topology-aware scheduling is no longer ' +
        'possible (no node pool has COMPACT placement): Kueue does not allow removing it. Delete the flavor (once ' +
        'no workload uses it) and re-run to drop it.',
    ])
    expect(changing(plan.steps)).toEqual([])
  })

  it("a flavor naming another tool's Topology is left alone: no gke-default, a note instead of a refused update", () => {
    const observed = converged(gpu('spot'))
    const live = new Map(observed.live)
    const key = 'ResourceFlavor//1xh200-141gb-8'
    const flavor = structuredClone(live.get(key)) as {spec: Record<string, unknown>}
    flavor.spec.topologyName = 'their-topology'
    live.set(key, flavor)
    const plan = planInCluster(gpu('flex'), {...observed, live})
    expect(plan.steps.some((s) => s.kind === 'apply' && s.object.kind === 'Topology')).toBe(false)
    expect(flavorOf(plan.steps)?.spec.topologyName).toBeUndefined()
    expect(plan.notes).toEqual([
      'ResourceFlavor 1xh200-141gb-8 names Topology their-topology, set by another tool: left as it is (Kueue ' +
        'does not allow changing it), so Topology gke-default is not applied.',
    ])
  })

  it('reads the Topology kind for any GPU that can use one, so a kept Topology is compared too', () => {
    expect(objectsToRead(gpu('spot')).map((o) => o.kind)).toContain('Topology')
    expect(objectsToRead(inputs()).map((o) => o.kind)).not.toContain('Topology')
  })
})

describe('planInCluster: every object of the releases is compared with what is live', () => {
  /** Every object of both releases, as {component, key} (the table the rule is tested over). */
  const releaseTable = (['jobset', 'kueue'] as const).flatMap((component) =>
    releaseObjects(component).map((o) => ({component, object: o, name: `${component}: ${o.kind} ${o.metadata.name}`})),
  )
  const title = {jobset: 'JobSet', kueue: 'Kueue'} as const
  const version = {jobset: 'v0.10.1', kueue: 'v0.17.1'} as const
  const installStep = (steps: readonly InClusterStep[], component: ReleaseComponent) =>
    steps.find((s): s is Extract<InClusterStep, {kind: 'install'}> => s.kind === 'install' && s.component === component)

  it.each(releaseTable)('$name missing: applied, and only it', ({component, object}) => {
    const observed = converged(inputs())
    const live = new Map(observed.live)
    live.delete(objectKey(object))
    const controllerGone = object.kind === 'Deployment'
    const controllers = controllerGone
      ? {...observed.controllers, [component]: {installed: false as const}}
      : observed.controllers
    const plan = planInCluster(inputs(), {...observed, live, controllers})
    const install = installStep(plan.steps, component)
    const ref = {apiVersion: object.apiVersion, kind: object.kind, name: object.metadata.name}
    expect(install?.objects).toEqual([object.metadata.namespace ? {...ref, namespace: object.metadata.namespace} : ref])
    const named = `${object.kind} ${object.metadata.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata.name}`
    const total = releaseObjects(component).length
    // Without its Deployment the release counts as not installed; otherwise it is repaired. Either way one object.
    expect(install?.action).toBe(controllerGone ? 'install' : 'repair')
    expect(install?.reason).toBe(
      `${controllerGone ? 'install' : 'repair'} ${title[component]} ${version[component]}: 1 of ${total} objects missing (${named})`,
    )
    expect(changing(plan.steps).map((s) => `${s.kind}:${'component' in s ? s.component : ''}`)).toEqual([
      `install:${component}`,
      `await:${component}`,
    ])
    expect(installStep(plan.steps, component === 'jobset' ? 'kueue' : 'jobset')).toBeUndefined()
  })

  // Every object that sets a field besides its name (a ServiceAccount sets none that could differ).
  it.each(releaseTable.filter(({object}) => object.kind !== 'Deployment' && edit(object, object) !== undefined))(
    '$name changed by someone: applied again, and only it',
    ({component, object}) => {
      const observed = converged(inputs())
      const live = new Map(observed.live)
      const changed = structuredClone(live.get(objectKey(object))) as {metadata: {labels?: Record<string, string>}}
      // A field the release sets, given another value: labels where the release sets some, else a list emptied.
      const edited = edit(changed, object)
      live.set(objectKey(object), edited)
      const install = installStep(planInCluster(inputs(), {...observed, live}).steps, component)
      expect(install?.action).toBe('repair')
      expect(install?.objects).toHaveLength(1)
      expect(install?.reason).toMatch(/: 1 of \d+ objects different \(/)
    },
  )

  it('a controller Deployment that differs beyond its size is repaired, not resized', () => {
    const observed = converged(inputs())
    const deployment = structuredClone(observed.controllers.kueue.deployment) as {
      spec: {template: {spec: {containers: {args: string[]}[]}}}
    }
    deployment.spec.template.spec.containers[0]!.args = ['--zap-log-level=5']
    const plan = planInCluster(inputs(), {
      ...observed,
      controllers: {...observed.controllers, kueue: {...observed.controllers.kueue, deployment}},
    })
    expect(reasons(changing(plan.steps))).toEqual([
      'repair Kueue v0.17.1: 1 of 15 objects different (Deployment kueue-system/kueue-controller-manager)',
      "wait until Kueue's controller is Available",
    ])
  })

  it.each([
    {name: 'a newer Kueue', kueue: liveController('kueue', 'v0.18.0', 5)},
    {name: 'a Kueue Helm manages', kueue: liveController('kueue', 'v0.17.1', 5, {[MANAGED_BY_LABEL]: 'Helm'})},
  ])('$name is not repaired: its objects are not ours to apply', ({kueue}) => {
    const observed = converged(inputs())
    const live = new Map(observed.live)
    live.delete('CustomResourceDefinition//workloads.kueue.x-k8s.io')
    const plan = planInCluster(inputs(), {...observed, live, controllers: {...observed.controllers, kueue}})
    expect(installStep(plan.steps, 'kueue')).toBeUndefined()
  })

  it('a Kueue still starting is waited for before Kueue objects are applied, even with nothing of Kueue to install', () => {
    const observed = converged(inputs(2))
    const deployment = {
      ...(observed.controllers.kueue.deployment as object),
      status: {observedGeneration: 1, replicas: 1, updatedReplicas: 1, availableReplicas: 0},
    }
    const starting = {
      ...observed,
      controllers: {...observed.controllers, kueue: {...observed.controllers.kueue, deployment}},
    }
    expect(reasons(changing(planInCluster(inputs(4), starting).steps))[0]).toBe(
      "wait until Kueue's controller is Available (0 of 1 updated replicas available)",
    )
    // With no Kueue object to apply there is nothing to wait for.
    expect(changing(planInCluster(inputs(2), starting).steps)).toEqual([])
  })
})

describe('planInCluster: the quota when the GKE steps change node pools', () => {
  it('marks the quota steps, and says they follow the node-pool steps for the pools RUNNING then', () => {
    const plan = planInCluster({...inputs(4), nodePoolsChange: true}, converged(inputs(2)))
    expect(plan.quotaAfterNodePools).toBe(true)
    const quota = plan.steps.filter((s) => (s.kind === 'apply' && s.quota) || s.kind === 'delete')
    expect(quota.map((s) => s.reason)).toEqual([
      'create ResourceFlavor 4xv5p-16 (after the node-pool steps, for the pools RUNNING then)',
      'update ClusterQueue cluster-queue: quota 16 -> 32 (after the node-pool steps, for the pools RUNNING then)',
      'update ConfigMap demo-resources-configmap (after the node-pool steps, for the pools RUNNING then)',
    ])
    // Nothing else is marked or deferred: the other objects do not depend on the cluster's size.
    const others = plan.steps.filter((s) => s.kind === 'apply' && !s.quota)
    expect(others.map((s) => s.kind === 'apply' && s.object.kind)).toEqual([
      'ProvisioningRequestConfig',
      'LocalQueue',
      'PriorityClass',
      'PriorityClass',
      'PriorityClass',
      'PriorityClass',
      'PriorityClass',
      'ConfigMap',
    ])
    expect(others.every((s) => !s.reason.includes('RUNNING'))).toBe(true)
  })

  it('without node-pool steps the quota is applied as planned', () => {
    const plan = planInCluster(inputs(4), converged(inputs(2)))
    expect(plan.quotaAfterNodePools).toBe(false)
    expect(plan.steps.every((s) => !s.reason.includes('RUNNING'))).toBe(true)
  })
})

/** `live` with one field the release object sets given another value; undefined when it sets none but its name. */
function edit(live: object, object: KubeObject): object | undefined {
  const copy = structuredClone(live) as Record<string, unknown> & {metadata: {labels?: Record<string, string>}}
  if (object.metadata.labels) {
    const [key] = Object.keys(object.metadata.labels as object)
    copy.metadata.labels = {...copy.metadata.labels, [key!]: 'changed'}
    return copy
  }
  for (const field of ['webhooks', 'rules', 'subjects']) {
    if (Array.isArray(copy[field])) return {...copy, [field]: []}
  }
  const spec = copy.spec as Record<string, unknown> | undefined
  if (spec && 'group' in spec) return {...copy, spec: {...spec, group: 'changed.example.com'}}
  if (spec && 'ports' in spec) return {...copy, spec: {...spec, ports: []}}
  return undefined
}
