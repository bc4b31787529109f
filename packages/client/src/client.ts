/**
 * @module client
 * `Condense`: the entry point of the client. Holds the service's address,
 * the API key and the transport settings, makes the calls that belong to no
 * session (`POST /v1/compact`, `POST /v1/responses/compact`, `/healthz`,
 * `/openapi.json`) and hands out `SessionHandle`s.
 */

import type {
  CompactRequestBody,
  CompactResponseBody,
  HealthResponseBody,
  OpenAPIDocumentBody,
  ResponsesCompactRequestBody,
  ResponsesCompactResponseBody,
  SearchResponse,
  SessionListItem,
  SessionListPage,
} from "./api-types.js";
import { MemoryApi } from "./memory.js";
import { allByCursor, type CursorPageOptions, readCursorPage } from "./pages.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry.js";
import { type SearchOptions, SessionHandle } from "./session.js";
import { SessionLocks } from "./session-lock.js";
import { type CallOptions, type FetchLike, Transport } from "./transport.js";

export interface CondenseOptions {
  /** Where the service answers, e.g. `https://condense.example.workers.dev` or `http://127.0.0.1:8787`. */
  baseUrl: string;
  /** A key from the service's `API_KEYS` (or an HS256 JWT whose `sub` is the user). */
  apiKey: string;
  /**
   * The `fetch` to call. Useful for service bindings and tests.
   * @default globalThis.fetch
   */
  fetch?: FetchLike;
  /**
   * Milliseconds each attempt may take, answer body included.
   * @default 60000
   */
  timeoutMs?: number;
  /**
   * The same for calls that may wait on a compaction: `context`, `compact`,
   * `reportOverflow` and the stateless `compact` (an LLM summary of a long session can take
   * minutes).
   * @default 300000
   */
  compactionTimeoutMs?: number;
  /**
   * Retries of network failures, timeouts, 408, 429 and 5xx.
   * @default 2
   */
  maxRetries?: number;
  /**
   * Backoff before the first retry, doubling up to `maxDelayMs`.
   * @default { initialDelayMs: 500, maxDelayMs: 8000 }
   */
  backoff?: { initialDelayMs?: number; maxDelayMs?: number };
}

export type SessionsOptions = CursorPageOptions;

/** The body of `POST /v1/compact`: `{ model, messages, format?, system?, options? }`. */
export type StatelessCompactRequest = CompactRequestBody;

export class Condense {
  readonly #transport: Transport;
  /** Shared by every handle this client makes, so calls on one session take turns. */
  readonly #locks = new SessionLocks();
  /** The caller's long-term memory, across sessions (`/v1/memory`). */
  readonly memory: MemoryApi;

  constructor(options: CondenseOptions) {
    if (typeof options.baseUrl !== "string" || !/^https?:\/\//.test(options.baseUrl)) {
      throw new TypeError(
        `Condense: baseUrl must be an http(s) URL such as "http://127.0.0.1:8787", got ${JSON.stringify(options.baseUrl)}`,
      );
    }
    if (typeof options.apiKey !== "string" || options.apiKey === "") {
      throw new TypeError(
        "Condense: apiKey is required (a key from the service's API_KEYS, or a JWT whose sub is the user)",
      );
    }
    const retry: RetryPolicy = {
      ...DEFAULT_RETRY_POLICY,
      ...(options.maxRetries !== undefined ? { maxRetries: Math.max(0, options.maxRetries) } : {}),
      ...(options.backoff?.initialDelayMs !== undefined
        ? { initialDelayMs: options.backoff.initialDelayMs }
        : {}),
      ...(options.backoff?.maxDelayMs !== undefined
        ? { maxDelayMs: options.backoff.maxDelayMs }
        : {}),
    };
    const globalFetch: FetchLike = (input, init) => fetch(input, init);
    this.#transport = new Transport({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      // Called through a wrapper: a bare `fetch` kept on an object throws "Illegal invocation" in browsers and Workers.
      fetch: options.fetch ?? globalFetch,
      timeoutMs: options.timeoutMs ?? 60_000,
      compactionTimeoutMs: options.compactionTimeoutMs ?? 300_000,
      retry,
    });
    this.memory = new MemoryApi(this.#transport);
  }

  /**
   * The handle of session `id` (1–128 characters of `A-Z a-z 0-9 . _ : -`, not `.` or `..`).
   * Makes no request; other malformed ids are refused by the service (400 `invalid_session_id`).
   */
  session(id: string): SessionHandle {
    // URLs resolve `.` and `..` segments (encoded or not): such a request would reach another route.
    if (id === "." || id === "..") {
      throw new TypeError(
        `Condense: the session id ${JSON.stringify(id)} cannot be used in a URL; choose another id`,
      );
    }
    return new SessionHandle(this.#transport, id, this.#locks);
  }

  /** Searches session `sessionId`'s whole transcript (see `SessionHandle.search`). */
  search(sessionId: string, options: SearchOptions): Promise<SearchResponse> {
    return this.session(sessionId).search(options);
  }

  /** One page of the caller's sessions, newest active first (`GET /v1/sessions`). */
  sessions(options: SessionsOptions = {}): Promise<SessionListPage> {
    return readCursorPage(this.#transport, "/v1/sessions", options);
  }

  /** Every session of the caller, newest active first, page by page. */
  allSessions(options: SessionsOptions = {}): AsyncGenerator<SessionListItem> {
    return allByCursor(
      options,
      (next) => this.sessions(next),
      (page) => page.sessions,
    );
  }

  /** Compacts a message list without storing anything (`POST /v1/compact`). */
  compact(
    request: StatelessCompactRequest,
    options: CallOptions = {},
  ): Promise<CompactResponseBody> {
    return this.#transport.request<CompactResponseBody>({
      method: "POST",
      path: "/v1/compact",
      body: request,
      waitsOnCompaction: true,
      ...options,
    });
  }

  /** Forwards to OpenAI's `/responses/compact` with the service's key; OpenAI's answer as-is. */
  responsesCompact(
    request: ResponsesCompactRequestBody,
    options: CallOptions = {},
  ): Promise<ResponsesCompactResponseBody> {
    return this.#transport.request<ResponsesCompactResponseBody>({
      method: "POST",
      path: "/v1/responses/compact",
      body: request,
      ...options,
    });
  }

  /** Whether the service is up (`GET /healthz`); rejects with a `CondenseApiError` when it is not. */
  async health(options: CallOptions = {}): Promise<boolean> {
    const body = await this.#transport.request<HealthResponseBody>({
      method: "GET",
      path: "/healthz",
      ...options,
    });
    return body.ok;
  }

  /** The service's OpenAPI 3.1 document. */
  openapi(options: CallOptions = {}): Promise<OpenAPIDocumentBody> {
    return this.#transport.request<OpenAPIDocumentBody>({
      method: "GET",
      path: "/openapi.json",
      ...options,
    });
  }
}
