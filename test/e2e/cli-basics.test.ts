import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {isolatedEnv, REPO_ROOT, runCli} from '../helpers/cli.js'
import {expectGolden} from '../helpers/golden.js'
import {tempDir} from '../helpers/temp.js'

describe('xpk --help and version', () => {
  it('lists every topic and keeps stdout for help', async () => {
    const result = await runCli(['--help'])
    expect(result.code).toBe(0)
    for (const topic of ['accelerator', 'cluster', 'config', 'workload', 'version'])
      expect(result.stdout).toContain(topic)
  })

  it('stops quietly when the reader of its output goes away (xpk ... | head)', async () => {
    const {spawnSync} = await import('node:child_process')
    const script = `"${process.execPath}" -- bin/run.js accelerator list | head -1; echo "exit=\${PIPESTATUS[0]}"`
    const result = spawnSync('bash', ['-c', script], {cwd: REPO_ROOT, env: isolatedEnv(), encoding: 'utf8'})
    expect(result.stdout).toMatch(/^NAME\s+ALIAS OF/)
    expect(result.stdout).toContain('exit=0')
    expect(result.stderr).toBe('')
  })

  it('shows examples in command help', async () => {
    const result = await runCli(['workload', 'create', '--help'])
    expect(result.stdout).toContain('EXAMPLES')
    expect(result.stdout).toContain('--dry-run --offline')
  })

  it('prints the versions it installs, as text and as JSON', async () => {
    const text = await runCli(['version'])
    expect(text.stdout).toMatch(/^xpk \d+\.\d+\.\d+\nJobSet v0\.10\.1\nKueue v0\.17\.1\n/)
    const json = JSON.parse((await runCli(['version', '--json'])).stdout)
    expect(json).toMatchObject({jobset: 'v0.10.1', kueue: 'v0.17.1'})
  })

  it('turns an unknown flag into a usage error with exit code 2 on stderr', async () => {
    const result = await runCli(['accelerator', 'list', '--colour'])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(/^Error: Nonexistent flag: --colour\n {2}Hint: See `xpk accelerator list --help`/)
  })

  it('reports errors as JSON on stdout under --json', async () => {
    const result = await runCli(['accelerator', 'describe', 'v5p-7', '--json'])
    expect(result.code).toBe(2)
    expect(JSON.parse(result.stdout)).toEqual({
      error: {
        kind: 'usage',
        exitCode: 2,
        message: expect.stringMatching(/^"v5p-7": unknown accelerator type\. Did you mean v5p-8/),
        hints: [expect.stringContaining('xpk accelerator list')],
      },
    })
  })
})

describe('xpk accelerator', () => {
  it("ignores oclif's XPK_CONTENT_TYPE=json: only --json (or -o) asks for JSON, as the environment table says", async () => {
    const result = await runCli(['accelerator', 'list', '--family', 'v5p'], {
      env: isolatedEnv({XPK_CONTENT_TYPE: 'json'}),
    })
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^v5p-8 /m)
    expect(result.stdout.trimStart().startsWith('[')).toBe(false)
  })

  it('lists a family as JSON objects with the documented fields', async () => {
    const result = await runCli(['accelerator', 'list', '--family', 'v5p', '--json'])
    expect(result.code).toBe(0)
    const rows = JSON.parse(result.stdout) as Record<string, unknown>[]
    expect(rows.length).toBeGreaterThan(100)
    expect(rows[0]).toMatchObject({
      name: 'v5p-8',
      canonical: 'v5p-8',
      kind: 'TPU',
      topology: '2x2x1',
      vmsPerSlice: 1,
      chipsPerVm: 4,
      gkeAccelerator: 'tpu-v5p-slice',
      machineType: 'ct5p-hightpu-4t',
      parallelContainers: 1,
    })
    expect(rows.some((r) => r.name === 'v5p-4x4x8')).toBe(false)
  })

  it('includes pure aliases only with --aliases', async () => {
    const rows = JSON.parse((await runCli(['accelerator', 'list', '--family', 'v6e', '--aliases', '--json'])).stdout)
    expect(rows.map((r: {name: string}) => r.name)).toContain('v6e-4x4')
  })

  it('describes an alias as its canonical type', async () => {
    const result = await runCli(['accelerator', 'describe', 'v5p-4x4x8'])
    expectGolden('cli/accelerator-describe-v5p-4x4x8.txt', result.stdout)
  })

  it('suggests families for an unknown --family', async () => {
    const result = await runCli(['accelerator', 'list', '--family', 'v5x'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--family=v5x: unknown family. Did you mean v5p')
  })
})

describe('xpk config', () => {
  it('saves, reads, lists with origins and unsets defaults in the XDG config file', async () => {
    const env = isolatedEnv()
    expect((await runCli(['config', 'set', 'project', 'my-project'], {env})).code).toBe(0)
    expect((await runCli(['config', 'set', 'zone', 'us-east5-a'], {env})).code).toBe(0)
    const file = readFileSync(join(env.XDG_CONFIG_HOME, 'xpk', 'config.yaml'), 'utf8')
    expect(file).toContain('version: v1')
    expect(file).toContain('project: my-project')

    expect((await runCli(['config', 'get', 'project'], {env})).stdout).toBe('my-project\n')
    const list = JSON.parse(
      (await runCli(['config', 'list', '--json'], {env: {...env, XPK_ZONE: 'europe-west4-b'}})).stdout,
    )
    expect(list.find((e: {key: string}) => e.key === 'project')).toMatchObject({value: 'my-project', source: 'config'})
    expect(list.find((e: {key: string}) => e.key === 'zone')).toMatchObject({value: 'europe-west4-b', source: 'env'})

    expect((await runCli(['config', 'unset', 'project'], {env})).code).toBe(0)
    const after = await runCli(['config', 'get', 'project'], {env})
    expect(after.stdout).toBe('')
    expect(after.stderr).toContain('project is not set')
  })

  it("keeps keys it does not know when writing, and reads Python xpk's project-id", async () => {
    const env = isolatedEnv()
    mkdirSync(join(env.XDG_CONFIG_HOME, 'xpk'), {recursive: true})
    const path = join(env.XDG_CONFIG_HOME, 'xpk', 'config.yaml')
    writeFileSync(path, 'version: v1\nconfigs:\n  project-id: legacy-project\n  send-telemetry: "false"\n')
    expect((await runCli(['config', 'get', 'project'], {env})).stdout).toBe('legacy-project\n')
    expect((await runCli(['config', 'set', 'cluster', 'c1'], {env})).code).toBe(0)
    const file = readFileSync(path, 'utf8')
    expect(file).toContain('send-telemetry')
    expect(file).toContain('cluster: c1')
  })

  it('rejects unknown keys and bad values with exit 2', async () => {
    const unknown = await runCli(['config', 'set', 'projcet', 'x'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('Did you mean project')
    const bad = await runCli(['config', 'set', 'zone', 'nowhere'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('a zone looks like us-central2-b')
  })

  it('reports a broken config file with its path', async () => {
    const env = isolatedEnv()
    mkdirSync(join(env.XDG_CONFIG_HOME, 'xpk'), {recursive: true})
    writeFileSync(join(env.XDG_CONFIG_HOME, 'xpk', 'config.yaml'), 'configs: [unclosed\n')
    const result = await runCli(['config', 'list'], {env})
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/config\.yaml is not valid YAML/)
  })
})

describe('xpk workload create --dry-run --offline', () => {
  const base = ['workload', 'create', '--project', 'demo-project', '--cluster', 'demo', '--command', 'python3 train.py']

  it('prints the plan and the JobSet on stdout and a summary on stderr', async () => {
    const result = await runCli([
      ...base,
      '--workload',
      'w1',
      '--tpu-type',
      'v5p-8',
      '--docker-image',
      'gcr.io/p/i:1',
      '--dry-run',
      '--offline',
    ])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^Plan for workload w1 on cluster demo:\n/)
    expect(result.stdout).toMatch(/\n {2}\+ {3}create {3}jobset {9}default\/w1 +1 slice of v5p-8 /)
    expect(result.stdout).toMatch(/\n\napiVersion: jobset\.x-k8s\.io\/v1alpha2\nkind: JobSet\n/)
    expect(result.stdout).toContain('image: gcr.io/p/i:1')
    expect(result.stderr).toContain('Dry run: nothing was submitted')
  })

  it('writes --output-manifest-file and returns the manifest under --json', async () => {
    const dir = tempDir('xpk-manifest-')
    const file = join(dir, 'jobset.yaml')
    const result = await runCli([
      ...base,
      '--workload',
      'w2',
      '--device-type',
      'h100-80gb-8',
      '--num-nodes',
      '2',
      '--docker-image',
      'nvidia/cuda:12',
      '--output-manifest-file',
      file,
      '--dry-run',
      '--offline',
      '--json',
    ])
    expect(result.code).toBe(0)
    const json = JSON.parse(result.stdout)
    expect(json).toMatchObject({workload: 'w2', dryRun: true, submitted: false, manifestFile: file})
    expect(json.manifest.spec.replicatedJobs[0].template.spec.parallelism).toBe(2)
    expect(readFileSync(file, 'utf8')).toContain('name: w2')
  })

  it('computes a content-derived image tag from --script-dir without touching the network', async () => {
    const dir = tempDir('xpk-script-')
    writeFileSync(join(dir, 'train.py'), 'print(1)\n')
    const imageFor = async () => {
      const args = ['--workload', 'w3', '--tpu-type', 'v5p-8', '--script-dir', dir, '--dry-run', '--offline', '--json']
      return JSON.parse((await runCli([...base, ...args])).stdout).image.reference as string
    }
    const first = await imageFor()
    expect(first).toMatch(/^gcr\.io\/demo-project\/jax-tpu:ctx-[0-9a-f]{16}$/)
    writeFileSync(join(dir, 'train.py'), 'print(2)\n')
    expect(await imageFor()).not.toBe(first)
  })

  it('passes --env-file through to the containers (Node must not take it for its own option)', async () => {
    const dir = tempDir('xpk-env-')
    const envFile = join(dir, 'run.env')
    writeFileSync(envFile, '# training knobs\nSTEPS=100\nexport LR=0.1\n')
    const result = await runCli([
      ...base,
      '--workload',
      'w4',
      '--tpu-type',
      'v5p-8',
      '--docker-image',
      'i',
      '--env-file',
      envFile,
      '--dry-run',
      '--offline',
      '--json',
    ])
    expect(result.code).toBe(0)
    const container = JSON.parse(result.stdout).manifest.spec.replicatedJobs[0].template.spec.template.spec
      .containers[0]
    expect(container.env).toEqual([
      {name: 'STEPS', value: '100'},
      {name: 'LR', value: '0.1'},
    ])
  })

  it('rejects bad input with every problem named, exit 2, and writes nothing', async () => {
    const dir = tempDir('xpk-bad-')
    const envFile = join(dir, 'bad.env')
    writeFileSync(envFile, 'OK=1\nNOT VALID\n')
    const file = join(dir, 'out.yaml')
    const result = await runCli([
      'workload',
      'create',
      '--project',
      'demo-project',
      '--cluster',
      'demo',
      '--workload',
      'Way_Too_Long_Name_For_A_Workload_Of_Ours_1',
      '--tpu-type',
      'v5p-9',
      '--num-slices',
      '0',
      '--command',
      'x',
      '--env-file',
      envFile,
      '--docker-image',
      'i',
      '--output-manifest-file',
      file,
      '--dry-run',
      '--offline',
    ])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('Error: 4 problems:')
    expect(result.stderr).toMatch(
      /--workload "Way_Too_Long_Name_For_A_Workload_Of_Ours_1": it is 42 characters long; the limit is 40 because/,
    )
    expect(result.stderr).toContain('--tpu-type=v5p-9: unknown accelerator type. Did you mean v5p-8')
    expect(result.stderr).toContain('--num-slices: 0 is out of range: use a whole number from 1 to 1000')
    expect(result.stderr).toContain(`--env-file ${envFile}:2: "NOT VALID" is not KEY=VALUE`)
    expect(() => readFileSync(file)).toThrow()
  })

  it('rejects --docker-image together with --script-dir, and --env with --env-file', async () => {
    const image = await runCli([
      ...base,
      '--workload',
      'w',
      '--tpu-type',
      'v5p-8',
      '--docker-image',
      'i',
      '--script-dir',
      '.',
      '--dry-run',
      '--offline',
    ])
    expect(image.code).toBe(2)
    expect(image.stderr).toContain('--docker-image and --script-dir cannot be used together')
    const env = await runCli([
      ...base,
      '--workload',
      'w',
      '--tpu-type',
      'v5p-8',
      '--docker-image',
      'i',
      '--env',
      'A=1',
      '--env-file',
      'f',
      '--dry-run',
      '--offline',
    ])
    expect(env.code).toBe(2)
    expect(env.stderr).toContain('--env and --env-file cannot be used together')
  })

  it('reports a missing env file and a missing project together with the other problems', async () => {
    const result = await runCli([
      'workload',
      'create',
      '--cluster',
      'demo',
      '--workload',
      'Bad_Name',
      '--tpu-type',
      'v5p-8',
      '--command',
      'x',
      '--env-file',
      '/nonexistent/run.env',
      '--dry-run',
      '--offline',
    ])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('Error: 3 problems:')
    expect(result.stderr).toContain('--env-file /nonexistent/run.env: no such file.')
    expect(result.stderr).toContain('--workload "Bad_Name"')
    expect(result.stderr).toContain('--project')
  })

  it('needs a project (or a registry) to name a built image', async () => {
    const result = await runCli([
      'workload',
      'create',
      '--cluster',
      'demo',
      '--workload',
      'w',
      '--tpu-type',
      'v5p-8',
      '--command',
      'x',
      '--dry-run',
      '--offline',
    ])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--project')
  })

  it('refuses --offline without --dry-run', async () => {
    const result = await runCli([...base, '--workload', 'w', '--tpu-type', 'v5p-8', '--docker-image', 'i', '--offline'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--dry-run')
  })
})
