import {describe, expect, it} from 'vitest'

import type {ContainerScriptOptions} from '../../../src/core/manifests/container-script.js'
import {containerScript, containerScriptLines, withDebugLogs} from '../../../src/core/manifests/container-script.js'

const START = ['echo XPK Start: $(date);', '_sigterm() (kill -SIGTERM $! 2>/dev/null;);', 'trap _sigterm SIGTERM;']
const WAIT = ['while kill -0 $PID 2>/dev/null;', '    do sleep 5;', 'done;', 'wait $PID;', 'EXIT_CODE=$?;']
const END = ['echo XPK End: $(date);', 'echo EXIT_CODE=$EXIT_CODE;']
const GCLOUD_CHECK =
  'which gcloud >/dev/null 2>&1 || { echo >&2 "gcloud is required but not installed. Aborting"; exit 24;};'

describe('containerScriptLines', () => {
  it.each<{name: string; options: ContainerScriptOptions; lines: string[]}>([
    {
      name: 'plain command',
      options: {command: 'python3 train.py'},
      lines: [...START, '(python3 train.py) & PID=$!;', ...WAIT, ...END, 'exit $EXIT_CODE'],
    },
    {
      name: 'debug dump upload',
      options: {command: 'python3 train.py', debugDumpGcs: 'gs://bucket/dir'},
      lines: [
        ...START,
        GCLOUD_CHECK,
        '(python3 train.py) & PID=$!;',
        ...WAIT,
        'WORKER_ID=$HOSTNAME;gcloud storage cp --recursive /tmp/xla_dump/ gs://bucket/dir/$WORKER_ID;',
        ...END,
        'exit $EXIT_CODE',
      ],
    },
    {
      name: 'GPU termination file',
      options: {command: 'bash run.sh', signalGpuTermination: true},
      lines: [
        ...START,
        '(bash run.sh) & PID=$!;',
        ...WAIT,
        ...END,
        'echo Main app is done > /usr/share/workload/workload_terminated;',
        'exit $EXIT_CODE',
      ],
    },
    {
      name: 'debug logs',
      options: {command: 'python3 train.py', enableDebugLogs: true},
      lines: [
        ...START,
        '(export TPU_STDERR_LOG_LEVEL=0 && export TPU_MIN_LOG_LEVEL=0 && export TF_CPP_MIN_LOG_LEVEL=0 && ' +
          'export TPU_VMODULE=real_program_continuator=1 && python3 train.py) & PID=$!;',
        ...WAIT,
        ...END,
        'exit $EXIT_CODE',
      ],
    },
    {
      name: 'everything at once, in order',
      options: {command: 'x', enableDebugLogs: false, debugDumpGcs: 'gs://b', signalGpuTermination: true},
      lines: [
        ...START,
        GCLOUD_CHECK,
        '(x) & PID=$!;',
        ...WAIT,
        'WORKER_ID=$HOSTNAME;gcloud storage cp --recursive /tmp/xla_dump/ gs://b/$WORKER_ID;',
        ...END,
        'echo Main app is done > /usr/share/workload/workload_terminated;',
        'exit $EXIT_CODE',
      ],
    },
  ])('$name', ({options, lines}) => {
    expect(containerScriptLines(options)).toEqual(lines)
  })

  it('keeps the user command verbatim, including quotes and pipes', () => {
    const command = `python3 -c 'print("hi")' | tee /tmp/out && echo "done $HOME"`
    expect(containerScriptLines({command})).toContain(`(${command}) & PID=$!;`)
  })

  it('treats a null debug dump like none', () => {
    expect(containerScriptLines({command: 'x', debugDumpGcs: null})).toEqual(containerScriptLines({command: 'x'}))
  })
})

describe('containerScript', () => {
  it('joins the lines with newlines and ends on the exit statement', () => {
    const script = containerScript({command: 'python3 train.py'})
    expect(script.split('\n')).toEqual(containerScriptLines({command: 'python3 train.py'}))
    expect(script.endsWith('exit $EXIT_CODE')).toBe(true)
    expect(script).not.toMatch(/\n\n/)
  })
})

describe('withDebugLogs', () => {
  it('prefixes the TPU runtime log settings', () => {
    expect(withDebugLogs('bash train.sh')).toBe(
      'export TPU_STDERR_LOG_LEVEL=0 && export TPU_MIN_LOG_LEVEL=0 && export TF_CPP_MIN_LOG_LEVEL=0 && ' +
        'export TPU_VMODULE=real_program_continuator=1 && bash train.sh',
    )
  })
})
