/**
 * @module models/cache-lifetime
 * How long a provider keeps a cached prompt prefix after its last read: Anthropic's default
 * breakpoints live 5 minutes from their last use; OpenAI's automatic caching (and the others'
 * like it) keeps a prefix for 5 to 10 minutes of inactivity, so a prefix idle for 10 is taken
 * as gone. A session idle past its lifetime has a cold cache: its next request writes everything
 * again whether or not a compaction came between (docs/notes/cost-model.md, "Time").
 */

import type { PromptCaching } from "./pricing.js";

const MINUTE_MS = 60_000;

/** Milliseconds a cached prefix lives after its last read under a `kind` of caching; 0 when nothing is cached. */
export function cacheLifetimeMs(kind: PromptCaching["kind"]): number {
  if (kind === "none") return 0;
  return kind === "breakpoints" ? 5 * MINUTE_MS : 10 * MINUTE_MS;
}

/** Whether a cache last read at `lastReadAt` has expired by `now` (never, when no read is known). */
export function isCacheCold(
  lastReadAt: number | undefined,
  now: number,
  lifetimeMs: number,
): boolean {
  return lastReadAt !== undefined && now - lastReadAt >= lifetimeMs;
}
