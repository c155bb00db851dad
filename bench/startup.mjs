// Start-up benchmark: wall time of common commands against `node -e 0` on the same Node.js. Every round times
// each case once (interleaved, so a noisy moment hits all cases alike), after one warm-up run each that fills
// Node's compile cache as a user's earlier runs would. Reports median times and the median of per-round ratios.
// Run with `npm run bench:startup` (which builds first). Target: every ratio at most 3.0.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {delimiter, dirname, join} from 'node:path'

const RUNS = Number(process.env.RUNS ?? 31)
const node = process.execPath
const bin = new URL('../bin/run.js', import.meta.url).pathname
const scriptDir = mkdtempSync(join(tmpdir(), 'xpk-bench-script-'))
writeFileSync(join(scriptDir, 'train.py'), 'print("hello")\n')
// Isolated from the user's own config so every run does the same work; this Node first on PATH, because the
// commands run the way a shell runs them: bin/run.js through its shebang (`env -S node <flags> --`).
const env = {
  ...process.env,
  PATH: `${dirname(node)}${delimiter}${process.env.PATH}`,
  XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'xpk-bench-config-')),
  CLOUDSDK_CONFIG: '/nonexistent',
}

const workload = ['workload', 'create', '--project', 'bench-project', '--cluster', 'bench', '--workload', 'bench-1']
const cases = [
  ['node -e 0', [node, '-e', '0']],
  ['xpk --help', [bin, '--help']],
  ['xpk accelerator list', [bin, 'accelerator', 'list']],
  [
    'xpk workload create --dry-run --offline',
    [
      bin,
      ...workload,
      '--tpu-type',
      'v5p-256',
      '--num-slices',
      '4',
      '--command',
      'python3 train.py',
      '--script-dir',
      scriptDir,
      '--dry-run',
      '--offline',
    ],
  ],
]

function timeOnce([program, ...args]) {
  const start = process.hrtime.bigint()
  const result = spawnSync(program, args, {env, stdio: ['ignore', 'ignore', 'pipe']})
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  if (result.status !== 0) throw new Error(`${program} ${args.join(' ')} exited ${result.status}: ${result.stderr}`)
  return ms
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

for (const [, command] of cases) timeOnce(command)
const samples = new Map(cases.map(([name]) => [name, []]))
for (let round = 0; round < RUNS; round++) {
  for (const [name, command] of cases) samples.get(name).push(timeOnce(command))
}
const base = samples.get('node -e 0')
console.log(`Start-up, median of ${RUNS} interleaved runs (Node ${process.version}):`)
let worst = 0
for (const [name, xs] of samples) {
  const ratio = median(xs.map((ms, round) => ms / base[round]))
  worst = Math.max(worst, ratio)
  console.log(`  ${name.padEnd(42)} ${median(xs).toFixed(1).padStart(7)} ms   ${ratio.toFixed(2)}x node -e 0`)
}
console.log(`Worst ratio: ${worst.toFixed(2)}x (target <= 3.00x)`)
