// Rule 5 of issue 7 for `workload create`: every file and directory it is given is checked before any image or
// manifest work, and a bad one is a usage error naming its flag, reported together with the other problems.
import {execFileSync} from 'node:child_process'
import {mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {NodeFiles} from '../../src/adapters/local-files.js'
import {UsageError, UsageErrors} from '../../src/core/errors.js'
import {resolveSettings} from '../../src/core/settings.js'
import type {ImageBuildOptions, ImageBuildResult} from '../../src/services/image-build.js'
import {createWorkload, type WorkloadCreateOptions} from '../../src/services/workload-create.js'
import {RecordingConsole} from '../helpers/recording-console.js'
import {tempDir} from '../helpers/temp.js'
import {virtualClock} from '../helpers/virtual-clock.js'

interface Run {
  readonly plans: ImageBuildOptions[]
  readonly console: RecordingConsole
  readonly outcome: Promise<unknown>
}

function run(patch: Partial<WorkloadCreateOptions>, env: Record<string, string> = {}, cwd = tempDir('xpk-cwd-')): Run {
  const plans: ImageBuildOptions[] = []
  const console = new RecordingConsole()
  const options: WorkloadCreateOptions = {
    flags: {workload: 'w1', tpuType: 'v5p-8', command: 'python3 train.py'},
    dryRun: true,
    offline: true,
    settings: resolveSettings({flags: {project: 'my-project', cluster: 'demo'}, env: {}, config: {}, gcloud: {}}),
    ...patch,
  }
  const outcome = createWorkload(options, {
    console,
    files: new NodeFiles(),
    env,
    cwd,
    planImage: async (build) => {
      plans.push(build)
      return {result: fakeImage(build), build: null}
    },
    // These runs are dry runs or stop at bad input: neither ever reaches a cluster.
    gke: () => Promise.reject(new Error('unexpected GKE connection')),
    kube: () => Promise.reject(new Error('unexpected Kubernetes connection')),
    signal: new AbortController().signal,
    ...virtualClock(),
  })
  return {plans, console, outcome}
}

function fakeImage(build: ImageBuildOptions): ImageBuildResult {
  return {
    repository: build.repository,
    tag: 'ctx-0000000000000000',
    reference: `${build.repository}:ctx-0000000000000000`,
    digest: null,
    action: 'offline',
    layersPushed: 0,
    layersSkipped: 0,
    contextFiles: 1,
    baseDigest: null,
    baseDigestSource: 'unresolved',
    seconds: 0,
  }
}

const MiB = 1 << 20
const file = (dir: string, name: string, content: string | Buffer) => {
  writeFileSync(join(dir, name), content)
  return join(dir, name)
}

// name, the options made in a fresh directory, the extra environment, the flag (or variable) named, the message.
type Case = [string, (dir: string) => Partial<WorkloadCreateOptions>, Record<string, string>, string, RegExp]
const cases: Case[] = [
  ['an empty --output-manifest-file', () => ({outputManifestFile: ''}), {}, '--output-manifest-file', /is empty/],
  ['a blank --output-manifest-file', () => ({outputManifestFile: '  '}), {}, '--output-manifest-file', /is empty/],
  [
    'a directory as --output-manifest-file',
    (d) => ({outputManifestFile: d}),
    {},
    '--output-manifest-file',
    /is a directory/,
  ],
  [
    'a missing directory ending in / as --output-manifest-file',
    (d) => ({outputManifestFile: `${join(d, 'out')}/`}),
    {},
    '--output-manifest-file',
    /is a directory/,
  ],
  [
    'an --output-manifest-file in a missing directory',
    (d) => ({outputManifestFile: join(d, 'missing', 'jobset.yaml')}),
    {},
    '--output-manifest-file',
    /directory .*missing does not exist.*/,
  ],
  [
    'an --output-manifest-file below a file',
    (d) => ({outputManifestFile: join(file(d, 'f', ''), 'jobset.yaml')}),
    {},
    '--output-manifest-file',
    /is not a directory/,
  ],
  [
    'a device as --output-manifest-file',
    () => ({outputManifestFile: '/dev/null'}),
    {},
    '--output-manifest-file',
    /not a regular file/,
  ],
  ['an empty --env-file', () => ({envFile: ''}), {}, '--env-file', /is empty/],
  ['a missing --env-file', (d) => ({envFile: join(d, 'nope.env')}), {}, '--env-file', /no such file/],
  ['a directory as --env-file', (d) => ({envFile: d}), {}, '--env-file', /is a directory/],
  ['/dev/zero as --env-file', () => ({envFile: '/dev/zero'}), {}, '--env-file', /not a regular file/],
  [
    'a named pipe as --env-file',
    (d) => (execFileSync('mkfifo', [join(d, 'pipe')]), {envFile: join(d, 'pipe')}),
    {},
    '--env-file',
    /not a regular file/,
  ],
  [
    'an --env-file over 1 MiB',
    (d) => ({envFile: file(d, 'big.env', `A=${'x'.repeat(MiB)}\n`)}),
    {},
    '--env-file',
    /at most 1048576 bytes/,
  ],
  ['an --env-file with NUL bytes', (d) => ({envFile: file(d, 'nul.env', 'A=1\0\n')}), {}, '--env-file', /NUL bytes/],
  [
    'an --env-file that is not UTF-8',
    (d) => ({envFile: file(d, 'bin.env', Buffer.from([0x41, 0x3d, 0xff, 0xfe, 0x0a]))}),
    {},
    '--env-file',
    /invalid UTF-8/,
  ],
  ['an empty --script-dir', () => ({scriptDir: ''}), {}, '--script-dir', /is empty/],
  ['a missing --script-dir', (d) => ({scriptDir: join(d, 'nope')}), {}, '--script-dir', /no such directory/],
  ['a file as --script-dir', (d) => ({scriptDir: file(d, 'train.py', '')}), {}, '--script-dir', /is not a directory/],
  ['an empty XPK_SCRIPT_DIR_MAX_MB', () => ({}), {XPK_SCRIPT_DIR_MAX_MB: ''}, 'XPK_SCRIPT_DIR_MAX_MB', /set but empty/],
  [
    'a negative XPK_SCRIPT_DIR_MAX_MB',
    () => ({}),
    {XPK_SCRIPT_DIR_MAX_MB: '-1'},
    'XPK_SCRIPT_DIR_MAX_MB',
    /out of range: use a whole number from 0 to 1000000/,
  ],
  [
    'a fractional XPK_SCRIPT_DIR_MAX_MB',
    () => ({}),
    {XPK_SCRIPT_DIR_MAX_MB: '1.5'},
    'XPK_SCRIPT_DIR_MAX_MB',
    /is not a whole number from 0 to 1000000/,
  ],
  [
    'an XPK_SCRIPT_DIR_MAX_MB with a sign',
    () => ({}),
    {XPK_SCRIPT_DIR_MAX_MB: '+5'},
    'XPK_SCRIPT_DIR_MAX_MB',
    /has a plus sign/,
  ],
  [
    'a huge XPK_SCRIPT_DIR_MAX_MB',
    () => ({}),
    {XPK_SCRIPT_DIR_MAX_MB: '99999999'},
    'XPK_SCRIPT_DIR_MAX_MB',
    /0 to 1000000/,
  ],
]

describe('workload create checks its files before any work', () => {
  it.each(cases)('rejects %s', async (_name, make, env, named, message) => {
    const dir = tempDir('xpk-files-')
    const options = make(dir)
    const before = readdirSync(dir).sort()
    const {outcome, plans, console} = run(options, env)
    const error = await outcome.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UsageError)
    const problem = error as UsageError
    expect(problem).not.toBeInstanceOf(UsageErrors)
    expect(problem.message).toMatch(message)
    if (named.startsWith('--')) expect(problem.flag).toBe(named)
    expect(problem.message).toContain(named)
    // Nothing was built, printed or written: not the manifest, not a temporary file, not a directory.
    expect(plans).toEqual([])
    expect(console.results).toEqual([])
    expect(readdirSync(dir).sort()).toEqual(before)
  })

  it('reports every bad file together with the other problems', async () => {
    const dir = tempDir('xpk-files-')
    const {outcome, plans} = run({
      flags: {workload: 'Bad_Name', tpuType: 'v5p-8', command: 'x'},
      outputManifestFile: dir,
      envFile: '/dev/zero',
      scriptDir: join(dir, 'nope'),
    })
    const error = (await outcome.catch((e: unknown) => e)) as UsageErrors
    expect(error).toBeInstanceOf(UsageErrors)
    expect(error.problems.map((p) => p.flag)).toEqual(
      expect.arrayContaining(['--workload', '--output-manifest-file', '--env-file', '--script-dir']),
    )
    expect(plans).toEqual([])
  })

  it('does not look at --script-dir or the size limit when --docker-image is given', async () => {
    const {outcome} = run({dockerImage: 'gcr.io/p/i:1', scriptDir: '/nonexistent'}, {XPK_SCRIPT_DIR_MAX_MB: 'nonsense'})
    await expect(outcome).resolves.toMatchObject({image: {source: 'given'}})
  })
})

describe('workload create writes the manifest atomically', () => {
  it('writes the file, replaces an old one and leaves nothing else', async () => {
    const dir = tempDir('xpk-files-')
    const path = file(dir, 'jobset.yaml', 'old\n')
    const {outcome} = run({outputManifestFile: path, dockerImage: 'gcr.io/p/i:1'})
    await outcome
    expect(readFileSync(path, 'utf8')).toMatch(/^apiVersion: jobset/)
    expect(readdirSync(dir)).toEqual(['jobset.yaml'])
  })
})

describe('workload create passes the script directory and its limit to the image build', () => {
  it.each([
    ['the default directory', {}, {}, {isDefault: true, maxContextBytes: 100_000_000}],
    ['a given directory', {scriptDir: 'given'}, {}, {isDefault: false, maxContextBytes: 100_000_000}],
    ['a limit of 5 MB', {}, {XPK_SCRIPT_DIR_MAX_MB: '5'}, {isDefault: true, maxContextBytes: 5_000_000}],
    ['no limit (0)', {}, {XPK_SCRIPT_DIR_MAX_MB: '0'}, {isDefault: true, maxContextBytes: null}],
  ])('%s', async (_name, patch, env, expected) => {
    const cwd = tempDir('xpk-cwd-')
    mkdirSync(join(cwd, 'given'))
    const options = 'scriptDir' in patch ? {scriptDir: join(cwd, 'given')} : {}
    const {outcome, plans} = run(options, env, cwd)
    await outcome
    expect(plans).toHaveLength(1)
    expect(plans[0]).toMatchObject({
      scriptDir: expected.isDefault ? cwd : join(cwd, 'given'),
      scriptDirIsDefault: expected.isDefault,
      maxContextBytes: expected.maxContextBytes,
    })
  })
})
