// Issue 17, class 2: hints name only what exists. Every hint the code can produce is found by a scan of src/ (each
// `hints: [...]` and `hints.push(...)`), and every xpk flag it names must exist on each command it is about: the one
// it names (`xpk cluster create --cluster demo ...`), else every command whose code can reach the hint (a call graph
// by names, declaration by declaration, from each command's file). Flags of other tools named in a hint
// (`gcloud ... --member=...`) are theirs. `vm delete` once suggested --dry-run, which it does not have.
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'
import {describe, expect, it} from 'vitest'

import {COMMANDS} from '../../src/index.js'
import {REPO_ROOT} from '../helpers/cli.js'

type CommandId = keyof typeof COMMANDS
const SRC = join(REPO_ROOT, 'src')
const ids = Object.keys(COMMANDS) as CommandId[]

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [path] : []
  })
}
const text = new Map(sourceFiles().map((path) => [path, readFileSync(path, 'utf8')]))
const resolveImport = (from: string, spec: string) => resolve(dirname(from), spec.replace(/\.js$/, '.ts'))

/** Where each top-level declaration of a module starts, by name (functions, constants, classes). */
function declarations(file: string): Map<string, number> {
  const found = new Map<string, number>()
  const source = text.get(file) ?? ''
  for (const m of source.matchAll(/^(?:export )?(?:default )?(?:async )?(?:function\*?|const|let|class) (\w+)/gm)) {
    found.set(m[1]!, m.index)
  }
  return found
}

/** The text of a declaration: from its start to the next top-level line that starts something else. */
function declarationText(file: string, name: string): string | undefined {
  const source = text.get(file) ?? ''
  const start = declarations(file).get(name)
  if (start === undefined) return undefined
  const rest = source.slice(start + 1)
  const end = /^(?:export |async |function|const |let |class |interface |type |\/\*\*|\/\/)/m.exec(rest)
  return source.slice(start, start + 1 + (end ? end.index : rest.length))
}

/** The declaration a position of a module is in (the last one starting before it). */
function declarationAt(file: string, offset: number): string {
  let name = '(module)'
  let at = -1
  for (const [n, start] of declarations(file)) {
    if (start <= offset && start > at) [name, at] = [n, start]
  }
  return name
}

/** The names a module imports as code (not types), with the module each comes from. */
function importedNames(file: string): Map<string, string> {
  const imported = new Map<string, string>()
  for (const m of (text.get(file) ?? '').matchAll(/^import \{([^}]+)\} from '(\.[^']+)'/gm)) {
    for (const n of m[1]!.split(',').map((x) => x.trim())) {
      if (n !== '' && !n.startsWith('type ')) imported.set(n.split(' as ').pop()!, resolveImport(file, m[2]!))
    }
  }
  return imported
}

/** Where a name a module offers is declared: itself, or the module it re-exports it from. */
function declaredIn(file: string, name: string, depth = 0): string | undefined {
  if (declarations(file).has(name)) return file
  if (depth > 5) return undefined
  const source = text.get(file) ?? ''
  for (const m of source.matchAll(/^export \{([^}]+)\}(?: from '(\.[^']+)')?/gm)) {
    if (!m[1]!.split(',').some((n) => n.trim() === name)) continue
    const from = m[2] ? resolveImport(file, m[2]) : importedNames(file).get(name)
    return from === undefined ? undefined : declaredIn(from, name, depth + 1)
  }
  return undefined
}

/**
 * The declarations (`file#name`) a command's code can reach: a call graph by names, from the command's file through
 * each name a declaration uses: its own module's declarations, the names it imports, and the names it uses from a
 * module it loads on demand (`await import('./wiring.js')`). By declaration, not by module: src/cli/ wires
 * every command, and one module of error hints serves several operations, so whole modules would make every command
 * reach every other's hints.
 */
function reachedBy(id: CommandId): Set<string> {
  const start = join(SRC, 'commands', `${id.replaceAll(':', '/')}.ts`)
  const seen = new Set<string>()
  // `callerWords`: a module a function imports with import() and hands back (command-start.ts's startCommand gives
  // its caller the wiring) reaches the names its caller uses on it (`wiring.gkeConnector`).
  const visit = (file: string, body: string, callerWords: ReadonlySet<string> = new Set()) => {
    const words = new Set(body.match(/\b\w+\b/g) ?? [])
    const targets: [string, string][] = []
    for (const word of words) {
      const from = importedNames(file).get(word)
      if (from !== undefined) targets.push([from, word])
      if (declarations(file).has(word)) targets.push([file, word])
    }
    for (const m of body.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)) {
      for (const word of [...words, ...callerWords]) targets.push([resolveImport(file, m[1]!), word])
    }
    for (const [module, name] of targets) {
      const where = declaredIn(module, name)
      if (where === undefined || seen.has(`${where}#${name}`)) continue
      seen.add(`${where}#${name}`)
      visit(where, declarationText(where, name) ?? '', words)
    }
  }
  seen.add(`${start}#(module)`)
  visit(start, text.get(start)!)
  return seen
}

/**
 * Each `hints: [...]` / `hints.push(...)` expression of src/, and the hints of a classified API failure
 * (`final(kind, [...])`, `retried(kind, [...])`: src/core/cluster/gke-errors.ts), with its file and the declaration
 * it is in.
 */
function hintExpressions(): {file: string; unit: string; expression: string}[] {
  const out: {file: string; unit: string; expression: string}[] = []
  for (const [file, source] of text) {
    for (const m of source.matchAll(/\bhints(?:\??\.push\(|:\s*)|\b(?:retried|final)\('[a-z-]+',\s*/g)) {
      let depth = 0
      let i = m.index + m[0].length
      const start = i
      for (; i < source.length; i++) {
        const c = source[i]!
        if ('([{'.includes(c)) depth++
        else if (')]}'.includes(c)) {
          if (depth === 0) break
          depth--
        } else if (c === ',' && depth === 0) break
      }
      const name = declarationAt(file, start)
      const expression = source.slice(start, i)
      out.push({file, unit: `${file}#${name}`, expression: expression + valuesNamedIn(expression, file, name)})
    }
  }
  return out
}

/**
 * The initializers of the local constants a hints expression names (`const hint = ...; hints: [hint]`), within the
 * same declaration, so the text they hold is scanned too.
 */
function valuesNamedIn(expression: string, file: string, unit: string, seen = new Set<string>()): string {
  const body = declarationText(file, unit) ?? ''
  return [...new Set(expression.match(/\b[a-zA-Z_]\w*\b/g) ?? [])]
    .map((word) => {
      const start = new RegExp(`\\b(?:const|let) ${word}\\s*=`).exec(body)
      if (!start || seen.has(word)) return ''
      seen.add(word)
      const rest = body.slice(start.index + start[0].length)
      const end = /\n\s*(?:const|let|if|throw|return|for|await|\})\b/.exec(rest)
      const value = rest.slice(0, end ? end.index : rest.length)
      // What it is made of, in turn (`const hint = `... ${check}``).
      return `\n${value}${valuesNamedIn(value, file, unit, seen)}`
    })
    .join('')
}

interface FlagMention {
  readonly file: string
  /** `file#declaration` of the hint. */
  readonly unit: string
  readonly flag: string
  /** The command the hint names before the flag, if any. */
  readonly command?: CommandId
  readonly hint: string
}

const TOOLS = /^(gcloud|kubectl|docker|ssh|scp|git)$/

/** The xpk flags each hint names, each with the command it names before it, if any. */
function flagMentions(): FlagMention[] {
  const out: FlagMention[] = []
  for (const {file, unit, expression} of hintExpressions()) {
    // Each string or template literal separately: a command named in one does not own the flags of the next.
    for (const literal of expression.matchAll(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`/g)) {
      let command: CommandId | undefined
      let other = false
      // A code span (`...`, escaped in template literals) ends what a command named in it owns.
      const words = literal[0]
        .slice(1, -1)
        .replace(/\\?`/g, ' ` ')
        .split(/[\s(),;]+/)
      for (let i = 0; i < words.length; i++) {
        const word = words[i]!
        if (word === '`') {
          command = undefined
          other = false
          continue
        }
        // `xpk cluster create ...`, or `cluster create ...` but not `gcloud config set`: the flags after it are its.
        const named = word === 'xpk' ? [words[i + 1], words[i + 2]] : [word, words[i + 1]]
        // `xpk vm job logs ...`: a command of a nested topic is named by three words.
        const nested = word === 'xpk' ? [words[i + 1], words[i + 2], words[i + 3]] : [word, words[i + 1], words[i + 2]]
        if (!other && ids.includes(nested.join(':') as CommandId)) command = nested.join(':') as CommandId
        else if (!other && ids.includes(named.join(':') as CommandId)) command = named.join(':') as CommandId
        else if (word === 'xpk' && ids.includes(named[0] as CommandId)) command = named[0] as CommandId
        else if (TOOLS.test(word)) other = true
        const flag = /^--([a-z][a-z0-9-]*)(?=$|[=.:'"\]])/.exec(word)?.[1]
        if (flag && !other) out.push({file: relative(REPO_ROOT, file), unit, flag, command, hint: literal[0]})
      }
    }
  }
  return out
}

const flagsOf = (id: CommandId): string[] => {
  const cmd = COMMANDS[id] as unknown as {flags?: Record<string, {aliases?: string[]}>; baseFlags?: object}
  const flags = {...cmd.baseFlags, ...cmd.flags} as Record<string, {aliases?: string[]; allowNo?: boolean}>
  return [
    'help',
    'json',
    ...Object.entries(flags).flatMap(([name, def]) => [
      name,
      ...(def.aliases ?? []),
      ...(def.allowNo ? [`no-${name}`] : []),
    ]),
  ]
}

describe('hints name only flags the command has', () => {
  const mentions = flagMentions()
  const reach = new Map(ids.map((id) => [id, reachedBy(id)]))
  const rows = mentions.flatMap((m) => {
    const about = m.command ? [m.command] : ids.filter((id) => reach.get(id)!.has(m.unit))
    return about.map((id) => ({...m, id, exists: flagsOf(id).includes(m.flag)}))
  })

  it('finds the hints of every layer, and the commands each is about', () => {
    expect(hintExpressions().length).toBeGreaterThan(150)
    expect(mentions.length).toBeGreaterThan(80)
    // Every command has hints naming its flags, but those whose hints name none.
    expect(ids.filter((id) => !rows.some((r) => r.id === id))).toEqual([
      'accelerator:describe',
      'config:get',
      'config:list',
      'config:set',
      'config:unset',
      'version',
    ])
    // The shared confirmation of vm delete and cluster delete is reached from both.
    expect(ids.filter((id) => reach.get(id)!.has(`${join(SRC, 'services/confirm.ts')}#confirmOrStop`)).sort()).toEqual([
      'cluster:adapt',
      'cluster:create',
      'cluster:create-pathways',
      'cluster:create-ray',
      'cluster:delete',
      'storage:attach',
      'storage:delete',
      'storage:detach',
      'vm:delete',
      'vm:job:delete',
      'vm:run',
      'workload:create',
      'workload:create-pathways',
      'workload:delete',
    ])
  })

  /**
   * `workload create-pathways` runs `workload create`'s checks, which the call graph cannot split by branch: these
   * hints are about inputs create-pathways never has (a GPU or CPU type, --num-nodes, --device-type, --storage,
   * --scheduler, --debug-dump-gcs), so it never gives them. Each must still be found, so the list cannot go stale.
   */
  const UNREACHABLE: Partial<Record<CommandId, readonly string[]>> = {
    // desired.ts checks --ray-version for `cluster create-ray`: `cluster create` never has a Ray version, so it never
    // shows that hint.
    'cluster:create': ['src/core/cluster/desired.ts --ray-version'],
    'cluster:create-pathways': ['src/core/cluster/desired.ts --ray-version'],
    // cluster create-ray has none of these flags, and desired.ts gives their hints only when they are given.
    'cluster:create-ray': [
      'src/core/cluster/desired.ts --enable-autoprovisioning',
      'src/core/cluster/desired.ts --autoprovisioning-max-chips',
      'src/core/cluster/desired.ts --autoprovisioning-min-chips',
      'src/core/cluster/desired.ts --super-slicing',
      'src/core/cluster/desired.ts --num-nodes',
    ],
    // A job's project, zone and how its workers are reached are fixed by `vm job create` (which has these flags) and
    // kept in its record; the TPU API's and SSH's hints name create's flags. Known imprecision: after create, a hint
    // could name the job's recorded values instead (README, TPU VM jobs, "Not built yet").
    ...Object.fromEntries(
      (
        [
          'vm:job:delete',
          'vm:job:list',
          'vm:job:logs',
          'vm:job:resume',
          'vm:job:ssh',
          'vm:job:stop',
          'vm:job:supervise',
        ] as const
      ).map((id) => [
        id,
        [
          'src/adapters/ssh-client.ts --internal-ip',
          'src/core/vm/tpu-errors.ts --project',
          'src/core/vm/tpu-errors.ts --zone',
        ],
      ]),
    ),
    'workload:create-pathways': [
      'src/core/catalog/lookup.ts --device-type',
      'src/core/storage/mounts.ts --storage',
      'src/core/workload/capacity.ts --num-nodes',
      'src/core/workload/options.ts --debug-dump-gcs',
      'src/core/workload/options.ts --scheduler',
    ],
  }
  const unreachable = (r: {id: CommandId; file: string; flag: string}) =>
    UNREACHABLE[r.id]?.includes(`${r.file} --${r.flag}`) ?? false

  it('the hints a command cannot reach are all found among its rows', () => {
    for (const [id, list] of Object.entries(UNREACHABLE)) {
      for (const entry of list) {
        expect(
          rows.some((r) => r.id === id && `${r.file} --${r.flag}` === entry && !r.exists),
          entry,
        ).toBe(true)
      }
    }
  })

  it.each(rows.filter((r) => !unreachable(r)))(
    '$file: --$flag, in a hint about xpk $id, is a flag of $id',
    ({flag, id, exists, hint}) => {
      expect({flag, id, hint, exists}).toEqual({flag, id, hint, exists: true})
    },
  )
})
