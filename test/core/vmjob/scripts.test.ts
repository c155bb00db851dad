// The scripts a TPU VM job runs on its workers: each is valid shell (bash -n) whatever the config's values hold, and
// a value never reaches the shell unquoted (it is echoed back exactly by a script that only prints it).
import {spawnSync} from 'node:child_process'
import {describe, expect, it} from 'vitest'

import {
  commandLine,
  condaModuleScript,
  dockerModuleScript,
  followScript,
  gcsfuseModuleScript,
  parseProbe,
  pinnedImage,
  probeScript,
  shipCodeScript,
  sshModuleScript,
  startScript,
  stopScript,
  venvModuleScript,
} from '../../../src/core/vmjob/scripts.js'
import type {VmJobSpec} from '../../../src/core/vmjob/spec.js'

const HOSTILE = `it's "$(touch /tmp/pwned)" \`id\` $HOME; rm -rf / \n next line \\ end`

const spec = (overrides: Partial<VmJobSpec> = {}): VmJobSpec => ({
  name: 'job',
  project: 'p',
  envType: 'none',
  loop: false,
  tpu: {
    allocationMode: 'queued-resources',
    accelerator: 'v4-8',
    name: 'job',
    zone: 'us-central2-b',
    runtimeVersion: 'tpu-ubuntu2204-base',
    pricing: 'ondemand',
    startupScript: null,
    tags: [],
    metadata: {},
  },
  modules: [],
  command: {run: HOSTILE, workers: 'all'},
  ...overrides,
})

const bashN = (script: string) => spawnSync('bash', ['-n'], {input: script, encoding: 'utf8'})

const scripts: [string, string][] = [
  [
    'ssh',
    sshModuleScript(
      '000001-x',
      [
        {
          privateKey: {path: '.ssh/id', content: Buffer.from(HOSTILE), mode: 0o600},
          publicKey: {path: '.ssh/id.pub', content: Buffer.from('ssh-ed25519 AAAA x'), mode: 0o644},
          publicLine: `ssh-ed25519 AAAA ${HOSTILE}`,
        },
      ],
      [`Host 10.*\n  IdentityFile ~/.ssh/id\n${HOSTILE}`],
    ),
  ],
  ['gcsfuse', gcsfuseModuleScript({bucket: HOSTILE, mountPath: `/mnt/${HOSTILE}`})],
  ['docker (latest)', dockerModuleScript({image: `${HOSTILE}:latest`, envVars: [], mountDirs: [], flags: []})],
  ['docker (pinned)', dockerModuleScript({image: 'repo/img:1.2', envVars: [], mountDirs: [], flags: []})],
  ['conda', condaModuleScript({name: HOSTILE, configFile: 'env.yaml'}, `.xpk/jobs/x/files/${HOSTILE}`)],
  ['venv', venvModuleScript({name: HOSTILE, requirementsFile: 'r.txt', python: HOSTILE}, 'files/r.txt')],
  ['start', startScript('000001-x', 3, `code/${HOSTILE}`, commandLine(spec(), '000001-x', 3, {A: HOSTILE}))],
  [
    'start (docker)',
    startScript(
      '000001-x',
      1,
      undefined,
      commandLine(
        spec({
          envType: 'docker',
          docker: {
            image: 'img:1',
            envVars: [`X=${HOSTILE}`],
            mountDirs: ['/a', '/b:/c'],
            workdir: HOSTILE,
            flags: ['--privileged'],
          },
        }),
        '000001-x',
        1,
        {B: HOSTILE},
      ),
    ),
  ],
  [
    'start (conda)',
    startScript(
      'k',
      1,
      undefined,
      commandLine(spec({envType: 'conda', conda: {name: HOSTILE, configFile: 'e'}}), 'k', 1, {}),
    ),
  ],
  [
    'start (venv)',
    startScript(
      'k',
      1,
      undefined,
      commandLine(spec({envType: 'venv', venv: {name: HOSTILE, requirementsFile: 'r', python: 'python3'}}), 'k', 1, {}),
    ),
  ],
  ['probe', probeScript('000001-x', 2)],
  ['follow', followScript('000001-x', 2, 1234)],
  ['stop', stopScript('000001-x', 2, false)],
  ['stop (docker)', stopScript('000001-x', 2, true)],
  ['ship', shipCodeScript('000001-x')],
]

describe('the scripts of a TPU VM job', () => {
  it.each(scripts)('%s is valid shell (bash -n) with hostile values in the config', (_, script) => {
    const checked = bashN(script)
    expect(checked.stderr).toBe('')
    expect(checked.status).toBe(0)
  })

  it('the command reaches the shell as one quoted word: a run prints it back exactly', () => {
    const line = commandLine(spec({command: {run: 'printf %s "$X"', workers: 'all'}}), 'k', 1, {X: HOSTILE})
    const run = spawnSync('bash', ['-c', line], {encoding: 'utf8', env: {PATH: process.env.PATH, HOME: '/nonexistent'}})
    expect(run.stdout).toBe(HOSTILE)
  })

  it.each([
    ['repo/img:1.2', true],
    ['repo/img@sha256:abc', true],
    ['repo/img', false],
    ['repo/img:latest', false],
    ['localhost:5000/img', false],
    ['localhost:5000/img:v2', true],
  ] as const)('%s pinned: %s', (image, pinned) => {
    expect(pinnedImage(image)).toBe(pinned)
  })

  it.each([
    ['running\n', {state: 'running'}],
    ['exited 3\n', {state: 'exited', code: 3}],
    ['absent', {state: 'absent'}],
    ['lost', {state: 'lost'}],
    ['garbage', {state: 'lost'}],
  ] as const)('probe answer %j is %j', (text, probe) => {
    expect(parseProbe(text)).toEqual(probe)
  })
})
