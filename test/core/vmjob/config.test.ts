import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {UsageError, UsageErrors} from '../../../src/core/errors.js'
import {readVmJobConfig, type VmJobConfigOptions} from '../../../src/core/vmjob/config.js'

const FIXTURES = join(import.meta.dirname, 'fixtures')
const HOME = '/home/ada'
const CWD = '/work/jobs'

/** The files a config may name, as a map (the core reads nothing itself). */
const FILES: Record<string, string> = {
  [`${HOME}/.ssh/id_rsa`]: 'PRIVATE',
  [`${HOME}/.ssh/id_rsa.pub`]: 'ssh-rsa AAAA',
  [`${HOME}/.ssh/id_ed25519_github`]: 'PRIVATE',
  [`${HOME}/.ssh/id_ed25519_github.pub`]: 'ssh-ed25519 AAAA',
  '/u/yx1168/.ssh/id_rsa': 'PRIVATE',
  '/u/yx1168/.ssh/id_rsa.pub': 'ssh-rsa AAAA',
  [`${CWD}/assets/fms.yaml`]: 'name: fms',
  [`${CWD}/assets/requirements.txt`]: 'jax',
  [`${CWD}/scripts/startup.sh`]: '#!/bin/bash\necho up\n',
}

function options(overrides: Partial<VmJobConfigOptions> = {}): VmJobConfigOptions {
  return {
    path: 'job.yaml',
    cwd: CWD,
    homeDir: HOME,
    defaults: {project: 'my-project'},
    readFile: (p) => FILES[p],
    ...overrides,
  }
}

const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8')

/** Every problem's message, whether one or several were found. */
function problemsOf(text: string, opts: Partial<VmJobConfigOptions> = {}): string[] {
  try {
    readVmJobConfig(text, options(opts))
  } catch (error) {
    if (error instanceof UsageErrors) return error.problems.map((p) => p.message)
    if (error instanceof UsageError) return [error.message]
    throw error
  }
  throw new Error('expected problems, the config was accepted')
}

function hintsOf(text: string): string[] {
  try {
    readVmJobConfig(text, options())
  } catch (error) {
    return (error as UsageError).hints as string[]
  }
  return []
}

describe("readVmJobConfig: the examples of jobman's docs read unchanged", () => {
  it("GET_STARTED.md's blocks, assembled into the template", () => {
    const {spec, warnings} = readVmJobConfig(fixture('get-started.yaml'), options())
    expect(spec).toEqual({
      name: 'pretrain-llama3-8b-200b-tune',
      project: 'my-project',
      envType: 'docker',
      loop: true,
      tpu: {
        allocationMode: 'queued-resources',
        accelerator: 'v4-128',
        name: 'yufeng-v4-128',
        zone: 'us-central2-b',
        runtimeVersion: 'tpu-ubuntu2204-base',
        pricing: 'spot',
        startupScript: null,
        tags: ['jobman', 'experiment'],
        metadata: {owner: 'yufeng', purpose: 'pretrain'},
      },
      modules: ['ssh', 'gcsfuse', 'docker'],
      gcsfuse: {bucket: 'llm_pruning_us_central2_b', mountPath: '/home/zephyr/gcs-bucket'},
      ssh: {
        login: {privateKey: `${HOME}/.ssh/id_rsa`, publicKey: `${HOME}/.ssh/id_rsa.pub`},
        identities: [
          {
            privateKey: `${HOME}/.ssh/id_rsa`,
            publicKey: `${HOME}/.ssh/id_rsa.pub`,
            configEntry: 'Host 10.*\n  IdentityFile ~/.ssh/id_rsa\n  IdentitiesOnly yes\n',
          },
          {
            privateKey: `${HOME}/.ssh/id_ed25519_github`,
            publicKey: `${HOME}/.ssh/id_ed25519_github.pub`,
            configEntry: 'Host github.com\n  User git\n  IdentityFile ~/.ssh/id_ed25519_github\n  IdentitiesOnly yes\n',
          },
        ],
      },
      docker: {
        image: 'yx3038/maxtext_base_image:latest',
        envVars: ['HOME=/home/zephyr'],
        mountDirs: ['/home/zephyr', '/dev', '/run', '/home/zephyr/.config/gcloud:/root/.config/gcloud'],
        workdir: '/home/zephyr',
        flags: ['--privileged', '--network=host'],
      },
      command: {run: 'pip show flax\npip show jax\n', workers: [0]},
    })
    // The template keeps conda and venv blocks beside docker: accepted, and said to be unused.
    expect(warnings.map((w) => [w.path, w.line])).toEqual([
      ['conda', 51],
      ['venv', 54],
    ])
    expect(warnings[0]!.text).toMatch(/^job\.yaml:51: conda: ignored: the job's environment is docker/)
  })

  it("jobman-v2 README's blocks (tpu_private_key form, setup.modules, command.run)", () => {
    const {spec, warnings} = readVmJobConfig(fixture('v2-readme.yaml'), options())
    expect(warnings).toEqual([])
    expect(spec).toEqual({
      name: 'quick-start',
      project: 'my-project',
      envType: 'docker',
      loop: false,
      tpu: {
        allocationMode: 'queued-resources',
        accelerator: 'v6e-1',
        name: 'yufeng-v6e-1',
        zone: 'us-east1-d',
        runtimeVersion: 'v2-alpha-tpuv6e',
        pricing: 'spot',
        startupScript: null,
        tags: ['jobman', 'experiment'],
        metadata: {owner: 'yufeng', purpose: 'testing jobman'},
      },
      modules: ['gcsfuse', 'ssh', 'docker'],
      gcsfuse: {bucket: 'llm_pruning_us_east1_d', mountPath: '/home/zephyr/gcs-bucket'},
      ssh: {identities: [{privateKey: '/u/yx1168/.ssh/id_rsa', publicKey: '/u/yx1168/.ssh/id_rsa.pub'}]},
      docker: {
        image: 'yx3038/maxtext_base_image:latest',
        envVars: [],
        mountDirs: ['/home/zephyr', '/dev', '/run', '/home/zephyr/.ssh:/root/.ssh'],
        workdir: '/home/zephyr',
        flags: ['--privileged', '--network=host'],
      },
      command: {run: 'pip show jax\npip show flax\n', workers: [0]},
    })
  })
})

/** A small valid config the cases below change one thing in. */
const BASE = `job:
  name: demo
  env_type: docker
  loop: true
tpu:
  accelerator: v4-8
  zone: us-central2-b
  pricing: spot
docker:
  image: python:3.11
command:
  cmd: |
    python train.py
  workers: all
`

describe('readVmJobConfig: values', () => {
  it('reads a small config with the defaults filled in', () => {
    const {spec} = readVmJobConfig(BASE, options())
    expect(spec.tpu).toMatchObject({
      allocationMode: 'queued-resources',
      name: 'demo',
      runtimeVersion: 'tpu-ubuntu2204-base',
      tags: [],
      metadata: {},
    })
    expect(spec.modules).toEqual(['docker'])
    expect(spec.command).toEqual({run: 'python train.py\n', workers: 'all'})
  })

  it('a conda job with gcsfuse: null and ssh: null (jobman quick start style), YAML 1.1 booleans', () => {
    const text = `job:
  name: quick
  env_type: conda
  loop: no
tpu:
  accelerator: v6e-4
  zone: us-east1-d
gcsfuse: null
ssh: null
conda:
  name: fms
  config_file: assets/fms.yaml
command:
  cmd: pip show jax
  workers: all
`
    const {spec, warnings} = readVmJobConfig(text, options())
    expect(warnings).toEqual([])
    expect(spec.loop).toBe(false)
    expect(spec.modules).toEqual(['conda'])
    expect(spec.conda).toEqual({name: 'fms', configFile: `${CWD}/assets/fms.yaml`})
    expect(spec.ssh).toBeUndefined()
    expect(spec.gcsfuse).toBeUndefined()
  })

  it('a venv job: the python version keeps its text, a bare version names python<version>', () => {
    const text = BASE.replace('env_type: docker', 'env_type: venv').replace(
      'docker:\n  image: python:3.11\n',
      'venv:\n  name: v\n  requirements_file: ~/../../work/jobs/assets/requirements.txt\n  python: 3.10\n',
    )
    const {spec} = readVmJobConfig(text, options())
    expect(spec.venv).toEqual({name: 'v', requirementsFile: `${CWD}/assets/requirements.txt`, python: 'python3.10'})
  })

  it('reads the startup script the config names, relative to the working directory', () => {
    const text = BASE.replace('  pricing: spot\n', '  pricing: spot\n  startup_script: scripts/startup.sh\n')
    expect(readVmJobConfig(text, options()).spec.tpu.startupScript).toBe('#!/bin/bash\necho up\n')
  })

  it('interpolates: absolute, relative, typed, escaped, oc.env, job.max_recoveries and tpu.project', () => {
    const text = `job:
  name: demo-\${tpu.accelerator}
  env_type: docker
  loop: true
  max_recoveries: \${tpu.metadata.retries}
  remote_user: \${oc.env:USER}
tpu:
  accelerator: v4-16
  zone: us-central2-b
  name: \${job.name}-\${.zone}
  project: \${oc.env:PROJECT,fallback-project}
  metadata:
    retries: 3
    worker: 1
    loop: loop=\${job.loop}
    home: \\\${HOME}
    backslash: C:\\\\\${tpu.zone}
docker:
  image: python:3.11
command:
  cmd: echo \${tpu.name} in \${..tpu.zone} $HOME
  workers: \${tpu.metadata.worker}
`
    const {spec, warnings} = readVmJobConfig(text, options({env: {USER: 'ada'}}))
    expect(spec.name).toBe('demo-v4-16')
    expect(spec.tpu.name).toBe('demo-v4-16-us-central2-b')
    expect(spec.project).toBe('fallback-project')
    expect(spec.remoteUser).toBe('ada')
    expect(spec.maxRecoveries).toBe(3)
    expect(spec.loop).toBe(true)
    expect(spec.tpu.metadata).toEqual({
      retries: '3',
      worker: '1',
      loop: 'loop=True',
      home: '${HOME}',
      backslash: 'C:\\us-central2-b',
    })
    expect(spec.command).toEqual({run: 'echo demo-v4-16-us-central2-b in us-central2-b $HOME', workers: [1]})
    expect(warnings).toEqual([])
  })

  it('warns about the keys it accepts but ignores (job.queue, job.environment, brevo_email)', () => {
    const text =
      BASE.replace('  loop: true\n', '  loop: true\n  queue: null\n  environment: {A: b}\n') +
      'brevo_email:\n  api_key: null\n'
    const {warnings} = readVmJobConfig(text, options())
    expect(warnings.map((w) => w.path)).toEqual(['brevo_email', 'job.queue', 'job.environment'])
    expect(warnings[1]!.text).toMatch(/^job\.yaml:5: job\.queue: ignored/)
  })

  it('takes zone and project from the defaults only when neither the file nor a flag sets them', () => {
    const noZone = BASE.replace('  zone: us-central2-b\n', '')
    expect(readVmJobConfig(noZone, options({defaults: {zone: 'europe-west4-a', project: 'p'}})).spec.tpu.zone).toBe(
      'europe-west4-a',
    )
    const defaults = {zone: 'europe-west4-a', project: 'p'}
    expect(readVmJobConfig(noZone, options({defaults, flags: {zone: 'us-east1-d'}})).spec.tpu.zone).toBe('us-east1-d')
    expect(readVmJobConfig(BASE, options({defaults})).spec.tpu.zone).toBe('us-central2-b')
    expect(readVmJobConfig(BASE, options({defaults, flags: {project: 'q'}})).spec.project).toBe('q')
  })

  it('flags fill in what the file leaves out, and may repeat what it says', () => {
    const text = BASE.replace('  name: demo\n', '').replace('  workers: all\n', '')
    const {spec} = readVmJobConfig(
      text,
      options({
        flags: {name: 'from-flag', zone: 'us-central2-b', workers: '0', maxRecoveries: 5, scriptDir: 'src', loop: true},
      }),
    )
    expect(spec).toMatchObject({name: 'from-flag', maxRecoveries: 5, scriptDir: 'src', loop: true})
    expect(spec.command.workers).toEqual([0])
  })
})

/** The line of the first occurrence of `marker` in `text`. */
function lineOf(text: string, marker: string): number {
  const at = text.indexOf(marker)
  if (at < 0) throw new Error(`marker ${marker} not in the text`)
  return text.slice(0, at).split('\n').length
}

interface BadCase {
  readonly name: string
  readonly text: string
  /** The key path the problem names, and the text on the line it names. */
  readonly path: string
  readonly marker: string
  readonly message: RegExp
  readonly opts?: Partial<VmJobConfigOptions>
}

const swap = (from: string, to: string): string => {
  if (!BASE.includes(from)) throw new Error(`${from} not in BASE`)
  return BASE.replace(from, to)
}

const BAD: readonly BadCase[] = [
  {
    name: 'unknown top-level key, with the closest',
    text: BASE.replace('command:', 'comand:'),
    path: 'comand',
    marker: 'comand:',
    message: /unknown key; did you mean command\?/,
  },
  {
    name: 'unknown key in a block, with the closest',
    text: swap('  accelerator: v4-8', '  accelerator: v4-8\n  acelerator: v4-8'),
    path: 'tpu.acelerator',
    marker: 'acelerator',
    message: /unknown key; did you mean accelerator\?/,
  },
  {
    name: 'unknown key in docker',
    text: swap('  image: python:3.11', '  image: python:3.11\n  env: [A=b]'),
    path: 'docker.env',
    marker: '  env:',
    message: /unknown key; did you mean env_vars\?/,
  },
  {
    name: 'wrong type: boolean',
    text: swap('loop: true', 'loop: maybe'),
    path: 'job.loop',
    marker: 'loop:',
    message: /should be true or false, not "maybe"/,
  },
  {
    name: 'wrong type: list',
    text: swap('  pricing: spot', '  pricing: spot\n  tags: jobman'),
    path: 'tpu.tags',
    marker: 'tags:',
    message: /should be a list of strings, not "jobman"/,
  },
  {
    name: 'wrong type: block',
    text: swap('docker:\n  image: python:3.11', 'docker: python:3.11'),
    path: 'docker',
    marker: 'docker: python',
    message: /should be a mapping of key: value, not "python:3.11"/,
  },
  {
    name: 'wrong type: string',
    text: swap('  image: python:3.11', '  image: [python]'),
    path: 'docker.image',
    marker: 'image:',
    message: /should be a string, not a list/,
  },
  {
    name: 'wrong type: number',
    text: swap('  loop: true', '  loop: true\n  max_recoveries: -1'),
    path: 'job.max_recoveries',
    marker: 'max_recoveries',
    message: /should be a whole number, 0 or more, not "-1"/,
  },
  {
    name: 'bad enum',
    text: swap('pricing: spot', 'pricing: cheap'),
    path: 'tpu.pricing',
    marker: 'pricing:',
    message: /"cheap" is not one of spot, ondemand or preemptible/,
  },
  {
    name: 'bad enum, close to a value',
    text: swap('  pricing: spot', '  pricing: spot\n  allocation_mode: queued-resource'),
    path: 'tpu.allocation_mode',
    marker: 'allocation_mode',
    message: /"queued-resource" is not one of tpu-vm or queued-resources/,
  },
  {
    name: 'bad enum: env_type',
    text: swap('env_type: docker', 'env_type: dokcer'),
    path: 'job.env_type',
    marker: 'env_type',
    message: /"dokcer" is not one of docker, conda, venv or none/,
  },
  {
    name: 'missing required: job.name',
    text: swap('  name: demo\n', ''),
    path: 'job.name',
    marker: 'job:',
    message: /is missing/,
  },
  {
    name: 'missing required: tpu.accelerator',
    text: swap('  accelerator: v4-8\n', ''),
    path: 'tpu.accelerator',
    marker: 'tpu:',
    message: /is missing/,
  },
  {
    name: 'missing required: docker.image',
    text: swap('  image: python:3.11', '  workdir: /w'),
    path: 'docker.image',
    marker: 'docker:',
    message: /is missing/,
  },
  {
    name: 'missing required: tpu.zone with no default',
    text: swap('  zone: us-central2-b\n', ''),
    path: 'tpu.zone',
    marker: 'tpu:',
    message: /is missing/,
  },
  {
    name: 'missing required: the command',
    text: BASE.slice(0, BASE.indexOf('command:')),
    path: 'command',
    marker: 'job:',
    message: /is missing/,
  },
  {
    name: 'bad interpolation: unknown path, with the closest',
    text: swap('  name: demo', '  name: demo-${tpu.acelerator}'),
    path: 'job.name',
    marker: '  name: demo',
    message: /\$\{tpu\.acelerator\} names no key of the file/,
  },
  {
    name: 'bad interpolation: a shell variable in the command',
    text: swap('python train.py', 'python train.py --out ${HOME}/out'),
    path: 'command.cmd',
    marker: 'cmd: |',
    message: /\$\{HOME\} names no key of the file/,
  },
  {
    name: 'bad interpolation: unclosed',
    text: swap('  name: demo', '  name: demo-${job'),
    path: 'job.name',
    marker: '  name: demo',
    message: /opens \$\{ without a closing \}/,
  },
  {
    name: 'bad interpolation: a mapping',
    text: swap('  name: demo', '  name: ${tpu}'),
    path: 'job.name',
    marker: '  name: $',
    message: /\$\{tpu\} is a mapping, not a single value/,
  },
  {
    name: 'bad interpolation: unknown resolver',
    text: swap('  name: demo', '  name: ${oc.decode:x}'),
    path: 'job.name',
    marker: '  name: $',
    message: /the resolver "oc\.decode" .* is not supported/,
  },
  {
    name: 'bad interpolation: unset environment variable',
    text: swap('  name: demo', '  name: ${oc.env:NOPE_NOT_SET}'),
    path: 'job.name',
    marker: '  name: $',
    message: /environment variable NOPE_NOT_SET .* is not set/,
  },
  {
    name: 'interpolation cycle',
    text: swap('  zone: us-central2-b', '  zone: ${tpu.name}\n  name: x-${tpu.zone}'),
    path: 'tpu.zone',
    marker: '  zone:',
    message: /refers back to itself \(tpu\.zone -> tpu\.name -> tpu\.zone\)/,
  },
  {
    name: 'two environment types in setup.modules',
    text: BASE + 'setup:\n  modules: [docker, conda, command]\nconda:\n  name: c\n  config_file: assets/fms.yaml\n',
    path: 'setup.modules[1]',
    marker: 'modules:',
    message: /a second environment \(docker and conda\)/,
  },
  {
    name: 'env_type without its block',
    text: swap('env_type: docker', 'env_type: conda'),
    path: 'job.env_type',
    marker: 'env_type',
    message: /the environment is conda but the file has no conda block/,
  },
  {
    name: 'env_type and setup.modules disagree',
    text: BASE + 'setup:\n  modules: [venv, command]\nvenv:\n  name: v\n  requirements_file: assets/requirements.txt\n',
    path: 'setup.modules[0]',
    marker: 'modules:',
    message: /setup\.modules runs venv but job\.env_type is docker/,
  },
  {
    name: 'env_type not in setup.modules',
    text: BASE + 'setup:\n  modules: [command]\n',
    path: 'setup.modules',
    marker: 'env_type',
    message: /does not list docker/,
  },
  {
    name: 'two env blocks and no env_type',
    text: swap('  env_type: docker\n', '') + 'conda:\n  name: c\n  config_file: assets/fms.yaml\n',
    path: 'conda',
    marker: 'conda:',
    message: /has docker or conda blocks and no job\.env_type/,
  },
  {
    name: 'a module without its block',
    text: BASE + 'setup:\n  modules: [gcsfuse, docker, command]\n',
    path: 'setup.modules[0]',
    marker: 'modules:',
    message: /lists gcsfuse but the file has no gcsfuse block/,
  },
  {
    name: 'command not last',
    text: BASE + 'setup:\n  modules: [command, docker]\n',
    path: 'setup.modules[0]',
    marker: 'modules:',
    message: /command must be the last module/,
  },
  {
    name: 'unknown module',
    text: BASE + 'setup:\n  modules: [dockr, command]\n',
    path: 'setup.modules[0]',
    marker: 'modules:',
    message: /"dockr" is not a module/,
  },
  {
    name: 'unreadable file: startup_script',
    text: swap('  pricing: spot', '  pricing: spot\n  startup_script: missing.sh'),
    path: 'tpu.startup_script',
    marker: 'startup_script',
    message: /cannot read \/work\/jobs\/missing\.sh/,
  },
  {
    name: 'unreadable file: an identity key',
    text: BASE + 'ssh:\n  identities:\n    - private_key: ~/.ssh/nope\n      public_key: ~/.ssh/id_rsa.pub\n',
    path: 'ssh.identities[0].private_key',
    marker: 'nope',
    message: /cannot read \/home\/ada\/\.ssh\/nope/,
  },
  {
    name: 'unreadable file: the login key',
    text: BASE + 'ssh:\n  private_key: /keys/missing\n',
    path: 'ssh.private_key',
    marker: '/keys/missing',
    message: /cannot read \/keys\/missing/,
  },
  {
    name: 'unreadable file: conda config_file',
    text: swap('env_type: docker', 'env_type: conda') + 'conda:\n  name: c\n  config_file: assets/none.yaml\n',
    path: 'conda.config_file',
    marker: 'none.yaml',
    message: /cannot read \/work\/jobs\/assets\/none\.yaml/,
  },
  {
    name: 'unreadable file: venv requirements_file',
    text: swap('env_type: docker', 'env_type: venv') + 'venv:\n  name: v\n  requirements_file: req.txt\n',
    path: 'venv.requirements_file',
    marker: 'req.txt',
    message: /cannot read \/work\/jobs\/req\.txt/,
  },
  {
    name: 'bad accelerator',
    text: swap('accelerator: v4-8', 'accelerator: v4-7'),
    path: 'tpu.accelerator',
    marker: 'accelerator',
    message: /"v4-7": unknown TPU VM type\. Did you mean v4-8/,
  },
  {
    name: 'runtime version that does not run on the type',
    text: swap('  pricing: spot', '  pricing: spot\n  version: v2-alpha-tpuv6e'),
    path: 'tpu.version',
    marker: 'version',
    message: /"v2-alpha-tpuv6e": .*does not run on v4 TPUs/,
  },
  {
    name: 'unknown runtime version',
    text: swap('  pricing: spot', '  pricing: spot\n  version: tpu-ubuntu2204'),
    path: 'tpu.version',
    marker: 'version',
    message: /unknown TPU runtime version\. Did you mean tpu-ubuntu2204-base/,
  },
  {
    name: 'worker out of range',
    text: swap('workers: all', 'workers: [0, 2]'),
    path: 'command.workers',
    marker: 'workers',
    message: /worker 2 does not exist: this TPU has 1 worker \(0\)/,
  },
  {
    name: 'worker out of range (a single index)',
    text: swap('accelerator: v4-8', 'accelerator: v4-32').replace('workers: all', 'workers: 4'),
    path: 'command.workers',
    marker: 'workers',
    message: /worker 4 does not exist: this TPU has 4 workers \(0 to 3\)/,
  },
  {
    name: 'worker listed twice',
    text: swap('accelerator: v4-8', 'accelerator: v4-32').replace('workers: all', 'workers: [1, 1]'),
    path: 'command.workers',
    marker: 'workers',
    message: /lists worker 1 twice/,
  },
  {
    name: 'workers neither all nor indexes',
    text: swap('workers: all', 'workers: some'),
    path: 'command.workers',
    marker: 'workers',
    message: /should be "all", a worker index or a list of them, not "some"/,
  },
  {
    name: 'TPU name that is no TPU id',
    text: swap('  pricing: spot', '  pricing: spot\n  name: My_TPU'),
    path: 'tpu.name',
    marker: 'My_TPU',
    message: /"My_TPU": use lowercase letters, digits and hyphens/,
  },
  {
    name: 'job name that is no TPU id (it names the TPU)',
    text: swap('name: demo', 'name: Demo Job'),
    path: 'job.name',
    marker: 'Demo',
    message: /"Demo Job": use lowercase letters/,
  },
  {
    name: 'preemptible queued resource',
    text: swap('pricing: spot', 'pricing: preemptible'),
    path: 'tpu.pricing',
    marker: 'pricing',
    message: /a queued resource cannot be preemptible/,
  },
  {
    name: 'bad network tag',
    text: swap('  pricing: spot', '  pricing: spot\n  tags: ["Jobman"]'),
    path: 'tpu.tags[0]',
    marker: 'tags',
    message: /"Jobman" is not a valid network tag/,
  },
  {
    name: 'gcsfuse extra_mounts',
    text: BASE + 'gcsfuse:\n  bucket_name: b-1\n  mount_path: /mnt/b\n  extra_mounts: [{bucket_name: c}]\n',
    path: 'gcsfuse.extra_mounts',
    marker: 'extra_mounts',
    message: /is not supported: xpk mounts one bucket/,
  },
  {
    name: 'bad bucket name',
    text: BASE + 'gcsfuse:\n  bucket_name: My Bucket\n  mount_path: /mnt/b\n',
    path: 'gcsfuse.bucket_name',
    marker: 'My Bucket',
    message: /"My Bucket" is not a bucket name/,
  },
  {
    name: 'cmd and run both',
    text: swap('  workers: all', '  run: other\n  workers: all'),
    path: 'command.run',
    marker: 'run: other',
    message: /is set and so is command\.cmd/,
  },
  {
    name: 'docker env_vars entry without =',
    text: swap('  image: python:3.11', '  image: python:3.11\n  env_vars: [HOME]'),
    path: 'docker.env_vars[0]',
    marker: 'env_vars',
    message: /"HOME" should be NAME=value/,
  },
  {
    name: 'invalid YAML',
    text: swap('  zone: us-central2-b', '  zone: [us-central2-b'),
    path: '',
    marker: '  pricing',
    message: /not valid YAML/,
  },
  {
    name: 'duplicate key',
    text: swap('  zone: us-central2-b', '  zone: us-central2-b\n  zone: us-east1-d'),
    path: '',
    marker: 'us-east1-d',
    message: /not valid YAML: duplicated mapping key/,
  },
]

describe('readVmJobConfig: bad input, each problem with file:line, key path and a fix', () => {
  it.each(BAD)('$name', ({text, path, marker, message, opts}) => {
    const problems = problemsOf(text, opts)
    const prefix = `job.yaml:${lineOf(text, marker)}: ${path}${path ? ': ' : ''}`
    const found = problems.find((p) => p.startsWith(prefix) && message.test(p))
    expect(found, `no problem "${prefix}..." matching ${message} in:\n${problems.join('\n')}`).toBeDefined()
  })

  it('the fixes name what to do (unknown keys list the keys of their block)', () => {
    expect(hintsOf(BASE.replace('  pricing: spot', '  pricing: spot\n  acelerator: v4-8'))).toEqual([
      'Keys under tpu: allocation_mode, accelerator, name, zone, version, pricing, startup_script, tags, metadata, project.',
    ])
    expect(hintsOf(BASE.replace('python train.py', 'echo ${HOME}'))[0]).toMatch(/Write \\\$\{\.\.\.\} for a literal/)
  })

  it('reports every problem of a file at once', () => {
    const text = BASE.replace('pricing: spot', 'pricing: cheap')
      .replace('loop: true', 'loop: maybe')
      .replace('command:', 'comand:')
      .replace('accelerator: v4-8', 'accelerator: v9-8')
    const problems = problemsOf(text)
    expect(problems.map((p) => p.split(': ')[1])).toEqual(
      expect.arrayContaining(['comand', 'job.loop', 'tpu.accelerator', 'tpu.pricing', 'command']),
    )
    expect(problems).toHaveLength(5)
  })

  it('a flag that disagrees with the file names the flag and the line', () => {
    const cases: [Partial<VmJobConfigOptions>['flags'], string, string][] = [
      [{zone: 'us-east1-d'}, '--zone', 'zone:'],
      [{tpuType: 'v4-16'}, '--tpu-type', 'accelerator:'],
      [{name: 'other'}, '--name', 'name:'],
      [{command: 'true'}, '--command', 'cmd:'],
      [{workers: '0'}, '--workers', 'workers:'],
      [{spot: true}, '--spot', 'pricing:'],
    ]
    const text = BASE.replace('pricing: spot', 'pricing: ondemand')
    for (const [flags, flag, marker] of cases) {
      const [problem] = problemsOf(text, {flags})
      expect(problem).toContain(`${flag}=`)
      expect(problem).toContain(`disagrees with job.yaml:${lineOf(text, marker)}:`)
    }
    expect(problemsOf(BASE.replace('loop: true', 'loop: false'), {flags: {loop: true}})[0]).toMatch(
      /^--loop=true disagrees with job\.yaml:4: job\.loop is "false"/,
    )
  })

  it('an empty file and a file that is not a mapping', () => {
    expect(problemsOf('')[0]).toMatch(/^job\.yaml:1: the file should be a mapping of blocks/)
    expect(problemsOf('- a\n- b\n')[0]).toMatch(/not a list/)
  })
})
