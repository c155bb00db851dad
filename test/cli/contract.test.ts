// Contract snapshots, as the sf CLI keeps them: every command's flags (name, kind, character, repeatable,
// exclusions) are compared with a committed golden, so adding, renaming or dropping a flag is a visible diff in
// review. UPDATE_GOLDENS=1 rewrites it. The JSON shapes of --json outputs are checked in test/e2e/input-safety.
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {expect, it} from 'vitest'

import {COMMANDS} from '../../src/index.js'

const GOLDEN = fileURLToPath(new URL('../golden/contract/flags.json', import.meta.url))

type Definition = {
  type: string
  char?: string
  multiple?: boolean
  allowNo?: boolean
  exclusive?: string[]
  dependsOn?: string[]
  aliases?: string[]
  required?: boolean
  helpValue?: string
}

function contract(): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const id of Object.keys(COMMANDS).sort()) {
    const cmd = COMMANDS[id as keyof typeof COMMANDS] as unknown as {
      flags?: Record<string, Definition>
      baseFlags?: Record<string, Definition>
      args?: Record<string, {required?: boolean}>
    }
    const flags = {...cmd.baseFlags, ...cmd.flags}
    out[id] = {
      args: Object.entries(cmd.args ?? {}).map(([name, a]) => `${name}${a.required ? '' : '?'}`),
      flags: Object.fromEntries(
        Object.keys(flags)
          .sort()
          .map((name) => {
            const f = flags[name]!
            const parts = [
              f.type === 'boolean' ? (f.allowNo ? 'boolean --[no-]' : 'boolean') : `option ${f.helpValue ?? '<value>'}`,
              f.char ? `-${f.char}` : '',
              f.multiple ? 'repeatable' : '',
              f.required ? 'required' : '',
              f.aliases?.length ? `aliases ${f.aliases.join(',')}` : '',
              f.exclusive?.length ? `excludes ${[...f.exclusive].sort().join(',')}` : '',
              f.dependsOn?.length ? `needs ${f.dependsOn.join(',')}` : '',
            ]
            return [name, parts.filter(Boolean).join('; ')]
          }),
      ),
    }
  }
  return out
}

it('every command keeps the flags of test/golden/contract/flags.json (UPDATE_GOLDENS=1 to accept a change)', () => {
  const actual = `${JSON.stringify(contract(), null, 2)}\n`
  if (process.env.UPDATE_GOLDENS) writeFileSync(GOLDEN, actual)
  expect(existsSync(GOLDEN), 'run with UPDATE_GOLDENS=1 to create the golden').toBe(true)
  expect(actual).toBe(readFileSync(GOLDEN, 'utf8'))
})
