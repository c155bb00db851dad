// The PathwaysJob kind (google/pathways-job, pathways-job.pathways.domain/v1) older Python xpk versions submitted
// Pathways workloads as: its CRD from ../shared/crds/pathways-job-v0.1.4/ when found (never copied into the
// project), else a schema-less stand-in with the same names; and a PathwaysJob as such an xpk created it.
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {load} from 'js-yaml'

import type {KubeObject} from '../../src/ports/kube.js'
import {defaultCrdSearch} from './crds.js'

const CRD_FILE = join(
  defaultCrdSearch().sharedDir,
  'pathways-job-v0.1.4',
  'pathways-job.pathways.domain_pathwaysjobs.yaml',
)

const STAND_IN = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {name: 'pathwaysjobs.pathways-job.pathways.domain'},
  spec: {
    group: 'pathways-job.pathways.domain',
    names: {kind: 'PathwaysJob', listKind: 'PathwaysJobList', plural: 'pathwaysjobs', singular: 'pathwaysjob'},
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {openAPIV3Schema: {type: 'object', 'x-kubernetes-preserve-unknown-fields': true}},
      },
    ],
  },
} as unknown as KubeObject

/** The PathwaysJob CRD: v0.1.4's when found, else the stand-in. */
export function pathwaysJobCrd(): KubeObject {
  return existsSync(CRD_FILE) ? (load(readFileSync(CRD_FILE, 'utf8')) as KubeObject) : structuredClone(STAND_IN)
}

/** A PathwaysJob `name` in namespace default, as Python xpk's template made it (v5p-8, one slice, headless). */
export function olderXpkPathwaysJob(name: string): KubeObject {
  return {
    apiVersion: 'pathways-job.pathways.domain/v1',
    kind: 'PathwaysJob',
    metadata: {
      ...{name, namespace: 'default'},
      labels: {'kueue.x-k8s.io/queue-name': 'multislice-queue', 'xpk.google.com/workload': name},
    },
    spec: {
      maxRestarts: 0,
      workers: [{type: 'ct5p-hightpu-4t', topology: '2x2x1', numSlices: 1, priorityClassName: 'medium'}],
      pathwaysDir: 'gs://cloud-pathways-staging/tmp',
      controller: {deploymentMode: 'default'},
    },
  } as unknown as KubeObject
}
