/**
 * The Storage CRD (storages.xpk.x-k8s.io) for tests that need the cluster to serve the kind: Python xpk's own, from
 * `../shared/crds/xpk-storage-v1/` beside the checkout (never copied into the repository), or, where that is absent,
 * ours (src/core/storage/crd.ts, the one `storage attach` installs, held field for field to Python xpk's by
 * test/core/storage/crd.test.ts). Tests that hold xpk to the real schema skip without it, with one line saying why,
 * except under CI, where they run and fail (as the JobSet and Kueue schema tests do: test/helpers/crds.ts).
 */
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {parseManifest} from '../../src/core/kube/manifest-yaml.js'
import {storageCrd} from '../../src/core/storage/crd.js'
import type {KubeObject} from '../../src/ports/kube.js'
import {crd} from '../builders/workload-cluster.js'
import {REPO_ROOT} from './cli.js'

/** Where Python xpk's Storage CRD is looked for. */
export const SHARED_STORAGE_CRD = join(
  REPO_ROOT,
  '..',
  'shared',
  'crds',
  'xpk-storage-v1',
  'xpk.x-k8s.io_storages.yaml',
)

/** Python xpk's Storage CRD, when ../shared has it. */
export const PYTHON_STORAGE_CRD: KubeObject | undefined = existsSync(SHARED_STORAGE_CRD)
  ? parseManifest(readFileSync(SHARED_STORAGE_CRD, 'utf8'), SHARED_STORAGE_CRD).find(
      (o) => o.kind === 'CustomResourceDefinition',
    )
  : undefined

/**
 * A Storage CRD that serves xpk.x-k8s.io/v1 (cluster-scoped) and takes any object, as an older or looser CRD would:
 * for Storage objects another tool wrote without the required fields.
 */
export const MINIMAL_STORAGE_CRD = crd('xpk.x-k8s.io', 'Storage', 'storages', 'v1', 'Cluster') as KubeObject

/** The real CRD when at hand, else ours (the same schema): the cluster serves the kind and checks every object. */
export const STORAGE_CRD: KubeObject = PYTHON_STORAGE_CRD ?? storageCrd()

/** Whether tests against the real schema skip: only without ../shared, and never under CI. */
export const SKIP_STORAGE_CRD_TESTS = PYTHON_STORAGE_CRD === undefined && !process.env.CI

if (SKIP_STORAGE_CRD_TESTS) {
  process.stderr.write(
    `Skipping the Storage CRD schema tests: no ${SHARED_STORAGE_CRD}. To run them, put Python xpk's ` +
      'src/xpk/api/storage_crd.yaml there.\n',
  )
}
