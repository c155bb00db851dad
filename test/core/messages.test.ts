// The message makers are a contract like the flags: a changed code or level is a visible diff in review, and each
// maker binds its code, level and payload type, so sending a message at the wrong level does not compile.
import {existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

import type {Message, Question} from '../../src/core/messages.js'
import {
  clusterCreateDryRun,
  clusterDeleteConfirm,
  clusterLockNotReleased,
  clusterLockReleasing,
} from '../../src/core/messages/cluster.js'
import {configFile, configSet} from '../../src/core/messages/config.js'
import {MESSAGE_MAKERS, MESSAGES} from '../../src/core/messages/registry.js'
import {vmRunConfirmCreateKey} from '../../src/core/messages/vm.js'
import type {Console} from '../../src/ports/console.js'

const GOLDEN = fileURLToPath(new URL('../golden/contract/messages.json', import.meta.url))
const SRC = fileURLToPath(new URL('../../src', import.meta.url))
const MAKERS_DIR = join(SRC, 'core', 'messages')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )
}

/** `cluster.lock.not-released` -> `clusterLockNotReleased` */
const makerName = (code: string) => code.replace(/[.-]([a-z])/g, (_, c: string) => c.toUpperCase())

describe('message codes', () => {
  it('keep the codes and levels of test/golden/contract/messages.json (UPDATE_GOLDENS=1 to accept a change)', () => {
    const actual = `${JSON.stringify(
      Object.fromEntries(Object.entries(MESSAGES).map(([code, d]) => [code, `${d.level}: ${d.summary}`])),
      null,
      2,
    )}\n`
    if (process.env.UPDATE_GOLDENS) writeFileSync(GOLDEN, actual)
    expect(existsSync(GOLDEN), 'run with UPDATE_GOLDENS=1 to create the golden').toBe(true)
    expect(actual).toBe(readFileSync(GOLDEN, 'utf8'))
  })

  it('have one maker each, named after the code (cluster.lock.held: clusterLockHeld)', () => {
    const makers = Object.entries(MESSAGE_MAKERS)
    expect(makers.length).toBeGreaterThan(80)
    expect(makers.filter(([name, maker]) => name !== makerName(maker.code)).map(([name]) => name)).toEqual([])
    expect(new Set(makers.map(([, maker]) => maker.code)).size).toBe(makers.length)
  })

  it('are each made by the code outside src/core/messages, so none is left behind when a message goes', () => {
    const code = sourceFiles(SRC)
      .filter((f) => !f.startsWith(MAKERS_DIR) && !f.endsWith(join('core', 'messages.ts')))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n')
    const unused = Object.keys(MESSAGE_MAKERS).filter((name) => !new RegExp(`\\b${name}\\b`).test(code))
    expect(unused).toEqual([])
  })

  it('are lower-case dotted names: topic, then what happened', () => {
    const bad = Object.keys(MESSAGES).filter((c) => !/^[a-z]+(\.[a-z]+(-[a-z]+)*)+$/.test(c))
    expect(bad).toEqual([])
  })
})

describe('a maker', () => {
  it('builds the text from its payload, with the data only when the message has some', () => {
    expect(configSet({key: 'zone', value: 'us-central2-b', file: '/c.yaml'})).toEqual({
      code: 'config.set',
      text: 'Set zone = us-central2-b in /c.yaml.',
    })
    expect(clusterLockNotReleased({cluster: 'demo', cause: 'timed out', staleSeconds: 0})).toEqual({
      code: 'cluster.lock.not-released',
      text: expect.stringMatching(/^Could not release the lock of cluster demo \(timed out\)\. /),
      data: {cluster: 'demo'},
    })
    expect(clusterCreateDryRun()).toEqual({code: 'cluster.create.dry-run', text: 'Dry run: nothing was changed.'})
  })

  it("asks a question with its code's own default", () => {
    expect(clusterDeleteConfirm({cluster: 'demo', location: 'us-central2', nodePools: ['a']})).toEqual({
      code: 'cluster.delete.confirm',
      text: 'Delete cluster demo in us-central2 with its 1 node pool (a) and every workload on it. This cannot be undone. Continue?',
      data: {cluster: 'demo', location: 'us-central2', nodePools: ['a']},
      default: false,
    })
    expect(vmRunConfirmCreateKey().default).toBe(true)
    const questions = Object.values(MESSAGE_MAKERS).filter((m) => m.level === 'question')
    expect(questions.length).toBeGreaterThan(5)
    for (const m of questions) expect(typeof (m as {defaultAnswer?: unknown}).defaultAnswer, m.code).toBe('boolean')
  })

  it('binds the level in the type: the compiler refuses a message at another level (npm run typecheck)', () => {
    // Never called: these lines are checked by the type checker only; an @ts-expect-error with no error fails it.
    const sends = (console: Console) => {
      console.info(clusterLockReleasing({cluster: 'demo'}))
      console.warn(clusterLockNotReleased({cluster: 'demo', cause: 'x', staleSeconds: 0}))
      // @ts-expect-error a warning is not a note
      console.info(clusterLockNotReleased({cluster: 'demo', cause: 'x', staleSeconds: 0}))
      // @ts-expect-error a note is not a warning
      console.warn(configFile({file: '/c.yaml'}))
      // @ts-expect-error a question is asked, not printed
      console.info(clusterDeleteConfirm({cluster: 'demo', location: 'us-central2', nodePools: []}))
      // @ts-expect-error nor is a note asked
      void console.confirm(configFile({file: '/c.yaml'}))
      // @ts-expect-error every value the text needs is given
      console.info(clusterLockReleasing({}))
      // @ts-expect-error a message is made by its maker, not written by hand
      const forged: Message<'info'> = {code: 'config.file', text: 'x'}
      // @ts-expect-error nor is a question
      const asked: Question = {code: 'cluster.delete.confirm', text: 'x', default: true}
      return [forged, asked]
    }
    expect(typeof sends).toBe('function')
  })
})
