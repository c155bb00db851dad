// The JobSet and Kueue Workload CRDs for tests that put workloads in the Kubernetes fake: the real ones when the
// tests can find them (crds.ts; CI always does), so the fake validates every JobSet and Workload (status included)
// against the real schemas; else the permissive stand-ins of the in-memory release manifests.
import {isCrd, type KubeObject} from '../../src/core/kube/release-manifest.js'
import {releaseObjects} from '../fakes/memory-release-manifests.js'
import {CRDS} from './crds.js'

const NAMES = ['jobsets.jobset.x-k8s.io', 'workloads.kueue.x-k8s.io']

export function workloadCrds(): KubeObject[] {
  return NAMES.map((name) => {
    const real = CRDS.components.flatMap((c) => c.crds()).find((o) => o.metadata.name === name)
    const standIn = [...releaseObjects('jobset'), ...releaseObjects('kueue')].find(
      (o) => isCrd(o) && o.metadata.name === name,
    )
    return (real ?? standIn)!
  })
}
