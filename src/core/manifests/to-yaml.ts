import {COLLECTION_STYLE, dump, visit} from 'js-yaml'
import type {Document} from 'js-yaml'

const INT_TAG = 'tag:yaml.org,2002:int'

/**
 * Serializes one object as a YAML document. This is the only place manifests become text, so every manifest
 * xpk prints, writes or applies looks the same.
 *
 * Keys keep the order the builders created them in (no sorting), long strings are never folded (scripts and
 * annotations stay byte-for-byte), and shared sub-objects are written out in full instead of as YAML anchors,
 * which some Kubernetes tooling rejects. Strings that YAML 1.1 would read as something else (`"true"`, `"on"`,
 * `"6002"`) are quoted, because kubectl still parses manifests as YAML 1.1. Lists of integers are written on one
 * line (`values: [42, 127, 128]`), as Python xpk does for exit codes. Properties whose value is `undefined` are
 * left out.
 */
export function toYaml(obj: unknown): string {
  return dump(obj, {lineWidth: -1, noRefs: true, transform: inlineIntegerLists})
}

/** Serializes several objects as one multi-document YAML stream (documents separated by `---`). */
export function toYamlDocuments(objs: readonly unknown[]): string {
  return objs.map((obj) => toYaml(obj)).join('---\n')
}

// A podFailurePolicy carries 130+ exit codes; one per line would bury the rest of the manifest.
function inlineIntegerLists(documents: Document[]): void {
  visit(documents, (node) => {
    if (
      node.kind === 'sequence' &&
      node.items.length > 0 &&
      node.items.every((item) => item.kind === 'scalar' && item.tag === INT_TAG)
    ) {
      node.style = COLLECTION_STYLE.FLOW
    }
  })
}
