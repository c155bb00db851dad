// Start-up benchmark: wall time of common commands against `node -e 0` on the same Node.js, median of RUNS runs
// after one warm-up run each (the warm-up fills Node's compile cache, as a user's second run would).
// Run with `npm run bench:startup` (which builds first). Target: every ratio at most 3.0.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

const RUNS = Number(process.env.RUNS ?? 15)
const node = process.execPath
const bin = new URL('../bin/run.js', import.meta.url).pathname
const scriptDir = mkdtempSync(join(tmpdir(), 'xpk-bench-script-'))
writeFileSync(join(scriptDir, 'train.py'), 'print("hello")\n')
// Isolate from the user's own config so every run does the same work.
const env = {
  ...process.env,
  XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'xpk-bench-config-')),
  CLOUDSDK_CONFIG: '/nonexistent',
}

const cases = [
  ['node -e 0', ['-e', '0']],
  ['xpk --help', ['--', bin, '--help']],
  ['xpk accelerator list', ['--', bin, 'accelerator', 'list']],
  [
    'xpk workload create --dry-run --offline',
    [
      bin,
      'workload',
      'create',
      '--project',
      'bench-project',
      '--cluster',
      'bench',
      '--workload',
      'bench-1',
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

function timeOnce(args) {
  const start = process.hrtime.bigint()
  const result = spawnSync(node, args, {env, stdio: ['ignore', 'ignore', 'pipe']})
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`)
  return ms
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

const medians = new Map()
for (const [name, args] of cases) {
  timeOnce(args)
  const samples = Array.from({length: RUNS}, () => timeOnce(args))
  medians.set(name, median(samples))
}
const baseline = medians.get('node -e 0')
console.log(`Start-up, median of ${RUNS} runs (Node ${process.version}):`)
for (const [name, ms] of medians) {
  console.log(`  ${name.padEnd(42)} ${ms.toFixed(1).padStart(7)} ms   ${(ms / baseline).toFixed(2)}x node -e 0`)
}
const worst = Math.max(...[...medians.values()].map((ms) => ms / baseline))
console.log(`Worst ratio: ${worst.toFixed(2)}x (target <= 3.00x)`)
