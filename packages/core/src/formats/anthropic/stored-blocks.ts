/**
 * @module formats/anthropic/stored-blocks
 * The original blocks of a message, kept in `provider_data.anthropic.blocks`
 * when rebuilding would not give them back, and read back only while they
 * still say what the message's canonical fields say (then they are sent
 * verbatim, without cache markers; else the message is rebuilt).
 */

import { ProblemCollector } from "../../messages/input-checks.js";
import type { ChatMessage } from "../../messages/types.js";
import { jsonEqual } from "../json-equal.js";
import { withoutCacheMarkers } from "./cache-markers.js";
import { checkMessage, checkSystem } from "./parse.js";
import { dropBlankText, messageContent, systemContent } from "./to-blocks.js";
import { systemToCanonical, turnToCanonical } from "./to-canonical.js";
import type {
  AnthropicBlock,
  AnthropicMessage,
  AnthropicRole,
  AnthropicTextBlock,
} from "./types.js";

/** Keeps `original` (without its cache markers) in provider data when rebuilding would not give it back. */
export function keepBlocksIfNeeded(
  message: ChatMessage,
  original: string | AnthropicBlock[],
): void {
  const kept = typeof original === "string" ? original : withoutCacheMarkers(original);
  const rebuilt = message.role === "system" ? systemContent(message) : messageContent(message);
  if (jsonEqual(rebuilt, kept)) return;
  const anthropic = {
    ...message.provider_data?.anthropic,
    blocks: typeof kept === "string" ? [kept] : kept,
  };
  message.provider_data = { ...message.provider_data, anthropic };
}

/**
 * Stored blocks, if they are still what the message's canonical fields say, without any cache
 * marker (one stored before markers were left out is stale: it belonged to an earlier request)
 * and less whitespace-only text next to other blocks (as for rebuilt blocks); else undefined.
 */
export function storedBlocks(message: ChatMessage): string | AnthropicBlock[] | undefined {
  const blocks = message.provider_data?.anthropic?.blocks;
  if (!Array.isArray(blocks) || blocks.length === 0) return undefined;
  const stored: string | unknown[] =
    blocks.length === 1 && typeof blocks[0] === "string"
      ? blocks[0]
      : withoutCacheMarkers(blocks as AnthropicBlock[]);
  const problems = new ProblemCollector();
  if (message.role === "system" || message.role === "developer") {
    checkSystem(stored, problems);
    if (problems.size > 0) return undefined;
    const current = systemToCanonical(stored as string | AnthropicTextBlock[]);
    if (!jsonEqual(current.content, message.content)) return undefined;
    return typeof stored === "string"
      ? stored
      : (dropBlankText(stored as AnthropicTextBlock[]) as AnthropicTextBlock[]);
  }
  const role: AnthropicRole = message.role === "assistant" ? "assistant" : "user";
  const turn = { role, content: stored };
  checkMessage(turn, 0, problems, new Map());
  if (problems.size > 0) return undefined;
  const projected = turnToCanonical(turn as AnthropicMessage);
  const only = projected[0];
  if (projected.length !== 1 || only === undefined || only.role !== message.role) return undefined;
  const same =
    jsonEqual(only.content, message.content) &&
    jsonEqual(only.tool_calls ?? [], message.tool_calls ?? []) &&
    only.tool_call_id === message.tool_call_id;
  if (!same) return undefined;
  // Kept verbatim, but never with the blank text Anthropic rejects next to other blocks.
  return typeof stored === "string" ? stored : dropBlankText(stored as AnthropicBlock[]);
}
