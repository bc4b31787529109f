/**
 * @module gateway/stateless
 * A gateway request without a session: nothing is stored, and a history that
 * does not fit (threshold and reserve as for sessions, the model's window from
 * the table or `X-Condense-Context-Window` less the request's fixed overhead,
 * the request's output budget in the reserve) is compacted in place by the
 * deterministic tiers before it is forwarded. An overflow the upstream still reports compacts again, against
 * the window it stated. The messages after the last assistant turn are never
 * compacted (the engine's rule): when they alone do not fit, the upstream's
 * overflow error goes back to the client as it came.
 */

import {
  type ChatMessage,
  CondenseError,
  compact,
  contextWindowFor,
  countMessageTokens,
} from "@condense/core";

export interface StatelessFit {
  messages: ChatMessage[];
  /** Tokens of `messages` (the engine's count). */
  tokens: number;
  /** The tier of the compaction that ran, or null. */
  tier: number | null;
  /** The whole window (the request's overhead included). */
  contextWindow: number;
}

export interface StatelessOptions {
  contextWindow?: number;
  maxOutputTokens?: number;
  /**
   * Engine tokens the request sends beside its messages that the provider counts with them (its tool
   * definitions: `gateway/request-overhead`): the messages fit in the window less these.
   */
  overheadTokens?: number;
  /** Compact even below the threshold (after an overflow). */
  force?: boolean;
}

/** `messages` as they are when they fit, else compacted by the deterministic summarizer. */
export async function fitStateless(
  messages: ChatMessage[],
  model: string,
  options: StatelessOptions = {},
): Promise<StatelessFit> {
  const contextWindow = options.contextWindow ?? contextWindowFor(model);
  // At least one token: an overhead as large as the window leaves the messages compacted as far as
  // they go, and the upstream says whether the request fits.
  const room = Math.max(1, contextWindow - (options.overheadTokens ?? 0));
  try {
    const result = await compact(
      { model, messages },
      {
        contextWindow: room,
        // The engine counts it for at most a quarter of the window (an allowance, not a use).
        ...(options.maxOutputTokens !== undefined
          ? { maxOutputTokens: options.maxOutputTokens }
          : {}),
        ...(options.force === true ? { force: true } : {}),
      },
    );
    return {
      messages: result.messages,
      tokens: result.finalTokens,
      tier: result.compacted ? result.tier : null,
      contextWindow,
    };
  } catch (error) {
    // Options the engine refuses (a window too small for any reserve): the history goes as it is,
    // and the upstream says whether it fits.
    if (!CondenseError.isInstance(error)) throw error;
    return {
      messages,
      tokens: countMessageTokens(messages, model),
      tier: null,
      contextWindow,
    };
  }
}
