import {describe, expect, it} from 'vitest'

import {UsageError, UsageErrors} from '../../../src/core/errors.js'
import {
  parseEnvAssignments,
  parseEnvFile,
  parseExitCodes,
  workloadInputFromFlags,
  workloadNameProblem,
  type WorkloadFlags,
} from '../../../src/core/workload/options.js'

const valid: WorkloadFlags = {workload: 'run-1', cluster: 'c1', command: 'python3 train.py', tpuType: 'v5p-8'}

function problemsOf(flags: WorkloadFlags, envFile?: {path: string; text: string}): UsageError[] {
  try {
    workloadInputFromFlags(flags, envFile, {})
  } catch (error) {
    if (error instanceof UsageErrors) return [...error.problems]
    if (error instanceof UsageError) return [error]
    throw error
  }
  return []
}

describe('workload names', () => {
  it.each([
    ['run-1', undefined],
    ['a'.repeat(40), undefined],
    ['a'.repeat(41), expect.stringMatching(/41 characters long; the limit is 40 because JobSet and Kueue/)],
    ['Run-1', expect.stringContaining('RFC 1123')],
    ['1run', expect.stringContaining('starting with a letter')],
    ['run_1', expect.stringContaining('lowercase letters, digits and hyphens')],
    ['', 'it is empty'],
  ])('%s', (name, problem) => expect(workloadNameProblem(name)).toEqual(problem))
})

describe('exit codes', () => {
  it.each([
    ['3', [3]],
    ['3,5-7', [3, 5, 6, 7]],
    ['7,3,3', [3, 7]],
  ])('%s -> %j', (text, codes) => expect(parseExitCodes(text)).toEqual(codes))

  it.each([
    ['x', /"x" is not an exit code/],
    ['256', /from 0 to 255/],
    ['7-5', /write 5-7/],
    ['+3', /"\+3" is not an exit code/],
    // The rule every list follows (src/core/input.ts): an empty item or spaces around one are refused, not skipped.
    ['0-2,', /has an empty item/],
    ['3,,5', /has an empty item/],
    [' 7 , 3 ,3', /starts with white space/],
    ['7 , 3', /white space around it/],
  ])('rejects %s', (text, message) => expect(() => parseExitCodes(text)).toThrow(message))
})

describe('environment', () => {
  it('keeps --env order: a repeated name stays where it first appeared and takes the later value', () => {
    expect(parseEnvAssignments(['A=1', 'B=x=y', 'A=2', 'EMPTY='])).toEqual([
      {name: 'A', value: '2'},
      {name: 'B', value: 'x=y'},
      {name: 'EMPTY', value: ''},
    ])
  })

  it('rejects --env without a value', () => {
    expect(() => parseEnvAssignments(['A'])).toThrow(/--env "A": expected KEY=VALUE/)
  })

  it('parses an env file: comments, export, literal values, inherited variables', () => {
    const text = '# settings\nexport A=1\n\nB="quoted stays"\nHOME_DIR\n'
    expect(parseEnvFile({path: 'run.env', text}, {HOME_DIR: '/home/me'})).toEqual([
      {name: 'A', value: '1'},
      {name: 'B', value: '"quoted stays"'},
      {name: 'HOME_DIR', value: '/home/me'},
    ])
  })

  it('reports every bad env-file line with its file and line number', () => {
    const text = 'GOOD=1\nBAD LINE\n1X=2\nMISSING\n'
    try {
      parseEnvFile({path: 'run.env', text}, {})
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(UsageErrors)
      const messages = (error as UsageErrors).problems.map((p) => p.message)
      expect(messages).toEqual([
        '--env-file run.env:2: "BAD LINE" is not KEY=VALUE (KEY: letters, digits and _).',
        '--env-file run.env:3: "1X=2" is not KEY=VALUE (KEY: letters, digits and _).',
        '--env-file run.env:4: MISSING has no value and is not set in your environment.',
      ])
      expect((error as UsageErrors).exitCode).toBe(2)
    }
  })
})

describe('workloadInputFromFlags', () => {
  it('applies xpk defaults', () => {
    const input = workloadInputFromFlags(valid, undefined, {})
    expect(input).toMatchObject({
      name: 'run-1',
      cluster: 'c1',
      containerName: 'jax-tpu',
      numSlices: 1,
      numNodes: 1,
      priority: 'medium',
      maxRestarts: 0,
      restartOnExitCodes: [],
      ttlSecondsAfterFinished: 43200,
      terminationGracePeriodSeconds: 30,
      env: [],
      debugDumpGcs: null,
      scheduler: 'default-scheduler',
      imagePullSecret: null,
      enableDebugLogs: false,
      parallelContainers: 1,
    })
    expect(input.accelerator.name).toBe('v5p-8')
  })

  it("uses the accelerator's parallel containers unless turned off", () => {
    expect(workloadInputFromFlags({...valid, tpuType: 'tpu7x-8'}, undefined, {}).parallelContainers).toBe(2)
    expect(
      workloadInputFromFlags({...valid, tpuType: 'tpu7x-8', useParallelContainers: false}, undefined, {})
        .parallelContainers,
    ).toBe(1)
  })

  it('collects every problem at once, each naming its flag', () => {
    const problems = problemsOf({
      workload: 'Bad_Name',
      tpuType: 'v5p-7',
      numSlices: 0,
      priority: 'urgent',
      restartOnExitCodes: '300',
    })
    expect(problems.map((p) => p.flag)).toEqual([
      '--workload',
      '--command',
      '--cluster',
      '--tpu-type',
      '--num-slices',
      '--priority',
      '--restart-on-exit-codes',
    ])
  })

  it.each([
    [{numSlices: -1}, '--num-slices', /-1 is out of range: use a whole number from 1 to 1000/],
    [{numNodes: 2}, '--num-nodes', /GPU types only: a TPU slice's VM count comes from its type/],
    [
      {deviceType: 'n2-standard-32-4', tpuType: undefined, numNodes: 2},
      '--num-nodes',
      /n2-standard-32-4 = 4 VMs per slice/,
    ],
    [
      {deviceType: 'h100-80gb-8', tpuType: undefined, numSlices: 2},
      '--num-slices',
      /scale h100-80gb-8 with --num-nodes/,
    ],
    [{deviceType: 'l4-1', tpuType: undefined, scheduler: 'mine'}, '--scheduler', /default-scheduler or gke.io/],
    [{scheduler: 'gke.io/topology-aware-auto'}, '--scheduler', /TPU clusters have default-scheduler;/],
    [{tpuType: undefined, deviceType: 'n2-standard-32-4', scheduler: 'volcano'}, '--scheduler', /CPU clusters have/],
    [{debugDumpGcs: '/tmp/x'}, '--debug-dump-gcs', /gs:\/\/bucket\/dir/],
    [{debugDumpGcs: 'gs://bucket/d', env: ['XLA_FLAGS=--x']}, '--debug-dump-gcs', /XLA_FLAGS is already set/],
    [{dockerName: 'Jax'}, '--docker-name', /RFC 1123/],
    [{maxRestarts: -2}, '--max-restarts', /-2 is out of range: use a whole number from 0 to 2147483647/],
  ] as const)('rejects %j', (extra, flag, message) => {
    const problems = problemsOf({...valid, ...extra})
    expect(problems).toHaveLength(1)
    expect(problems[0].flag).toBe(flag)
    expect(problems[0].message).toMatch(message)
  })

  it("rejects user exit codes that push the rule past Kubernetes' 255 values", () => {
    const problems = problemsOf({...valid, restartOnExitCodes: '0-126'})
    expect(problems[0].message).toMatch(/makes 256 codes; Kubernetes allows 255/)
    expect(problemsOf({...valid, restartOnExitCodes: '0-125'})).toEqual([])
  })

  it('merges --env-file then --env and adds XLA_FLAGS for --debug-dump-gcs', () => {
    const input = workloadInputFromFlags(
      {...valid, debugDumpGcs: 'gs://bucket/dumps'},
      {path: 'f.env', text: 'A=1\nB=2\n'},
      {},
    )
    expect(input.env).toEqual([
      {name: 'A', value: '1'},
      {name: 'B', value: '2'},
      {name: 'XLA_FLAGS', value: '--xla_dump_to=/tmp/xla_dump/'},
    ])
  })
})

describe('--storage', () => {
  it('names the storages to mount, each once, in the order given; none by default', () => {
    expect(workloadInputFromFlags(valid, undefined, {}).storages).toEqual([])
    const input = workloadInputFromFlags({...valid, storage: ['data', 'ckpt.v2', 'data']}, undefined, {})
    expect(input.storages).toEqual(['data', 'ckpt.v2'])
  })

  it('refuses every name no Storage object can have, with the other problems', () => {
    const problems = problemsOf({...valid, workload: 'Bad', storage: ['ok', 'Data', 'a_b', `${'x'.repeat(254)}`]})
    expect(problems.map((p) => p.flag)).toEqual(['--workload', '--storage', '--storage', '--storage'])
    expect(problems[1]!.message).toBe(
      '--storage "Data": a storage is named with lowercase letters, digits, hyphens and dots (at most 253); `xpk storage list` shows them.',
    )
  })
})
