// The fake kube-apiserver cross-checked with the real kubectl, so it cannot drift into agreeing only with our own
// client: discovery, server-side apply (field managers, conflicts), patches, deletes that wait, and watches.
import {execFile, spawn} from 'node:child_process'
import {existsSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {dump} from 'js-yaml'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {storageCrd} from '../../src/core/storage/crd.js'
import {STORAGE_API_VERSION, STORAGE_CRD_NAME} from '../../src/core/storage/observed.js'
import {attachObjects, DATASETS_FLAGS, HOME_FLAGS} from '../builders/storage.js'
import {tempDir} from '../helpers/temp.js'
import type {Obj} from './fake-kube.js'
import {FakeKube} from './fake-kube.js'

const KUBECTL = '/usr/bin/kubectl'
const haveKubectl = existsSync(KUBECTL)
if (!haveKubectl) {
  if (process.env.CI)
    throw new Error(`${KUBECTL} is missing; CI must cross-check the fake kube-apiserver with kubectl.`)
  process.stderr.write(`Skipping the kubectl cross-checks of the fake kube-apiserver: ${KUBECTL} is not installed.\n`)
}

let fake: FakeKube
let dir: string

interface Run {
  code: number
  stdout: string
  stderr: string
}

/** kubectl against the fake, with its own kubeconfig and a discovery cache that starts empty in every test. */
function kubectl(...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(
      KUBECTL,
      ['--kubeconfig', join(dir, 'config'), '--cache-dir', join(dir, 'cache'), ...args],
      {encoding: 'utf8', timeout: 30_000},
      (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number') return reject(err)
        resolve({code: err ? Number(err.code) : 0, stdout, stderr})
      },
    )
  })
}

async function ok(...args: string[]): Promise<string> {
  const run = await kubectl(...args)
  if (run.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${run.code}: ${run.stderr}`)
  return run.stdout
}

/** Writes objects as a multi-document YAML file and returns its path. */
function manifest(name: string, ...objects: Obj[]): string {
  const file = join(dir, name)
  writeFileSync(file, objects.map((o) => dump(o)).join('---\n'))
  return file
}

const configMap = (name: string, data: Record<string, string>): Obj => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {name, namespace: 'default'},
  data,
})

function deployment(name: string, containers: Obj[]): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {name, namespace: 'default'},
    spec: {
      replicas: 1,
      selector: {matchLabels: {app: name}},
      template: {metadata: {labels: {app: name}}, spec: {containers}},
    },
  }
}

const widgetCrd: Obj = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {name: 'widgets.example.com'},
  spec: {
    group: 'example.com',
    names: {plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd']},
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: {status: {}},
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {type: 'object', required: ['size'], properties: {size: {type: 'integer', minimum: 1}}},
              status: {type: 'object', properties: {phase: {type: 'string'}}},
            },
          },
        },
      },
    ],
  },
}

beforeAll(async () => {
  if (haveKubectl) fake = await FakeKube.start({namespaceDeletionMs: 50})
})

afterAll(async () => {
  await fake?.stop()
})

beforeEach(() => {
  fake?.reset()
  dir = tempDir('fake-kube-kubectl-')
  if (fake) writeFileSync(join(dir, 'config'), fake.kubeconfig())
})

describe.skipIf(!haveKubectl)('FakeKube with kubectl', () => {
  it('answers discovery as kubectl expects: version, api-resources with short names, get by short name', async () => {
    const version = JSON.parse(await ok('version', '-o', 'json')) as {serverVersion: Obj}
    expect(version.serverVersion).toMatchObject({major: '1', minor: '32', gitVersion: 'v1.32.4-gke.1000'})
    const resources = await ok('api-resources', '--no-headers')
    expect(resources).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m)
    expect(resources).toMatch(/^priorityclasses\s+pc\s+scheduling.k8s.io\/v1\s+false\s+PriorityClass$/m)
    expect(await ok('get', 'ns', '-o', 'name')).toBe(
      'namespace/default\nnamespace/kube-node-lease\nnamespace/kube-public\nnamespace/kube-system\n',
    )
    // kubectl asked for aggregated discovery and got it: no per-group-version resource lists were needed.
    expect(fake.requests.filter((r) => /^\/apis?\/[^/]+(\/[^/]+)?$/.test(r.path) && r.verb === 'discovery')).toEqual([])
  })

  it('applies server-side as field manager "kubectl", reports conflicts of another manager, and forces them', async () => {
    expect(await ok('apply', '--server-side', '-f', manifest('c1.yaml', configMap('c1', {a: '1', b: '1'})))).toBe(
      'configmap/c1 serverside-applied\n',
    )
    const applied = fake.requests.find((r) => r.verb === 'apply')
    expect(applied?.query).toEqual({fieldManager: 'kubectl', fieldValidation: 'Strict', force: 'false'})

    const other = manifest('c1-other.yaml', configMap('c1', {a: '2'}))
    const conflict = await kubectl('apply', '--server-side', '--field-manager', 'other', '-f', other)
    expect(conflict.code).toBe(1)
    expect(conflict.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .data.a')
    expect(conflict.stderr).toContain('--force-conflicts')
    await ok('apply', '--server-side', '--field-manager', 'other', '--force-conflicts', '-f', other)
    const cm = JSON.parse(await ok('get', 'cm', 'c1', '-o', 'json', '--show-managed-fields')) as {
      data: Obj
      metadata: Obj
    }
    expect(cm.data).toEqual({a: '2', b: '1'})
    const managers = (cm.metadata.managedFields as Obj[]).map((m) => [m.manager, m.operation, m.fieldsV1])
    expect(managers).toEqual([
      ['kubectl', 'Apply', {'f:data': {'f:b': {}}}],
      ['other', 'Apply', {'f:data': {'f:a': {}}}],
    ])
    // Re-applying the same manifest changes nothing.
    const rv = (cm.metadata as Obj).resourceVersion
    await ok('apply', '--server-side', '--field-manager', 'other', '-f', other)
    expect(JSON.parse(await ok('get', 'cm', 'c1', '-o', 'json')).metadata.resourceVersion).toBe(rv)
  })

  it('installs a CRD with kubectl, then applies, lists and rejects custom resources as a real server would', async () => {
    await ok('apply', '--server-side', '-f', manifest('crd.yaml', widgetCrd))
    await ok('wait', '--for', 'condition=Established', 'crd/widgets.example.com', '--timeout', '10s')
    const widget = (spec: Obj): Obj => ({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: {name: 'w1', namespace: 'default'},
      spec,
    })
    await ok('apply', '--server-side', '-f', manifest('w1.yaml', widget({size: 2})))
    expect(await ok('get', 'wd', '-o', 'name')).toBe('widget.example.com/w1\n')
    const unknownField = await kubectl(
      'apply',
      '--server-side',
      '-f',
      manifest('w-bad.yaml', widget({size: 2, colour: 'red'})),
    )
    expect(unknownField.code).toBe(1)
    expect(unknownField.stderr).toContain('strict decoding error: unknown field "spec.colour"')
    const invalid = await kubectl('apply', '--server-side', '-f', manifest('w-inv.yaml', widget({size: 0})))
    expect(invalid.code).toBe(1)
    // kubectl rewords a 422 from its details: kind, name, then each cause.
    expect(invalid.stderr).toContain(
      'The Widget "w1" is invalid: spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1',
    )
  })

  it('patches with strategic merge (containers by name), JSON merge and JSON patch', async () => {
    await ok(
      'apply',
      '--server-side',
      '-f',
      manifest(
        'd1.yaml',
        deployment('d1', [
          {name: 'main', image: 'nginx:1'},
          {name: 'side', image: 'busybox'},
        ]),
      ),
    )
    await ok(
      'patch',
      'deployment',
      'd1',
      '--type',
      'strategic',
      '-p',
      JSON.stringify({spec: {template: {spec: {containers: [{name: 'main', image: 'nginx:2'}]}}}}),
    )
    const images = await ok(
      'get',
      'deploy',
      'd1',
      '-o',
      'jsonpath={range .spec.template.spec.containers[*]}{.name}={.image} {end}',
    )
    expect(images).toBe('main=nginx:2 side=busybox ')
    expect(await ok('get', 'deploy', 'd1', '-o', 'jsonpath={.metadata.generation}')).toBe('2')

    await ok('apply', '--server-side', '-f', manifest('c1.yaml', configMap('c1', {a: '1', b: '1'})))
    await ok('patch', 'cm', 'c1', '--type', 'merge', '-p', '{"data":{"a":null,"c":"3"}}')
    await ok('patch', 'cm', 'c1', '--type', 'json', '-p', '[{"op":"replace","path":"/data/b","value":"2"}]')
    expect(JSON.parse(await ok('get', 'cm', 'c1', '-o', 'jsonpath={.data}'))).toEqual({b: '2', c: '3'})
    const patches = fake.requests.filter((r) => r.verb === 'patch').map((r) => [r.contentType, r.query.fieldManager])
    expect(patches).toEqual([
      ['application/strategic-merge-patch+json', 'kubectl-patch'],
      ['application/merge-patch+json', 'kubectl-patch'],
      ['application/json-patch+json', 'kubectl-patch'],
    ])
  })

  it('deletes and waits for the object to be gone, including a namespace with its contents', async () => {
    await ok('apply', '--server-side', '-f', manifest('c1.yaml', configMap('c1', {a: '1'})))
    expect(await ok('delete', 'cm', 'c1')).toBe('configmap "c1" deleted\n')
    expect((await kubectl('get', 'cm', 'c1')).stderr).toContain('configmaps "c1" not found')
    await ok(
      'apply',
      '--server-side',
      '-f',
      manifest(
        'ns.yaml',
        {apiVersion: 'v1', kind: 'Namespace', metadata: {name: 'team'}},
        {...configMap('c2', {}), metadata: {name: 'c2', namespace: 'team'}},
      ),
    )
    // kubectl delete waits (by watching) until the Terminating namespace has gone.
    expect(await ok('delete', 'ns', 'team', '--timeout', '10s')).toBe('namespace "team" deleted\n')
    expect(fake.list('v1', 'Namespace').map((n) => (n.metadata as Obj).name)).not.toContain('team')
    expect(fake.list('v1', 'ConfigMap', 'team')).toEqual([])
    const refused = await kubectl('delete', 'ns', 'default')
    expect(refused.stderr).toContain('namespaces "default" is forbidden: this namespace may not be deleted')
  })

  it('watches with get --watch: the current objects, then each change as it happens', async () => {
    await ok('apply', '--server-side', '-f', manifest('c1.yaml', configMap('c1', {a: '1'})))
    const watcher = spawn(KUBECTL, [
      '--kubeconfig',
      join(dir, 'config'),
      '--cache-dir',
      join(dir, 'cache'),
      'get',
      'configmaps',
      '--watch',
      '--output-watch-events',
      '-o',
      'custom-columns=EVENT:.type,NAME:.object.metadata.name',
      '--no-headers',
    ])
    let out = ''
    watcher.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    const lines = () =>
      out
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => l.trim().split(/\s+/).join(' '))
    const waitForLines = async (n: number) => {
      const deadline = Date.now() + 15_000
      while (lines().length < n) {
        if (Date.now() > deadline) throw new Error(`kubectl get --watch printed only: ${out}`)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
    try {
      await waitForLines(1)
      await ok('apply', '--server-side', '-f', manifest('c2.yaml', configMap('c2', {b: '1'})))
      await ok('patch', 'cm', 'c1', '--type', 'merge', '-p', '{"data":{"a":"2"}}')
      await ok('delete', 'cm', 'c2')
      await waitForLines(4)
    } finally {
      watcher.kill()
    }
    expect(lines()).toEqual(['ADDED c1', 'ADDED c2', 'MODIFIED c1', 'DELETED c2'])
  })

  it('waits for a condition the test sets as the controller would (kubectl wait on a Deployment)', async () => {
    await ok('apply', '--server-side', '-f', manifest('d1.yaml', deployment('d1', [{name: 'main', image: 'nginx:1'}])))
    const waiting = kubectl('wait', '--for', 'condition=Available', 'deployment/d1', '--timeout', '15s')
    await new Promise((resolve) => setTimeout(resolve, 300))
    fake.setDeploymentAvailable('default', 'd1')
    const run = await waiting
    expect(run.stdout).toBe('deployment.apps/d1 condition met\n')
    expect(await ok('rollout', 'status', 'deployment/d1', '--timeout', '5s')).toContain('successfully rolled out')
  })

  it('reads pod logs and selects by label and field', async () => {
    fake.seed(
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {name: 'p1', namespace: 'default', labels: {app: 'x'}},
        spec: {containers: [{name: 'main', image: 'i'}]},
        status: {phase: 'Running'},
      },
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {name: 'p2', namespace: 'default', labels: {app: 'y'}},
        spec: {containers: [{name: 'main', image: 'i'}]},
        status: {phase: 'Succeeded'},
      },
    )
    fake.setPodLog('default', 'p1', 'hello\nworld\n')
    expect(await ok('logs', 'p1', '--tail', '1')).toBe('world\n')
    expect(
      await ok('get', 'pods', '-l', 'app in (x,y)', '--field-selector', 'status.phase=Running', '-o', 'name'),
    ).toBe('pod/p1\n')
    const badField = await kubectl('get', 'pods', '--field-selector', 'spec.nope=1')
    expect(badField.stderr).toContain('field label not supported: spec.nope')
  })
})

// Issue 20: the objects `storage attach` sends, and our Storage CRD, taken by kubectl as a real cluster takes them.
describe.skipIf(!haveKubectl)('FakeKube with kubectl: storage', () => {
  const storage = (name: string, spec: Obj): Obj => ({
    apiVersion: STORAGE_API_VERSION,
    kind: 'Storage',
    metadata: {name},
    spec,
  })
  const homeObjects = () => attachObjects(HOME_FLAGS)

  it('installs our Storage CRD, then creates, lists (by plural and short name) and refuses Storage objects', async () => {
    expect(await ok('apply', '--server-side', '-f', manifest('crd.yaml', storageCrd() as unknown as Obj))).toBe(
      `customresourcedefinition.apiextensions.k8s.io/${STORAGE_CRD_NAME} serverside-applied\n`,
    )
    await ok('wait', '--for', 'condition=Established', `crd/${STORAGE_CRD_NAME}`, '--timeout', '10s')
    const home = homeObjects().at(-1)!
    expect(await ok('create', '-f', manifest('home.yaml', home))).toBe('storage.xpk.x-k8s.io/home created\n')
    const datasets = attachObjects(DATASETS_FLAGS).at(-1)!
    await ok('apply', '--server-side', '-f', manifest('datasets.yaml', datasets))
    expect(await ok('get', 'storages', '-o', 'name')).toBe('storage.xpk.x-k8s.io/datasets\nstorage.xpk.x-k8s.io/home\n')
    expect(await ok('get', 'stg', 'home', '-o', 'jsonpath={.spec.type} {.spec.mount_point} {.spec.pvc}')).toBe(
      `gcpfilestore ${String((home.spec as Obj).mount_point)} home-pvc`,
    )
    const {type: _type, ...noType} = home.spec as Obj
    const missing = await kubectl('create', '-f', manifest('bad.yaml', storage('bad', noType)))
    expect(missing.code).toBe(1)
    expect(missing.stderr).toContain('The Storage "bad" is invalid: spec.type: Required value')
    const wrongType = await kubectl(
      'create',
      '-f',
      manifest('bad2.yaml', storage('bad2', {...(home.spec as Obj), auto_mount: 'yes'})),
    )
    expect(wrongType.code).toBe(1)
    expect(wrongType.stderr).toContain(
      'The Storage "bad2" is invalid: spec.auto_mount: Invalid value: "string": spec.auto_mount in body must be of type boolean: "string"',
    )
    expect(await ok('get', 'stg', '-o', 'name')).toBe('storage.xpk.x-k8s.io/datasets\nstorage.xpk.x-k8s.io/home\n')
  })

  it('applies the volume, claim and class of every storage type and gets them back as sent, with the server’s defaults', async () => {
    const objects = [
      ...attachObjects(DATASETS_FLAGS),
      ...homeObjects(),
      ...(['parallelstore', 'pd', 'lustre'] as const).flatMap((type) =>
        attachObjects({
          name: type,
          type,
          autoMount: 'false',
          mountPoint: '/m',
          readonly: 'false',
          manifest: `${type}.yaml`,
        }),
      ),
    ].filter((o) => o.kind !== 'Storage')
    expect(objects.map((o) => o.kind).sort()).toEqual(
      expect.arrayContaining(['PersistentVolume', 'PersistentVolumeClaim', 'StorageClass']),
    )
    await ok('apply', '--server-side', '-f', manifest('all.yaml', ...objects))
    for (const sent of objects) {
      const meta = sent.metadata as Obj
      const resource = {PersistentVolume: 'pv', PersistentVolumeClaim: 'pvc', StorageClass: 'sc'}[sent.kind as string]!
      const got = JSON.parse(
        await ok(
          'get',
          resource,
          String(meta.name),
          ...(meta.namespace ? ['-n', String(meta.namespace)] : []),
          '-o',
          'json',
        ),
      ) as Obj
      const {metadata: _m, status: _s, ...fields} = got
      const {metadata: _sm, ...sentFields} = sent
      // What the API server defaults (core/v1 and storage/v1 defaults.go), under what was sent.
      const defaults: Record<string, Obj> = {
        PersistentVolume: {spec: {persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem'}},
        PersistentVolumeClaim: {spec: {volumeMode: 'Filesystem'}},
        StorageClass: {reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate'},
      }
      const expected = {...defaults[sent.kind as string], ...sentFields}
      if (sentFields.spec)
        expected.spec = {...(defaults[sent.kind as string]!.spec as Obj), ...(sentFields.spec as Obj)}
      expect(fields, `${String(sent.kind)} ${String(meta.name)}`).toEqual(expected)
    }
  })

  it('is refused a volume, claim or class the API server would refuse, and updates of their immutable fields', async () => {
    const [pv, pvc, sc] = homeObjects() as [Obj, Obj, Obj]
    const badPv = {...pv, spec: {...(pv.spec as Obj), accessModes: ['ReadWriteAll'], capacity: undefined}}
    const refusedPv = await kubectl('apply', '--server-side', '-f', manifest('bad-pv.yaml', badPv))
    expect(refusedPv.code).toBe(1)
    expect(refusedPv.stderr).toContain(
      'The PersistentVolume "home-pv" is invalid: \n* spec.accessModes: Unsupported value: "ReadWriteAll": supported values: ' +
        '"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"\n* spec.capacity: Required value',
    )
    const refusedPvc = await kubectl(
      'create',
      '-f',
      manifest('bad-pvc.yaml', {...pvc, spec: {...(pvc.spec as Obj), resources: {requests: {storage: 'big'}}}}),
    )
    expect(refusedPvc.code).toBe(1)
    expect(refusedPvc.stderr).toContain('quantities must match the regular expression')
    expect(fake.list('v1', 'PersistentVolume')).toEqual([])

    await ok('apply', '--server-side', '-f', manifest('home.yaml', pv, pvc, sc))
    const changedClass = {...sc, parameters: {...(sc.parameters as Obj), tier: 'ZONAL'}}
    const refusedClass = await kubectl('apply', '--server-side', '-f', manifest('sc2.yaml', changedClass))
    expect(refusedClass.code).toBe(1)
    expect(refusedClass.stderr).toContain(
      'The StorageClass "home-sc" is invalid: parameters: Forbidden: updates to parameters are forbidden.',
    )
    const refusedClaim = await kubectl(
      'patch',
      'pvc',
      'home-pvc',
      '-n',
      'default',
      '--type',
      'merge',
      '-p',
      '{"spec":{"accessModes":["ReadOnlyMany"]}}',
    )
    expect(refusedClaim.code).toBe(1)
    expect(refusedClaim.stderr).toContain(
      'The PersistentVolumeClaim "home-pvc" is invalid: spec: Forbidden: spec is immutable after creation except ' +
        'resources.requests and volumeAttributesClassName for bound claims',
    )
    // A label is no spec: taken.
    await ok('label', 'pv', 'home-pv', 'team=ml')
    expect(await ok('get', 'pv', 'home-pv', '-o', 'jsonpath={.metadata.labels.team}')).toBe('ml')
  })
})
