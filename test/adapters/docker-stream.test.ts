import {describe, expect, it} from 'vitest'

import {
  BuildStreamParser,
  FAILURE_OUTPUT_LINES,
  PushStreamParser,
  type DockerMessage,
} from '../../src/adapters/docker-stream.js'
import type {BuildEvent, PushEvent} from '../../src/ports/images.js'

function feedAll<T>(parser: {feed(m: DockerMessage): T[]}, messages: DockerMessage[]): T[] {
  return messages.flatMap((m) => parser.feed(m))
}

// Recorded from dockerd 20.10 (classic builder) for FROM / WORKDIR / COPY onto a base whose /app is a file.
const failingBuild: DockerMessage[] = [
  {stream: 'Step 1/3 : FROM xpkproto/appfile:1'},
  {stream: '\n'},
  {stream: ' ---> c0bf33be5615\n'},
  {stream: 'Step 2/3 : WORKDIR /app'},
  {stream: '\n'},
  {errorDetail: {message: 'Cannot mkdir: /app is not a directory'}, error: 'Cannot mkdir: /app is not a directory'},
]

describe('BuildStreamParser', () => {
  it('turns step headers into step events, whatever the message boundaries', () => {
    const parser = new BuildStreamParser()
    const events = [
      ...feedAll(parser, [
        {stream: 'Step 1/3 : FROM base:1'},
        {stream: '\n ---> 78da3b560e6c\nStep 2/3 : WORK'},
        {stream: 'DIR /app\n'},
        {stream: ' ---> Running in b587873542dd\n'},
        {aux: {ID: 'sha256:adb35e52'}},
        {stream: 'Successfully built adb35e52f221\n'},
      ]),
      ...parser.end(),
    ]
    expect(events).toEqual<BuildEvent[]>([
      {kind: 'step', step: 1, steps: 3, instruction: 'FROM base:1'},
      {kind: 'output', text: ' ---> 78da3b560e6c'},
      {kind: 'step', step: 2, steps: 3, instruction: 'WORKDIR /app'},
      {kind: 'output', text: ' ---> Running in b587873542dd'},
      {kind: 'output', text: 'Successfully built adb35e52f221'},
    ])
    expect(parser.failure).toBeNull()
    expect(parser.imageId).toBe('sha256:adb35e52')
  })

  it('finds the failure inside the stream, with the failing step and its output', () => {
    const parser = new BuildStreamParser()
    feedAll(parser, failingBuild)
    expect(parser.failure).toEqual({
      message: 'Cannot mkdir: /app is not a directory',
      step: {step: 2, steps: 3, instruction: 'WORKDIR /app'},
      output: ['Step 1/3 : FROM xpkproto/appfile:1', ' ---> c0bf33be5615', 'Step 2/3 : WORKDIR /app'],
    })
  })

  it('keeps only the last lines of output, including an unterminated one before the error', () => {
    const parser = new BuildStreamParser()
    const lines = Array.from({length: 50}, (_, i) => ({stream: `line ${i}\n`}))
    feedAll(parser, [{stream: 'Step 1/2 : RUN make'}, {stream: '\n'}, ...lines, {stream: 'partial'}, {error: 'exit 2'}])
    const failure = parser.failure!
    expect(failure.output).toHaveLength(FAILURE_OUTPUT_LINES)
    expect(failure.output.at(-1)).toBe('partial')
    expect(failure.output[0]).toBe(`line ${50 - FAILURE_OUTPUT_LINES + 1}`)
    expect(failure.message).toBe('exit 2')
    expect(failure.step?.instruction).toBe('RUN make')
  })

  it('reports an error that comes before any step', () => {
    const parser = new BuildStreamParser()
    parser.feed({error: 'dockerfile parse error', errorDetail: {message: 'dockerfile parse error line 1'}})
    expect(parser.failure).toEqual({message: 'dockerfile parse error line 1', step: null, output: []})
  })
})

// Recorded from dockerd 20.10 pushing to docker-registry.
const push: DockerMessage[] = [
  {status: 'The push refers to repository [127.0.0.1:5055/xpk/x]'},
  {status: 'Preparing', progressDetail: {}, id: '490de8ad6039'},
  {status: 'Preparing', progressDetail: {}, id: '5f70bf18a086'},
  {status: 'Waiting', progressDetail: {}, id: '5f70bf18a086'},
  {status: 'Pushing', progressDetail: {current: 33792, total: 2097172}, id: '490de8ad6039'},
  {status: 'Pushing', progressDetail: {current: 1987584, total: 1982284}, id: '490de8ad6039'},
  {status: 'Pushed', progressDetail: {}, id: '490de8ad6039'},
  {status: 'Layer already exists', progressDetail: {}, id: '5f70bf18a086'},
  {status: `tag1: digest: sha256:${'1'.repeat(64)} size: 943`},
  {progressDetail: {}, aux: {Tag: 'tag1', Digest: `sha256:${'2'.repeat(64)}`, Size: 943}},
]

describe('PushStreamParser', () => {
  it('reports layer states and clamps byte counts to the layer size', () => {
    const parser = new PushStreamParser()
    expect(feedAll(parser, push)).toEqual<PushEvent[]>([
      {kind: 'layer', id: '490de8ad6039', state: 'preparing'},
      {kind: 'layer', id: '5f70bf18a086', state: 'preparing'},
      {kind: 'layer', id: '5f70bf18a086', state: 'waiting'},
      {kind: 'layer', id: '490de8ad6039', state: 'pushing', current: 33792, total: 2097172},
      {kind: 'layer', id: '490de8ad6039', state: 'pushing', current: 1982284, total: 1982284},
      {kind: 'layer', id: '490de8ad6039', state: 'pushed'},
      {kind: 'layer', id: '5f70bf18a086', state: 'exists'},
    ])
    expect([...parser.layers]).toEqual([
      ['490de8ad6039', 'pushed'],
      ['5f70bf18a086', 'exists'],
    ])
    expect(parser.failure).toBeNull()
  })

  it('prefers the aux digest and falls back to the status line', () => {
    const withAux = new PushStreamParser()
    feedAll(withAux, push)
    expect(withAux.digest).toBe(`sha256:${'2'.repeat(64)}`)
    const statusOnly = new PushStreamParser()
    feedAll(statusOnly, push.slice(0, -1))
    expect(statusOnly.digest).toBe(`sha256:${'1'.repeat(64)}`)
  })

  it('recognises mounts and retries', () => {
    const parser = new PushStreamParser()
    expect(
      feedAll(parser, [
        {status: 'Mounted from xpk/other', id: 'aaa'},
        {status: 'Retrying in 5 seconds', id: 'bbb'},
      ]).map((e) => e.state),
    ).toEqual(['mounted', 'retrying'])
  })

  it.each([
    ['unauthorized: authentication required', true],
    ['denied: requested access to the resource is denied', true],
    ['no basic auth credentials', true],
    ['received unexpected HTTP status: 500 Internal Server Error', false],
    ['blob upload unknown', false],
  ])('classifies the in-stream error %j (denied: %s)', (message, denied) => {
    const parser = new PushStreamParser()
    feedAll(parser, [...push.slice(0, 3), {errorDetail: {message}, error: message}])
    expect(parser.failure).toEqual({message, denied})
  })
})
