/**
 * @module api/inspector-client
 * The inspector's calls to the public `/v1` API: `@condense/client`'s
 * `Condense` on this origin, with the signed-in key as the bearer token, sent
 * to this origin only and kept in no HTTP cache. A failure shows at once (no
 * retries) as the client's `CondenseApiError`, which carries the API's own
 * `{ code, message, details }` (or a network or response problem said as
 * plainly) and the request id, so views show the service's words.
 */

import { Condense, CondenseApiError } from "@condense/client";

export interface InspectorClientOptions {
  /** Default: this page's origin. */
  baseUrl?: string;
  fetch?: typeof fetch;
}

/** The API client for `token` (an API key or a JWT). */
export function inspectorClient(token: string, options: InspectorClientOptions = {}): Condense {
  const send = options.fetch ?? ((input, init) => fetch(input, init));
  return new Condense({
    baseUrl: options.baseUrl ?? window.location.origin,
    apiKey: token,
    maxRetries: 0,
    // The key is sent only to this origin, and never kept in an HTTP cache.
    fetch: (input, init) => send(input, { ...init, credentials: "omit", cache: "no-store" }),
  });
}

/**
 * Whether `error` says the route itself is absent from this deployment. Only meaningful for
 * calls whose 404 has no other cause: the session list and memory (no id in the path), and
 * search on a session that was just read.
 */
export function isRouteMissing(error: unknown): boolean {
  return CondenseApiError.isInstance(error) && error.status === 404 && error.code === "not_found";
}
