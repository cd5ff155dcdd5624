/**
 * The paged lists (getAllParticipants, getReferrals, listPayouts...) answer a bare array and put the next
 * page's address in `Link: <...>; rel="next"`. A PagedList is both: awaited, the first page (the array, as
 * the service answers it); iterated with `for await`, every item of every page, each page asked for only
 * when the one before is used up (as Stripe's auto-pagination does).
 */

/** One answer of a paged list: its items and the query of the next page, if there is one. */
export interface Page<T> {
  items: T[];
  /** The next page's address from the Link header, or undefined on the last page. */
  next: URL | undefined;
}

/**
 * The rel="next" address of a Link header (RFC 8288: several links may be comma-separated; a relative one
 * is relative to the request's URL, `base`).
 */
export function nextLink(header: string | null, base: URL): URL | undefined {
  if (!header) return undefined;
  for (const link of header.split(/,(?=\s*<)/)) {
    const m = /^\s*<([^>]*)>(.*)$/.exec(link);
    if (!m) continue;
    // Its parameters: `; rel="next"`, or rel="prev next" (rel holds space-separated relation types).
    const rels = m[2]!
      .split(';')
      .map((param) => /^\s*rel\s*=\s*"?([^"]*)"?\s*$/i.exec(param)?.[1])
      .find((value) => value !== undefined);
    if (rels?.toLowerCase().split(/\s+/).includes('next')) {
      try {
        return new URL(m[1]!, base);
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

export class PagedList<T> implements PromiseLike<T[]>, AsyncIterable<T> {
  readonly #fetchPage: (next: URL | undefined) => Promise<Page<T>>;
  /** Asked for once, on first use (await or iteration), and shared by both. */
  #first: Promise<Page<T>> | undefined;

  /** fetchPage(undefined) is the first page; fetchPage(url) the one a Link header named. */
  constructor(fetchPage: (next: URL | undefined) => Promise<Page<T>>) {
    this.#fetchPage = fetchPage;
  }

  #firstPage(): Promise<Page<T>> {
    return (this.#first ??= this.#fetchPage(undefined));
  }

  /** The first page: `await refkit.getAllParticipants({ id })` is the array the service answered. */
  then<A = T[], B = never>(onfulfilled?: ((items: T[]) => A | PromiseLike<A>) | null, onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    return this.#firstPage().then((page) => page.items).then(onfulfilled, onrejected);
  }

  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T[] | B> {
    return this.then(undefined, onrejected);
  }

  /** Every item of every page, in order, following each page's Link to the next. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    let page = await this.#firstPage();
    for (;;) {
      yield* page.items;
      if (!page.next) return;
      page = await this.#fetchPage(page.next);
    }
  }
}
