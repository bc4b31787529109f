/**
 * @module gateway/upstream-call
 * One call to an upstream: the client's headers less those that belong to
 * this hop or to Condense (its key, its session header, cookies, Cloudflare's
 * and proxies' own), the upstream's authentication, and a deadline for the
 * response (its headers, and its whole body when it is not a stream; a
 * stream's pauses are timed by `gateway/stream-relay`). The upstream's
 * response headers reach the client less the hop's own.
 */

const DROPPED_REQUEST_HEADERS =
  /^(?:host|content-length|connection|keep-alive|transfer-encoding|upgrade|te|trailer|expect|proxy-.*|cf-.*|x-forwarded-.*|x-real-ip|forwarded|cookie|authorization|x-api-key|accept-encoding|x-condense-.*|x-request-id)$/i;

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

/** The upstream's response headers the client gets (request ids, rate limits, content type…). */
export function clientResponseHeaders(upstream: Headers): Headers {
  const headers = new Headers();
  for (const [name, value] of upstream) {
    if (!DROPPED_RESPONSE_HEADERS.test(name)) headers.set(name, value);
  }
  return headers;
}

export type UpstreamOutcome =
  | { kind: "response"; response: Response; settle(): void }
  | { kind: "timeout" }
  | { kind: "unreachable"; detail: string };

/**
 * Calls `url`. The deadline runs until `settle()` is called (after the body was read, or once a
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
    return { kind: "response", response, settle: () => clearTimeout(timer) };
  } catch (error) {
    clearTimeout(timer);
    if (timedOut) return { kind: "timeout" };
    return { kind: "unreachable", detail: error instanceof Error ? error.name : "Error" };
  }
}

/** The body of a response as text, or undefined when the deadline struck while it was read. */
export async function readUpstreamText(
  outcome: Extract<UpstreamOutcome, { kind: "response" }>,
): Promise<string | undefined> {
  try {
    return await outcome.response.text();
  } catch {
    return undefined;
  } finally {
    outcome.settle();
  }
}
