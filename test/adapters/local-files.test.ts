import {execFileSync} from 'node:child_process'
import {chmodSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {NodeFiles} from '../../src/adapters/local-files.js'
import {XpkError} from '../../src/core/errors.js'
import type {TextFileRead} from '../../src/ports/files.js'
import {tempDir} from '../helpers/temp.js'

const files = new NodeFiles()
const LIMIT = 1024

// Each case makes its path in a fresh directory and says what reading it at most LIMIT bytes must give.
const readCases: Array<[string, (dir: string) => string, TextFileRead]> = [
  ['a UTF-8 text file', (dir) => write(dir, 'ok.env', 'A=1\nB=ü\n'), {kind: 'text', text: 'A=1\nB=ü\n'}],
  ['an empty file', (dir) => write(dir, 'empty.env', ''), {kind: 'text', text: ''}],
  [
    'a file of exactly the limit',
    (dir) => write(dir, 'full.env', 'x'.repeat(LIMIT)),
    {kind: 'text', text: 'x'.repeat(LIMIT)},
  ],
  ['a missing file', (dir) => join(dir, 'nope.env'), {kind: 'missing'}],
  ['a path through a file', (dir) => join(write(dir, 'f', ''), 'below'), {kind: 'missing'}],
  ['a directory', (dir) => dir, {kind: 'directory'}],
  ['a character device (/dev/zero)', () => '/dev/zero', {kind: 'not-a-file'}],
  ['a named pipe with no writer', (dir) => fifo(dir), {kind: 'not-a-file'}],
  [
    'a file one byte over the limit',
    (dir) => write(dir, 'big.env', 'x'.repeat(LIMIT + 1)),
    {kind: 'too-large', size: LIMIT + 1},
  ],
  [
    'a file with NUL bytes',
    (dir) => write(dir, 'nul.env', Buffer.from('A=1\0\n')),
    {kind: 'binary', reason: 'NUL bytes'},
  ],
  [
    'a file that is not UTF-8',
    (dir) => write(dir, 'latin1.env', Buffer.from([0x41, 0x3d, 0xe9, 0x0a])),
    {kind: 'binary', reason: 'invalid UTF-8'},
  ],
  ['a symlink to a text file', (dir) => link(dir, write(dir, 't.env', 'A=1\n')), {kind: 'text', text: 'A=1\n'}],
]

// Root may read every file, so an unreadable one cannot be made: that one case is skipped, and says so.
const ROOT = process.getuid?.() === 0
if (ROOT) {
  process.stderr.write(
    'Skipping "says a file it may not read is unreadable": running as root, which reads every file.\n',
  )
}

describe('NodeFiles.readText', () => {
  it.each(readCases)('%s', async (_name, make, expected) => {
    const path = make(tempDir('xpk-files-'))
    expect(await files.readText(path, {maxBytes: LIMIT})).toEqual(expected)
  })

  it.skipIf(ROOT)('says a file it may not read is unreadable (not as root)', async () => {
    const path = write(tempDir('xpk-files-'), 'secret.env', 'A=1\n')
    chmodSync(path, 0o000)
    expect(await files.readText(path, {maxBytes: LIMIT})).toMatchObject({kind: 'unreadable'})
  })
})

describe('NodeFiles.stat', () => {
  it.each([
    ['a file', (dir: string) => write(dir, 'f', 'abc'), {type: 'file', size: 3}],
    ['a directory', (dir: string) => dir, {type: 'directory'}],
    ['a device', () => '/dev/null', {type: 'other'}],
    ['a missing path', (dir: string) => join(dir, 'nope'), undefined],
    ['a path through a file', (dir: string) => join(write(dir, 'f', ''), 'x'), undefined],
  ])('%s', async (_name, make, expected) => {
    const found = await files.stat(make(tempDir('xpk-files-')))
    if (expected === undefined) expect(found).toBeUndefined()
    else expect(found).toMatchObject(expected)
  })
})

describe('NodeFiles.writeText', () => {
  it('writes a new file and replaces an existing one, leaving nothing else in the directory', async () => {
    const dir = tempDir('xpk-files-')
    const path = join(dir, 'jobset.yaml')
    await files.writeText(path, 'first\n')
    expect(readFileSync(path, 'utf8')).toBe('first\n')
    await files.writeText(path, 'second\n')
    expect(readFileSync(path, 'utf8')).toBe('second\n')
    expect(readdirSync(dir)).toEqual(['jobset.yaml'])
  })

  // Every failure must leave the directory as it was: no temporary file, no directory created, target unchanged.
  it.each([
    ['the target is a directory', (dir: string) => (mkdirSync(join(dir, 'out')), join(dir, 'out')), ['out']],
    ['the directory does not exist', (dir: string) => join(dir, 'missing', 'jobset.yaml'), []],
    ['the directory is a file', (dir: string) => join(write(dir, 'file', 'keep'), 'jobset.yaml'), ['file']],
  ])('fails cleanly when %s', async (_name, make, after) => {
    const dir = tempDir('xpk-files-')
    const path = make(dir)
    const error = await files.writeText(path, 'text\n').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(XpkError)
    expect((error as XpkError).message).toContain(`Cannot write ${path}`)
    expect(readdirSync(dir).sort()).toEqual(after)
  })

  it('removes its temporary file when the rename fails after the write', async () => {
    const dir = tempDir('xpk-files-')
    // A non-empty directory cannot be replaced by a file, so the write succeeds and the rename fails.
    mkdirSync(join(dir, 'out'))
    writeFileSync(join(dir, 'out', 'keep'), '')
    await expect(files.writeText(join(dir, 'out'), 'text\n')).rejects.toThrow(/Cannot write/)
    expect(readdirSync(dir)).toEqual(['out'])
    expect(readdirSync(join(dir, 'out'))).toEqual(['keep'])
  })
})

describe('NodeFiles.canWriteIn', () => {
  it('is true for a directory of our own and false for a missing one', async () => {
    const dir = tempDir('xpk-files-')
    expect(await files.canWriteIn(dir)).toBe(true)
    expect(await files.canWriteIn(join(dir, 'nope'))).toBe(false)
  })
})

function write(dir: string, name: string, content: string | Buffer): string {
  const path = join(dir, name)
  writeFileSync(path, content)
  return path
}

function fifo(dir: string): string {
  const path = join(dir, 'pipe')
  execFileSync('mkfifo', [path])
  return path
}

function link(dir: string, target: string): string {
  const path = join(dir, 'link.env')
  symlinkSync(target, path)
  return path
}
