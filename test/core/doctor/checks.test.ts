// Every check of `xpk doctor`, table-driven: for each, what was read (or why not) and the status, detail and fix it
// gives, a pass and a fail (and a warn where there is one) each.
import {describe, expect, it} from 'vitest'

import {findAccelerator} from '../../../src/core/catalog/lookup.js'
import {
  apisCheck,
  clusterCheck,
  credentialsCheck,
  dockerCheck,
  kubernetesCheck,
  nodeCheck,
  permissionsCheck,
  projectCheck,
  quotaCheck,
  registryCheck,
  releaseCheck,
  report,
  reservationsCheck,
  xpkVersionCheck,
  type Check,
  type ReadFailure,
} from '../../../src/core/doctor/checks.js'
import {doctorCapacity} from '../../../src/core/doctor/inputs.js'
import {renderDoctor} from '../../../src/core/doctor/render.js'
import {
  ALL_PLANNED_PERMISSIONS,
  quotaMetrics,
  REQUIRED_APIS,
  REQUIRED_CRDS,
} from '../../../src/core/doctor/requirements.js'
import {UsageError} from '../../../src/core/errors.js'

const failure = (kind: ReadFailure['kind'], message: string, hint: string | null = null): ReadFailure => ({
  failed: true,
  kind,
  message,
  hint,
})
const v5p8 = findAccelerator('v5p-8')!
const ALL_APIS = REQUIRED_APIS.map((a) => a.service)
const controller = (version: string | null, available: boolean | null, installed = true) => ({
  installed,
  version,
  image: installed ? `registry.k8s.io/x:${version ?? ''}` : null,
  available: installed ? available : null,
})

const cases: readonly [string, Check, {status: Check['status']; detail?: RegExp; fix?: RegExp}][] = [
  // credentials
  [
    'credentials: a token given',
    credentialsCheck({source: 'XPK_ACCESS_TOKEN', file: null, type: null, account: null, token: null}),
    {status: 'pass', detail: /XPK_ACCESS_TOKEN/},
  ],
  [
    'credentials: a key file and a token',
    credentialsCheck({
      source: 'GOOGLE_APPLICATION_CREDENTIALS',
      file: '/k.json',
      type: 'service_account',
      account: 'sa@p.iam.gserviceaccount.com',
      token: {obtained: true},
    }),
    {status: 'pass', detail: /\/k\.json \(service_account, sa@p\.iam\.gserviceaccount\.com\); a token was obtained/},
  ],
  [
    'credentials: none found',
    credentialsCheck({source: 'none', file: null, type: null, account: null, token: null}),
    {status: 'warn', fix: /application-default login/},
  ],
  [
    'credentials: a file that gives no token',
    credentialsCheck({
      source: 'gcloud',
      file: '/adc.json',
      type: 'authorized_user',
      account: null,
      token: {obtained: false, error: 'invalid_grant'},
    }),
    {status: 'fail', detail: /gcloud user login.*no token: invalid_grant/},
  ],
  // project
  [
    'project: active',
    projectCheck('p', {projectId: 'p', projectNumber: '123', state: 'ACTIVE'}),
    {status: 'pass', detail: /number 123/},
  ],
  ['project: none set', projectCheck(undefined, undefined), {status: 'fail', fix: /--project/}],
  [
    'project: denied (or missing)',
    projectCheck('p', failure('permission', 'Could not read project p: denied')),
    {status: 'fail', detail: /does not exist, or these credentials may not read it/},
  ],
  [
    'project: being deleted',
    projectCheck('p', {projectId: 'p', projectNumber: '1', state: 'DELETE_REQUESTED'}),
    {status: 'fail', detail: /DELETE_REQUESTED/},
  ],
  // apis
  ['apis: all on', apisCheck('p', ALL_APIS), {status: 'pass'}],
  [
    'apis: GKE off',
    apisCheck(
      'p',
      ALL_APIS.filter((a) => a !== 'container.googleapis.com'),
    ),
    {status: 'fail', fix: /gcloud services enable container\.googleapis\.com --project=p/},
  ],
  [
    'apis: Filestore off',
    apisCheck(
      'p',
      ALL_APIS.filter((a) => a !== 'file.googleapis.com'),
    ),
    {status: 'warn', detail: /file\.googleapis\.com/},
  ],
  [
    'apis: cannot list',
    apisCheck('p', failure('permission', 'Service Usage API disabled')),
    {status: 'warn', detail: /could not list/},
  ],
  // permissions
  [
    'permissions: all',
    permissionsCheck('p', ALL_PLANNED_PERMISSIONS),
    {status: 'pass', detail: new RegExp(`all ${ALL_PLANNED_PERMISSIONS.length}`)},
  ],
  [
    'permissions: no cluster create',
    permissionsCheck(
      'p',
      ALL_PLANNED_PERMISSIONS.filter((x) => x !== 'container.clusters.create'),
    ),
    {
      status: 'fail',
      detail: /container\.clusters\.create \(cluster create and delete\)/,
      fix: /roles\/container\.admin/,
    },
  ],
  [
    'permissions: no TPU VMs',
    permissionsCheck(
      'p',
      ALL_PLANNED_PERMISSIONS.filter((x) => !x.startsWith('tpu.')),
    ),
    {status: 'warn', fix: /roles\/tpu\.admin/},
  ],
  ['permissions: cannot ask', permissionsCheck('p', failure('auth', 'no token')), {status: 'fail'}],
  // quota
  [
    'quota: room',
    quotaCheck({accelerator: v5p8, numSlices: 2, spot: false}, {project: 'p', region: 'us-east5'}, [
      {metric: 'TPU_PODSLICE_V5', limit: 16, usage: 8},
    ]),
    {status: 'pass', detail: /needs 8 chips; TPU_PODSLICE_V5 in us-east5: limit 16, in use 8, free 8/},
  ],
  [
    'quota: short',
    quotaCheck({accelerator: v5p8, numSlices: 4, spot: false}, {project: 'p', region: 'us-east5'}, [
      {metric: 'TPU_PODSLICE_V5', limit: 16, usage: 8},
    ]),
    {status: 'fail', fix: /quotas\?project=p/},
  ],
  [
    'quota: Spot reads the preemptible metric',
    quotaCheck({accelerator: v5p8, numSlices: 1, spot: true}, {project: 'p', region: 'us-east5'}, [
      {metric: 'TPU_PODSLICE_V5', limit: 16, usage: 0},
    ]),
    {status: 'warn', detail: /reports no quota PREEMPTIBLE_TPU_PODSLICE_V5/},
  ],
  [
    'quota: no region',
    quotaCheck({accelerator: v5p8, numSlices: 1, spot: false}, {project: 'p', region: 'nowhere'}, undefined),
    {status: 'fail', fix: /--zone/},
  ],
  // reservations
  [
    'reservations: room',
    reservationsCheck({items: ['r1'], problems: [], free: ['r1: 4 of 4 VMs free'], shortage: null}),
    {status: 'pass', detail: /r1: 4 of 4 VMs free/},
  ],
  [
    'reservations: missing',
    reservationsCheck({items: ['r1'], problems: ['no reservation r1 in project p, zone z'], free: [], shortage: null}),
    {status: 'fail', detail: /no reservation r1/},
  ],
  [
    'reservations: short',
    reservationsCheck({
      items: ['r1'],
      problems: [],
      free: [],
      shortage: 'reservation r1 has 1 of 4 VMs free; 2 new slices of v5p-16 need 4 (2 VMs each)',
    }),
    {status: 'fail'},
  ],
  // cluster
  [
    'cluster: running',
    clusterCheck(
      {project: 'p', cluster: 'demo', region: 'us-east5'},
      {name: 'demo', location: 'us-east5', status: 'RUNNING', version: '1.31.1-gke.1'},
    ),
    {status: 'pass', detail: /GKE 1\.31\.1-gke\.1/},
  ],
  [
    'cluster: reconciling',
    clusterCheck(
      {project: 'p', cluster: 'demo', region: 'us-east5'},
      {name: 'demo', location: 'us-east5', status: 'RECONCILING', version: '1.31'},
    ),
    {status: 'warn'},
  ],
  [
    'cluster: missing',
    clusterCheck({project: 'p', cluster: 'demo', region: 'us-east5'}, undefined),
    {status: 'fail', detail: /no cluster demo in project p, us-east5/},
  ],
  // kubernetes
  ['kubernetes: reached', kubernetesCheck({target: 'https://10.0.0.1'}, false), {status: 'pass'}],
  [
    'kubernetes: unreachable',
    kubernetesCheck(failure('unavailable', 'connect ECONNREFUSED'), false),
    {status: 'fail', fix: /private/},
  ],
  [
    'kubeconfig: no such context',
    kubernetesCheck(failure('usage', 'no context "x"'), true),
    {status: 'fail', fix: /--context/},
  ],
  // jobset and kueue
  [
    'jobset: current and Available',
    releaseCheck('jobset', 'v0.10.1', {controller: controller('v0.10.1', true), crds: REQUIRED_CRDS.jobset}),
    {status: 'pass'},
  ],
  [
    'jobset: not installed',
    releaseCheck('jobset', 'v0.10.1', {controller: controller(null, null, false), crds: []}),
    {status: 'fail', fix: /cluster create/},
  ],
  [
    'kueue: current and Available',
    releaseCheck('kueue', 'v0.17.1', {controller: controller('v0.17.1', true), crds: REQUIRED_CRDS.kueue}),
    {status: 'pass', detail: /7 CRDs/},
  ],
  [
    'kueue: a CRD missing',
    releaseCheck('kueue', 'v0.17.1', {controller: controller('v0.17.1', true), crds: REQUIRED_CRDS.kueue.slice(1)}),
    {status: 'fail', detail: /lacks CRDs: admissionchecks\.kueue\.x-k8s\.io/},
  ],
  [
    'kueue: not Available',
    releaseCheck('kueue', 'v0.17.1', {controller: controller('v0.17.1', false), crds: REQUIRED_CRDS.kueue}),
    {status: 'fail', detail: /not Available/},
  ],
  [
    'kueue: another version',
    releaseCheck('kueue', 'v0.17.1', {controller: controller('v0.14.3', true), crds: REQUIRED_CRDS.kueue}),
    {status: 'warn', detail: /Kueue v0\.14\.3; this xpk installs v0\.17\.1/},
  ],
  // xpk version
  ['xpk-version: this one', xpkVersionCheck('v0.1.0', '0.1.0'), {status: 'pass'}],
  [
    'xpk-version: an older one',
    xpkVersionCheck('v0.0.9', '0.1.0'),
    {status: 'warn', detail: /an older xpk \(v0\.0\.9\)/},
  ],
  ['xpk-version: a newer one', xpkVersionCheck('v1.0.0', '0.1.0'), {status: 'warn', fix: /Upgrade/}],
  ['xpk-version: none', xpkVersionCheck(null, '0.1.0'), {status: 'warn', fix: /cluster adapt/}],
  [
    'xpk-version: unreadable',
    xpkVersionCheck(failure('permission', 'configmaps is forbidden'), '0.1.0'),
    {status: 'fail'},
  ],
  // local
  [
    'docker: reached',
    dockerCheck({version: '27.1.1', where: '/var/run/docker.sock'}),
    {status: 'pass', detail: /Docker 27\.1\.1/},
  ],
  [
    'docker: not reached',
    dockerCheck(failure('unavailable', 'Cannot reach the Docker engine')),
    {status: 'warn', fix: /--docker-image/},
  ],
  [
    'registry: credentials',
    registryCheck('gcr.io', {found: true, source: 'Application Default Credentials', problem: null}),
    {status: 'pass'},
  ],
  [
    'registry: none',
    registryCheck('127.0.0.1:5001', {found: false, source: 'none', problem: null}),
    {status: 'warn', detail: /403/},
  ],
  [
    'registry: no token',
    registryCheck('gcr.io', failure('auth', 'No Google credentials to access gcr.io')),
    {status: 'fail'},
  ],
  ['node: 24', nodeCheck('v24.1.0'), {status: 'pass'}],
  ['node: 20', nodeCheck('v20.10.0'), {status: 'fail', fix: /22/}],
  // a check that ran out of time fails as unanswered, whichever it is
  [
    'any: out of time',
    projectCheck('p', failure('timeout', 'no answer within 20 s', 'Check the network')),
    {status: 'fail', fix: /network/},
  ],
]

describe('the checks of xpk doctor', () => {
  it.each(cases)('%s', (_name, check, want) => {
    expect(check.status).toBe(want.status)
    if (want.detail) expect(check.detail).toMatch(want.detail)
    if (want.fix) expect(check.fix).toMatch(want.fix)
    expect(check.fix === null).toBe(check.status === 'pass')
  })

  it('every status of every check is tried', () => {
    const seen = new Set(cases.map(([, c]) => `${c.name}:${c.status}`))
    for (const name of [
      'credentials',
      'project',
      'apis',
      'permissions',
      'quota',
      'reservations',
      'cluster',
      'kubernetes',
      'jobset',
      'kueue',
      'xpk-version',
      'docker',
      'registry',
      'node',
    ]) {
      expect(seen.has(`${name}:pass`), `${name} passes`).toBe(true)
      expect(
        [...seen].some((s) => s.startsWith(`${name}:`) && !s.endsWith(':pass')),
        `${name} fails or warns`,
      ).toBe(true)
    }
  })
})

describe('the quota metric of each accelerator', () => {
  it.each([
    ['v5litepod-16', false, 'TPU_LITE_PODSLICE_V5', 'chips'],
    ['v5litepod-16', true, 'PREEMPTIBLE_TPU_LITE_PODSLICE_V5', 'chips'],
    ['h100-80gb-8', false, 'NVIDIA_H100_GPUS', 'GPUs'],
    ['n2-standard-32-4', false, 'N2_CPUS', 'vCPUs'],
  ])('%s (Spot %s): %s', (name, spot, metric, unit) => {
    const got = quotaMetrics(findAccelerator(name)!, spot)
    expect(got.metrics[0]).toBe(metric)
    expect(got.unit).toBe(unit)
  })
})

describe("doctor's capacity flags", () => {
  it('reads the request', () => {
    expect(doctorCapacity({tpuType: 'v5p-8', numSlices: '3', reservation: 'r1,r2'})).toEqual({
      request: {accelerator: v5p8, numSlices: 3, spot: false},
      reservations: ['r1', 'r2'],
    })
    expect(doctorCapacity({})).toEqual({request: null, reservations: []})
  })

  it('refuses every capacity flag without an accelerator, all at once', () => {
    const error = (() => {
      try {
        doctorCapacity({numSlices: '0', reservation: 'r1,', spot: true})
      } catch (e) {
        return e as UsageError
      }
      throw new Error('accepted')
    })()
    expect(error).toBeInstanceOf(UsageError)
    expect(error.message.split('\n')).toEqual([
      expect.stringMatching(/^--num-slices: 0 is out of range/),
      expect.stringMatching(/^--reservation /),
      expect.stringMatching(/^--num-slices asks about capacity/),
      expect.stringMatching(/^--reservation asks about capacity/),
      expect.stringMatching(/^--spot asks about capacity/),
    ])
  })
})

describe('the report', () => {
  it('counts and prints every check on one line each, hostile text escaped, the fixes below', () => {
    const text = renderDoctor(
      report([
        nodeCheck('v24.1.0'),
        clusterCheck(
          {project: 'p', cluster: 'demo', region: 'r'},
          failure('failed', 'Could not read cluster\n\x1b[2Jdemo: boom', 'Fix\tit'),
        ),
        dockerCheck(failure('unavailable', 'no engine')),
      ]),
    )
    expect(text).toBe(
      [
        'STATUS   CHECK     DETAIL',
        'ok       node      Node.js v24.1.0',
        'FAIL     cluster   Could not read cluster \\x1b[2Jdemo: boom',
        'WARN     docker    no Docker engine: no engine',
        '',
        '1 failure, 1 warning, 1 passed.',
        '',
        'To fix:',
        '  cluster: Fix it',
        '  docker: Only `workload create` with --script-dir or --base-docker-image builds; start Docker or set DOCKER_HOST, or pass --docker-image.',
      ].join('\n'),
    )
  })
})
