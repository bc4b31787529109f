/**
 * @module messages/validate
 * Checks that canonical messages form a conversation a provider accepts: tool
 * calls and their results in the right places, turn order, no empty content.
 * Shape (types, roles) is `parseMessages`' job; this checks structure. An empty
 * list has no structure problems (`parseMessages` rejects it).
 */

import type { MessageProblem } from "../errors/condense-error.js";
import { ambiguousCallIds } from "../messages/call-ids.js";
import type { ChatMessage, Provider } from "../messages/types.js";
import {
  type AnthropicPlan,
  isAnthropicToolId,
  type PlannedTurn,
  planAnthropic,
} from "./anthropic/convert.js";

export interface ValidationResult {
  ok: boolean;
  problems: MessageProblem[];
}

/** Checks `messages` against the rules of `provider`; `ok` is true when there is no problem. */
export function validateMessages(
  messages: readonly ChatMessage[],
  provider: Provider,
): ValidationResult {
  let problems: MessageProblem[];
  switch (provider) {
    case "openai":
      problems = validateOpenAI(messages);
      break;
    case "anthropic":
      problems = validateAnthropic(messages);
      break;
    case "gemini":
      problems = validateGemini(messages);
      break;
    default:
      problems = [
        {
          index: -1,
          path: "",
          kind: "unknown_provider",
          message: `provider ${JSON.stringify(String(provider))} is not supported; use openai, anthropic or gemini`,
        },
      ];
  }
  return { ok: problems.length === 0, problems };
}

function callsOf(message: ChatMessage): readonly { id: string }[] {
  return message.role === "assistant" && Array.isArray(message.tool_calls)
    ? message.tool_calls
    : [];
}

function problem(index: number, path: string, kind: string, message: string): MessageProblem {
  return { index, path, kind, message };
}

/** Index of the assistant message that made call `id` anywhere in the list, if any. */
function callOwner(messages: readonly ChatMessage[], id: string | undefined): number | undefined {
  if (id === undefined) return undefined;
  const index = messages.findIndex((message) => callsOf(message).some((call) => call.id === id));
  return index === -1 ? undefined : index;
}

function misplacedResult(
  messages: readonly ChatMessage[],
  index: number,
  id: string | undefined,
  expected: string,
): MessageProblem {
  if (id === undefined || id === "") {
    return problem(
      index,
      "tool_call_id",
      "missing_tool_call_id",
      "a tool message must name the call it answers; add the `tool_call_id` of the assistant tool call",
    );
  }
  const owner = callOwner(messages, id);
  if (owner === undefined) {
    return problem(
      index,
      "tool_call_id",
      "orphan_result",
      `tool message answers \`${id}\`, but no assistant message made that call; remove it (repairMessages drops it)`,
    );
  }
  return problem(
    index,
    "tool_call_id",
    "misplaced_result",
    `tool message answers \`${id}\` of message ${owner}, but ${expected}; move it right after message ${owner}'s other results (repairMessages moves it)`,
  );
}

function unanswered(
  assistant: number,
  callIndex: number,
  id: string,
  where: string,
): MessageProblem {
  return problem(
    assistant,
    `tool_calls[${callIndex}]`,
    "unanswered_call",
    `tool call \`${id}\` has no result ${where}; add a tool message with tool_call_id \`${id}\` right after message ${assistant} (repairMessages adds one)`,
  );
}

/**
 * User and assistant turns that carry nothing (an aborted turn: no text, no image, no tool call),
 * and empty content arrays anywhere: OpenAI rejects both.
 */
function emptyTurns(messages: readonly ChatMessage[]): MessageProblem[] {
  const problems: MessageProblem[] = [];
  messages.forEach((message, index) => {
    if (Array.isArray(message.content) && message.content.length === 0) {
      if (message.role !== "user" && message.role !== "assistant") {
        problems.push(
          problem(
            index,
            "content",
            "empty_content",
            "`content` is an empty array, which OpenAI rejects; send a string or at least one part",
          ),
        );
        return;
      }
    }
    if (message.role !== "user" && message.role !== "assistant") return;
    if (callsOf(message).length > 0) {
      if (Array.isArray(message.content) && message.content.length === 0) {
        problems.push(
          problem(
            index,
            "content",
            "empty_content",
            "`content` is an empty array, which OpenAI rejects; send null or a string next to tool calls",
          ),
        );
      }
      return;
    }
    if (hasNothingForOpenAI(message)) {
      problems.push(
        problem(
          index,
          "content",
          "empty_turn",
          `this ${message.role} message has no content and no tool calls (an aborted turn?), which providers reject; remove it (repairMessages drops empty turns) or give it text`,
        ),
      );
    }
  });
  return problems;
}

function validateOpenAI(messages: readonly ChatMessage[]): MessageProblem[] {
  // OpenAI takes an id again once its call is answered (servers number calls afresh every turn).
  const problems = [...ambiguousCallIds(messages), ...emptyTurns(messages)];
  let open: { index: number; ids: string[]; answered: Set<string> } | undefined;
  const close = (at: number | undefined): void => {
    if (!open) return;
    const where = at === undefined ? "(the conversation ends)" : `before message ${at}`;
    for (const [callIndex, id] of open.ids.entries()) {
      if (!open.answered.has(id)) problems.push(unanswered(open.index, callIndex, id, where));
    }
    open = undefined;
  };
  messages.forEach((message, index) => {
    if (message.role === "tool") {
      const id = message.tool_call_id;
      if (open && id !== undefined && open.ids.includes(id)) {
        if (open.answered.has(id)) {
          problems.push(
            problem(
              index,
              "tool_call_id",
              "duplicate_result",
              `call \`${id}\` already has a result; remove this second one (repairMessages drops it)`,
            ),
          );
        } else {
          open.answered.add(id);
        }
        return;
      }
      const expected = open
        ? `it sits among the results of message ${open.index}`
        : "it does not follow its assistant message's results";
      problems.push(misplacedResult(messages, index, id, expected));
      return;
    }
    close(index);
    const calls = callsOf(message);
    if (calls.length > 0) open = { index, ids: calls.map((call) => call.id), answered: new Set() };
  });
  close(undefined);
  return problems;
}

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
  const fallback = block?.type === "tool_use" ? block.id : "";
  return { at, callIndex, id: messages[at]?.tool_calls?.[callIndex]?.id ?? fallback };
}

function validateAnthropic(messages: readonly ChatMessage[]): MessageProblem[] {
  const plan = planAnthropic(messages);
  // Reused canonical ids are not a problem here: toAnthropic gives each use its own id.
  const problems = anthropicToolIdProblems(plan);
  if (plan.turns.length === 0) {
    if (messages.length > 0) {
      problems.push(
        problem(
          -1,
          "",
          "no_user_turn",
          "the conversation has only system messages; Anthropic needs at least one user message",
        ),
      );
    }
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
        if (block.type !== "tool_result") {
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
        if (block.type === "tool_use")
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

/** No text (empty strings only), no image, no tool call: what OpenAI rejects as an empty turn. */
function hasNothingForOpenAI(message: ChatMessage): boolean {
  if (callsOf(message).length > 0) return false;
  const content = message.content;
  if (content === null) return true;
  if (typeof content === "string") return content === "";
  return content.every((part) => part.type === "text" && part.text === "");
}

function isEmptyContent(message: ChatMessage): boolean {
  const content = message.content;
  if (content === null || content === "") return true;
  if (typeof content === "string") return false;
  return content.length === 0;
}

function validateGemini(messages: readonly ChatMessage[]): MessageProblem[] {
  const problems = ambiguousCallIds(messages);
  const conversation = messages
    .map((message, index) => ({ message, index }))
    .filter(({ message }) => message.role !== "system" && message.role !== "developer");
  const first = conversation[0];
  if (first === undefined) {
    if (messages.length > 0) {
      problems.push(
        problem(
          -1,
          "",
          "no_user_turn",
          "the conversation has only system messages; Gemini needs at least one user message",
        ),
      );
    }
    return problems;
  }
  if (first.message.role !== "user") {
    problems.push(
      problem(
        first.index,
        "role",
        "starts_with_model",
        `Gemini needs the conversation to start with a user turn (after the system instruction), not a ${first.message.role} message; add a user message before it`,
      ),
    );
  }
  // Model turn = consecutive assistant messages; its function calls must be answered by the tool messages right after it.
  let pending: Map<string, { at: number; callIndex: number }> | undefined;
  let modelTurnStart = -1;
  const closePending = (where: string): void => {
    if (!pending) return;
    for (const [id, { at, callIndex }] of pending)
      problems.push(unanswered(at, callIndex, id, where));
    pending = undefined;
  };
  conversation.forEach(({ message, index }, position) => {
    const previous = conversation[position - 1]?.message;
    if (message.role === "assistant") {
      if (previous?.role !== "assistant") {
        closePending(`before message ${index}`);
        modelTurnStart = index;
      }
      const calls = callsOf(message);
      if (calls.length > 0) {
        pending ??= new Map();
        calls.forEach((call, callIndex) => {
          pending?.set(call.id, { at: index, callIndex });
        });
      }
      if (isEmptyContent(message) && calls.length === 0) {
        problems.push(
          problem(
            index,
            "content",
            "empty_parts",
            "Gemini rejects a model turn without parts; remove the message or give it text",
          ),
        );
      }
      return;
    }
    if (message.role === "tool") {
      const id = message.tool_call_id;
      if (pending && id !== undefined && pending.has(id)) {
        pending.delete(id);
        return;
      }
      const expected = `Gemini needs function responses directly after the model turn with the calls${modelTurnStart >= 0 ? ` (message ${modelTurnStart})` : ""}`;
      problems.push(misplacedResult(messages, index, id, expected));
      return;
    }
    closePending(`before message ${index}`);
    if (isEmptyContent(message)) {
      problems.push(
        problem(
          index,
          "content",
          "empty_parts",
          "Gemini rejects a turn without parts; remove the message or give it text",
        ),
      );
    } else if (Array.isArray(message.content)) {
      message.content.forEach((part, partIndex) => {
        if (part.type === "text" && part.text === "") {
          problems.push(
            problem(
              index,
              `content[${partIndex}]`,
              "empty_parts",
              "Gemini rejects an empty text part; remove it",
            ),
          );
        }
      });
    }
  });
  closePending("(the conversation ends)");
  return problems;
}
