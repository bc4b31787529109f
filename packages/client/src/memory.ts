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
import type { CallOptions, Transport } from "./transport.js";

export interface MemoryListOptions extends CallOptions {
  /** Page size. */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

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
    const { limit, cursor, ...call } = options;
    return this.#transport.request<MemoryPage>({
      method: "GET",
      path: "/v1/memory",
      query: { limit, cursor },
      ...call,
    });
  }

  /** Every memory, page by page. */
  async *entries(options: MemoryListOptions = {}): AsyncGenerator<MemoryEntry> {
    let cursor: string | null = options.cursor ?? null;
    do {
      const page: MemoryPage = await this.list({
        ...options,
        ...(cursor === null ? {} : { cursor }),
      });
      yield* page.memories;
      cursor = page.nextCursor;
    } while (cursor !== null);
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
