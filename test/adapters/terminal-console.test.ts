import {PassThrough, Writable} from 'node:stream'
import {describe, expect, it} from 'vitest'

import {TerminalConsole, type TerminalConsoleOptions} from '../../src/adapters/terminal-console.js'
import type {Question} from '../../src/core/messages.js'
import {clusterCreatePlan} from '../../src/core/messages/cluster.js'
import {imageCredentialProblem} from '../../src/core/messages/image.js'

class Capture extends Writable {
  text = ''
  isTTY = false
  rows = 24
  columns = 120
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.text += chunk.toString()
    done()
  }
}

// Messages whose text is the payload as given (a plan, a credential helper's complaint), and a question of any text and
// default: the host is tested with them, whatever the makers of other codes would say.
const note = (text: string) => clusterCreatePlan({plan: text})
const warning = (text: string) => imageCredentialProblem({problem: text})
const ask = (text: string, fallback: boolean): Question =>
  ({code: 'cluster.delete.confirm', text, default: fallback}) as Question

function consoleWith(options: TerminalConsoleOptions = {}) {
  const stdout = new Capture()
  const stderr = new Capture()
  const terminal = new TerminalConsole({stdout, stderr, now: () => new Date('2026-11-21T10:00:00.000Z'), ...options})
  return {terminal, stdout, stderr}
}

function ttyInput(answers: string): NodeJS.ReadableStream & {isTTY: boolean} {
  const input = new PassThrough() as PassThrough & {isTTY: boolean}
  input.isTTY = true
  input.end(answers)
  return input
}

describe('TerminalConsole output discipline', () => {
  it('puts results on stdout and everything else on stderr', () => {
    const {terminal, stdout, stderr} = consoleWith({verbose: true})
    terminal.result('RESULT')
    terminal.info(note('note'))
    terminal.warn(warning('careful'))
    terminal.debug('detail')
    expect(stdout.text).toBe('RESULT\n')
    expect(stderr.text).toBe('note\nWarning: careful\ndetail\n')
  })

  it('drops results under --json, notes under --quiet and details without --verbose', () => {
    const {terminal, stdout, stderr} = consoleWith({json: true, quiet: true})
    terminal.result('RESULT')
    terminal.info(note('note'))
    terminal.debug('detail')
    terminal.warn(warning('careful'))
    expect(stdout.text).toBe('')
    expect(stderr.text).toBe('Warning: careful\n')
  })
})

describe('TerminalConsole.confirm', () => {
  it('says yes without asking under --force', async () => {
    const {terminal, stderr} = consoleWith({force: true, stdin: ttyInput('')})
    await expect(terminal.confirm(ask('Delete?', false))).resolves.toEqual({yes: true, by: 'force'})
    expect(stderr.text).toBe('')
  })

  it.each([false, true])(
    'answers the default (%s) itself without a terminal, saying nobody was asked',
    async (fallback) => {
      const stdin = new PassThrough() as PassThrough & {isTTY?: boolean}
      const {terminal, stderr} = consoleWith({stdin})
      await expect(terminal.confirm(ask('Delete 2 node pools?', fallback))).resolves.toEqual({
        yes: fallback,
        by: 'default',
        why: 'no-terminal',
      })
      expect(stderr.text).toBe('')
    },
  )

  it.each([
    ['y\n', false, true],
    ['YES\n', false, true],
    ['n\n', true, false],
    ['\n', false, false],
    ['\n', true, true],
  ])('answer %j with default %s gives %s', async (answer, fallback, expected) => {
    const {terminal, stderr} = consoleWith({stdin: ttyInput(answer)})
    await expect(terminal.confirm(ask('Continue?', fallback))).resolves.toEqual({yes: expected, by: 'person'})
    expect(stderr.text).toContain(fallback ? 'Continue? (Y/n): ' : 'Continue? (y/N): ')
  })

  it('never asks under --quiet, even on a terminal: the host answers the default (Python xpk scripts use --quiet)', async () => {
    const {terminal, stderr} = consoleWith({stdin: ttyInput('y\n'), quiet: true})
    await expect(terminal.confirm(ask('Delete cluster demo?', false))).resolves.toEqual({
      yes: false,
      by: 'default',
      why: 'quiet',
    })
    expect(stderr.text).toBe('')
    const forced = consoleWith({quiet: true, force: true}).terminal
    await expect(forced.confirm(ask('Delete cluster demo?', false))).resolves.toEqual({yes: true, by: 'force'})
  })

  it('takes the default when input ends without an answer (Ctrl-D)', async () => {
    const {terminal} = consoleWith({stdin: ttyInput('')})
    await expect(terminal.confirm(ask('Delete?', false))).resolves.toEqual({yes: false, by: 'person'})
  })

  it('asks again after an answer that is neither yes nor no', async () => {
    const {terminal, stderr} = consoleWith({stdin: ttyInput('maybe\nno\n')})
    await expect(terminal.confirm(ask('Continue?', true))).resolves.toEqual({yes: false, by: 'person'})
    expect(stderr.text).toContain('Please answer yes or no (y/n).')
  })
})

describe('TerminalConsole terminal safety', () => {
  const hostile = 'name\u001b[2J\u001b]0;title\u0007\r\u009b\u202e'
  const visible = 'name\\x1b[2J\\x1b]0;title\\x07\\r\\x9b\\u202e'

  it.each([
    ['info', (t: TerminalConsole) => t.info(note(hostile))],
    ['warn', (t: TerminalConsole) => t.warn(warning(hostile))],
    ['debug', (t: TerminalConsole) => t.debug(hostile)],
    [
      'a progress line',
      (t: TerminalConsole) => t.progress('Pools').update('p', {label: hostile, state: 'creating', status: 'running'}),
    ],
    ['a progress note', (t: TerminalConsole) => t.progress('Pools').note(note(hostile))],
  ])('escapes control characters in %s', (_, write) => {
    const {terminal, stderr} = consoleWith({verbose: true})
    write(terminal)
    expect(stderr.text).toContain(visible)
    expect(stderr.text).not.toContain('\u001b[2J')
  })

  it('escapes control characters in a question', async () => {
    const {terminal, stderr} = consoleWith({stdin: ttyInput('n\n')})
    await terminal.confirm(ask(hostile, false))
    expect(stderr.text).toContain(visible)
    expect(stderr.text).not.toContain('\u001b[2J')
  })
})

describe('TerminalConsole.progress', () => {
  it('prints a timestamped line per state change when stderr is not a terminal', () => {
    const {terminal, stderr} = consoleWith()
    const board = terminal.progress('Creating node pools:')
    board.update('np-0', {label: 'np-0', state: 'creating', status: 'running'})
    board.update('np-0', {label: 'np-0', state: 'creating', status: 'running', current: 10, total: 100})
    board.update('np-0', {label: 'np-0', state: 'created', status: 'done'})
    board.close()
    expect(stderr.text).toBe(
      'Creating node pools:\n2026-11-21T10:00:00Z  np-0  creating\n2026-11-21T10:00:00Z  np-0  created\n',
    )
  })

  it('prints each state once without a terminal: a line that only changes status (running, then done) is not repeated', () => {
    const {terminal, stderr} = consoleWith()
    const board = terminal.progress('Waiting for workload run-1')
    const line = (state: string, status: 'running' | 'done' | 'failed', detail?: string) =>
      board.update('wait', {label: 'run-1', state, status, ...(detail ? {detail} : {})})
    line('Admitted', 'running', 'starting')
    line('Admitted', 'running', 'starting')
    line('Admitted', 'running', 'pods not ready')
    line('Running', 'running')
    line('Succeeded', 'running', 'jobset completed')
    line('Succeeded', 'done', 'jobset completed')
    board.close()
    expect(stderr.text.split('\n').filter(Boolean)).toEqual([
      'Waiting for workload run-1',
      '2026-11-21T10:00:00Z  run-1  Admitted  starting',
      '2026-11-21T10:00:00Z  run-1  Admitted  pods not ready',
      '2026-11-21T10:00:00Z  run-1  Running',
      '2026-11-21T10:00:00Z  run-1  Succeeded  jobset completed',
    ])
  })

  it('prints only failures under --quiet, each once', () => {
    const {terminal, stderr} = consoleWith({quiet: true})
    const board = terminal.progress('Creating node pools:')
    board.update('np-0', {label: 'np-0', state: 'created', status: 'done'})
    board.update('np-1', {label: 'np-1', state: 'failed', status: 'failed', detail: 'stockout'})
    board.update('np-1', {label: 'np-1', state: 'failed', status: 'failed', detail: 'stockout'})
    board.close()
    expect(stderr.text).toBe('2026-11-21T10:00:00Z  np-1  failed  stockout\n')
  })

  it('redraws lines in place on a terminal and leaves the final state', () => {
    const {terminal, stderr} = consoleWith({live: true})
    const board = terminal.progress('Pushing:')
    board.update('a', {label: 'layer-a', state: 'pushing', status: 'running', current: 150, total: 100})
    board.update('b', {label: 'layer-b', state: 'waiting', status: 'waiting'})
    board.close()
    expect(stderr.text).toContain('Pushing:\n')
    expect(stderr.text).toMatch(/layer-a\s+pushing\s+0s \[=+\] 100%/)
    expect(stderr.text).toMatch(/· layer-b\s+waiting/)
  })

  it('summarises when there are more lines than the terminal has rows', () => {
    const {terminal, stderr} = consoleWith({live: true})
    ;(stderr as Capture).rows = 6
    const board = terminal.progress('Creating:')
    for (let i = 0; i < 10; i++)
      board.update(`np-${i}`, {
        label: `np-${i}`,
        state: i < 7 ? 'created' : 'creating',
        status: i < 7 ? 'done' : 'running',
      })
    board.close()
    const lastFrame = stderr.text.split('\x1b[0J').at(-1)!
    expect(lastFrame).toContain('7 done, 3 running, 0 waiting, 0 failed (of 10)')
    expect(lastFrame).not.toContain('np-0 ')
  })
})
