/**
 * @module gateway/plans/provider-compaction
 * A history the provider compacted itself: Anthropic's server-side compaction
 * (`compact_20260112`) answers with a `compaction` block, which the client
 * sends back in its history, and from then on the API drops every message
 * block before it (a client may send them or not). For the gateway those
 * messages are no longer in the context: the session follows the history from
 * the last compaction block on, the prompt messages kept (they are `system`,
 * which the API keeps), so it neither counts what the provider no longer reads
 * nor compacts it again on top of the provider's summary. The messages before
 * the block stay in the transcript, in the generation that held them.
 *
 * OpenAI's `compaction` items are not read so: the output of
 * `/responses/compact` puts the user messages the item does not stand for
 * before it, and they stay in the window.
 */

import type { ChatMessage } from "@condense/core";

const PROMPT_ROLES = new Set(["system", "developer"]);

/** Whether `message` carries an Anthropic `compaction` block. */
function holdsCompactionBlock(message: ChatMessage): boolean {
  const blocks = message.provider_data?.anthropic?.blocks;
  return (
    Array.isArray(blocks) &&
    blocks.some(
      (block: unknown) =>
        typeof block === "object" && block !== null && Reflect.get(block, "type") === "compaction",
    )
  );
}

/**
 * The history the provider reads: the prompt messages, then the messages from the last one that
 * carries a compaction block on; `history` itself (the same array) when none does.
 */
export function sinceProviderCompaction(history: ChatMessage[]): ChatMessage[] {
  let prompt = 0;
  while (prompt < history.length && PROMPT_ROLES.has(history[prompt]?.role ?? "")) prompt++;
  for (let index = history.length - 1; index > prompt; index--) {
    const message = history[index];
    if (message !== undefined && holdsCompactionBlock(message)) {
      return [...history.slice(0, prompt), ...history.slice(index)];
    }
  }
  return history;
}
