/**
 * @module compact/token-counts
 * The counts a store kept of the messages it hands over (`input.tokenCounts`),
 * so that a compaction tokenizes only what it writes. Each count is tied to
 * the canonical message object it stands for before repair runs: a message
 * repair keeps is the same object and keeps its count, one repair adds or
 * rewrites is a new object and is counted.
 */

import { perMessageNumbers } from "../errors/option-checks.js";
import type { ChatMessage, MessageFormat } from "../messages/types.js";
import { seedMessageTokens } from "../tokens/count.js";

/**
 * Hands the engine's token counting the caller's count of each canonical message (Chat Completions
 * input only, one entry per message, null where there is none).
 */
export function seedTokenCounts(
  canonical: readonly ChatMessage[],
  format: MessageFormat,
  tokenCounts: unknown,
  model: string,
): void {
  if (tokenCounts === undefined) return;
  const counts = perMessageNumbers(
    "tokenCounts",
    tokenCounts,
    canonical.length,
    format,
    ", each what messageTokens(message, model) returns for it",
  );
  canonical.forEach((message, index) => {
    const count = counts[index];
    if (typeof count === "number") seedMessageTokens(message, model, count);
  });
}
