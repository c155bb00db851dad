// The message registry is a contract like the flags: a changed code or level is a visible diff in review.
import {existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

import {message, question} from '../../src/core/messages.js'
import {MESSAGES} from '../../src/core/messages/registry.js'

const GOLDEN = fileURLToPath(new URL('../golden/contract/messages.json', import.meta.url))
const SRC = fileURLToPath(new URL('../../src', import.meta.url))

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )
}

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

  it('are each used by the code outside the registry, so none is left behind when a message goes', () => {
    const code = sourceFiles(SRC)
      .filter((f) => !f.endsWith(join('core', 'messages.ts')))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n')
    const unused = Object.keys(MESSAGES).filter((c) => !code.includes(`'${c}'`))
    expect(unused).toEqual([])
  })

  it('are lower-case dotted names: topic, then what happened', () => {
    const bad = Object.keys(MESSAGES).filter((c) => !/^[a-z]+(\.[a-z]+(-[a-z]+)*)+$/.test(c))
    expect(bad).toEqual([])
  })

  it('carry their data only when given, and questions carry their default', () => {
    expect(message('config.file', 'x')).toEqual({code: 'config.file', text: 'x'})
    expect(message('config.set', 'x', {key: 'zone'})).toEqual({code: 'config.set', text: 'x', data: {key: 'zone'}})
    expect(question('cluster.delete.confirm', 'Delete?', false)).toEqual({
      code: 'cluster.delete.confirm',
      text: 'Delete?',
      default: false,
    })
  })
})
