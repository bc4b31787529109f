/**
 * @module formats/responses
 * Conversion between OpenAI Responses API input items and canonical Chat
 * Completions messages.
 *
 * Mapping:
 * - `message` item (roles user, assistant, system, developer) ↔ a message of the
 *   same role; string content stays a string, parts become content parts
 *   (`input_text`/`output_text`/`refusal` → text, `input_image` → image_url).
 * - `function_call` items join the assistant message right before them (an
 *   assistant `message` item or earlier function calls) as `tool_calls`; a
 *   function call with no such message starts an assistant message with
 *   `content: null`.
 * - `function_call_output` ↔ a tool message.
 * - `reasoning`, `compaction` items are opaque: they ride in
 *   `provider_data.responses.items` of the next message (trailing ones: of the
 *   last message) and are never visible content.
 * - Each message keeps its original items in `provider_data.responses.items`
 *   when the items `toResponses` would rebuild differ from them (ids, status,
 *   annotations, `type: "message"`, opaque items, ...). They are sent back
 *   verbatim while they still match the message; after the message was changed
 *   the message is rebuilt, keeping its opaque items and any unchanged item.
 *
 * So `toResponses(fromResponses(x))` deep-equals any valid `x` (lone surrogates
 * become U+FFFD). In the other direction Responses cannot hold `name` (dropped),
 * an assistant message without tool calls and `content: null` (sent as ""), an
 * empty assistant text next to tool calls (omitted), or the boundary between
 * an assistant message and function calls right after it (they come back as one
 * assistant message).
 */

import { reusedCallMessage, ToolCallTracker } from "../../messages/call-ids.js";
import {
  field,
  isRecord,
  jsonTextNestsTooDeep,
  MAX_NESTING,
  ProblemCollector,
  quote,
  tooDeepMessage,
  typeName,
  valueNestsTooDeep,
  wellFormedDeep,
} from "../../messages/input-checks.js";
import type {
  ChatMessage,
  ContentPart,
  MessageContent,
  Role,
  ToolCall,
} from "../../messages/types.js";
import { jsonEqual } from "../json-equal.js";

export interface ResponsesInputText {
  type: "input_text";
  text: string;
}

export interface ResponsesOutputText {
  type: "output_text";
  text: string;
  annotations?: unknown[];
  logprobs?: unknown[];
}

export interface ResponsesRefusal {
  type: "refusal";
  refusal: string;
}

export interface ResponsesInputImage {
  type: "input_image";
  image_url: string;
  detail?: "auto" | "low" | "high";
}

export type ResponsesContentPart =
  | ResponsesInputText
  | ResponsesOutputText
  | ResponsesRefusal
  | ResponsesInputImage;

export interface ResponsesMessageItem {
  type?: "message";
  role: "user" | "assistant" | "system" | "developer";
  content: string | ResponsesContentPart[];
  id?: string;
  status?: string;
}

export interface ResponsesFunctionCallItem {
  type: "function_call";
  call_id: string;
  name: string;
  arguments: string;
  id?: string;
  status?: string;
}

export interface ResponsesFunctionCallOutputItem {
  type: "function_call_output";
  call_id: string;
  output: string | Array<ResponsesInputText | ResponsesOutputText | ResponsesInputImage>;
  id?: string;
  status?: string;
}

export interface ResponsesReasoningItem {
  type: "reasoning";
  id?: string;
  summary?: Array<{ type: "summary_text"; text: string }>;
  content?: unknown[];
  encrypted_content?: string | null;
  status?: string;
}

export interface ResponsesCompactionItem {
  type: "compaction";
  encrypted_content: string;
  id?: string;
}

export type ResponseItem =
  | ResponsesMessageItem
  | ResponsesFunctionCallItem
  | ResponsesFunctionCallOutputItem
  | ResponsesReasoningItem
  | ResponsesCompactionItem;

type VisibleItem =
  | ResponsesMessageItem
  | ResponsesFunctionCallItem
  | ResponsesFunctionCallOutputItem;

const MESSAGE_ROLES = ["user", "assistant", "system", "developer"] as const;
const ITEM_TYPES = "message, function_call, function_call_output, reasoning or compaction";
const DETAILS = ["auto", "low", "high"] as const;

function isVisible(item: ResponseItem): item is VisibleItem {
  return item.type !== "reasoning" && item.type !== "compaction";
}

// ---------------------------------------------------------------------------
// Shape checks of untrusted items

function checkPart(
  part: unknown,
  allowed: readonly string[],
  index: number,
  path: string,
  problems: ProblemCollector,
): void {
  if (!isRecord(part)) {
    problems.add(
      index,
      path,
      "invalid_part",
      `a content part must be an object, got ${typeName(part)}`,
    );
    return;
  }
  const type = field(part, "type");
  if (typeof type !== "string" || !allowed.includes(type)) {
    const fix =
      type === "input_file"
        ? "send the file's text as an input_text part"
        : `use ${allowed.join(", ")}`;
    problems.add(
      index,
      `${path}.type`,
      "unknown_part_type",
      `unsupported content part type ${quote(type)} here; ${fix}`,
    );
    return;
  }
  if (type === "input_image") {
    const url = field(part, "image_url");
    if (typeof url !== "string" || url === "") {
      problems.add(
        index,
        `${path}.image_url`,
        "invalid_part",
        `an input_image part needs a string \`image_url\` (https or data URL), got ${typeName(url)}; images by file_id are not supported`,
      );
    }
    const detail = field(part, "detail");
    if (detail !== undefined && !DETAILS.some((value) => value === detail)) {
      problems.add(
        index,
        `${path}.detail`,
        "invalid_part",
        `unknown image detail ${quote(detail)}; use auto, low or high, or leave it out`,
      );
    }
    return;
  }
  const key = type === "refusal" ? "refusal" : "text";
  if (typeof field(part, key) !== "string") {
    problems.add(
      index,
      `${path}.${key}`,
      "invalid_part",
      `a ${type} part needs a string \`${key}\`, got ${typeName(field(part, key))}`,
    );
  }
}

function checkParts(
  value: unknown,
  allowed: readonly string[],
  index: number,
  path: string,
  what: string,
  problems: ProblemCollector,
): void {
  if (typeof value === "string") return;
  if (!Array.isArray(value)) {
    problems.add(
      index,
      path,
      "invalid_content",
      `${what} must be a string or an array of content parts, got ${typeName(value)}`,
    );
    return;
  }
  if (value.length === 0) {
    problems.add(
      index,
      path,
      "empty_content_parts",
      `${what} must not be an empty array; send a string ("" for none)`,
    );
    return;
  }
  value.forEach((part: unknown, partIndex) => {
    checkPart(part, allowed, index, `${path}[${partIndex}]`, problems);
  });
}

function checkNonEmptyString(
  item: Record<string, unknown>,
  key: string,
  what: string,
  index: number,
  problems: ProblemCollector,
): void {
  const value = field(item, key);
  if (typeof value !== "string" || value === "") {
    problems.add(
      index,
      key,
      "invalid_item",
      `${what} needs a non-empty string \`${key}\`, got ${typeName(value)}`,
    );
  }
}

function checkItem(
  value: unknown,
  index: number,
  problems: ProblemCollector,
  calls: ToolCallTracker,
): void {
  if (!isRecord(value)) {
    problems.add(
      index,
      "",
      "not_an_object",
      `each input item must be an object, got ${typeName(value)}`,
    );
    return;
  }
  const type = field(value, "type");
  if (type === undefined ? field(value, "role") !== undefined : type === "message") {
    const role = field(value, "role");
    if (!MESSAGE_ROLES.some((known) => known === role)) {
      problems.add(
        index,
        "role",
        "unknown_role",
        `unknown message role ${quote(role)}; use user, assistant, system or developer (tool results are function_call_output items)`,
      );
      return;
    }
    const allowed =
      role === "assistant"
        ? ["output_text", "input_text", "refusal"]
        : ["input_text", "output_text", "input_image"];
    checkParts(field(value, "content"), allowed, index, "content", "message `content`", problems);
    return;
  }
  switch (type) {
    case "function_call": {
      checkNonEmptyString(value, "call_id", "a function_call item", index, problems);
      checkNonEmptyString(value, "name", "a function_call item", index, problems);
      const args = field(value, "arguments");
      if (typeof args !== "string") {
        problems.add(
          index,
          "arguments",
          "invalid_arguments",
          `a function_call item needs \`arguments\` as a JSON string, got ${typeName(args)}`,
        );
      } else {
        try {
          JSON.parse(args);
          if (jsonTextNestsTooDeep(args))
            problems.add(index, "arguments", "arguments_too_deep", tooDeepMessage("`arguments`"));
        } catch (error) {
          const reason = error instanceof Error ? error.message : "parse error";
          problems.add(
            index,
            "arguments",
            "invalid_arguments",
            `\`arguments\` is not valid JSON (${reason}); send a JSON object string, e.g. "{}" for none`,
          );
        }
      }
      const callId = field(value, "call_id");
      if (typeof callId === "string" && callId !== "") {
        // A call_id may come back once its call has its output (see call-ids), not while it waits.
        const { unanswered } = calls.call(callId, index);
        if (unanswered !== undefined) {
          const earlier = `the function_call of item ${unanswered.at}`;
          problems.add(
            index,
            "call_id",
            "duplicate_tool_call_id",
            reusedCallMessage(callId, earlier),
          );
        }
      }
      return;
    }
    case "function_call_output": {
      checkNonEmptyString(value, "call_id", "a function_call_output item", index, problems);
      const callId = field(value, "call_id");
      if (typeof callId === "string" && callId !== "") calls.result(callId);
      checkParts(
        field(value, "output"),
        ["input_text", "output_text", "input_image"],
        index,
        "output",
        "function_call_output `output`",
        problems,
      );
      return;
    }
    case "reasoning": {
      const summary = field(value, "summary");
      if (summary !== undefined && !Array.isArray(summary)) {
        problems.add(
          index,
          "summary",
          "invalid_item",
          `a reasoning item's \`summary\` must be an array, got ${typeName(summary)}`,
        );
      }
      return;
    }
    case "compaction": {
      const content = field(value, "encrypted_content");
      if (typeof content !== "string") {
        problems.add(
          index,
          "encrypted_content",
          "invalid_item",
          `a compaction item needs its string \`encrypted_content\` (pass it back unchanged), got ${typeName(content)}`,
        );
      }
      return;
    }
    case undefined:
      problems.add(
        index,
        "type",
        "missing_type",
        `an input item needs a \`type\` (${ITEM_TYPES}), or a \`role\` for a message`,
      );
      return;
    default:
      problems.add(
        index,
        "type",
        "unsupported_item_type",
        `unsupported input item type ${quote(type)}; use ${ITEM_TYPES}`,
      );
  }
}

function checkItems(items: unknown, problems: ProblemCollector): items is ResponseItem[] {
  if (!Array.isArray(items)) {
    problems.add(
      -1,
      "",
      "not_an_array",
      `input must be an array of Responses input items, got ${typeName(items)}`,
    );
    return false;
  }
  const calls = new ToolCallTracker();
  items.forEach((item: unknown, index) => {
    checkItem(item, index, problems, calls);
  });
  return problems.size === 0;
}

// ---------------------------------------------------------------------------
// Responses → canonical

function partToCanonical(part: ResponsesContentPart): ContentPart {
  switch (part.type) {
    case "input_image":
      return {
        type: "image_url",
        image_url:
          part.detail === undefined
            ? { url: part.image_url }
            : { url: part.image_url, detail: part.detail },
      };
    case "refusal":
      return { type: "text", text: part.refusal };
    default:
      return { type: "text", text: part.text };
  }
}

function contentToCanonical(content: string | ResponsesContentPart[]): MessageContent {
  return typeof content === "string" ? content : content.map(partToCanonical);
}

function callToCanonical(item: ResponsesFunctionCallItem): ToolCall {
  return {
    id: item.call_id,
    type: "function",
    function: { name: item.name, arguments: item.arguments },
  };
}

interface Group {
  message: ChatMessage;
  items: ResponseItem[];
}

/** Groups items into canonical messages; opaque items join the next message (trailing ones the last). */
function groupItems(items: readonly ResponseItem[]): { groups: Group[]; orphans: ResponseItem[] } {
  const groups: Group[] = [];
  let pending: ResponseItem[] = [];
  let openAssistant: Group | undefined;
  for (const item of items) {
    if (!isVisible(item)) {
      pending.push(item);
      continue;
    }
    if (item.type === "function_call") {
      if (openAssistant) {
        openAssistant.items.push(...pending, item);
        openAssistant.message.tool_calls = [
          ...(openAssistant.message.tool_calls ?? []),
          callToCanonical(item),
        ];
      } else {
        openAssistant = {
          message: { role: "assistant", content: null, tool_calls: [callToCanonical(item)] },
          items: [...pending, item],
        };
        groups.push(openAssistant);
      }
    } else if (item.type === "function_call_output") {
      groups.push({
        message: {
          role: "tool",
          content: contentToCanonical(item.output),
          tool_call_id: item.call_id,
        },
        items: [...pending, item],
      });
      openAssistant = undefined;
    } else {
      const group: Group = {
        message: { role: item.role, content: contentToCanonical(item.content) },
        items: [...pending, item],
      };
      groups.push(group);
      openAssistant = item.role === "assistant" ? group : undefined;
    }
    pending = [];
  }
  const last = groups.at(-1);
  if (last && pending.length > 0) {
    last.items.push(...pending);
    pending = [];
  }
  return { groups, orphans: pending };
}

/**
 * Converts Responses API input items to canonical messages. The input is
 * untrusted: it is shape-checked and `InvalidMessagesError` lists every problem.
 */
export function fromResponses(items: readonly unknown[]): ChatMessage[] {
  const problems = new ProblemCollector();
  // Copying recurses: anything nested past what a provider accepts is rejected first.
  if (Array.isArray(items)) {
    items.forEach((item: unknown, index) => {
      if (valueNestsTooDeep(item, MAX_NESTING + 3))
        problems.add(index, "", "too_deep", tooDeepMessage("this item"));
    });
    problems.throwIfAny();
  }
  const copy = Array.isArray(items) ? wellFormedDeep(items) : items;
  if (!checkItems(copy, problems)) {
    problems.throwIfAny();
    return [];
  }
  const { groups, orphans } = groupItems(copy);
  if (groups.length === 0) {
    problems.add(
      -1,
      "",
      orphans.length > 0 ? "no_messages" : "empty",
      "the input has no message, function_call or function_call_output item; send at least one user message",
    );
    problems.throwIfAny();
  }
  return groups.map(({ message, items: original }) => {
    if (!jsonEqual(messageItems(message), original)) {
      message.provider_data = { responses: { items: original } };
    }
    return message;
  });
}

// ---------------------------------------------------------------------------
// canonical → Responses

function partToResponses(part: ContentPart, role: Role): ResponsesContentPart {
  if (part.type === "image_url") {
    const image: ResponsesInputImage = { type: "input_image", image_url: part.image_url.url };
    if (part.image_url.detail !== undefined) image.detail = part.image_url.detail;
    return image;
  }
  return role === "assistant"
    ? { type: "output_text", text: part.text, annotations: [] }
    : { type: "input_text", text: part.text };
}

/** The items `toResponses` builds for one message from its canonical fields (ignoring stored items). */
function messageItems(message: ChatMessage): ResponseItem[] {
  const content = message.content;
  if (message.role === "tool") {
    return [
      {
        type: "function_call_output",
        call_id: message.tool_call_id ?? "",
        output:
          content === null
            ? ""
            : typeof content === "string"
              ? content
              : content.map(
                  (part) =>
                    partToResponses(part, "tool") as ResponsesInputText | ResponsesInputImage,
                ),
      },
    ];
  }
  const role = message.role;
  const calls = message.role === "assistant" ? (message.tool_calls ?? []) : [];
  const items: ResponseItem[] = [];
  const empty =
    content === null || content === "" || (Array.isArray(content) && content.length === 0);
  if (!empty || calls.length === 0) {
    items.push({
      role,
      content:
        content === null
          ? ""
          : typeof content === "string"
            ? content
            : content.map((part) => partToResponses(part, role)),
    });
  }
  for (const call of calls) {
    items.push({
      type: "function_call",
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    });
  }
  return items;
}

/** Canonical view of one visible item, to tell whether a stored item still says the same. */
function visibleView(item: VisibleItem): unknown {
  if (item.type === "function_call") return callToCanonical(item);
  if (item.type === "function_call_output")
    return { call_id: item.call_id, content: contentToCanonical(item.output) };
  return { role: item.role, content: contentToCanonical(item.content) };
}

function storedItems(message: ChatMessage): ResponseItem[] | undefined {
  const items = message.provider_data?.responses?.items;
  if (!Array.isArray(items) || items.length === 0) return undefined;
  const problems = new ProblemCollector();
  return checkItems(items, problems) ? items : undefined;
}

function sameMessage(a: ChatMessage, b: ChatMessage): boolean {
  return (
    a.role === b.role &&
    jsonEqual(a.content, b.content) &&
    jsonEqual(a.tool_calls ?? [], b.tool_calls ?? []) &&
    a.tool_call_id === b.tool_call_id
  );
}

function itemsFor(message: ChatMessage): ResponseItem[] {
  const fresh = messageItems(message);
  const stored = storedItems(message);
  if (stored === undefined) return fresh;
  const { groups } = groupItems(stored);
  const only = groups[0];
  if (groups.length === 1 && only !== undefined && sameMessage(only.message, message))
    return [...stored];
  // The message changed: rebuild it, keeping opaque items and unchanged items.
  const firstVisible = stored.findIndex(isVisible);
  const split = firstVisible === -1 ? stored.length : firstVisible;
  const leading = stored.slice(0, split);
  const trailing = stored.slice(split).filter((item) => !isVisible(item));
  const storedVisible = stored.filter(isVisible);
  const rebuilt = fresh.map((item) => {
    if (!isVisible(item)) return item;
    const view = visibleView(item);
    return (
      storedVisible.find((old) => old.type === item.type && jsonEqual(visibleView(old), view)) ??
      item
    );
  });
  return [...leading, ...rebuilt, ...trailing];
}

/** Converts canonical messages to Responses API input items. */
export function toResponses(messages: readonly ChatMessage[]): ResponseItem[] {
  return messages.flatMap(itemsFor);
}
