// The GKE, Kubernetes and Cloud TPU API fakes (test/fakes/fake-gke.ts, fake-kube.ts, fake-tpu.ts) for benchmarks that run the CLI against
// them, loaded through scripts/test-doubles.mjs (they are TypeScript Node's type stripping does not take).
import {mkdtempSync} from 'node:fs'
import {join} from 'node:path'

import {loadTestModules} from '../scripts/test-doubles.mjs'

/** The GKE fake class; `cleanup()` removes its build. */
export async function loadFakeGke() {
  const {modules, cleanup} = await loadTestModules(["export {FakeGke} from './test/fakes/fake-gke.ts'"])
  return {FakeGke: modules.FakeGke, cleanup}
}

/** The Kubernetes API fake class (HTTPS with its own CA, bearer token); `cleanup()` removes its build. */
export async function loadFakeKube() {
  const {modules, cleanup} = await loadTestModules(["export {FakeKube} from './test/fakes/fake-kube.ts'"])
  return {FakeKube: modules.FakeKube, cleanup}
}

/** The Cloud TPU API fake class (test/fakes/fake-tpu.ts); `cleanup()` removes its build. */
export async function loadFakeTpu() {
  const {modules, cleanup} = await loadTestModules(["export {FakeTpu} from './test/fakes/fake-tpu.ts'"])
  return {FakeTpu: modules.FakeTpu, cleanup}
}

/**
 * The CLI's environment against the fake: nothing from the user's config, gcloud or shell tuning
 * (XPK_POLL_INTERVAL_MS etc.), no metadata server (plain http to loopback sends no credentials anyway), and the
 * compile cache in `cacheHome`, shared by the runs of one benchmark as a user's runs share theirs.
 */
export function cliEnv(fake, scratch, cacheHome) {
  return {
    PATH: process.env.PATH,
    HOME: mkdtempSync(join(scratch, 'home-')),
    XDG_CONFIG_HOME: mkdtempSync(join(scratch, 'config-')),
    ...(cacheHome ? {XDG_CACHE_HOME: cacheHome} : {}),
    CLOUDSDK_CONFIG: mkdtempSync(join(scratch, 'gcloud-')),
    METADATA_SERVER_DETECTION: 'none',
    GCE_METADATA_HOST: '127.0.0.1:9',
    GCE_METADATA_IP: '127.0.0.1:9',
    NO_COLOR: '1',
    XPK_GKE_ENDPOINT: `http://${fake.endpoint}`,
  }
}

/**
 * What a workload submit reads of a cluster `cluster create` set up, to seed the Kubernetes fake with: the JobSet kind
 * (a CRD that takes any object), the resources ConfigMap with `vms` VMs of `deviceType`, Kueue's LocalQueue
 * `multislice-queue` (and its kind) and the five PriorityClasses, which the submitted JobSet names.
 */
export function submitReadyObjects(cluster, deviceType, vms) {
  return [
    {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: {name: 'jobsets.jobset.x-k8s.io'},
      spec: {
        group: 'jobset.x-k8s.io',
        scope: 'Namespaced',
        names: {kind: 'JobSet', plural: 'jobsets', singular: 'jobset', listKind: 'JobSetList'},
        versions: [
          {
            name: 'v1alpha2',
            served: true,
            storage: true,
            schema: {openAPIV3Schema: {type: 'object', 'x-kubernetes-preserve-unknown-fields': true}},
          },
        ],
      },
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {name: `${cluster}-resources-configmap`, namespace: 'default'},
      data: {[deviceType]: String(vms)},
    },
    // What the submitted JobSet names besides its kind: Kueue's LocalQueue and the PriorityClass of --priority.
    {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: {name: 'localqueues.kueue.x-k8s.io'},
      spec: {
        group: 'kueue.x-k8s.io',
        scope: 'Namespaced',
        names: {kind: 'LocalQueue', plural: 'localqueues', singular: 'localqueue', listKind: 'LocalQueueList'},
        versions: [
          {
            name: 'v1beta2',
            served: true,
            storage: true,
            schema: {openAPIV3Schema: {type: 'object', 'x-kubernetes-preserve-unknown-fields': true}},
          },
        ],
      },
    },
    {
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'LocalQueue',
      metadata: {name: 'multislice-queue', namespace: 'default'},
      spec: {clusterQueue: 'cluster-queue'},
    },
    ...[
      ['very-low', 100, 'Very Low'],
      ['low', 250, 'Low'],
      ['medium', 500, 'Medium'],
      ['high', 750, 'High'],
      ['very-high', 1000, 'Very High'],
    ].map(([name, value, description]) => ({
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: {name},
      value,
      globalDefault: false,
      description,
    })),
  ]
}
