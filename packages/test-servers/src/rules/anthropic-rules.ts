/**
 * @module rules/anthropic-rules
 * The Anthropic Messages API's documented request rules the scripted upstream
 * enforces, with Anthropic's own error wording: at most 4 `cache_control`
 * blocks; message roles (`system` turns only under the per-turn-control beta
 * that Claude Code announces); no empty message or text block; every
 * `tool_use` answered by a `tool_result` in the next message and every
 * `tool_result` answering a `tool_use` of the previous one; thinking blocks
 * returned with the signature they were issued with, and, while thinking is
 * on, the last assistant turn of a tool loop starting with its thinking block;
 * the cache-diagnostics opt-in (`diagnostics`) an object whose only field,
 * `previous_message_id`, is a string or null
 * (platform.claude.com/docs/en/build-with-claude/cache-diagnostics; the SDK's
 * `DiagnosticsParam`).
 */

import { isObject, type JsonObject, objects } from "../json.ts";
import { verifies } from "./signatures.ts";
import type { Violation } from "./violation.ts";

export const MAX_CACHE_CONTROL_BLOCKS = 4;
/** The beta under which Claude Code sends `system` turns inside `messages`. */
export const SYSTEM_TURNS_BETA = "per-turn-control";

function invalid(message: string): Violation {
  return { status: 400, errorType: "invalid_request_error", message };
}

function blocks(message: JsonObject): JsonObject[] {
  return typeof message.content === "string"
    ? [{ type: "text", text: message.content }]
    : objects(message.content);
}

function countCacheControl(value: unknown): number {
  if (Array.isArray(value))
    return value.reduce<number>((sum, item) => sum + countCacheControl(item), 0);
  if (!isObject(value)) return 0;
  let count = isObject(value.cache_control) ? 1 : 0;
  // Blocks nest (a tool_result's content); a block's own fields hold no further blocks.
  if (Array.isArray(value.content)) count += countCacheControl(value.content);
  return count;
}

export function cacheControlViolation(body: JsonObject): Violation | undefined {
  const system = Array.isArray(body.system) ? countCacheControl(body.system) : 0;
  const found =
    countCacheControl(body.tools) +
    system +
    objects(body.messages).reduce((sum, message) => sum + countCacheControl(blocks(message)), 0);
  return found > MAX_CACHE_CONTROL_BLOCKS
    ? invalid(
        `A maximum of ${MAX_CACHE_CONTROL_BLOCKS} blocks with cache_control may be provided. Found ${found}.`,
      )
    : undefined;
}

export function roleViolation(body: JsonObject, betas: string): Violation | undefined {
  const systemTurns = betas.includes(SYSTEM_TURNS_BETA);
  const messages = Array.isArray(body.messages) ? body.messages : [];
  if (messages.length === 0) return invalid("messages: at least one message is required");
  for (const [index, message] of messages.entries()) {
    if (!isObject(message)) return invalid(`messages.${index}: Input should be a valid dictionary`);
    const role = message.role;
    if (role === "user" || role === "assistant" || (role === "system" && systemTurns)) continue;
    return invalid(`messages.${index}.role: Input should be 'user' or 'assistant'`);
  }
  return undefined;
}

/**
 * A `system` turn that carries per-turn control (`output_config`) beside its content: Claude Code
 * 2.1 sends one with empty content when it resumes a conversation (`--continue`), the effort for
 * the turns after it; the content rule is for what the model reads.
 */
function controlTurn(message: JsonObject): boolean {
  return message.role === "system" && isObject(message.output_config);
}

export function emptyContentViolation(body: JsonObject): Violation | undefined {
  const messages = objects(body.messages);
  for (const [index, message] of messages.entries()) {
    const content = blocks(message);
    const last = index === messages.length - 1 && message.role === "assistant";
    if (content.length === 0 && !last && !controlTurn(message)) {
      return invalid(
        `messages.${index}: all messages must have non-empty content except for the optional final assistant message`,
      );
    }
    if (content.some((block) => block.type === "text" && block.text === "")) {
      return invalid("messages: text content blocks must be non-empty");
    }
  }
  return undefined;
}

const toolUseIds = (message: JsonObject | undefined): string[] =>
  message?.role === "assistant"
    ? blocks(message)
        .filter((block) => block.type === "tool_use")
        .map((block) => String(block.id))
    : [];

/** Messages other than `system` turns (which sit between the two sides of a conversation). */
function conversation(body: JsonObject): Array<{ index: number; message: JsonObject }> {
  return objects(body.messages)
    .map((message, index) => ({ index, message }))
    .filter(({ message }) => message.role !== "system");
}

export function toolPairingViolation(body: JsonObject): Violation | undefined {
  const turns = conversation(body);
  for (const [position, { index, message }] of turns.entries()) {
    const previous = turns[position - 1]?.message;
    const asked = new Set(toolUseIds(previous));
    for (const [blockIndex, block] of blocks(message).entries()) {
      if (block.type !== "tool_result") continue;
      if (message.role !== "user" || !asked.has(String(block.tool_use_id))) {
        return invalid(
          `messages.${index}.content.${blockIndex}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        );
      }
    }
    const ids = toolUseIds(message);
    if (ids.length === 0) continue;
    const next = turns[position + 1]?.message;
    // The final assistant message may end in tool_use only if it is the last message (a prefill).
    if (next === undefined) continue;
    const answered = new Set(
      next.role === "user"
        ? blocks(next)
            .filter((block) => block.type === "tool_result")
            .map((block) => String(block.tool_use_id))
        : [],
    );
    const missing = ids.filter((id) => !answered.has(id));
    if (missing.length > 0) {
      return invalid(
        `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      );
    }
  }
  return undefined;
}

function thinkingOn(body: JsonObject): boolean {
  return (
    isObject(body.thinking) &&
    (body.thinking.type === "enabled" || body.thinking.type === "adaptive")
  );
}

export function thinkingViolation(body: JsonObject): Violation | undefined {
  const messages = objects(body.messages);
  for (const [index, message] of messages.entries()) {
    if (message.role !== "assistant") continue;
    for (const [blockIndex, block] of blocks(message).entries()) {
      if (block.type === "thinking" && !verifies(String(block.thinking), block.signature)) {
        return invalid(
          `messages.${index}.content.${blockIndex}: Invalid \`signature\` in \`thinking\` block`,
        );
      }
    }
  }
  if (!thinkingOn(body)) return undefined;
  // The tool loop in progress: the last assistant turn, when everything after it answers its tool calls.
  const turns = conversation(body);
  const lastAssistant = turns.findLast(({ message }) => message.role === "assistant");
  if (lastAssistant === undefined || toolUseIds(lastAssistant.message).length === 0)
    return undefined;
  const first = blocks(lastAssistant.message)[0];
  if (first?.type === "thinking" || first?.type === "redacted_thinking") return undefined;
  return invalid(
    `messages.${lastAssistant.index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`,
  );
}

/**
 * The cache-diagnostics opt-in: absent or null (no opt-in), or `{ previous_message_id }` with null
 * (the first turn) or the previous answer's id; an unknown id is no error (the answer's diagnostics
 * then say `previous_message_not_found`).
 */
export function diagnosticsViolation(body: JsonObject): Violation | undefined {
  const { diagnostics } = body;
  if (diagnostics === undefined || diagnostics === null) return undefined;
  if (!isObject(diagnostics)) {
    return invalid(
      "diagnostics: Input should be a valid dictionary or object to extract fields from",
    );
  }
  for (const [name, value] of Object.entries(diagnostics)) {
    if (name !== "previous_message_id") {
      return invalid(`diagnostics.${name}: Extra inputs are not permitted`);
    }
    if (value !== null && typeof value !== "string") {
      return invalid("diagnostics.previous_message_id: Input should be a valid string");
    }
  }
  return undefined;
}

/** The first rule `body` breaks, or undefined. `betas` is the request's `anthropic-beta` header. */
export function anthropicViolation(body: JsonObject, betas: string): Violation | undefined {
  return (
    roleViolation(body, betas) ??
    diagnosticsViolation(body) ??
    cacheControlViolation(body) ??
    emptyContentViolation(body) ??
    toolPairingViolation(body) ??
    thinkingViolation(body)
  );
}
