import {describe, expect, it} from 'vitest'

import {UsageErrors} from '../../../src/core/errors.js'
import {checkWorkers, parseWorkersText, vmJobSpecFromFlags} from '../../../src/core/vmjob/flags.js'

const NOW = new Date('2026-01-23T17:45:01Z')
const BASE = {tpuType: 'v4-16', zone: 'us-central2-b', project: 'p', command: 'python train.py', now: NOW}

describe('vmJobSpecFromFlags', () => {
  it('the defaults: queued resource, on-demand, the type runtime, every worker, no environment', () => {
    expect(vmJobSpecFromFlags(BASE)).toEqual({
      name: 'job-20260123-174501',
      project: 'p',
      envType: 'none',
      loop: false,
      tpu: {
        allocationMode: 'queued-resources',
        accelerator: 'v4-16',
        name: 'job-20260123-174501',
        zone: 'us-central2-b',
        runtimeVersion: 'tpu-ubuntu2204-base',
        pricing: 'ondemand',
        startupScript: null,
        tags: [],
        metadata: {},
      },
      modules: [],
      command: {run: 'python train.py', workers: 'all'},
    })
  })

  it('--spot, --loop, --workers, --max-recoveries, --script-dir, --name and --runtime-version', () => {
    const spec = vmJobSpecFromFlags({
      ...BASE,
      name: 'train',
      spot: true,
      loop: true,
      workers: '0,1',
      maxRecoveries: 0,
      scriptDir: 'src',
      runtimeVersion: 'tpu-vm-v4-base',
    })
    expect(spec).toMatchObject({name: 'train', loop: true, maxRecoveries: 0, scriptDir: 'src'})
    expect(spec.tpu).toMatchObject({name: 'train', pricing: 'spot', runtimeVersion: 'tpu-vm-v4-base'})
    expect(spec.command.workers).toEqual([0, 1])
  })

  it('reports every bad flag at once, each naming its flag', () => {
    let error: unknown
    try {
      vmJobSpecFromFlags({
        ...BASE,
        tpuType: 'v4-7',
        name: 'Bad_Name',
        command: ' ',
        workers: 'first',
        maxRecoveries: -1,
      })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(UsageErrors)
    expect((error as UsageErrors).problems.map((p) => p.flag)).toEqual([
      '--name',
      '--tpu-type',
      '--command',
      '--workers',
      '--max-recoveries',
    ])
  })

  it('a worker beyond the type, and a runtime version of another generation', () => {
    expect(() => vmJobSpecFromFlags({...BASE, workers: '2'})).toThrow(
      /--workers=2: worker 2 does not exist: this TPU has 2 workers \(0 to 1\)/,
    )
    expect(() => vmJobSpecFromFlags({...BASE, runtimeVersion: 'v2-alpha-tpuv6e'})).toThrow(/does not run on v4/)
  })
})

describe('workers', () => {
  it.each([
    ['all', 'all'],
    ['0', [0]],
    ['0,3', [0, 3]],
    ['', undefined],
    ['0,', undefined],
    [' 1', undefined],
    ['-1', undefined],
  ] as const)('parseWorkersText(%j)', (text, expected) => {
    expect(parseWorkersText(text)).toEqual(expected)
  })

  it('checkWorkers keeps indexes below the worker count, once each', () => {
    expect(checkWorkers('all', 1)).toEqual({workers: 'all'})
    expect(checkWorkers(3, 4)).toEqual({workers: [3]})
    expect(checkWorkers([], 4)).toEqual({problem: expect.stringMatching(/lists no worker/)})
    expect(checkWorkers([0, 4], 4)).toEqual({problem: expect.stringMatching(/worker 4 does not exist/)})
    expect(checkWorkers([1, 1], 4)).toEqual({problem: 'lists worker 1 twice'})
  })
})
