// xpk's YAML emitter (src/core/manifests/to-yaml.ts) against js-yaml's dump set up to write the same text: double
// quotes, no line folding, no anchors, the YAML 1.1 schema (so `on`, `yes` or `0755` are quoted), one extra scalar
// rule for xpk's conservative plain strings and a transform that writes integer lists in flow style. Checked to give
// the very same text on every golden manifest (test/golden/*.yaml) before anything is timed. Times, in this process
// and interleaved, the biggest golden JobSet and the Kueue release's CRDs (1.6 MB of YAML, what
// `cluster create --dry-run --verbose` prints on a new cluster; skipped when test/helpers/crds.ts finds no CRDs),
// and, in fresh processes, what loading js-yaml and its first dump add before the YAML of a `--dry-run`.
// Run with `npm run bench:yaml`; RUNS (default 15) sets the rounds.
import {execFileSync} from 'node:child_process'
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'

import {
  COLLECTION_STYLE,
  DEFAULT_SCALAR_STYLE_RULES,
  dump,
  load,
  SCALAR_STYLE,
  visit,
  YAML11_SCHEMA,
  type DumpOptions,
  type ScalarLayout,
} from 'js-yaml'

import {toYaml, toYamlDocuments} from '../src/core/manifests/to-yaml.js'
import {CRDS} from '../test/helpers/crds.js'

const RUNS = Number(process.env.RUNS ?? 15)
const GOLDEN = new URL('../test/golden/', import.meta.url).pathname

// to-yaml.ts's plain strings: anything else is double-quoted.
const PLAIN = /^(?:[A-Za-z_/]|-(?=[A-Za-z-]))(?:[A-Za-z0-9_./=+()$@,-]|:(?=[^ ])| (?! ))*$/
const STR = 'tag:yaml.org,2002:str'
const INT = 'tag:yaml.org,2002:int'
const quoteUnlessPlain = (layout: ScalarLayout) => {
  if (layout.style !== SCALAR_STYLE.PLAIN || layout.node.tag !== STR) return
  if (!PLAIN.test(layout.node.value) || layout.node.value.endsWith(' ')) layout.style = SCALAR_STYLE.DOUBLE_QUOTED
}
const OPTIONS: DumpOptions = {
  schema: YAML11_SCHEMA,
  noRefs: true,
  lineWidth: -1,
  quoteStyle: 'double',
  scalarStyleRules: [...Object.values(DEFAULT_SCALAR_STYLE_RULES), quoteUnlessPlain],
  transform: (documents) =>
    visit(documents, (node) => {
      if (node.kind !== 'sequence' || node.items.length === 0) return
      if (node.items.every((item) => item.kind === 'scalar' && item.tag === INT)) node.style = COLLECTION_STYLE.FLOW
    }),
}
const jsYaml = (value: unknown) => dump(value, OPTIONS)
const jsYamlDocuments = (values: readonly unknown[]) => values.map(jsYaml).join('---\n')

const goldens = readdirSync(GOLDEN)
  .filter((name) => name.endsWith('.yaml'))
  .map((name) => ({name, text: readFileSync(join(GOLDEN, name), 'utf8').replace(/^(?:#.*\n)+/, '')}))
for (const {name, text} of goldens) {
  const object = load(text)
  if (toYaml(object) !== text) throw new Error(`${name}: to-yaml.ts no longer writes the golden`)
  if (jsYaml(object) !== text) throw new Error(`${name}: js-yaml with these options writes another text`)
}
console.log(`js-yaml with these options writes the same text as to-yaml.ts on all ${goldens.length} golden manifests.`)

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

/** Median milliseconds of `ours` and `theirs`, interleaved, after two warm-up calls each. */
function time(label: string, ours: () => string, theirs: () => string, rounds: number): void {
  const a: number[] = []
  const b: number[] = []
  for (let i = 0; i < 2; i++) {
    ours()
    theirs()
  }
  for (let i = 0; i < rounds; i++) {
    let started = performance.now()
    ours()
    a.push(performance.now() - started)
    started = performance.now()
    theirs()
    b.push(performance.now() - started)
  }
  const ratio = median(b) / median(a)
  console.log(
    `  ${label.padEnd(44)} to-yaml.ts ${median(a).toFixed(3)} ms, js-yaml ${median(b).toFixed(3)} ms (${ratio.toFixed(1)}x)`,
  )
}

console.log(`\nEmitting (median of ${RUNS} rounds, in this process):`)
const biggest = goldens.reduce((a, b) => (b.text.length > a.text.length ? b : a))
const jobset = load(biggest.text)
time(
  `${biggest.name} (${(biggest.text.length / 1000).toFixed(1)} kB)`,
  () => toYaml(jobset),
  () => jsYaml(jobset),
  RUNS * 20,
)
const crds = [...(CRDS.components.find((c) => c.component === 'kueue')?.crds() ?? [])]
if (crds.length > 0) {
  const size = toYamlDocuments(crds).length
  time(
    `Kueue's ${crds.length} CRDs (${(size / 1e6).toFixed(1)} MB)`,
    () => toYamlDocuments(crds),
    () => jsYamlDocuments(crds),
    RUNS,
  )
} else {
  console.log("  Kueue's CRDs: not found (see test/helpers/crds.ts), not timed")
}

// Fresh processes: import js-yaml and dump one small object, against a process that does neither.
const script = (withYaml: boolean) =>
  withYaml
    ? `const t = performance.now(); const {dump} = await import('js-yaml'); dump({a: [1, 2], b: 'x'}); console.log(performance.now() - t)`
    : `const t = performance.now(); console.log(performance.now() - t)`
const fresh = (withYaml: boolean) =>
  Number(execFileSync(process.execPath, ['--input-type=module', '-e', script(withYaml)], {encoding: 'utf8'}))
const loads: number[] = []
for (let i = 0; i < RUNS; i++) loads.push(fresh(true) - fresh(false))
console.log(
  `\nLoading js-yaml and its first dump, in a fresh process: ${median(loads).toFixed(1)} ms (median of ${RUNS})`,
)
console.log(
  `(js-yaml's bundle: ${(statSync(new URL(import.meta.resolve('js-yaml')).pathname).size / 1000).toFixed(0)} kB)`,
)
