/**
 * @module api/list-data
 * The reads behind the inspector's lists: the user's sessions (a page at a
 * time, on demand) and the user's memories (every page, so the view's filter
 * sees them all, up to a bound). Both lists page by `nextCursor`.
 */

import type { Condense } from "@condense/client";
import type { MemoryEntry, SessionListPage } from "./types.ts";

/** Sessions per page of the list view. */
export const SESSION_PAGE = 50;
/** The API's largest memory page. */
const MEMORY_PAGE = 100;

/** A page of the user's sessions, newest first; `cursor` is the previous page's `nextCursor`. */
export function readSessionPage(
  client: Condense,
  cursor: string | null = null,
): Promise<SessionListPage> {
  return client.sessions({ limit: SESSION_PAGE, ...(cursor === null ? {} : { cursor }) });
}

export interface AllMemories {
  memories: MemoryEntry[];
  /** False when the read stopped at `maxEntries` or on a cursor that did not move on. */
  complete: boolean;
}

/** Every memory of the user (the service keeps at most 500), page by page. */
export async function readMemories(client: Condense, maxEntries = 1_000): Promise<AllMemories> {
  const memories: MemoryEntry[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const page = await client.memory.list({
      limit: MEMORY_PAGE,
      ...(cursor === undefined ? {} : { cursor }),
    });
    memories.push(...page.memories);
    if (page.nextCursor === null) return { memories, complete: true };
    // A cursor seen before would loop for ever.
    if (memories.length >= maxEntries || seen.has(page.nextCursor)) {
      return { memories, complete: false };
    }
    seen.add(page.nextCursor);
    cursor = page.nextCursor;
  }
}
