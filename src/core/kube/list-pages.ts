/** Objects per list request: thousands of objects take a few requests (kubectl's --chunk-size is 500 too). */
export const LIST_PAGE_SIZE = 500

/**
 * The pages of a list, one `read` each, following the continue tokens until a page has none: how every port that
 * lists Kubernetes objects (the adapter, the memory fake) pages, so they ask the same requests.
 */
export async function* listPages<T>(
  read: (token: string | undefined) => Promise<{readonly items: readonly T[]; readonly continue?: string}>,
): AsyncGenerator<readonly T[]> {
  let token: string | undefined
  do {
    const page = await read(token)
    yield page.items
    token = page.continue
  } while (token)
}

/** Every item of every page, in order. */
export async function collect<T>(pages: AsyncIterable<readonly T[]>): Promise<T[]> {
  const items: T[] = []
  for await (const page of pages) items.push(...page)
  return items
}
