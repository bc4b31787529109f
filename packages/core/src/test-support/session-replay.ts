/**
 * @module test-support/session-replay
 * A transcript replayed turn by turn through the engine as the service runs a session: before
 * each assistant message the context is the view the last compaction left and every message
 * after it; it is what the model is sent at that turn; then `shouldCompact` decides with the
 * carried cost-policy state, and a compaction (with the carried ledger) makes the next view.
 * Lets the corpus tests and the benches check what survives many compactions without a Worker.
 * Not part of the published package.
 */

import { compact } from "../compact/compact.js";
import type { CacheState } from "../compact/cost-policy.js";
import { shouldCompact } from "../compact/trigger.js";
import type { CompactOptions, CompactResult } from "../compact/types.js";
import type { ChatMessage } from "../messages/types.js";
import type { Ledger } from "../summary/ledger-types.js";
import { countMessageTokens } from "../tokens/count.js";

export interface ReplayedTurn {
  /** 0 for the first assistant message of the transcript. */
  turn: number;
  /** The transcript up to this turn (what the client holds). */
  history: readonly ChatMessage[];
  /** What the model is sent at this turn. */
  context: readonly ChatMessage[];
}

export interface SessionReplay {
  compactions: Array<CompactResult<ChatMessage> & { turn: number }>;
  /** The context of the last turn. */
  last: readonly ChatMessage[];
}

export async function replaySession(
  messages: readonly ChatMessage[],
  options: CompactOptions & { model?: string; onTurn?: (turn: ReplayedTurn) => void },
): Promise<SessionReplay> {
  const { onTurn, model = "gpt-4o", ...compactOptions } = options;
  let view: ChatMessage[] = [];
  let covered = 0;
  let ledger: Ledger | undefined;
  let cacheState: CacheState | undefined;
  let last: readonly ChatMessage[] = [];
  const compactions: SessionReplay["compactions"] = [];
  let turn = 0;
  for (const [index, message] of messages.entries()) {
    if (message.role !== "assistant" || index === 0) continue;
    const context = [...view, ...messages.slice(covered, index)];
    last = context;
    onTurn?.({ turn, history: messages.slice(0, index), context });
    const decision = shouldCompact(
      { model, tokens: countMessageTokens(context, model) },
      { ...compactOptions, ...(cacheState === undefined ? {} : { cacheState }) },
    );
    if (decision.cacheState !== undefined) cacheState = decision.cacheState;
    if (decision.compact) {
      const result = await compact(
        { model, messages: context },
        {
          ...compactOptions,
          ...(ledger === undefined ? {} : { ledger }),
          ...(cacheState === undefined ? {} : { cacheState }),
        },
      );
      if (result.compacted) {
        compactions.push({ ...result, turn });
        view = result.messages;
        covered = index;
        // Only a summarizing pass returns a ledger of its own (as the service keeps it).
        if (result.tier >= 2) ledger = result.ledger;
        if (result.cacheState !== undefined) cacheState = result.cacheState;
      }
    }
    turn++;
  }
  return { compactions, last };
}
