/**
 * @module messages/validate
 * Checks that canonical messages form a conversation a provider accepts: tool
 * calls and their results in the right places, turn order, no empty content.
 * Shape (types, roles) is `parseMessages`' job; this checks structure. An empty
 * list has no structure problems (`parseMessages` rejects it).
 */

import type { MessageProblem } from "../errors/condense-error.js";
import { planAnthropic } from "../formats/anthropic.js";
import { ambiguousCallIds } from "./call-ids.js";
import type { ChatMessage, Provider } from "./types.js";

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

/**
 * Call ids used more than once, reported at every later use: Anthropic needs every tool_use id
 * unique (`toAnthropic` renames reused ones).
 */
function duplicateCallIds(messages: readonly ChatMessage[]): MessageProblem[] {
  const problems: MessageProblem[] = [];
  const owners = new Map<string, number>();
  messages.forEach((message, index) => {
    callsOf(message).forEach((call, callIndex) => {
      const owner = owners.get(call.id);
      if (owner === undefined) owners.set(call.id, index);
      else {
        problems.push(
          problem(
            index,
            `tool_calls[${callIndex}].id`,
            "duplicate_tool_call_id",
            `tool call id \`${call.id}\` is already used by message ${owner}; give every tool call a unique id`,
          ),
        );
      }
    });
  });
  return problems;
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

function validateOpenAI(messages: readonly ChatMessage[]): MessageProblem[] {
  // OpenAI takes an id again once its call is answered (servers number calls afresh every turn).
  const problems = ambiguousCallIds(messages);
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

function validateAnthropic(messages: readonly ChatMessage[]): MessageProblem[] {
  const problems = duplicateCallIds(messages);
  const plan = planAnthropic(messages);
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
  let previousUses = new Map<string, number>();
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
        if (!previousUses.has(block.tool_use_id)) {
          const expected = "Anthropic needs it in the user turn right after its tool_use";
          problems.push(misplacedResult(messages, at, block.tool_use_id, expected));
        } else if (answered.has(block.tool_use_id)) {
          problems.push(
            problem(
              at,
              "tool_call_id",
              "duplicate_result",
              `call \`${block.tool_use_id}\` already has a result in this turn; remove this second one`,
            ),
          );
        }
        answered.add(block.tool_use_id);
      });
      for (const [id, at] of previousUses) {
        if (!answered.has(id)) {
          const callIndex = (messages[at]?.tool_calls ?? []).findIndex((call) => call.id === id);
          problems.push(unanswered(at, callIndex, id, "in the next user turn"));
        }
      }
      previousUses = new Map();
    } else {
      for (const [id, at] of previousUses) {
        const callIndex = (messages[at]?.tool_calls ?? []).findIndex((call) => call.id === id);
        problems.push(unanswered(at, callIndex, id, "in the next user turn"));
      }
      previousUses = new Map();
      blocks.forEach((block, blockIndex) => {
        if (block.type === "tool_use")
          previousUses.set(block.id, turn.sources[blockIndex] ?? source);
      });
    }
  });
  for (const [id, at] of previousUses) {
    const callIndex = (messages[at]?.tool_calls ?? []).findIndex((call) => call.id === id);
    problems.push(unanswered(at, callIndex, id, "(the conversation ends)"));
  }
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
