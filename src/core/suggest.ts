/** Edit distance between two strings (insertions, deletions and substitutions all cost 1). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0
  let previous = Array.from({length: b.length + 1}, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)
      current.push(Math.min(previous[j] + 1, current[j - 1] + 1, substitution))
    }
    previous = current
  }
  return previous[b.length]
}

function commonPrefix(a: string, b: string): number {
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  return i
}

/**
 * The candidates closest to `input`, best first: smallest edit distance, then longest shared prefix, then the
 * candidates' own order. Matching ignores case.
 */
export function closestMatches(input: string, candidates: Iterable<string>, limit = 5): string[] {
  const needle = input.toLowerCase()
  const scored: {name: string; distance: number; prefix: number; index: number}[] = []
  let index = 0
  for (const name of candidates) {
    const lower = name.toLowerCase()
    scored.push({name, distance: editDistance(needle, lower), prefix: commonPrefix(needle, lower), index: index++})
  }
  scored.sort((x, y) => x.distance - y.distance || y.prefix - x.prefix || x.index - y.index)
  return scored.slice(0, limit).map((s) => s.name)
}

/** "a, b or c" */
export function orList(items: readonly string[]): string {
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`
}
