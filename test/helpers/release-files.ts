// The JobSet and Kueue releases the in-cluster tests and bench:in-cluster install: the stand-in releases of
// test/fakes/memory-release-manifests.ts with the real CRDs in place of their own whenever test/helpers/crds.ts finds
// them (CI always does), so the Kubernetes fake validates every JobSet and Kueue object xpk applies against the real
// schemas. Stand-in CRDs stay for kinds the real set lacks (the shared CRD set has no ProvisioningRequestConfig CRD).
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {isCrd, type KubeObject, type ReleaseComponent} from '../../src/core/kube/release-manifest.js'
import {toYamlDocuments} from '../../src/core/manifests/to-yaml.js'
import {releaseObjects} from '../fakes/memory-release-manifests.js'
import {CRDS} from './crds.js'

/** The release's objects in apply order (Namespaces, CRDs, the rest), with the real CRDs where they are known. */
export function releaseWithRealCrds(component: ReleaseComponent): KubeObject[] {
  const real = [...(CRDS.components.find((c) => c.component === component)?.crds() ?? [])]
  const realNames = new Set(real.map((c) => c.metadata.name))
  const objects = releaseObjects(component).filter((o) => !(isCrd(o) && realNames.has(o.metadata.name)))
  return [
    ...objects.filter((o) => o.kind === 'Namespace'),
    ...objects.filter(isCrd),
    ...real,
    ...objects.filter((o) => o.kind !== 'Namespace' && !isCrd(o)),
  ]
}

/** The JobSet CRD a cluster made by `cluster create` serves: the real one when found, else the stand-in. */
export function jobSetCrd(): KubeObject {
  return releaseWithRealCrds('jobset').find((o) => o.metadata.name === 'jobsets.jobset.x-k8s.io')!
}

/** {@link releaseWithRealCrds} written as a manifest file in `dir`, for `--jobset-manifest` / `--kueue-manifest`. */
export function writeReleaseManifest(component: ReleaseComponent, dir: string): string {
  const file = join(dir, `${component}.yaml`)
  writeFileSync(file, toYamlDocuments(releaseWithRealCrds(component)))
  return file
}
