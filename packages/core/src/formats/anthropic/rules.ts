/**
 * @module formats/anthropic/rules
 * Anthropic's rules for a conversation, checked on the request `toAnthropic`
 * would send (its plan) and reported by canonical message index: alternating
 * turns starting with a user turn, every tool_use answered in the next user
 * turn with its tool_result blocks first, tool ids Anthropic accepts, used
 * once, no empty text, and no part Anthropic cannot hold (audio, files other
 * than PDF, text and images).
 */

import type { MessageProblem } from "../../errors/condense-error.js";
import {
  misplacedResult,
  onlySystemMessages,
  problem,
  unanswered,
} from "../../messages/call-problems.js";
import type { ChatMessage } from "../../messages/types.js";
import { type AnthropicPlan, type PlannedTurn, planAnthropic } from "./plan.js";
import { isAnthropicToolId } from "./tool-ids.js";
import { isKnownBlock } from "./types.js";
import { anthropicUnsupportedParts } from "./unsupported-parts.js";

/**
 * Tool ids of the request `toAnthropic` sends: Anthropic accepts `[a-zA-Z0-9_-]` only, and each
 * tool_use id once. (`toAnthropic` maps ids so that both hold: this is the guard.)
 */
function anthropicToolIdProblems(plan: AnthropicPlan): MessageProblem[] {
  const problems: MessageProblem[] = [];
  const owners = new Map<string, number>();
  for (const turn of plan.turns) {
    if (typeof turn.content === "string") continue;
    turn.content.forEach((block, blockIndex) => {
      if (!isKnownBlock(block)) return;
      const at = turn.sources[blockIndex] ?? -1;
      const id =
        block.type === "tool_use"
          ? block.id
          : block.type === "tool_result"
            ? block.tool_use_id
            : undefined;
      if (id === undefined) return;
      if (!isAnthropicToolId(id)) {
        problems.push(
          problem(
            at,
            block.type === "tool_use" ? "tool_calls" : "tool_call_id",
            "invalid_tool_id",
            `tool id \`${id}\` would reach Anthropic, which accepts only letters, digits, _ and -; convert with toAnthropic, which maps such ids`,
          ),
        );
      }
      if (block.type !== "tool_use") return;
      const owner = owners.get(id);
      if (owner === undefined) owners.set(id, at);
      else {
        problems.push(
          problem(
            at,
            "tool_calls",
            "duplicate_tool_call_id",
            `tool_use id \`${id}\` is already used by message ${owner}; Anthropic needs every tool_use id once`,
          ),
        );
      }
    });
  }
  return problems;
}

/** The canonical id and position of the call a planned tool_use block stands for. */
function plannedCall(
  messages: readonly ChatMessage[],
  turn: PlannedTurn,
  blockIndex: number,
): { at: number; callIndex: number; id: string } {
  const at = turn.sources[blockIndex] ?? -1;
  let callIndex = 0;
  for (let i = 0; i < blockIndex; i++) {
    const earlier = typeof turn.content === "string" ? undefined : turn.content[i];
    if (turn.sources[i] === at && earlier?.type === "tool_use") callIndex++;
  }
  const block = typeof turn.content === "string" ? undefined : turn.content[blockIndex];
  const fallback =
    block !== undefined && isKnownBlock(block) && block.type === "tool_use" ? block.id : "";
  return { at, callIndex, id: messages[at]?.tool_calls?.[callIndex]?.id ?? fallback };
}

export function validateAnthropic(messages: readonly ChatMessage[]): MessageProblem[] {
  const planned = planAnthropic(messages);
  // The rules of turns are the user and assistant turns'; system turns in place only need text.
  const plan = { ...planned, turns: planned.turns.filter((turn) => turn.role !== "system") };
  // Reused canonical ids are not a problem here: toAnthropic gives each use its own id.
  const problems = [...anthropicUnsupportedParts(messages), ...anthropicToolIdProblems(plan)];
  for (const turn of planned.turns) {
    if (turn.role === "system") checkAnthropicContent(turn.content, turn.sources, problems);
  }
  if (plan.turns.length === 0) {
    problems.push(...onlySystemMessages(messages, "Anthropic"));
    return problems;
  }
  if (plan.turns[0]?.role !== "user") {
    problems.push(
      problem(
        0,
        "role",
        "starts_with_assistant",
        "Anthropic needs the conversation to start with a user turn; add a user message first",
      ),
    );
  }
  // Planned (Anthropic) id → the canonical call it stands for.
  type Use = { at: number; callIndex: number; id: string };
  let previousUses = new Map<string, Use>();
  plan.turns.forEach((turn, turnIndex) => {
    const previous = plan.turns[turnIndex - 1];
    const source = turn.sources[0] ?? -1;
    if (previous && previous.role === turn.role) {
      problems.push(
        problem(
          source,
          "role",
          "roles_not_alternating",
          `two ${turn.role} turns in a row; merge them into one`,
        ),
      );
    }
    checkAnthropicContent(turn.content, turn.sources, problems);
    const blocks = typeof turn.content === "string" ? [] : turn.content;
    if (turn.role === "user") {
      const answered = new Set<string>();
      let seenOther = false;
      blocks.forEach((block, blockIndex) => {
        const at = turn.sources[blockIndex] ?? source;
        if (!isKnownBlock(block) || block.type !== "tool_result") {
          seenOther = true;
          return;
        }
        if (seenOther) {
          problems.push(
            problem(
              at,
              "",
              "tool_result_not_first",
              "tool_result blocks must come before other blocks of their user turn",
            ),
          );
        }
        // Problems name the id the caller gave, not the one toAnthropic mapped it to.
        const id = messages[at]?.tool_call_id ?? block.tool_use_id;
        if (!previousUses.has(block.tool_use_id)) {
          const expected = "Anthropic needs it in the user turn right after its tool_use";
          problems.push(misplacedResult(messages, at, id, expected));
        } else if (answered.has(block.tool_use_id)) {
          problems.push(
            problem(
              at,
              "tool_call_id",
              "duplicate_result",
              `call \`${id}\` already has a result in this turn; remove this second one`,
            ),
          );
        }
        answered.add(block.tool_use_id);
      });
      for (const [planned, use] of previousUses) {
        if (!answered.has(planned))
          problems.push(unanswered(use.at, use.callIndex, use.id, "in the next user turn"));
      }
      previousUses = new Map();
    } else {
      for (const use of previousUses.values())
        problems.push(unanswered(use.at, use.callIndex, use.id, "in the next user turn"));
      previousUses = new Map();
      blocks.forEach((block, blockIndex) => {
        if (isKnownBlock(block) && block.type === "tool_use")
          previousUses.set(block.id, plannedCall(messages, turn, blockIndex));
      });
    }
  });
  for (const use of previousUses.values())
    problems.push(unanswered(use.at, use.callIndex, use.id, "(the conversation ends)"));
  return problems;
}

function checkAnthropicContent(
  content: string | readonly { type: string; text?: unknown }[],
  sources: readonly number[],
  problems: MessageProblem[],
): void {
  const source = sources[0] ?? -1;
  const emptyText =
    "Anthropic rejects empty or whitespace-only text; remove the message or give it text";
  if (typeof content === "string") {
    if (content.trim() === "")
      problems.push(problem(source, "content", "empty_content", emptyText));
    return;
  }
  if (content.length === 0) {
    problems.push(problem(source, "content", "empty_content", emptyText));
    return;
  }
  let meaningful = false;
  content.forEach((block, blockIndex) => {
    if (block.type !== "text") {
      meaningful = true;
      return;
    }
    const text = typeof block.text === "string" ? block.text : "";
    if (text === "") {
      problems.push(problem(sources[blockIndex] ?? source, "content", "empty_content", emptyText));
    } else if (text.trim() !== "") {
      meaningful = true;
    }
  });
  if (!meaningful) problems.push(problem(source, "content", "empty_content", emptyText));
}
