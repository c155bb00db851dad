import {describe, expect, it} from 'vitest'

import {UsageError, XpkError} from '../../src/core/errors.js'
import {clusterDeleteConfirm} from '../../src/core/messages/cluster.js'
import {vmRunConfirmCreateKey} from '../../src/core/messages/vm.js'
import {confirmOrStop} from '../../src/services/confirm.js'
import {RecordingConsole, type PromptAnswer} from '../helpers/recording-console.js'

const destructive = clusterDeleteConfirm({cluster: 'demo', location: 'us-central2', nodePools: []})
const harmless = vmRunConfirmCreateKey()

describe('confirmOrStop: who answered decides what a "no" means', () => {
  it.each<[string, PromptAnswer, typeof destructive, string]>([
    ['a person says yes', 'yes', destructive, 'go on'],
    ['a person says no', 'no', destructive, 'declined (exit 1)'],
    ['nobody to ask, destructive (default no)', 'no-terminal', destructive, 'usage naming --force (exit 2)'],
    ['--quiet, destructive (default no)', 'quiet', destructive, 'usage naming --force (exit 2)'],
    ['nobody to ask, harmless (default yes)', 'no-terminal', harmless, 'go on'],
    ['--quiet, harmless (default yes)', 'quiet', harmless, 'go on'],
  ])('%s: %s', async (_name, answer, asked, expected) => {
    const console = new RecordingConsole(answer)
    const outcome = await confirmOrStop(console, asked, {nothingDone: 'Nothing was deleted.', hints: ['Try X.']})
      .then(() => 'go on')
      .catch((error: unknown) => {
        if (error instanceof UsageError) {
          expect(error.message.split('\n')[0]).toBe(asked.text)
          return `usage naming ${error.flag} (exit ${error.exitCode})`
        }
        if (error instanceof XpkError && error.kind === 'declined') {
          expect([error.message, error.hints]).toEqual(['Nothing was deleted.', ['Try X.']])
          return `declined (exit ${error.exitCode})`
        }
        throw error
      })
    expect(outcome).toBe(expected)
    expect(console.questions).toEqual([asked])
  })

  it('tells --quiet apart from a missing terminal in its hint', async () => {
    const quiet = await confirmOrStop(new RecordingConsole('quiet'), destructive, {nothingDone: ''}).catch((e) => e)
    const piped = await confirmOrStop(new RecordingConsole('no-terminal'), destructive, {nothingDone: ''}).catch(
      (e) => e,
    )
    expect((quiet as UsageError).message).toContain('--quiet does not answer questions')
    expect((piped as UsageError).message).toContain('no terminal to ask on')
  })

  it.each(['quiet', 'no-terminal'] as const)(
    'names --force, then what the command offers instead, when nobody can be asked (%s)',
    async (answer) => {
      const error = (await confirmOrStop(new RecordingConsole(answer), destructive, {
        nothingDone: '',
        hints: ['See what it would delete with --dry-run.'],
      }).catch((e: unknown) => e)) as UsageError
      expect(error.hints).toEqual([expect.stringContaining('--force'), 'See what it would delete with --dry-run.'])
      // Nothing else: vm delete has no --dry-run, and the generic hint once suggested it for every command.
      const bare = (await confirmOrStop(new RecordingConsole(answer), destructive, {nothingDone: ''}).catch(
        (e: unknown) => e,
      )) as UsageError
      expect(bare.hints).toHaveLength(1)
      expect(bare.hints[0]).not.toContain('--dry-run')
    },
  )
})
