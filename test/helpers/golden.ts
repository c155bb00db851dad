import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {expect} from 'vitest'

const GOLDEN_ROOT = fileURLToPath(new URL('../golden', import.meta.url))

/**
 * `actual` must be exactly the text of test/golden/<path>, byte for byte: no regular expression, no trimming.
 * UPDATE_GOLDENS=1 writes it instead, for a change made on purpose (the diff is then reviewed).
 */
export function expectGolden(path: string, actual: string): void {
  const file = join(GOLDEN_ROOT, path)
  if (process.env.UPDATE_GOLDENS) {
    mkdirSync(dirname(file), {recursive: true})
    writeFileSync(file, actual)
  }
  expect(existsSync(file), `run with UPDATE_GOLDENS=1 to create test/golden/${path}`).toBe(true)
  expect(actual, `test/golden/${path} (UPDATE_GOLDENS=1 accepts a change)`).toBe(readFileSync(file, 'utf8'))
}
