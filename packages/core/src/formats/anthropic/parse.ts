/**
 * @module formats/anthropic/parse
 * Shape checks of an untrusted Anthropic request: every problem is collected
 * (`InvalidMessagesError` lists them all), and a well-formed copy is returned.
 * The same checks tell the converter whether blocks stored in
 * `provider_data.anthropic.blocks` are still sendable. Blocks of a type the
 * engine does not know, and system turns in `messages`, are accepted: they are
 * forwarded for the provider to judge. The checks of each block are
 * `formats/anthropic/block-checks`'.
 */

import {
  field,
  isRecord,
  ProblemCollector,
  quote,
  type TextOrListField,
  textOrList,
  typeName,
  wellFormedDeep,
} from "../../messages/input-checks.js";
import {
  itemNestsTooDeep,
  MAX_ITEM_NESTING,
  nestsPastItems,
  tooDeepMessage,
} from "../../messages/limits.js";
import { checkBlock, checkTextBlock } from "./block-checks.js";
import type { AnthropicMessage, AnthropicRequest, AnthropicTextBlock } from "./types.js";

export function checkMessage(
  value: unknown,
  index: number,
  problems: ProblemCollector,
  toolUseOwners: Map<string, number>,
): void {
  const report = problems.at(index);
  if (!isRecord(value)) {
    report(
      "",
      "not_an_object",
      `each message must be an object { "role", "content" }, got ${typeName(value)}`,
    );
    return;
  }
  const role = field(value, "role");
  if (role === "system") {
    // A system turn in place: text, as the top-level `system`.
    checkSystemContent(field(value, "content"), index, "content", problems);
    return;
  }
  if (role !== "user" && role !== "assistant") {
    report(
      "role",
      "unknown_role",
      `Anthropic messages have role user, assistant or system, got ${quote(role)}`,
    );
    return;
  }
  const content = textOrList(field(value, "content"), CONTENT, report);
  content?.forEach((block: unknown, blockIndex) => {
    const path = `content[${blockIndex}]`;
    checkBlock(block, role, path, report);
    if (
      role === "assistant" &&
      isRecord(block) &&
      block.type === "tool_use" &&
      typeof block.id === "string"
    ) {
      const owner = toolUseOwners.get(block.id);
      if (owner !== undefined) {
        report(
          `${path}.id`,
          "duplicate_tool_call_id",
          `tool_use id ${quote(block.id)} is already used by message ${owner}; give every tool_use a unique id`,
        );
      } else {
        toolUseOwners.set(block.id, index);
      }
    }
  });
}

/** A turn's `content`: text, or a non-empty list of blocks. */
const CONTENT: TextOrListField = {
  path: "content",
  subject: "`content`",
  items: "content blocks",
  kind: "invalid_content",
  empty: { kind: "empty_content", fix: "send a string or at least one block" },
};

export function checkSystem(system: unknown, problems: ProblemCollector): void {
  if (system === undefined || system === null) return;
  checkSystemContent(system, -1, "system", problems);
}

/** System text (the top-level `system`, or a system turn's `content`): a string or text blocks. */
function checkSystemContent(
  content: unknown,
  index: number,
  path: string,
  problems: ProblemCollector,
): void {
  const report = problems.at(index);
  const subject = `\`${path}\` of a system prompt`;
  const blocks = textOrList(
    content,
    { path, subject, items: "text blocks", kind: "invalid_system" },
    report,
  );
  blocks?.forEach((block: unknown, blockIndex) => {
    const at = `${path}[${blockIndex}]`;
    if (!isRecord(block) || field(block, "type") !== "text") {
      report(
        at,
        "invalid_system",
        `system blocks must be text blocks { "type": "text", "text": "..." }, got ${isRecord(block) ? quote(field(block, "type")) : typeName(block)}`,
      );
      return;
    }
    checkTextBlock(block, at, report);
  });
}

/**
 * Checks an untrusted Anthropic request shape and returns a well-formed copy
 * (lone surrogates replaced). Throws `InvalidMessagesError` listing every problem.
 */
export function parseAnthropic(input: { system?: unknown; messages: unknown }): AnthropicRequest {
  const problems = new ProblemCollector();
  if (!isRecord(input)) {
    problems.add(
      -1,
      "",
      "not_an_object",
      `expected an Anthropic request { system, messages }, got ${typeName(input)}`,
    );
    problems.throwIfAny();
  }
  const messages = input.messages;
  if (!Array.isArray(messages)) {
    problems.add(
      -1,
      "",
      "not_an_array",
      `messages must be an array of Anthropic messages, got ${typeName(messages)}`,
    );
    problems.throwIfAny();
    return { messages: [] };
  }
  if (messages.length === 0) {
    problems.add(-1, "", "empty", "messages is empty; send at least one user message");
  }
  // Copying recurses: anything nested past what a provider accepts is rejected first. Each block is
  // measured as `messages/limits` measures it wherever it is read again (kept in provider_data).
  messages.forEach((message: unknown, index) => {
    const content = isRecord(message) ? field(message, "content") : undefined;
    const deep = Array.isArray(content) ? content.findIndex(itemNestsTooDeep) : -1;
    const what = deep >= 0 ? "this block" : "this message";
    if (deep >= 0 || nestsPastItems(message, 2)) {
      const path = deep >= 0 ? `content[${deep}]` : "";
      problems.add(index, path, "too_deep", tooDeepMessage(what, MAX_ITEM_NESTING));
    }
  });
  const systemBlocks = Array.isArray(input.system) ? input.system : [];
  if (nestsPastItems(input.system, 1) || systemBlocks.some(itemNestsTooDeep))
    problems.add(-1, "system", "too_deep", tooDeepMessage("a block of `system`", MAX_ITEM_NESTING));
  problems.throwIfAny();
  const copy = wellFormedDeep(messages) as unknown[];
  const system = wellFormedDeep(input.system);
  checkSystem(system, problems);
  const toolUseOwners = new Map<string, number>();
  copy.forEach((message, index) => {
    checkMessage(message, index, problems, toolUseOwners);
  });
  problems.throwIfAny();
  const request: AnthropicRequest = { messages: copy as AnthropicMessage[] };
  if (system !== undefined && system !== null)
    request.system = system as string | AnthropicTextBlock[];
  return request;
}
