/**
 * @module pages
 * Reading one of the service's paged lists to its end, a page at a time as
 * the caller iterates: the session list and the memory (`nextCursor`), a
 * session's transcript (`nextAfter`).
 */

import type { CallOptions, Transport } from "./transport.js";

/** Options of a list the service pages by `nextCursor`. */
export interface CursorPageOptions extends CallOptions {
  /** Page size. */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

/** One page of the list at `path` (`GET path?limit=&cursor=`). */
export function readCursorPage<Page>(
  transport: Transport,
  path: string,
  options: CursorPageOptions,
): Promise<Page> {
  const { limit, cursor, ...call } = options;
  return transport.request<Page>({ method: "GET", path, query: { limit, cursor }, ...call });
}

/** A page's items, and where the next page starts (`null`: this was the last). */
export interface PageStep<Item, At> {
  items: readonly Item[];
  next: At | null;
}

/** Every item of the pages `read` returns, from `first` on until a page is the last. */
export async function* allItems<Page, Item, At>(
  first: At,
  read: (at: At) => Promise<Page>,
  step: (page: Page) => PageStep<Item, At>,
): AsyncGenerator<Item> {
  let at: At | null = first;
  while (at !== null) {
    const { items, next } = step(await read(at));
    yield* items;
    at = next;
  }
}

/** Every item of a list the service pages by `nextCursor` (sent back as `cursor`), from `options.cursor` on. */
export function allByCursor<
  Options extends { cursor?: string },
  Page extends { nextCursor: string | null },
  Item,
>(
  options: Options,
  read: (options: Options) => Promise<Page>,
  items: (page: Page) => readonly Item[],
): AsyncGenerator<Item> {
  return allItems(
    options.cursor,
    (cursor) => read({ ...options, ...(cursor === undefined ? {} : { cursor }) }),
    (page) => ({ items: items(page), next: page.nextCursor }),
  );
}
