// What `storage attach` writes for each of the five types, as goldens (test/golden/storage/attach-<type>.yaml): the
// GCS FUSE and Filestore objects xpk builds (src/core/storage/manifests.ts) and, for Parallelstore, persistent disks
// and Lustre, a user manifest as the checks take it (user-manifest.ts), each with its Storage object, which is held
// to the Storage CRD's schema (Python xpk's when ../shared has it, else ours). Python xpk's templates are quoted in
// the comments of manifests.ts; the goldens are what we send, differences included.
import {describe, expect, it} from 'vitest'

import {toYamlDocuments} from '../../../src/core/manifests/to-yaml.js'
import type {AttachFlags} from '../../../src/core/storage/rules.js'
import {attachObjects, CLUSTER, DATASETS_FLAGS, HOME_FLAGS} from '../../builders/storage.js'
import {prune, validate} from '../../fakes/fake-kube-schema.js'
import type {Obj} from '../../fakes/fake-kube-util.js'
import {expectGolden} from '../../helpers/golden.js'
import {STORAGE_CRD} from '../../helpers/storage-crd.js'

interface GoldenCase {
  readonly type: string
  /** The `storage attach` flags the case stands for, as typed. */
  readonly command: string
  readonly flags: AttachFlags
}

const CASES: readonly GoldenCase[] = [
  {
    type: 'gcsfuse',
    command:
      'datasets --type gcsfuse --auto-mount true --mount-point /data --readonly true --bucket my-datasets --size 64 ' +
      '--mount-options implicit-dirs,metadata-cache:ttl-secs:-1',
    flags: {...DATASETS_FLAGS, mountOptions: 'implicit-dirs,metadata-cache:ttl-secs:-1'},
  },
  {
    type: 'gcpfilestore',
    command:
      'home --type gcpfilestore --auto-mount false --mount-point /home/shared --readonly false --instance home-fs --vol vol1',
    flags: HOME_FLAGS,
  },
  ...(['parallelstore', 'pd', 'lustre'] as const).map((type) => ({
    type,
    command: `scratch --type ${type} --auto-mount true --mount-point /scratch --readonly false --manifest /home/me/${type}.yaml`,
    flags: {
      name: 'scratch',
      type,
      autoMount: 'true',
      mountPoint: '/scratch',
      readonly: 'false',
      manifest: `/home/me/${type}.yaml`,
    },
  })),
]

describe('storage attach goldens', () => {
  it.each(CASES)('attach-$type.yaml is what attach sends', ({type, command, flags}) => {
    expectGolden(
      `storage/attach-${type}.yaml`,
      `# xpk storage attach ${command} --cluster ${CLUSTER}\n${toYamlDocuments(attachObjects(flags))}`,
    )
  })

  it.each(CASES)('the Storage object of $type is valid by the Storage CRD, and names the PV and claim', ({flags}) => {
    const objects = attachObjects(flags)
    const storage = objects.at(-1)!
    const schema = (STORAGE_CRD.spec as {versions: {schema: {openAPIV3Schema: Obj}}[]}).versions[0]!.schema
      .openAPIV3Schema
    const body = JSON.parse(JSON.stringify(storage)) as Obj
    expect(prune(body, schema)).toEqual([])
    expect(validate(body, schema)).toEqual([])
    const spec = storage.spec as {pv: string; pvc: string}
    expect(objects.find((o) => o.kind === 'PersistentVolume')?.metadata).toMatchObject({name: spec.pv})
    expect(objects.find((o) => o.kind === 'PersistentVolumeClaim')?.metadata).toMatchObject({name: spec.pvc})
  })
})
