/**
 * Parsing a release manifest (multi-document YAML) into checked Kubernetes objects. Apart from release-manifest.ts
 * so that js-yaml, which costs start-up time to load (README, Speed), loads only when a manifest is actually parsed (a
 * parsed copy is cached as JSON): `cluster list` and `cluster describe` never need it.
 */
import {loadAll} from 'js-yaml'

import {XpkError} from '../errors.js'
import type {KubeObject} from './release-manifest.js'

/**
 * Splits a multi-document YAML manifest into Kubernetes objects, in file order. Empty documents (a leading `---`,
 * comments only) are skipped. Every other document must be a mapping with a non-empty `apiVersion`, `kind` and
 * `metadata.name`; all problems are collected and thrown together as one usage error naming `source` (a path or
 * URL, for the message) and the line each problem is on.
 */
export function parseManifest(text: string, source: string): KubeObject[] {
  let documents: unknown[]
  try {
    documents = loadAll(text, {filename: source})
  } catch (error) {
    const {reason, mark} = error as {reason?: string; mark?: {line: number; column: number; snippet?: string}}
    const where = mark ? ` line ${mark.line + 1}, column ${mark.column + 1}` : ''
    const detail = reason ?? (error as Error).message
    throw new XpkError(
      'usage',
      `${source}${where} is not valid YAML: ${detail}${mark?.snippet ? `\n${mark.snippet}` : ''}`,
      {cause: error},
    )
  }
  const starts = documentStartLines(text)
  const objects: KubeObject[] = []
  const problems: string[] = []
  documents.forEach((document, index) => {
    if (document === null || document === undefined) return
    const problem = identityProblem(document)
    const line = starts[index] === undefined ? '' : ` (line ${starts[index]})`
    if (problem === undefined) objects.push(document as KubeObject)
    else problems.push(`document ${index + 1}${line}: ${problem}`)
  })
  if (problems.length > 0) {
    throw new XpkError('usage', `${source} is not a Kubernetes manifest:\n  ${problems.join('\n  ')}`)
  }
  if (objects.length === 0) throw new XpkError('usage', `${source} holds no Kubernetes objects.`)
  return objects
}

/**
 * The line (from 1) each YAML document of `text` starts on, as js-yaml counts documents: a `---` before any content
 * starts the first one, every other `---` the next. A document's first line is the one after its `---`.
 */
export function documentStartLines(text: string): number[] {
  const starts: number[] = []
  let content = false
  text.split('\n').forEach((line, i) => {
    if (/^---(\s|$)/.test(line)) {
      starts.push(i + 2)
      content = true
    } else if (!content && !/^\s*(#.*)?$/.test(line) && !line.startsWith('%')) {
      starts.push(i + 1)
      content = true
    }
  })
  return starts
}

function identityProblem(document: unknown): string | undefined {
  if (typeof document !== 'object' || Array.isArray(document)) return 'not a mapping'
  const object = document as Record<string, unknown>
  const missing: string[] = ['apiVersion', 'kind'].filter((field) => !isNonEmptyString(object[field]))
  const metadata = object.metadata
  const hasMetadata = metadata !== null && typeof metadata === 'object' && !Array.isArray(metadata)
  if (!hasMetadata || !isNonEmptyString((metadata as Record<string, unknown>).name)) missing.push('metadata.name')
  if (missing.length > 0) return `missing ${missing.join(', ')}`
  const namespace = (metadata as Record<string, unknown>).namespace
  if (namespace !== undefined && !isNonEmptyString(namespace)) return 'metadata.namespace is not a name'
  return undefined
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0
}
