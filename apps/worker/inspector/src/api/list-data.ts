/**
 * @module api/list-data
 * The reads behind the inspector's lists: the user's sessions (`GET
 * /v1/sessions`, a page at a time, on demand), the user's memories (`GET
 * /v1/memory`, every page, so the view's filter sees them all) and a
 * session's recall matches (`GET /v1/sessions/{id}/search`). Typed by the
 * Worker's schemas (see `api/types`); both lists page by `nextCursor`, passed
 * back as `?cursor=`.
 */

import { type Api, sessionPath } from "./client.ts";
import type { MemoryEntry, MemoryListPage, SearchResponse, SessionListPage } from "./types.ts";

/** Sessions per page of the list view. */
export const SESSION_PAGE = 50;
/** The API's largest memory page. */
const MEMORY_PAGE = 100;

/** A page of the user's sessions, newest first; `cursor` is the previous page's `nextCursor`. */
export function readSessionPage(api: Api, cursor: string | null = null): Promise<SessionListPage> {
  return api.get<SessionListPage>("/v1/sessions", {
    limit: SESSION_PAGE,
    cursor: cursor ?? undefined,
  });
}

export interface AllMemories {
  memories: MemoryEntry[];
  /** False when the read stopped at `maxEntries` or on a cursor that did not move on. */
  complete: boolean;
}

/** Every memory of the user (the service keeps at most 500), page by page. */
export async function readMemories(api: Api, maxEntries = 1_000): Promise<AllMemories> {
  const memories: MemoryEntry[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const page = await api.get<MemoryListPage>("/v1/memory", { limit: MEMORY_PAGE, cursor });
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

/** The matches for `q` in a session's whole transcript, best first. */
export function searchSession(
  api: Api,
  sessionId: string,
  q: string,
  limit = 20,
): Promise<SearchResponse> {
  return api.get<SearchResponse>(sessionPath(sessionId, "/search"), { q, limit });
}
