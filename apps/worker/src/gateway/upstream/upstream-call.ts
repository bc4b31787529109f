/**
 * @module gateway/upstream/upstream-call
 * One call to an upstream: the client's headers less those that belong to
 * this hop or to Condense (its key, its session header, cookies, Cloudflare's
 * and proxies' own), the upstream's authentication, and a deadline for the
 * response (its headers, and its whole body when it is not a stream; a
 * stream's pauses are timed by `gateway/stream-relay`). An upstream that
 * cannot be reached is the gateway's 502, one that does not answer in time its
 * 504. The upstream's response headers reach the client less the hop's own.
 */

import { ApiError } from "../../api/errors";
import { workerConfig } from "../../config/worker-config";

const DROPPED_REQUEST_HEADERS =
  /^(?:host|content-length|connection|keep-alive|transfer-encoding|upgrade|te|trailer|expect|proxy-.*|cf-.*|x-forwarded-.*|x-real-ip|forwarded|cookie|authorization|x-api-key|x-goog-api-key|accept-encoding|x-condense-.*|x-request-id)$/i;

const DROPPED_RESPONSE_HEADERS =
  /^(?:content-length|content-encoding|transfer-encoding|connection|keep-alive|set-cookie|alt-svc|cf-.*|server|date|x-request-id)$/i;

/** The headers to send upstream: the client's own that belong to the provider, and `auth`. */
export function upstreamRequestHeaders(incoming: Headers, auth: Record<string, string>): Headers {
  const headers = new Headers();
  for (const [name, value] of incoming) {
    if (!DROPPED_REQUEST_HEADERS.test(name)) headers.set(name, value);
  }
  headers.set("content-type", "application/json");
  for (const [name, value] of Object.entries(auth)) headers.set(name, value);
  return headers;
}

/**
 * The upstream's response headers the client gets (request ids, rate limits, content type…), with
 * the gateway's own (`gateway/protocols/condense-headers`) `added`.
 */
export function clientResponseHeaders(
  upstream: Headers,
  added: Readonly<Record<string, string>> = {},
): Headers {
  const headers = new Headers();
  for (const [name, value] of upstream) {
    if (!DROPPED_RESPONSE_HEADERS.test(name)) headers.set(name, value);
  }
  for (const [name, value] of Object.entries(added)) headers.set(name, value);
  return headers;
}

/** The deployment's deadlines: for a response (`GATEWAY_TIMEOUT_MS`), and between a stream's chunks. */
export function gatewayTimeouts(env: Env): { responseMs: number; streamIdleMs: number } {
  const config = workerConfig(env);
  return { responseMs: config.gatewayTimeoutMs, streamIdleMs: config.gatewayStreamIdleTimeoutMs };
}

/** A response from the upstream, its body possibly still unread; `endDeadline()` stops its deadline. */
export interface UpstreamResponse {
  kind: "response";
  response: Response;
  endDeadline(): void;
}

export type UpstreamOutcome =
  | UpstreamResponse
  | { kind: "timeout" }
  | { kind: "unreachable"; detail: string };

/** An upstream's complete response, read. */
export interface UpstreamReply {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * Calls `url`. The deadline runs until `endDeadline()` is called (after the body was read, or once a
 * stream's headers arrived): a body still unread then is aborted.
 */
export async function callUpstream(
  url: string,
  init: { method: string; headers: Headers; body?: string },
  timeoutMs: number,
): Promise<UpstreamOutcome> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  try {
    const response = await fetch(url, { ...init, signal: controller.signal });
    return { kind: "response", response, endDeadline: () => clearTimeout(timer) };
  } catch (error) {
    clearTimeout(timer);
    if (timedOut) return { kind: "timeout" };
    return { kind: "unreachable", detail: error instanceof Error ? error.name : "Error" };
  }
}

function timedOut(): ApiError {
  return new ApiError(
    504,
    "upstream_timeout",
    "the upstream did not answer in time (GATEWAY_TIMEOUT_MS); retry, or raise the deployment's limit",
  );
}

/** Calls `url` (`callUpstream`); a timeout or an unreachable upstream is the gateway's error. */
export async function reachUpstream(
  url: string,
  init: { method: string; headers: Headers; body?: string },
  timeoutMs: number,
): Promise<UpstreamResponse> {
  const outcome = await callUpstream(url, init, timeoutMs);
  if (outcome.kind === "timeout") throw timedOut();
  if (outcome.kind === "unreachable") {
    throw new ApiError(
      502,
      "upstream_unreachable",
      `the upstream could not be reached (${outcome.detail}); check its base URL in the deployment's configuration`,
    );
  }
  return outcome;
}

/** The body of a response as text; the deadline striking while it is read is the gateway's 504. */
export async function readUpstreamBody(outcome: UpstreamResponse): Promise<string> {
  try {
    return await outcome.response.text();
  } catch {
    throw timedOut();
  } finally {
    outcome.endDeadline();
  }
}

/** A response read whole. */
export async function readUpstreamReply(outcome: UpstreamResponse): Promise<UpstreamReply> {
  const text = await readUpstreamBody(outcome);
  return { status: outcome.response.status, headers: outcome.response.headers, text };
}
