import {describe, expect, it} from 'vitest'

import {UsageError} from '../../../src/core/errors.js'
import {canSkipDirectory, isIgnored, parseDockerignore, parseIgnoreFiles} from '../../../src/core/image/dockerignore.js'

// [name, .dockerignore text, path, ignored?]
const cases: Array<[string, string, string, boolean]> = [
  ['star matches at the top level', '*.md', 'README.md', true],
  ['star does not cross directories', '*.md', 'docs/a.md', false],
  ['double star crosses directories', '**/*.md', 'docs/deep/a.md', true],
  ['double star also matches zero directories', '**/*.md', 'README.md', true],
  ['a directory pattern covers what is below it', 'docs', 'docs/a/b.txt', true],
  ['a directory pattern is not a prefix match', 'docs', 'docsx', false],
  ['leading and trailing slashes are cleaned', '/docs/', 'docs/a.txt', true],
  ['dot segments are cleaned', './build/../dist', 'dist/x.js', true],
  ['dot segments are cleaned (not the original)', './build/../dist', 'build/x.js', false],
  ['comments are skipped', '# secret.txt', 'secret.txt', false],
  ['a hash after leading space is a pattern', ' #notes', '#notes', true],
  ['blank lines are skipped', '\n\n  \n', 'a.txt', false],
  ['trailing whitespace is trimmed', '*.tmp   ', 'x.tmp', true],
  ['CRLF line endings', '*.tmp\r\n*.bak\r\n', 'y.bak', true],
  ['an exception re-includes', '*.log\n!keep.log', 'keep.log', false],
  ['an exception leaves others excluded', '*.log\n!keep.log', 'other.log', true],
  ['the last matching line wins', '!keep.log\n*.log', 'keep.log', true],
  ['an exception inside an excluded directory', 'node_modules\n!node_modules/keep', 'node_modules/keep', false],
  ['siblings of the exception stay excluded', 'node_modules\n!node_modules/keep', 'node_modules/other', true],
  ['an exception with a space after the bang', '*.log\n! keep.log', 'keep.log', false],
  ['question mark is one character', 'temp?', 'temp1', true],
  ['question mark is exactly one character', 'temp?', 'temp12', false],
  ['question mark does not match a slash', 'a?b', 'a/b', false],
  ['a character class', '[a-c].txt', 'b.txt', true],
  ['outside a character class', '[a-c].txt', 'd.txt', false],
  ['a negated character class', '[^a].txt', 'a.txt', false],
  ['a negated character class matches others', '[^a].txt', 'b.txt', true],
  ['an escaped star is literal', '\\*.txt', '*.txt', true],
  ['an escaped star does not glob', '\\*.txt', 'a.txt', false],
  ['regex characters are literal', 'a+b(c){1}$.txt', 'a+b(c){1}$.txt', true],
  ['a dot is not a wildcard', 'a.txt', 'abtxt', false],
  ['a lone double star matches everything', '**', 'any/thing/at/all', true],
  ['a double star between directories', 'a/**/b', 'a/b', true],
  ['a double star between many directories', 'a/**/b', 'a/x/y/b', true],
  ['a double star pattern covers what is below a match', 'a/**/b', 'a/x/b/c.txt', true],
  ['a trailing double star is a prefix', 'foo**', 'foobar/x', true],
  ['a trailing slash double star needs the directory', 'foo/**', 'foo', false],
  ['a trailing slash double star takes its content', 'foo/**', 'foo/x/y', true],
  ['one directory level', '*/temp*', 'a/temporary', true],
  ['only one directory level', '*/temp*', 'a/b/temp', false],
  ['a hidden directory', '.git', '.git/objects/ab/cd', true],
  ['the ignore file itself can be ignored', '.dockerignore', '.dockerignore', true],
  // Where @balena/dockerignore alone departs from Docker (each checked against `docker build`, test/adapters).
  ['a plus is literal', 'a+b.txt', 'a+b.txt', true],
  ['a plus is not a repetition', 'a+b.txt', 'aab.txt', false],
  ['parentheses are literal', '(x).txt', '(x).txt', true],
  ['a bar is literal', 'c|d', 'c|d', true],
  ['a bar is not an alternative', 'c|d', 'Upper.md', false],
  ['braces are literal', 'e{1}', 'e{1}', true],
  ['braces are not a count', 'e{1}', 'e', false],
  ['a caret outside a class is literal', 'f^g', 'f^g', true],
  ['a caret starting a class negates it', '[^f]^g', 'x^g', true],
  ['matching is case-sensitive', '*.MD', 'README.md', false],
  ['a pattern starting with a hash after a space', ' #x|y', '#x|y', true],
  ['a file named constructor', '*', 'constructor', true],
  ['a file named toString', '*', 'toString', true],
  ['a file named __proto__', '*', '__proto__', true],
  ['a file named hasOwnProperty below a directory', 'a', 'a/hasOwnProperty', true],
]

describe('isIgnored', () => {
  it.each(cases)('%s: %j vs %s', (_name, text, path, ignored) => {
    expect(isIgnored(path, parseDockerignore(text))).toBe(ignored)
  })

  it('ignores nothing without patterns', () => {
    expect(isIgnored('a/b', parseDockerignore(''))).toBe(false)
  })
})

describe('parseDockerignore', () => {
  it.each([
    ['a lone bang', '!', /line 1/],
    ['an unterminated class', 'ok\n[abc', /line 2/],
    ['an empty class', '[]', /line 1/],
    ['a trailing backslash', 'abc\\', /line 1/],
    ['a class with only a caret', '[^]', /line 1/],
    ['a range starting with a dash', 'ok\n\n[-a]', /line 3/],
    ['a range with no end', '[a-]', /line 1/],
    ['a class that ends the pattern unclosed after an escape', '[\\', /line 1/],
    ['a lone bang after comments', '# c\n!', /line 2/],
  ])('rejects %s', (_name, text, message) => {
    expect(() => parseDockerignore(text, 'x/.dockerignore')).toThrow(UsageError)
    expect(() => parseDockerignore(text, 'x/.dockerignore')).toThrow(message)
  })

  it('keeps the cleaned pattern and whether it is an exception', () => {
    expect(parseDockerignore('# c\n/a//b/\n!./c\n').patterns.map((p) => [p.pattern, p.exception])).toEqual([
      ['a/b', false],
      ['c', true],
    ])
  })

  it('drops a byte-order mark', () => {
    expect(isIgnored('a.txt', parseDockerignore('\uFEFFa.txt'))).toBe(true)
  })
})

describe('canSkipDirectory', () => {
  it.each([
    ['an excluded directory without exceptions', 'node_modules', 'node_modules', true],
    ['an included directory', 'node_modules', 'src', false],
    ['an exception names a path below it', 'node_modules\n!node_modules/keep', 'node_modules', false],
    ['an exception elsewhere', 'node_modules\n!src/keep', 'node_modules', true],
    ['a wildcard exception is not looked for (as the Docker CLI does)', 'node_modules\n!**/keep', 'node_modules', true],
  ])('%s', (_name, text, dir, skip) => {
    expect(canSkipDirectory(dir, parseDockerignore(text))).toBe(skip)
  })
})

describe('parseIgnoreFiles', () => {
  it('reads the files as one list of lines: a later exception re-includes', () => {
    const rules = parseIgnoreFiles([
      {text: '*.log\nsecret.txt', source: '.dockerignore'},
      {text: '!keep.log', source: '.xpkignore'},
    ])
    expect(['a.log', 'keep.log', 'secret.txt', 'x.py'].filter((p) => isIgnored(p, rules))).toEqual([
      'a.log',
      'secret.txt',
    ])
  })

  it('names the file and line of a malformed pattern', () => {
    const read = () =>
      parseIgnoreFiles([
        {text: 'ok\n', source: 'd/.dockerignore'},
        {text: '# c\nfine\n[oops', source: 'd/.xpkignore'},
      ])
    expect(read).toThrow(UsageError)
    expect(read).toThrow('d/.xpkignore line 3: "[oops" is not a valid pattern.')
  })

  it('ignores nothing without patterns', () => {
    expect(isIgnored('a', parseIgnoreFiles([{text: '# only\n\n', source: 'x'}]))).toBe(false)
  })
})

describe('pattern cleaning', () => {
  it.each([
    ['a//b/./c/', 'a/b/c'],
    ['a/../../b', '../b'],
    ['/../a', 'a'],
    ['./', '.'],
  ])('%j is kept as %j', (line, pattern) => {
    expect(parseDockerignore(line).patterns[0]?.pattern).toBe(pattern)
  })
})
