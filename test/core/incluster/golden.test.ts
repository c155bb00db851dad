import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname} from 'node:path'

import {describe, expect, it} from 'vitest'

import {summarizeCrd} from '../../../src/core/kube/release-manifest.js'
import {toYamlDocuments} from '../../../src/core/manifests/to-yaml.js'
import {KUEUE_API_GROUP} from '../../../src/core/versions.js'
import {CRDS} from '../../helpers/crds.js'
import {SKIP_CRD_TESTS, validateAgainstCrd} from '../../helpers/crd-schema.js'
import {allGoldenDocuments, GOLDEN_CASES, goldenDocuments, goldenPath} from './golden-cases.js'
import type {GoldenCase} from './golden-cases.js'

// Regenerate with `UPDATE_GOLDENS=1 npx vitest run test/core/incluster/golden.test.ts`, then review the diff.
const UPDATE = process.env.UPDATE_GOLDENS === '1'

function render(c: GoldenCase): string {
  return `# ${c.command}\n${toYamlDocuments(c.objects())}`
}

const kueueDocuments = allGoldenDocuments().filter(({doc}) => String(doc.apiVersion).startsWith(`${KUEUE_API_GROUP}/`))

/**
 * Whether the CRDs found define `kind` in Kueue's group. The shared copy of Kueue's CRDs lacks
 * ProvisioningRequestConfig; core-objects.test.ts checks that one by hand, and its CRD takes over when present.
 */
function kueueCrdDefines(kind: string): boolean {
  return CRDS.components.some((component) =>
    component.crds().some((crd) => {
      const summary = summarizeCrd(crd)
      return summary.group === KUEUE_API_GROUP && summary.kind === kind
    }),
  )
}

describe('in-cluster object goldens', () => {
  it.each(GOLDEN_CASES)('$file matches the builders', (c) => {
    const path = goldenPath(c.file)
    const actual = render(c)
    if (UPDATE) {
      mkdirSync(dirname(path), {recursive: true})
      writeFileSync(path, actual)
    }
    expect(existsSync(path), `${c.file} is missing; run with UPDATE_GOLDENS=1`).toBe(true)
    expect(actual).toBe(readFileSync(path, 'utf8'))
  })

  it.each(GOLDEN_CASES)('$file reads back as the objects built (YAML 1.1)', (c) => {
    expect(goldenDocuments(c.file)).toEqual(JSON.parse(JSON.stringify(c.objects())))
  })

  it('the goldens hold every Kueue kind xpk writes', () => {
    expect(new Set(kueueDocuments.map(({doc}) => doc.kind))).toEqual(
      new Set([
        'Topology',
        'ResourceFlavor',
        'ProvisioningRequestConfig',
        'AdmissionCheck',
        'ClusterQueue',
        'LocalQueue',
      ]),
    )
  })

  describe.skipIf(SKIP_CRD_TESTS)("Kueue objects against Kueue's CRDs", () => {
    const validatable = SKIP_CRD_TESTS ? [] : kueueDocuments.filter(({doc}) => kueueCrdDefines(String(doc.kind)))

    it.each(validatable)('$label is valid', ({doc}) => {
      expect(validateAgainstCrd(doc)).toEqual([])
    })

    it('a misspelt field fails validation (the check is live)', () => {
      const found = kueueDocuments.find(({doc}) => doc.kind === 'ClusterQueue')
      const broken = structuredClone(found?.doc ?? {}) as {spec: Record<string, unknown>}
      broken.spec.namespaceSelecter = {}
      expect(validateAgainstCrd(broken).join('\n')).toMatch(/namespaceSelecter/)
    })
  })
})
