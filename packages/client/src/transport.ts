/**
 * @module transport
 * One JSON request to the service, over `fetch` only (Node ≥ 22, browsers,
 * Deno, Bun, Workers): bearer auth, a per-attempt timeout, the caller's abort
 * signal, and retries of network failures, timeouts, 408, 429 and 5xx. Every
 * answer that is not a 2xx becomes a `CondenseApiError`.
 */

import { CondenseApiError } from "./errors.js";
import { parseRetryAfter } from "./generated/retry-after.generated.js";
import { type AttemptResult, type RetryPolicy, retrying } from "./retry.js";

/** The `fetch` the client calls; any WHATWG-compatible implementation. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface TransportConfig {
  baseUrl: string;
  apiKey: string;
  fetch: FetchLike;
  timeoutMs: number;
  /** Per-attempt timeout of calls that may wait on a compaction (an LLM summary can take minutes). */
  compactionTimeoutMs: number;
  retry: RetryPolicy;
}

/** Per-call options every method accepts. */
export interface CallOptions {
  /** Aborts the call, including waits between retries; the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for each attempt of this call. */
  timeoutMs?: number;
}

export interface RequestSpec extends CallOptions {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** The call may wait on a compaction: its default timeout is `compactionTimeoutMs`. */
  waitsOnCompaction?: boolean;
  /** Sent as `Idempotency-Key` on every attempt, so retries of one call are one operation. */
  idempotencyKey?: string;
}

const RETRYABLE_STATUS = new Set([408, 429]);

function isRetryableStatus(status: number): boolean {
  return status >= 500 || RETRYABLE_STATUS.has(status);
}

/** `{ error: { code, message, details } }`, or `undefined` when the body is not that shape. */
function errorBody(
  value: unknown,
): { code: string; message: string; details: unknown } | undefined {
  if (typeof value !== "object" || value === null || !("error" in value)) return undefined;
  const error = value.error;
  if (typeof error !== "object" || error === null) return undefined;
  const code = "code" in error && typeof error.code === "string" ? error.code : undefined;
  const message =
    "message" in error && typeof error.message === "string" ? error.message : undefined;
  if (code === undefined || message === undefined) return undefined;
  return { code, message, details: "details" in error ? error.details : null };
}

function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: text === "" ? null : JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

export class Transport {
  readonly #config: TransportConfig;

  constructor(config: TransportConfig) {
    this.#config = { ...config, baseUrl: config.baseUrl.replace(/\/+$/, "") };
  }

  get baseUrl(): string {
    return this.#config.baseUrl;
  }

  url(path: string, query?: RequestSpec["query"]): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) params.set(name, String(value));
    }
    const search = params.toString();
    return `${this.#config.baseUrl}${path}${search === "" ? "" : `?${search}`}`;
  }

  /** Sends the request (retrying as the policy allows) and returns the parsed JSON body. */
  request<T>(spec: RequestSpec): Promise<T> {
    return retrying<T>((index) => this.#attempt<T>(spec, index), this.#config.retry, {
      signal: spec.signal,
    });
  }

  async #attempt<T>(spec: RequestSpec, index: number): Promise<AttemptResult<T>> {
    const { signal } = spec;
    if (signal?.aborted === true) return { ok: false, error: signal.reason, retryable: false };

    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.#config.apiKey}`,
      Accept: "application/json",
    };
    if (spec.body !== undefined) headers["Content-Type"] = "application/json";
    if (spec.idempotencyKey !== undefined) headers["Idempotency-Key"] = spec.idempotencyKey;

    // One controller per attempt: the caller's signal and this attempt's timeout both end it.
    const controller = new AbortController();
    const timeoutMs =
      spec.timeoutMs ??
      (spec.waitsOnCompaction === true ? this.#config.compactionTimeoutMs : this.#config.timeoutMs);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });

    const describe = `${spec.method} ${spec.path}`;
    try {
      let response: Response;
      let text: string;
      try {
        response = await this.#config.fetch(this.url(spec.path, spec.query), {
          method: spec.method,
          headers,
          ...(spec.body !== undefined ? { body: JSON.stringify(spec.body) } : {}),
          signal: controller.signal,
        });
        text = await response.text();
      } catch (cause) {
        // Re-read: the signal may have aborted while the request was in flight.
        if (aborted(signal)) return { ok: false, error: signal?.reason, retryable: false };
        const attempts = `attempt ${index + 1}`;
        if (timedOut) {
          return {
            ok: false,
            retryable: true,
            error: new CondenseApiError({
              status: 0,
              code: "timeout",
              message: `${describe} got no complete answer within ${timeoutMs} ms (${attempts}); raise timeoutMs if the service is slow, or check that it is reachable at ${this.#config.baseUrl}`,
              cause,
            }),
          };
        }
        return {
          ok: false,
          retryable: true,
          error: new CondenseApiError({
            status: 0,
            code: "network_error",
            message: `${describe} failed before an answer arrived (${attempts}): ${cause instanceof Error ? cause.message : String(cause)}; check that the service is reachable at ${this.#config.baseUrl}`,
            cause,
          }),
        };
      }

      const requestId = response.headers.get("x-request-id");
      const parsed = parseJson(text);
      if (response.ok) {
        if (!parsed.ok) {
          return {
            ok: false,
            retryable: false,
            error: new CondenseApiError({
              status: response.status,
              code: "invalid_response",
              message: `${describe} answered ${response.status} with a body that is not JSON; is ${this.#config.baseUrl} a Condense service?`,
              requestId,
              details: { body: text.slice(0, 500) },
            }),
          };
        }
        return { ok: true, value: parsed.value as T };
      }

      const body = parsed.ok ? errorBody(parsed.value) : undefined;
      const error =
        body === undefined
          ? new CondenseApiError({
              status: response.status,
              code: "http_error",
              message: `${describe} answered ${response.status} ${response.statusText} without a Condense error body (a proxy in between?): ${text.slice(0, 200)}`,
              requestId,
              details: { body: text.slice(0, 2000) },
            })
          : new CondenseApiError({ status: response.status, requestId, ...body });
      return {
        ok: false,
        error,
        retryable: isRetryableStatus(response.status),
        retryAfterMs: parseRetryAfter(response.headers),
      };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }
}
