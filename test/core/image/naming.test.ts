import {describe, expect, it} from 'vitest'

import {UsageError, XpkError} from '../../../src/core/errors.js'
import {
  contextTag,
  imageRepository,
  parseImageReference,
  pinnedReference,
  registryApiHost,
  registryAuthError,
  registryAuthKind,
  registryLoginHint,
  registryUsesHttp,
  tryParseImageReference,
} from '../../../src/core/image/naming.js'

const DIGEST = `sha256:${'ab'.repeat(32)}`

describe('imageRepository', () => {
  it.each([
    ['gcr.io from the project', {project: 'my-proj', dockerName: 'jax-tpu'}, 'gcr.io/my-proj/jax-tpu'],
    [
      'a domain-scoped project',
      {project: 'example.com:proj', dockerName: 'jax-tpu'},
      'gcr.io/example.com/proj/jax-tpu',
    ],
    ['an Artifact Registry prefix', {registry: 'us-docker.pkg.dev/p/r', dockerName: 'x'}, 'us-docker.pkg.dev/p/r/x'],
    [
      'a registry wins over the project',
      {registry: '127.0.0.1:5001/xpk', project: 'p', dockerName: 'x'},
      '127.0.0.1:5001/xpk/x',
    ],
    ['a trailing slash is dropped', {registry: 'localhost:5000/', dockerName: 'x'}, 'localhost:5000/x'],
  ])('%s', (_name, input, repository) => {
    expect(imageRepository(input)).toBe(repository)
  })

  it.each([
    ['neither registry nor project', {dockerName: 'jax-tpu'}, '--project'],
    ['a blank project', {project: '  ', dockerName: 'jax-tpu'}, '--project'],
    ['an upper-case docker name', {project: 'p', dockerName: 'Jax'}, '--docker-name'],
    ['a docker name with a slash', {project: 'p', dockerName: 'a/b'}, '--docker-name'],
    ['a registry without a host', {registry: 'myuser', dockerName: 'x'}, '--registry'],
    ['a registry with a tag', {registry: 'gcr.io/p:tag', dockerName: 'x'}, '--registry'],
    ['an invalid project', {project: 'Bad_Project!', dockerName: 'x'}, '--project'],
  ])('rejects %s, naming the flag', (_name, input, flag) => {
    let error: unknown
    try {
      imageRepository(input)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(UsageError)
    expect((error as UsageError).flag).toBe(flag)
  })
})

describe('parseImageReference', () => {
  it.each([
    ['python:3.10', {registry: 'docker.io', repository: 'library/python', tag: '3.10', digest: null}],
    ['python', {registry: 'docker.io', repository: 'library/python', tag: null, digest: null}],
    ['user/repo:v1', {registry: 'docker.io', repository: 'user/repo', tag: 'v1', digest: null}],
    ['gcr.io/p/img:t', {registry: 'gcr.io', repository: 'p/img', tag: 't', digest: null}],
    ['localhost:5000/a/b', {registry: 'localhost:5000', repository: 'a/b', tag: null, digest: null}],
    ['127.0.0.1:5001/xpk/base:1', {registry: '127.0.0.1:5001', repository: 'xpk/base', tag: '1', digest: null}],
    [`gcr.io/p/img@${DIGEST}`, {registry: 'gcr.io', repository: 'p/img', tag: null, digest: DIGEST}],
    [`python:3.10@${DIGEST}`, {registry: 'docker.io', repository: 'library/python', tag: '3.10', digest: DIGEST}],
  ])('%s', (reference, parts) => {
    expect(parseImageReference(reference)).toEqual(parts)
  })

  it.each(['UPPER/case', 'a:b:c', 'gcr.io/p/img@sha256:xyz', '', 'a//b', 'bad_host!:5000/x/y'])(
    'rejects %j',
    (reference) => {
      expect(tryParseImageReference(reference)).toBeNull()
      expect(() => parseImageReference(reference)).toThrow(XpkError)
    },
  )
})

describe('registries', () => {
  it.each([
    ['gcr.io', 'google'],
    ['eu.gcr.io', 'google'],
    ['us-docker.pkg.dev', 'google'],
    ['europe-west4-docker.pkg.dev', 'google'],
    ['evilgcr.io', 'docker-config'],
    ['docker.pkg.dev', 'docker-config'],
    ['docker.io', 'docker-config'],
    ['127.0.0.1:5001', 'docker-config'],
  ])('%s takes %s credentials', (registry, kind) => {
    expect(registryAuthKind(registry)).toBe(kind)
  })

  it('tells how to log in to each kind', () => {
    expect(registryLoginHint('us-docker.pkg.dev')).toContain('gcloud auth application-default login')
    expect(registryLoginHint('127.0.0.1:5001')).toContain('docker login 127.0.0.1:5001')
  })

  it('makes auth errors that name the registry', () => {
    const error = registryAuthError('127.0.0.1:5001', 'unauthorized')
    expect(error.kind).toBe('auth')
    expect(error.exitCode).toBe(3)
    expect(error.message).toContain('127.0.0.1:5001')
    expect(error.hints.join(' ')).toContain('docker login 127.0.0.1:5001')
  })

  it.each([
    ['127.0.0.1:5001', true],
    ['127.1.2.3', true],
    ['localhost:5000', true],
    ['[::1]:5000', true],
    ['gcr.io', false],
    ['127.0.0.1.example.com', false],
  ])('%s speaks plain HTTP: %s', (registry, http) => {
    expect(registryUsesHttp(registry)).toBe(http)
  })

  it('sends Docker Hub API calls to registry-1.docker.io', () => {
    expect(registryApiHost('docker.io')).toBe('registry-1.docker.io')
    expect(registryApiHost('gcr.io')).toBe('gcr.io')
  })
})

describe('tags and references', () => {
  it('derives the tag from the first 16 hex digits', () => {
    expect(contextTag(`sha256:0123456789abcdef${'0'.repeat(48)}`)).toBe('ctx-0123456789abcdef')
  })

  it('refuses something that is not a digest', () => {
    expect(() => contextTag('sha256:nothex')).toThrow()
  })

  it('pins by digest when known, by tag otherwise', () => {
    expect(pinnedReference('gcr.io/p/x', 'ctx-1', DIGEST)).toBe(`gcr.io/p/x@${DIGEST}`)
    expect(pinnedReference('gcr.io/p/x', 'ctx-1', null)).toBe('gcr.io/p/x:ctx-1')
  })
})
