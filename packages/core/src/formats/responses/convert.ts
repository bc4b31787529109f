/**
 * @module formats/responses/convert
 * Conversion between OpenAI Responses API input items and canonical Chat
 * Completions messages.
 *
 * Mapping:
 * - `message` item (roles user, assistant, system, developer) ↔ a message of the
 *   same role; string content stays a string, parts become content parts
 *   (`input_text`/`output_text`/`refusal` → text, `input_image` → image_url,
 *   `input_file` ↔ file: `file_data`, `file_id` and `filename` as they are). An
 *   `input_file` known only by its `file_url` becomes a text part naming it
 *   (`[file: url]`; Chat Completions' file part takes no URL), the item itself
 *   riding in `provider_data.responses.items` (below).
 * - An `input_audio` part has no Responses equivalent (input messages take text,
 *   images and files): `toResponses` refuses it with `InvalidMessagesError` (kind
 *   `unsupported_part`) rather than drop it.
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

import { InvalidMessagesError, type MessageProblem } from "../../errors/condense-error.js";
import { ProblemCollector } from "../../messages/input-checks.js";
import type {
  ChatMessage,
  ContentPart,
  FilePart,
  MessageContent,
  Role,
  ToolCall,
} from "../../messages/types.js";
import { jsonEqual } from "../json-equal.js";
import { checkItems, parseResponses } from "./parse.js";
import {
  isVisible,
  type ResponseItem,
  type ResponsesContentPart,
  type ResponsesFunctionCallItem,
  type ResponsesInputFile,
  type ResponsesInputImage,
  type ResponsesInputText,
  type VisibleItem,
} from "./types.js";

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
    case "input_file":
      return fileToCanonical(part);
    default:
      return { type: "text", text: part.text };
  }
}

function fileToCanonical(part: ResponsesInputFile): ContentPart {
  const file: FilePart["file"] = {};
  if (part.file_data !== undefined) file.file_data = part.file_data;
  if (typeof part.file_id === "string") file.file_id = part.file_id;
  if (file.file_data === undefined && file.file_id === undefined) {
    const name = part.filename === undefined ? "" : ` ${part.filename}`;
    return { type: "text", text: `[file${name}: ${part.file_url ?? ""}]` };
  }
  if (part.filename !== undefined) file.filename = part.filename;
  return { type: "file", file };
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
  const { groups, orphans } = groupItems(parseResponses(items));
  if (groups.length === 0) {
    const problems = new ProblemCollector();
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
  switch (part.type) {
    case "image_url": {
      const image: ResponsesInputImage = { type: "input_image", image_url: part.image_url.url };
      if (part.image_url.detail !== undefined) image.detail = part.image_url.detail;
      return image;
    }
    case "file":
      return { type: "input_file", ...part.file };
    case "input_audio":
      // Refused by toResponses before any item is built; this only keeps the function total.
      return { type: "input_text", text: "[audio]" };
    default:
      return role === "assistant"
        ? { type: "output_text", text: part.text, annotations: [] }
        : { type: "input_text", text: part.text };
  }
}

/** Audio parts: Responses input messages take text, images and files only. */
export function responsesUnsupportedParts(messages: readonly ChatMessage[]): MessageProblem[] {
  const problems: MessageProblem[] = [];
  messages.forEach((message, index) => {
    if (!Array.isArray(message.content)) return;
    message.content.forEach((part, partIndex) => {
      if (part.type !== "input_audio") return;
      problems.push({
        index,
        path: `content[${partIndex}]`,
        kind: "unsupported_part",
        message:
          "an input_audio part has no Responses equivalent (input messages take text, images and files); transcribe it into text, or send this conversation in the openai format",
      });
    });
  });
  return problems;
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
                    partToResponses(part, "tool") as
                      | ResponsesInputText
                      | ResponsesInputImage
                      | ResponsesInputFile,
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

/**
 * Converts canonical messages to Responses API input items. Throws `InvalidMessagesError` when
 * a message holds an audio part, which Responses cannot hold.
 */
export function toResponses(messages: readonly ChatMessage[]): ResponseItem[] {
  const unsupported = responsesUnsupportedParts(messages);
  if (unsupported.length > 0) throw new InvalidMessagesError(unsupported);
  return messages.flatMap(itemsFor);
}
