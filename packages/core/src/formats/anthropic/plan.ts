/**
 * @module formats/anthropic/plan
 * How canonical messages become an Anthropic request, with the canonical
 * message every block came from: system/developer messages join `system`,
 * system turns that stood in `messages` stay in place (`in_messages`),
 * consecutive same-role turns merge (tool results count as user), tool results
 * go first in their user turn, tool ids become ones Anthropic accepts
 * (`formats/anthropic/tool-ids`), and a user turn is prepended when the
 * conversation would start with an assistant turn. `toAnthropic` sends the
 * plan; the Anthropic rules of `validateMessages` read it to name problems by
 * message index. Whitespace-only blocks of `system` are left out when others
 * remain (Anthropic rejects them).
 */

import type { ChatMessage } from "../../messages/types.js";
import { storedBlocks } from "./stored-blocks.js";
import { messageContent, systemContent } from "./to-blocks.js";
import { anthropicToolIds, withToolIds } from "./tool-ids.js";
import type { AnthropicBlock, AnthropicRole, AnthropicTextBlock } from "./types.js";

/** Text of the user turn `toAnthropic` prepends when the conversation would start with an assistant turn. */
export const LEADING_USER_TEXT = "[conversation continues]";

/** One turn of the plan; `sources[i]` is the canonical index block `i` came from (-1: prepended). */
export interface PlannedTurn {
  role: AnthropicRole;
  content: string | AnthropicBlock[];
  sources: number[];
  /** A system turn's fields beside its content (`provider_data.anthropic.turn_fields`). */
  fields?: Record<string, unknown>;
}

/** What `toAnthropic` produces, with the canonical source index of every piece. */
export interface AnthropicPlan {
  system?: string | AnthropicTextBlock[];
  systemSources: number[];
  /** Per entry of `systemSources`: how many blocks of `system` it makes (a string: 1). */
  systemSizes: number[];
  turns: PlannedTurn[];
  /** True when a user turn was prepended because the conversation started with an assistant turn. */
  prependedUserTurn: boolean;
}

/** A fresh block array (stored blocks must never be modified in place). */
function asBlocks(content: string | AnthropicBlock[]): AnthropicBlock[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : [...content];
}

/** One entry per block `content` makes (a string makes one). */
function sizeOf(content: string | readonly unknown[]): unknown[] {
  return typeof content === "string" ? [content] : [...content];
}

/**
 * @internal The conversion behind `toAnthropic`, also used by
 * `validateMessages(…, "anthropic")` to map problems back to message indices.
 */
export function planAnthropic(messages: readonly ChatMessage[]): AnthropicPlan {
  const systems: Array<{ content: string | AnthropicTextBlock[]; source: number }> = [];
  const turns: PlannedTurn[] = [];
  const leadingResults: number[] = []; // per turn: how many tool_result blocks open it
  const toolIds = anthropicToolIds(messages);
  messages.forEach((message, index) => {
    if (message.role === "system" || message.role === "developer") {
      const stored = storedBlocks(message) as string | AnthropicTextBlock[] | undefined;
      const content = stored ?? systemContent(message);
      const copy = typeof content === "string" ? content : [...content];
      if (message.provider_data?.anthropic?.in_messages === true) {
        // A system turn stays where it stood, a turn of its own.
        const fields = message.provider_data.anthropic.turn_fields;
        turns.push({
          role: "system",
          // A turn of per-turn control only goes back as it came, without a block.
          content: copy === "" && fields !== undefined ? [] : copy,
          sources: sizeOf(copy).map(() => index),
          ...(fields !== undefined ? { fields } : {}),
        });
        leadingResults.push(0);
        return;
      }
      systems.push({ content: copy, source: index });
      return;
    }
    const role: AnthropicRole = message.role === "assistant" ? "assistant" : "user";
    const found = withToolIds(storedBlocks(message) ?? messageContent(message), toolIds.get(index));
    // Copies: stored blocks must never be modified, and turns are extended in place below.
    const content = typeof found === "string" ? found : [...found];
    const added = typeof content === "string" ? 1 : content.length;
    const last = turns.at(-1);
    if (last === undefined || last.role !== role) {
      turns.push({ role, content, sources: Array.from({ length: added }, () => index) });
      leadingResults.push(message.role === "tool" ? added : 0);
      return;
    }
    if (typeof last.content === "string") last.content = asBlocks(last.content);
    const blocks = last.content;
    const newBlocks = asBlocks(content);
    const newSources = newBlocks.map(() => index);
    if (message.role === "tool") {
      // Tool results go after the turn's other tool results and before its other blocks.
      const at = leadingResults[turns.length - 1] ?? 0;
      blocks.splice(at, 0, ...newBlocks);
      last.sources.splice(at, 0, ...newSources);
      leadingResults[turns.length - 1] = at + newBlocks.length;
    } else {
      blocks.push(...newBlocks);
      last.sources.push(...newSources);
    }
  });
  let prependedUserTurn = false;
  if (turns[0]?.role === "assistant") {
    turns.unshift({ role: "user", content: LEADING_USER_TEXT, sources: [-1] });
    prependedUserTurn = true;
  }
  const plan: AnthropicPlan = {
    systemSources: systems.map((entry) => entry.source),
    systemSizes: systems.map((entry) => sizeOf(entry.content).length),
    turns,
    prependedUserTurn,
  };
  const first = systems[0];
  if (systems.length === 1 && first !== undefined) plan.system = withoutBlankBlocks(first.content);
  else if (systems.length > 1) {
    plan.system = withoutBlankBlocks(
      systems.flatMap((entry) =>
        typeof entry.content === "string"
          ? [{ type: "text" as const, text: entry.content }]
          : entry.content,
      ),
    );
  }
  return plan;
}

/** System blocks without the whitespace-only ones Anthropic rejects, when others remain. */
function withoutBlankBlocks(system: string | AnthropicTextBlock[]): string | AnthropicTextBlock[] {
  if (typeof system === "string") return system;
  const kept = system.filter((block) => block.text.trim() !== "");
  return kept.length > 0 ? kept : system;
}
