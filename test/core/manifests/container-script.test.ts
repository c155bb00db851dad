import {spawnSync} from 'node:child_process'

import {describe, expect, it} from 'vitest'

import type {ContainerScriptOptions, WrapperShape} from '../../../src/core/manifests/container-script.js'
import {
  containerCommand,
  containerScript,
  containerScriptLines,
  kubernetesLiteral,
  WRAPPER_NAME,
} from '../../../src/core/manifests/container-script.js'
import {kubernetesExpand} from './k8s-expansion.js'

const START = ['echo XPK Start: `date`;', '_sigterm() (kill -SIGTERM $! 2>/dev/null;);', 'trap _sigterm SIGTERM;']
const RUN = 'bash -c -- "$1" & PID=$!;'
const WAIT = ['while kill -0 $PID 2>/dev/null;', '    do sleep 5;', 'done;', 'wait $PID;', 'EXIT_CODE=$?;']
const END = ['echo XPK End: `date`;', 'echo EXIT_CODE=$EXIT_CODE;']
const GCLOUD_CHECK =
  'which gcloud >/dev/null 2>&1 || { echo >&2 "gcloud is required but not installed. Aborting"; exit 24;};'
const UPLOAD = 'WORKER_ID=$HOSTNAME;gcloud storage cp --recursive /tmp/xla_dump/ "$2/$WORKER_ID";'
const DEBUG_EXPORTS = [
  'export TPU_STDERR_LOG_LEVEL=0;',
  'export TPU_MIN_LOG_LEVEL=0;',
  'export TF_CPP_MIN_LOG_LEVEL=0;',
  'export TPU_VMODULE=real_program_continuator=1;',
]
const GPU_DONE = 'echo Main app is done > /usr/share/workload/workload_terminated;'

/** Every wrapper shape there is: the three switches in all combinations. */
const SHAPES: readonly WrapperShape[] = [false, true].flatMap((enableDebugLogs) =>
  [null, 'gs://b/d'].flatMap((debugDumpGcs) =>
    [false, true].map((signalGpuTermination) => ({enableDebugLogs, debugDumpGcs, signalGpuTermination})),
  ),
)

describe('containerScriptLines', () => {
  it.each<{name: string; shape: WrapperShape; lines: string[]}>([
    {name: 'plain', shape: {}, lines: [...START, RUN, ...WAIT, ...END, 'exit $EXIT_CODE']},
    {
      name: 'debug dump upload',
      shape: {debugDumpGcs: 'gs://bucket/dir'},
      lines: [...START, GCLOUD_CHECK, RUN, ...WAIT, UPLOAD, ...END, 'exit $EXIT_CODE'],
    },
    {
      name: 'GPU termination file',
      shape: {signalGpuTermination: true},
      lines: [...START, RUN, ...WAIT, ...END, GPU_DONE, 'exit $EXIT_CODE'],
    },
    {
      name: 'debug logs: fixed export lines before the command starts',
      shape: {enableDebugLogs: true},
      lines: [...START, ...DEBUG_EXPORTS, RUN, ...WAIT, ...END, 'exit $EXIT_CODE'],
    },
    {
      name: 'everything at once, in order',
      shape: {enableDebugLogs: true, debugDumpGcs: 'gs://b', signalGpuTermination: true},
      lines: [...START, GCLOUD_CHECK, ...DEBUG_EXPORTS, RUN, ...WAIT, UPLOAD, ...END, GPU_DONE, 'exit $EXIT_CODE'],
    },
    {
      name: 'a null debug dump is none',
      shape: {debugDumpGcs: null},
      lines: [...START, RUN, ...WAIT, ...END, 'exit $EXIT_CODE'],
    },
  ])('$name', ({shape, lines}) => {
    expect(containerScriptLines(shape)).toEqual(lines)
    expect(containerScript(shape)).toBe(lines.join('\n'))
  })

  it.each(SHAPES)('%o: text Kubernetes leaves alone and bash parses', (shape) => {
    const script = containerScript(shape)
    // Kubernetes would rewrite $(NAME) and $$ in `command`; the wrapper must mean the same whatever the env.
    expect(script).not.toContain('$(')
    expect(script).not.toContain('$$')
    expect(kubernetesExpand(script, {date: 'X', PID: 'X', EXIT_CODE: 'X', HOSTNAME: 'X', '1': 'X'})).toBe(script)
    expect(bashSyntaxErrors(script)).toBe('')
    expect(script).not.toMatch(/\n\n|\s$/)
  })
})

describe('containerCommand', () => {
  it.each<{name: string; options: ContainerScriptOptions; args: string[]}>([
    {name: 'the command is $1', options: {command: 'python3 train.py'}, args: ['python3 train.py']},
    {
      name: 'the dump prefix is $2, without trailing slashes',
      options: {command: 'x', debugDumpGcs: 'gs://b/d//'},
      args: ['x', 'gs://b/d'],
    },
    {
      name: '$ is doubled so Kubernetes hands it back unchanged',
      options: {command: 'echo $(HOME) $$ ${X} $'},
      args: ['echo $$(HOME) $$$$ $${X} $$'],
    },
    {name: 'debug logs add no argument', options: {command: 'x', enableDebugLogs: true}, args: ['x']},
  ])('$name', ({options, args}) => {
    expect(containerCommand(options)).toEqual(['bash', '-c', containerScript(options), WRAPPER_NAME, ...args])
  })

  it('never puts the command into the script text', () => {
    const command = 'SENTINEL_7f3a; ) # ('
    for (const shape of SHAPES) expect(containerCommand({...shape, command})[2]).not.toContain('SENTINEL_7f3a')
  })
})

describe('kubernetesLiteral', () => {
  it.each([
    '',
    'plain',
    '$',
    '$$',
    '$(NAME)',
    '$$(NAME)',
    '$(',
    'a $(NAME) b $$ c $X $(UNDEFINED) $((1+2)) ${NAME}',
    'ends with $',
    'héllo $(NAME) 🚀',
  ])('%j survives Kubernetes expansion byte for byte', (text) => {
    const env = {NAME: 'expanded', X: 'x'}
    expect(kubernetesExpand(kubernetesLiteral(text), env)).toBe(text)
  })
})

/** bash's complaints about a script it was only asked to parse; empty when it parses. */
function bashSyntaxErrors(script: string): string {
  const result = spawnSync('bash', ['-n', '-c', script], {encoding: 'utf8'})
  return result.status === 0 ? '' : result.stderr || `exit ${result.status}`
}
