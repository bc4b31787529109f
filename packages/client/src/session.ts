/**
 * @module session
 * `SessionHandle`: the calls on one session, `/v1/sessions/{id}/…`. A handle
 * holds no state beyond its id; the session is created by its first append (or
 * by `update`, to configure it before use) and lives in the service. Appends and manual compactions always carry an
 * `Idempotency-Key` made once per call and reused by its retries, so a retry
 * after a lost answer can never store a message twice.
 */

import type {
  AppendRequestBody,
  AppendResponseBody,
  CompactionEventBody,
  CompactionsResponseBody,
  ContextResponseBody,
  DeleteResponseBody,
  InputMessage,
  ManualCompactRequestBody,
  ManualCompactResponseBody,
  MessageFormatName,
  OverflowResponseBody,
  SearchResponse,
  SearchResult,
  SessionStatusBody,
  SettingsPatchBody,
  ToolOutputResponseBody,
  TranscriptEntry,
  TranscriptResponseBody,
} from "./api-types.js";
import { allItems } from "./pages.js";
import { describeProviderError } from "./provider-error.js";
import { type SessionLock, SessionLocks } from "./session-lock.js";
import type { CallOptions, RequestSpec, Transport } from "./transport.js";

export interface AppendOptions extends CallOptions, Omit<AppendRequestBody, "messages"> {
  /**
   * The `Idempotency-Key` of this append. By default a fresh UUID per call; pass your own to make
   * an append that may be repeated across process restarts idempotent too.
   */
  idempotencyKey?: string;
}

export interface ContextOptions extends CallOptions {
  /**
   * The format of the returned messages. Default `openai` (Chat Completions), whatever format the
   * messages were appended in; `responses` for sessions whose strategy is `openai`.
   */
  format?: MessageFormatName;
  /**
   * Keep each message's `provider_data` (thinking blocks with their signatures, a tool result's
   * error flag) in the openai format, which leaves it out by default because OpenAI rejects
   * fields it does not know: strip it before sending the messages to OpenAI. The other formats
   * always carry it in their own blocks and items.
   */
  providerData?: boolean;
  /**
   * Only look at the context (an inspector, a debugging read): not a model request, so it is not a
   * turn of the session's bill and waits for no compaction.
   */
  peek?: boolean;
}

export interface ManualCompactOptions extends CallOptions, ManualCompactRequestBody {
  idempotencyKey?: string;
}

export interface TranscriptOptions extends CallOptions {
  /** Messages with a sequence number greater than this (default 0: from the start). */
  after?: number;
  /** Page size, 1–1000 (default 100). */
  limit?: number;
}

export interface SearchOptions extends CallOptions {
  /** What to look for: words or phrases, as typed (the service quotes it for FTS5). */
  q: string;
  /** Most results, 1–50 (default 10). */
  limit?: number;
  /** Only messages of this role. */
  role?: SearchResult["role"];
  /** Only messages with a seq greater than this. */
  after?: number;
}

export class SessionHandle {
  readonly id: string;
  readonly #transport: Transport;
  readonly #path: string;
  readonly #locks: SessionLocks;

  constructor(transport: Transport, id: string, locks: SessionLocks = new SessionLocks()) {
    this.id = id;
    this.#transport = transport;
    this.#path = `/v1/sessions/${encodeURIComponent(id)}`;
    this.#locks = locks;
  }

  /**
   * Takes this session's turn lock: resolves once every earlier holder (through any handle of
   * this session from the same `Condense` client) released it. `withCompaction` and
   * `condenseMiddleware` hold it for a whole model call; take it to run your own steps (append,
   * context, model call, append) without a wrapped call landing in between. Always `release()`.
   */
  lock(options: Pick<CallOptions, "signal"> = {}): Promise<SessionLock> {
    return this.#locks.acquire(this.id, options.signal);
  }

  /** Runs `task` holding the session's turn lock (see `lock`), and releases it whatever happens. */
  async exclusive<T>(
    task: () => Promise<T>,
    options: Pick<CallOptions, "signal"> = {},
  ): Promise<T> {
    const lock = await this.lock(options);
    try {
      return await task();
    } finally {
      lock.release();
    }
  }

  /** A request to `/v1/sessions/{id}` (and `rest` below it), with the call options that are set. */
  #request<T>(
    spec: Omit<RequestSpec, "path" | keyof CallOptions>,
    options: CallOptions,
    rest = "",
  ): Promise<T> {
    return this.#transport.request<T>({
      ...spec,
      path: `${this.#path}${rest}`,
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    });
  }

  /** Stores messages at the end of the session (creating it on the first call). */
  append(messages: InputMessage[], options: AppendOptions = {}): Promise<AppendResponseBody> {
    const { signal, timeoutMs, idempotencyKey, ...fields } = options;
    const body: AppendRequestBody = { messages, ...fields };
    return this.#request(
      { method: "POST", body, idempotencyKey: idempotencyKey ?? crypto.randomUUID() },
      { signal, timeoutMs },
      "/messages",
    );
  }

  /** The messages to send to the model now: head, pinned messages, summary and recent tail. */
  context(options: ContextOptions = {}): Promise<ContextResponseBody> {
    const { format, providerData, peek, ...call } = options;
    const query = {
      format,
      providerData: providerData === true ? "true" : undefined,
      peek: peek === true ? "true" : undefined,
    };
    return this.#request({ method: "GET", query, waitsOnCompaction: true }, call, "/context");
  }

  /** Compacts now, even below the threshold, optionally steering the summary. */
  compact(options: ManualCompactOptions = {}): Promise<ManualCompactResponseBody> {
    const { signal, timeoutMs, idempotencyKey, ...body } = options;
    return this.#request(
      {
        method: "POST",
        body,
        waitsOnCompaction: true,
        idempotencyKey: idempotencyKey ?? crypto.randomUUID(),
      },
      { signal, timeoutMs },
      "/compact",
    );
  }

  /**
   * Reports what a model provider threw. If the service recognises a context overflow it
   * compacts until the context fits and returns it; otherwise it rejects with a
   * `CondenseApiError` whose code is `not_an_overflow`, and the caller should handle the
   * original error as it is.
   */
  reportOverflow(
    providerError: unknown,
    options: ContextOptions = {},
  ): Promise<OverflowResponseBody> {
    const { format, providerData, ...call } = options;
    const body = {
      error: describeProviderError(providerError),
      ...(format !== undefined ? { format } : {}),
      ...(providerData === true ? { providerData } : {}),
    };
    return this.#request({ method: "POST", body, waitsOnCompaction: true }, call, "/overflow");
  }

  /** Counts, tokens, compactions, cooldown and settings. */
  status(options: CallOptions = {}): Promise<SessionStatusBody> {
    return this.#request({ method: "GET" }, options);
  }

  /**
   * Changes settings; fields left out keep their value, `null` restores the
   * default. Creates the session when it does not exist yet.
   */
  update(settings: SettingsPatchBody, options: CallOptions = {}): Promise<SessionStatusBody> {
    return this.#request({ method: "PATCH", body: settings }, options);
  }

  /** Deletes the session and everything stored for it. */
  delete(options: CallOptions = {}): Promise<DeleteResponseBody> {
    return this.#request({ method: "DELETE" }, options);
  }

  /** Every committed compaction, oldest first. */
  async compactions(options: CallOptions = {}): Promise<CompactionEventBody[]> {
    return (await this.compactionReport(options)).compactions;
  }

  /**
   * `GET /compactions` whole: every committed compaction, and the session's bill under prompt
   * caching with its running totals per served turn (`bill`, `costSeries`).
   */
  compactionReport(options: CallOptions = {}): Promise<CompactionsResponseBody> {
    return this.#request({ method: "GET" }, options, "/compactions");
  }

  /** A tool output exactly as appended, also after compaction pruned it from the context. */
  toolOutput(toolCallId: string, options: CallOptions = {}): Promise<ToolOutputResponseBody> {
    return this.#request(
      { method: "GET" },
      options,
      `/tool-outputs/${encodeURIComponent(toolCallId)}`,
    );
  }

  /**
   * Searches the session's whole transcript, compacted and pruned parts included
   * (`GET /v1/sessions/{id}/search`): best matches first, each with its seq, a snippet with the
   * match marked «like this», and whether it is still in the context.
   */
  search(options: SearchOptions): Promise<SearchResponse> {
    const { q, limit, role, after, ...call } = options;
    return this.#request({ method: "GET", query: { q, limit, role, after } }, call, "/search");
  }

  /** One page of the original, uncompacted transcript. */
  transcript(options: TranscriptOptions = {}): Promise<TranscriptResponseBody> {
    const { after, limit, ...call } = options;
    return this.#request({ method: "GET", query: { after, limit } }, call, "/transcript");
  }

  /** Every message of the original transcript from `after` on, page by page. */
  transcriptEntries(options: TranscriptOptions = {}): AsyncGenerator<TranscriptEntry> {
    return allItems(
      options.after ?? 0,
      (after) => this.transcript({ ...options, after }),
      (page) => ({ items: page.messages, next: page.nextAfter }),
    );
  }
}
