/**
 * @module messages/token-counts
 * The engine's token counts of the messages of requests this isolate has
 * counted, by model and message key (`messages/message-key`): a request
 * without a session is checked against its window every turn, and counting
 * its whole history again cost more than the rest of the turn (the engine's
 * own cache finds a message by a hash it computes over the message's text in
 * JavaScript). The counts go to `compact` as its `tokenCounts`, so the
 * messages found are not read again.
 */

import { type ChatMessage, messageTokens } from "@condense/core";
import { MessageKeyedCache, messageKey } from "./message-key";

/**
 * Counts by message key, then by model (about 8 MB of one-byte keys). The key is not joined with
 * the model's name into one text: copying every message's text once more cost as much as the
 * lookup.
 */
const countCache = new MessageKeyedCache<Map<string, number>>(8_000_000);

export interface KnownCounts {
  /** Each message's count, what `messageTokens(message, model)` returns; null where none is known. */
  counts: (number | null)[];
  /** Records the counts of the messages that had none (counted now: the engine caches its own). */
  record(): void;
}

/** The counts this isolate knows of `messages` for `model`. */
export function knownTokenCounts(messages: readonly ChatMessage[], model: string): KnownCounts {
  const keys = messages.map(messageKey);
  const counts = keys.map((key) => countCache.get(key)?.get(model) ?? null);
  return {
    counts,
    record() {
      counts.forEach((count, index) => {
        const message = messages[index];
        const key = keys[index];
        if (count !== null || message === undefined || key === undefined) return;
        const byModel = countCache.get(key) ?? new Map<string, number>();
        byModel.set(model, messageTokens(message, model));
        countCache.set(key, byModel);
      });
    },
  };
}
