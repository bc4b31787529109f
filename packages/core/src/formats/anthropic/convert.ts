/**
 * @module formats/anthropic/convert
 * Conversion between Anthropic Messages (`system` + `messages`) and canonical
 * Chat Completions messages.
 *
 * Mapping:
 * - `system` (string or text blocks) becomes one leading system message;
 *   on the way back every system/developer message joins `system` (one message:
 *   its own form; several: their text blocks concatenated).
 * - A user turn becomes one tool message per `tool_result` block (in order)
 *   followed by one user message with the remaining blocks, if any.
 * - An assistant turn becomes one assistant message: text blocks → content
 *   parts (`null` if there are none), `tool_use` → `tool_calls` (`input` as JSON
 *   text), `thinking`/`redacted_thinking` → `provider_data.anthropic.thinking`.
 * - String content stays string content; block arrays become content-part
 *   arrays. Images: base64 source ↔ `data:` URL, url source ↔ URL.
 * - Documents ↔ `file` parts, the title ↔ `filename`: a base64 PDF ↔ its `data:`
 *   URL; a text document ↔ a `data:text/plain;base64,` URL (any text file becomes
 *   a text document); a Files API document ↔ `file_id`; a document's custom
 *   `content` → its text and image parts. A file part holding a JPEG, PNG, GIF or
 *   WebP image becomes an image block.
 * - Blocks without a canonical equivalent become a text part saying what they
 *   hold, the block itself riding in `provider_data.anthropic.blocks` (below): a
 *   URL document (`[document "title": url]`), a search result (`[search result:
 *   title (source)]` and its texts), a container upload, a tool reference (in a
 *   tool result), an image of the Files API. So they round-trip through a
 *   session, and every other format still shows the model what was there.
 * - Parts Anthropic cannot hold are refused, never dropped: `toAnthropic` throws
 *   `InvalidMessagesError` (kind `unsupported_part`) for an `input_audio` part
 *   (Claude takes no audio) or a file that is neither PDF, text nor one of those
 *   images; `validateMessages(…, "anthropic")` reports the same problems.
 * - `is_error` of a tool result → `provider_data.anthropic.is_error`.
 * - When the blocks `toAnthropic` would rebuild from a message differ from the
 *   original ones (cache_control, citations, block order, whitespace-only text,
 *   a tool result without `content`, ...), the original blocks are kept in
 *   `provider_data.anthropic.blocks` and sent back verbatim as long as the
 *   message's content still matches them; once the content was changed they
 *   are stale and the message is rebuilt (thinking and is_error kept).
 *
 * So `toAnthropic(fromAnthropic(x))` deep-equals `x` for a valid `x` whose
 * turns alternate and start with a user turn, except for these documented
 * normalizations: `tool_result` blocks move to the start of their user turn (as
 * Anthropic requires); consecutive same-role turns are merged; whitespace-only
 * text blocks next to other blocks are dropped, kept blocks included (Anthropic
 * rejects them); lone surrogates become U+FFFD.
 *
 * Tool ids: see `formats/anthropic/tool-ids`.
 *
 * `toAnthropic` also: merges consecutive same-role turns (tool results count as
 * user), places `tool_result` blocks first in their user turn, drops
 * whitespace-only text blocks next to other blocks (Anthropic rejects them),
 * prepends the user turn `LEADING_USER_TEXT` (`formats/anthropic/plan`) when the conversation would
 * start with an assistant turn, sends a message with nothing to send (an
 * assistant `content: null` without calls) as `""` for `validateMessages` to
 * report, drops `name` and image `detail` (Anthropic has
 * no place for them), and wraps tool-call arguments that are not a JSON object
 * as `{ "arguments": "<text>" }` (`input` must be an object).
 */

import { InvalidMessagesError } from "../../errors/condense-error.js";
import type { ChatMessage } from "../../messages/types.js";
import { chooseMarkers, type MarkerPlacement } from "../cache-markers.js";
import { parseAnthropic } from "./parse.js";
import { type AnthropicPlan, planAnthropic } from "./plan.js";
import { keepBlocksIfNeeded } from "./stored-blocks.js";
import { systemToCanonical, turnBlocksPerMessage, turnToCanonical } from "./to-canonical.js";
import type { AnthropicBlock, AnthropicRequest, AnthropicTextBlock } from "./types.js";
import { anthropicUnsupportedParts } from "./unsupported-parts.js";

/**
 * Converts an Anthropic request (`system` + `messages`) to canonical messages.
 * The input is untrusted: it is shape-checked and `InvalidMessagesError` lists
 * every problem.
 */
export function fromAnthropic(input: {
  system?: unknown;
  messages: readonly unknown[];
}): ChatMessage[] {
  const request = parseAnthropic(input);
  const out: ChatMessage[] = [];
  if (request.system !== undefined) {
    const system = systemToCanonical(request.system);
    keepBlocksIfNeeded(system, request.system);
    out.push(system);
  }
  for (const turn of request.messages) {
    const messages = turnToCanonical(turn);
    const originals = turnBlocksPerMessage(turn);
    messages.forEach((message, index) => {
      const original = originals[index];
      if (original !== undefined) keepBlocksIfNeeded(message, original.content);
      out.push(message);
    });
  }
  return out;
}

/**
 * Converts canonical messages to an Anthropic request: system/developer
 * messages → `system` (system turns that stood in `messages` stay there), the
 * rest → alternating user/assistant turns. `placement` puts a request's cache
 * markers on the blocks of the messages they name (`formats/cache-markers`);
 * no other marker is ever sent. Throws `InvalidMessagesError` when a message
 * holds a part Anthropic cannot hold.
 */
export function toAnthropic(
  messages: readonly ChatMessage[],
  placement?: MarkerPlacement,
): AnthropicRequest {
  const unsupported = anthropicUnsupportedParts(messages);
  if (unsupported.length > 0) throw new InvalidMessagesError(unsupported);
  const plan = planAnthropic(messages);
  if (placement !== undefined) placeMarkers(plan, placement);
  const request: AnthropicRequest = {
    messages: plan.turns.map((turn) => ({
      ...turn.fields,
      role: turn.role,
      content: turn.content,
    })),
  };
  if (plan.system !== undefined) request.system = plan.system;
  return request;
}

/** Where a marker lands: block `block` of `system` (turn -1) or of turn `turn`. */
interface BlockAt {
  turn: number;
  block: number;
}

/** Blocks that take no marker: thinking (Anthropic refuses one there) and empty text. */
function takesMarker(block: unknown): boolean {
  if (typeof block === "string") return block !== "";
  if (typeof block !== "object" || block === null) return false;
  const { type, text } = block as { type?: unknown; text?: unknown };
  if (type === "thinking" || type === "redacted_thinking") return false;
  return type !== "text" || (typeof text === "string" && text !== "");
}

/** The block of `positions` (a message's blocks, in order) nearest `wanted` that takes a marker. */
function nearestTaking(
  positions: readonly BlockAt[],
  wanted: number,
  blockAt: (at: BlockAt) => unknown,
): BlockAt | undefined {
  const start = Math.max(0, Math.min(wanted, positions.length - 1));
  for (let i = start; i >= 0; i--) {
    const at = positions[i];
    if (at !== undefined && takesMarker(blockAt(at))) return at;
  }
  for (let i = start + 1; i < positions.length; i++) {
    const at = positions[i];
    if (at !== undefined && takesMarker(blockAt(at))) return at;
  }
  return undefined;
}

function markedCopy(block: unknown, cacheControl: Record<string, unknown>): AnthropicBlock {
  return typeof block === "string"
    ? ({ type: "text", text: block, cache_control: cacheControl } as unknown as AnthropicBlock)
    : ({ ...(block as object), cache_control: cacheControl } as unknown as AnthropicBlock);
}

/** Places the chosen markers on copies of the plan's blocks (stored blocks are never modified). */
function placeMarkers(plan: AnthropicPlan, placement: MarkerPlacement): void {
  const positions = new Map<number, BlockAt[]>();
  let offset = 0;
  plan.systemSources.forEach((source, entry) => {
    const size = plan.systemSizes[entry] ?? 1;
    const list = positions.get(source) ?? [];
    for (let i = 0; i < size; i++) list.push({ turn: -1, block: offset + i });
    positions.set(source, list);
    offset += size;
  });
  plan.turns.forEach((turn, turnIndex) => {
    turn.sources.forEach((source, block) => {
      const list = positions.get(source) ?? [];
      list.push({ turn: turnIndex, block });
      positions.set(source, list);
    });
  });
  const blockAt = (at: BlockAt): unknown => {
    const content = at.turn === -1 ? plan.system : plan.turns[at.turn]?.content;
    return typeof content === "string" ? content : content?.[at.block];
  };
  const chosen = chooseMarkers(placement, (marker) => {
    const list = positions.get(marker.message);
    return list === undefined ? undefined : nearestTaking(list, marker.block, blockAt);
  });
  for (const { marker, at } of chosen) {
    if (at.turn === -1) {
      const system = plan.system;
      if (system === undefined) continue;
      const blocks = typeof system === "string" ? [system] : [...system];
      blocks[at.block] = markedCopy(blocks[at.block], marker.cacheControl) as AnthropicTextBlock;
      plan.system = blocks as AnthropicTextBlock[];
      continue;
    }
    const turn = plan.turns[at.turn];
    if (turn === undefined) continue;
    const blocks: unknown[] = typeof turn.content === "string" ? [turn.content] : [...turn.content];
    blocks[at.block] = markedCopy(blocks[at.block], marker.cacheControl);
    turn.content = blocks as AnthropicBlock[];
  }
}
