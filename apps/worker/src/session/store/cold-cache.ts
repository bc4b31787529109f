/**
 * @module session/store/cold-cache
 * When the provider's prompt cache of a session goes cold (issue 32, "time in the cost model"):
 * its cached prefix lives the provider's lifetime (core `cacheLifetimeMs`: Anthropic 5 minutes,
 * automatic caching 10) from the last read, the session's last served model request
 * (`condense_turns.at`). Past it a compaction costs no bust, so the cost policy compacts a context
 * past its floor then (reason `cold_cache`), from the alarm, before the next turn; the alarm is set
 * for that moment (`session-alarm`).
 */

import { cacheLifetimeMs, modelPricing } from "@condense/core";

/** When the session last sent a request to its provider (ms), if it ever did. */
export function lastReadAt(sql: SqlStorage): number | undefined {
  const row = sql
    .exec<{ at: number }>("SELECT at FROM condense_turns ORDER BY id DESC LIMIT 1")
    .toArray()[0];
  return row?.at;
}

/** When the cache of `model`, last read at `readAt`, expires; undefined without a read or a cache. */
export function coldCacheAt(readAt: number | undefined, model: string): number | undefined {
  const lifetime = cacheLifetimeMs(modelPricing(model).caching.kind);
  return readAt === undefined || lifetime === 0 ? undefined : readAt + lifetime;
}
