import {rm} from 'node:fs/promises'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {imageBuildDeps} from '../../src/cli/workload.js'
import {DockerEngine} from '../../src/adapters/docker-engine.js'
import {UsageError, XpkError} from '../../src/core/errors.js'
import type {BuildContextSource} from '../../src/ports/images.js'
import {buildImage, type ImageBuildDeps, type ImageBuildOptions} from '../../src/services/image-build.js'
import {scriptDir} from '../helpers/script-dir.js'
import {tempDir} from '../helpers/temp.js'
import {RecordingConsole, type PromptAnswer} from '../helpers/recording-console.js'

/** The real wiring with every engine, registry and credential call refused: nothing may leave the process. */
const refuse = () => Promise.reject(new Error('no engine or network call may happen'))
// File digests are remembered in a temporary directory, never in the developer's own cache.
const context = () => ({digestCacheDir: tempDir('xpk-digests-')})
const offlineDeps = async (console: RecordingConsole): Promise<ImageBuildDeps> => ({
  ...(await imageBuildDeps(console, {context: context()})),
  engine: {inspectLocal: refuse, build: refuse, push: refuse},
  registry: {manifest: refuse},
  credentials: {forRegistry: refuse},
})

describe('buildImage without Docker', () => {
  const options = (scriptDir: string): ImageBuildOptions => ({
    baseImage: 'python:3.10',
    scriptDir,
    platform: 'linux/amd64',
    repository: 'gcr.io/my-project/jax-tpu',
    dryRun: true,
    offline: true,
  })

  it('offline, computes a stable tag without any engine or network call and says it may differ', async () => {
    const dir = await scriptDir({'train.py': 'print(1)\n'})
    const console = new RecordingConsole()
    const first = await buildImage(options(dir), await offlineDeps(console))
    expect(first).toMatchObject({
      repository: 'gcr.io/my-project/jax-tpu',
      tag: expect.stringMatching(/^ctx-[0-9a-f]{16}$/),
      action: 'offline',
      digest: null,
      baseDigest: null,
      baseDigestSource: 'unresolved',
      contextFiles: 1,
      layersPushed: 0,
    })
    expect(first.reference).toBe(`gcr.io/my-project/jax-tpu:${first.tag}`)
    expect(console.the('image.offline').data).toMatchObject({baseDigestKnown: false})
    const again = await buildImage(options(dir), await offlineDeps(new RecordingConsole()))
    expect(again.tag).toBe(first.tag)
    const arm = await buildImage({...options(dir), platform: 'linux/arm64'}, await offlineDeps(new RecordingConsole()))
    expect(arm.tag).not.toBe(first.tag)
  })

  it('offline, uses a digest given in the base reference', async () => {
    const dir = await scriptDir({'train.py': 'print(1)\n'})
    const digest = `sha256:${'4'.repeat(64)}`
    const result = await buildImage(
      {...options(dir), baseImage: `python@${digest}`},
      await offlineDeps(new RecordingConsole()),
    )
    expect(result).toMatchObject({baseDigest: digest, baseDigestSource: 'reference'})
  })

  it.each([
    ['a missing script directory', (dir: string) => ({scriptDir: join(dir, 'nope')}), '--script-dir', /does not exist/],
    [
      'a file as script directory',
      (dir: string) => ({scriptDir: join(dir, 'train.py')}),
      '--script-dir',
      /not a directory/,
    ],
    ['an invalid base image', () => ({baseImage: 'Not A Ref'}), '--base-docker-image', /not an image reference/],
    ['a repository with a tag', () => ({repository: 'gcr.io/p/x:latest'}), '--registry', /not an image repository/],
  ])('rejects %s as a usage error naming the flag', async (_name, patch, flag, message) => {
    const dir = await scriptDir({'train.py': 'print(1)\n'})
    const error = await buildImage(
      {...options(dir), ...patch(dir), dryRun: false, offline: false},
      await offlineDeps(new RecordingConsole()),
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UsageError)
    expect((error as UsageError).flag).toBe(flag)
    expect((error as UsageError).message).toMatch(message)
  })

  it('reports an unreachable Docker engine as unavailable', async () => {
    const dir = await scriptDir({'train.py': 'print(1)\n'})
    const deps = {
      ...(await imageBuildDeps(new RecordingConsole(), {context: context()})),
      engine: new DockerEngine({socketPath: '/nonexistent/docker.sock'}),
    }
    const error = await buildImage({...options(dir), dryRun: false, offline: false}, deps).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(XpkError)
    expect((error as XpkError).kind).toBe('unavailable')
    expect((error as XpkError).hints.join(' ')).toMatch(/DOCKER_HOST/)
  })
})

// Rule 5 of issue 7: the script directory is announced when it is the default, and one that looks like a whole
// repository or is very big is packed only after the user agrees (or passed --force).
describe('buildImage looks at the script directory before reading it', () => {
  const options = (scriptDir: string, patch: Partial<ImageBuildOptions> = {}): ImageBuildOptions => ({
    baseImage: 'python:3.10',
    scriptDir,
    platform: 'linux/amd64',
    repository: 'gcr.io/my-project/jax-tpu',
    dryRun: true,
    offline: true,
    ...patch,
  })
  const big = 'x'.repeat(2000)

  // name, files, options, how the prompt is answered, the outcome, what the question (if any) must say.
  type Case = [
    string,
    Record<string, string>,
    Partial<ImageBuildOptions>,
    PromptAnswer,
    'built' | 'declined' | 'needs --force',
    RegExp | null,
  ]
  const cases: Case[] = [
    ['a small given directory', {'train.py': 'print(1)\n'}, {}, 'unexpected', 'built', null],
    ['a small default directory', {'train.py': 'print(1)\n'}, {scriptDirIsDefault: true}, 'unexpected', 'built', null],
    ['node_modules, answered yes', {'node_modules/x/i.js': '1'}, {}, 'yes', 'built', /contains node_modules/],
    ['.git, answered no', {'.git/HEAD': 'ref'}, {}, 'no', 'declined', /contains \.git/],
    ['.git with no terminal', {'.git/HEAD': 'ref'}, {}, 'no-terminal', 'needs --force', /contains \.git/],
    ['a nested node_modules', {'web/node_modules/a.js': '1'}, {}, 'no', 'declined', /web\/node_modules/],
    [
      'node_modules and .git left out by .dockerignore',
      {'.dockerignore': 'node_modules\n.git\n', 'node_modules/a.js': '1', '.git/HEAD': 'ref'},
      {},
      'unexpected',
      'built',
      null,
    ],
    [
      'more than the limit',
      {'data.bin': big},
      {maxContextBytes: 1000},
      'no',
      'declined',
      /2\.0 kB, more than the 1\.0 kB/,
    ],
    ['more than the limit, answered yes', {'data.bin': big}, {maxContextBytes: 1000}, 'yes', 'built', /limit/],
    ['exactly the limit', {'data.bin': big}, {maxContextBytes: 2000}, 'unexpected', 'built', null],
    ['no limit', {'data.bin': big}, {maxContextBytes: null}, 'unexpected', 'built', null],
    [
      'big files left out by .dockerignore',
      {'.dockerignore': '*.bin\n', 'data.bin': big},
      {maxContextBytes: 1000},
      'unexpected',
      'built',
      null,
    ],
  ]

  it.each(cases)('%s', async (_name, files, patch, answer, outcome, question) => {
    const dir = await scriptDir(files)
    const console = new RecordingConsole(answer)
    const result = await buildImage(options(dir, patch), await offlineDeps(console)).catch((e: unknown) => e)
    if (question) {
      expect(console.questions).toMatchObject([{code: 'image.confirm-large-script-dir', default: false, data: {dir}}])
      expect(console.questions[0].text).toMatch(question)
      expect(console.questions[0].text).toContain('.dockerignore')
    } else {
      expect(console.questions).toEqual([])
    }
    if (outcome === 'built') expect(result).toMatchObject({action: 'offline'})
    if (outcome === 'declined') {
      expect(result).toBeInstanceOf(XpkError)
      expect((result as XpkError).kind).toBe('declined')
      expect((result as XpkError).hints.join(' ')).toContain('--force')
    }
    if (outcome === 'needs --force') {
      expect(result).toBeInstanceOf(UsageError)
      expect((result as UsageError).flag).toBe('--force')
    }
    const announced = console.codes().filter((code) => code === 'image.default-script-dir')
    expect(announced).toHaveLength(patch.scriptDirIsDefault ? 1 : 0)
  })

  it('announces the default directory with its files and bytes after .dockerignore', async () => {
    const dir = await scriptDir({'.dockerignore': 'skip.txt\n', 'train.py': 'print(1)\n', 'skip.txt': 'no'})
    const console = new RecordingConsole()
    await buildImage(options(dir, {scriptDirIsDefault: true}), await offlineDeps(console))
    expect(console.the('image.default-script-dir').data).toEqual({dir, files: 2, bytes: 18})
  })

  it.each([
    ['a file', 'gone.py'],
    ['a directory', 'sub'],
  ])('warns, naming it, when %s disappears between listing and reading', async (_name, victim) => {
    const dir = await scriptDir({'train.py': 'print(1)\n', 'gone.py': 'x', 'sub/a.py': 'a'})
    const console = new RecordingConsole()
    const deps = await offlineDeps(console)
    const context: BuildContextSource = {
      scan: (path, scanOptions) =>
        deps.context.scan(path, {
          beforeHashing: async (listing) => {
            await scanOptions?.beforeHashing?.(listing)
            await rm(join(dir, victim), {recursive: true})
          },
        }),
    }
    const result = await buildImage(options(dir), {...deps, context})
    expect(result.action).toBe('offline')
    expect(console.codes('warn')).toEqual(['image.vanished-files'])
    expect(console.the('image.vanished-files').data).toEqual({files: [victim === 'sub' ? 'sub/a.py' : 'gone.py']})
  })
})
