/**
 * @module memory
 * `MemoryApi` (`client.memory`): the caller's long-term memory, `/v1/memory`,
 * kept by the service per user across sessions. Entries are text the user or a
 * model wrote: whoever puts them in a prompt fences them as data.
 */

import type {
  MemoryCreateBody,
  MemoryDeleteResponse,
  MemoryEntry,
  MemoryPage,
  MemorySearchResponse,
  MemoryUpdateBody,
} from "./api-types.js";
import { allByCursor, type CursorPageOptions, readCursorPage } from "./pages.js";
import type { CallOptions, Transport } from "./transport.js";

export type MemoryListOptions = CursorPageOptions;

export interface MemorySearchOptions extends CallOptions {
  /** Most results (the service's default when left out). */
  limit?: number;
}

export class MemoryApi {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** One page of the caller's memories (`GET /v1/memory`). */
  list(options: MemoryListOptions = {}): Promise<MemoryPage> {
    return readCursorPage(this.#transport, "/v1/memory", options);
  }

  /** Every memory, page by page. */
  entries(options: MemoryListOptions = {}): AsyncGenerator<MemoryEntry> {
    return allByCursor(
      options,
      (next) => this.list(next),
      (page) => page.memories,
    );
  }

  /**
   * Adds an entry (`POST /v1/memory`). Refused with a `CondenseApiError`: `memory_full`,
   * `memory_too_long`, `memory_secret` (text holding a secret never enters memory).
   */
  create(entry: MemoryCreateBody, options: CallOptions = {}): Promise<MemoryEntry> {
    return this.#transport.request<MemoryEntry>({
      method: "POST",
      path: "/v1/memory",
      body: entry,
      ...options,
    });
  }

  /** Changes an entry's text or kind (`PATCH /v1/memory/{memoryId}`); `memory_not_found` if it is gone. */
  update(
    memoryId: string,
    changes: MemoryUpdateBody,
    options: CallOptions = {},
  ): Promise<MemoryEntry> {
    return this.#transport.request<MemoryEntry>({
      method: "PATCH",
      path: `/v1/memory/${encodeURIComponent(memoryId)}`,
      body: changes,
      ...options,
    });
  }

  /** Deletes an entry (`DELETE /v1/memory/{memoryId}`). */
  remove(memoryId: string, options: CallOptions = {}): Promise<MemoryDeleteResponse> {
    return this.#transport.request<MemoryDeleteResponse>({
      method: "DELETE",
      path: `/v1/memory/${encodeURIComponent(memoryId)}`,
      ...options,
    });
  }

  /** The entries matching `q`, best first (`GET /v1/memory/search`). */
  search(q: string, options: MemorySearchOptions = {}): Promise<MemorySearchResponse> {
    const { limit, ...call } = options;
    return this.#transport.request<MemorySearchResponse>({
      method: "GET",
      path: "/v1/memory/search",
      query: { q, limit },
      ...call,
    });
  }
}
