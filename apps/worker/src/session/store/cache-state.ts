/**
 * @module session/store/cache-state
 * The cost policy's state of a session (core `CacheState`: the excess read from the prompt cache
 * since the last compaction, the context that compaction left, and the part of it no compaction
 * rewrites), kept on the session's row so that the policy decides across requests and restarts.
 * Every compaction decision takes it (`context-measure`, the engine's `compact()`); a served
 * turn adds what it read (`served-turns`), and a committed compaction starts it again
 * (`compaction/commit`). NULL before the first compaction: the engine then decides statelessly.
 */

import type { CacheState } from "@condense/core";
import { type SessionRow, writeSession } from "./session-record";

/** The state the session carries, or undefined before its first compaction. */
export function cacheStateOf(session: SessionRow): CacheState | undefined {
  const {
    cacheExcessTokens: cache_excess_tokens,
    cacheCompactedTokens: cache_compacted_tokens,
    cacheStableTokens: cache_stable_tokens,
  } = session;
  if (cache_excess_tokens === null || cache_compacted_tokens === null) return undefined;
  return {
    excessTokens: cache_excess_tokens,
    compactedTokens: cache_compacted_tokens,
    stableTokens: cache_stable_tokens ?? 0,
  };
}

/** Stores `state` (undefined: none, the stateless decision). */
export function saveCacheState(sql: SqlStorage, state: CacheState | undefined): void {
  writeSession(
    sql,
    `UPDATE condense_session SET cache_excess_tokens = ?, cache_compacted_tokens = ?,
       cache_stable_tokens = ? WHERE id = 1`,
    state === undefined ? null : Math.round(state.excessTokens),
    state?.compactedTokens ?? null,
    state?.stableTokens ?? null,
  );
}

/**
 * The state after a turn that sent `engineTokens` (pinned messages excluded, as the engine counts
 * the context): the excess it read over what the last compaction left joins the carried one.
 */
export function afterTurn(state: CacheState, engineTokens: number): CacheState {
  return {
    ...state,
    excessTokens: state.excessTokens + Math.max(0, engineTokens - state.compactedTokens),
  };
}
