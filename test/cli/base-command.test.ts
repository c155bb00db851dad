import * as Errors from '@oclif/core/errors'
import {describe, expect, it} from 'vitest'

import {toXpkError} from '../../src/cli/base-command.js'
import {XpkError} from '../../src/core/errors.js'

const FLAGS = ['num-slices', 'num-nodes', 'zone', 'tpu-type', 'device-type', 'spot']
const parseError = (message: string) => new Errors.CLIError(message, {exit: 2})

describe('toXpkError', () => {
  it.each([
    ['Nonexistent flag: --num-slice', ['Did you mean --num-slices (not --num-slice)?']],
    ['Nonexistent flag: --zne=us-central2-b', ['Did you mean --zone (not --zne=us-central2-b)?']],
    ['Nonexistent flag: --tpu', ['Did you mean --tpu-type (not --tpu)?']],
    [
      'Nonexistent flags: --spto, --num-slcies',
      ['Did you mean --spot (not --spto)?', 'Did you mean --num-slices (not --num-slcies)?'],
    ],
    ['Nonexistent flag: --colour', []],
    ['Nonexistent flag: --num', []],
  ])('%s -> suggestions %j', (message, suggestions) => {
    const error = toXpkError(parseError(message), 'cluster:create', FLAGS)
    expect(error.kind).toBe('usage')
    expect(error.exitCode).toBe(2)
    expect(error.hints).toEqual([...suggestions, 'See `xpk cluster create --help` for flags and examples.'])
  })

  it('passes typed errors through and calls anything else a bug', () => {
    const typed = new XpkError('quota', 'out of quota')
    expect(toXpkError(typed, 'cluster:create', FLAGS)).toBe(typed)
    const bug = toXpkError(new TypeError('x is undefined'), 'cluster:create', FLAGS)
    expect([bug.kind, bug.message]).toEqual(['internal', 'Unexpected error: x is undefined'])
  })
})
