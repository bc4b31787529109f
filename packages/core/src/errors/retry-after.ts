/**
 * @module errors/retry-after
 * How long a server that refused a request (a 429, a 503) asks the caller to
 * wait: OpenAI's `retry-after-ms` header, else `Retry-After` as delay-seconds
 * or an HTTP date (RFC 9110). One reading, in milliseconds, for every retry
 * loop: the summarizer's transport here, the client's transport in
 * `@condense/client`.
 *
 * Self-contained on purpose (no imports): `@condense/client`, which has no
 * runtime dependency on core, carries a generated copy of this file.
 */

/** A non-negative decimal number, as both headers write one (`3`, `1.5`), space around it allowed. */
const DECIMAL = /^\s*\d+(?:\.\d+)?\s*$/;

/**
 * Milliseconds the `retry-after-ms` or `Retry-After` header asks for (a date in the past asks for
 * 0); `undefined` when there is neither or it cannot be read.
 */
export function parseRetryAfter(
  headers: Headers | undefined,
  now: number = Date.now(),
): number | undefined {
  const millis = headers?.get("retry-after-ms");
  if (typeof millis === "string" && DECIMAL.test(millis)) return Number(millis);
  const value = headers?.get("retry-after");
  if (typeof value !== "string" || value.trim() === "") return undefined;
  if (DECIMAL.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
