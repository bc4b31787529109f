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
 * - `custom_tool_call` (free-form `input`, e.g. Codex's `apply_patch`) ↔ a custom
 *   tool call (`type: "custom"`), joining the assistant message as function
 *   calls do; `custom_tool_call_output` ↔ a tool message. A tool message is
 *   written back as the output type of the call it answers.
 * - `reasoning`, `compaction` items are opaque: they ride in
 *   `provider_data.responses.items` of the next message (trailing ones: of the
 *   last message) and are never visible content.
 * - An item of any other type (`web_search_call`, `local_shell_call`, a type
 *   added next month) is kept whole in `provider_data.responses.items` and sent
 *   back verbatim; its canonical form says what it holds (`formats/opaque`), so
 *   it is counted, summarized as data, and shown by other formats. Only types
 *   shaped like a type name are kept (`formats/opaque`); others are refused.
 *   With a `call_id`, a type named as the API names calls pairs like a
 *   function call: one ending in `_call_output` is a tool message answering
 *   that id (its `output` text when it is a string), one ending in `_call` a
 *   custom tool call named by its type (its fields as input), joining the
 *   assistant message. Any other is an assistant message of its own
 *   (`[web_search_call] {…}`). Compaction keeps such messages whole or
 *   summarizes them away with their pair (`isOpaqueMessage`), never edits them:
 *   rebuilt, they would be custom tool calls and outputs.
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
import { opaqueText } from "../opaque.js";
import { stableJson } from "../stable-json.js";
import { checkItems, opaqueCallId, opaquePairing, parseResponses } from "./parse.js";
import {
  isKnownItem,
  isRider,
  KNOWN_ITEM_TYPES,
  type ResponseItem,
  type ResponsesContentPart,
  type ResponsesInputFile,
  type ResponsesInputImage,
  type ResponsesInputText,
  type ResponsesOpaqueItem,
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

/** Fields of an opaque item its canonical text leaves out: shown otherwise, or volatile. */
const OPAQUE_OMIT: ReadonlySet<string> = new Set(["type", "id", "status", "call_id"]);

/** What an opaque `*_output` item says: its `output` when that is all it holds as text, else all of it. */
function opaqueOutput(item: ResponsesOpaqueItem): string {
  const output = item.output;
  const others = Object.keys(item).filter(
    (key) => !OPAQUE_OMIT.has(key) && key !== "output" && item[key] !== null,
  );
  return typeof output === "string" && others.length === 0
    ? output
    : opaqueText(item.type, item, OPAQUE_OMIT);
}

/** What an item stands for in canonical messages. */
type ItemView =
  | { kind: "rider" }
  | { kind: "message"; role: Role; content: MessageContent }
  | { kind: "call"; call: ToolCall }
  | { kind: "output"; callId: string; content: MessageContent }
  | { kind: "carrier"; content: string };

function viewOf(item: ResponseItem): ItemView {
  if (!isKnownItem(item)) {
    const callId = opaqueCallId(item);
    const pairing = opaquePairing(item);
    if (callId === undefined || pairing === "carrier")
      return { kind: "carrier", content: opaqueText(item.type, item, OPAQUE_OMIT) };
    if (pairing === "output") return { kind: "output", callId, content: opaqueOutput(item) };
    const input = stableJson(item, { omit: OPAQUE_OMIT, dropNulls: true });
    return {
      kind: "call",
      call: { id: callId, type: "custom", custom: { name: item.type, input } },
    };
  }
  switch (item.type) {
    case "reasoning":
    case "compaction":
      return { kind: "rider" };
    case "function_call":
      return {
        kind: "call",
        call: {
          id: item.call_id,
          type: "function",
          function: { name: item.name, arguments: item.arguments },
        },
      };
    case "custom_tool_call":
      return {
        kind: "call",
        call: { id: item.call_id, type: "custom", custom: { name: item.name, input: item.input } },
      };
    case "function_call_output":
    case "custom_tool_call_output":
      return { kind: "output", callId: item.call_id, content: contentToCanonical(item.output) };
    default:
      return { kind: "message", role: item.role, content: contentToCanonical(item.content) };
  }
}

interface Group {
  message: ChatMessage;
  items: ResponseItem[];
}

/** Groups items into canonical messages; riders join the next message (trailing ones the last). */
function groupItems(items: readonly ResponseItem[]): { groups: Group[]; orphans: ResponseItem[] } {
  const groups: Group[] = [];
  let pending: ResponseItem[] = [];
  let openAssistant: Group | undefined;
  for (const item of items) {
    const view = viewOf(item);
    if (view.kind === "rider") {
      pending.push(item);
      continue;
    }
    if (view.kind === "call") {
      if (openAssistant) {
        openAssistant.items.push(...pending, item);
        openAssistant.message.tool_calls = [...(openAssistant.message.tool_calls ?? []), view.call];
      } else {
        openAssistant = {
          message: { role: "assistant", content: null, tool_calls: [view.call] },
          items: [...pending, item],
        };
        groups.push(openAssistant);
      }
    } else if (view.kind === "output") {
      groups.push({
        message: { role: "tool", content: view.content, tool_call_id: view.callId },
        items: [...pending, item],
      });
      openAssistant = undefined;
    } else {
      const role = view.kind === "carrier" ? "assistant" : view.role;
      const group: Group = {
        message: { role, content: view.content },
        items: [...pending, item],
      };
      groups.push(group);
      openAssistant = role === "assistant" ? group : undefined;
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
      "the input has no message, call or output item; send at least one user message",
    );
    problems.throwIfAny();
  }
  const types = outputTypes(
    groups.map((group) => ({
      ...group.message,
      provider_data: { responses: { items: group.items } },
    })),
  );
  return groups.map(({ message, items: original }, index) => {
    const rebuilt = messageItems(message, types.get(index) ?? "function_call_output");
    if (!jsonEqual(rebuilt, original)) {
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

/** The type of the item a call was, when the message holds it as an item the engine does not know. */
function opaqueCallType(message: ChatMessage, callId: string): string | undefined {
  const items = message.provider_data?.responses?.items ?? [];
  for (const item of items) {
    if (typeof item !== "object" || item === null) continue;
    const { type, call_id: id } = item as { type?: unknown; call_id?: unknown };
    if (id !== callId || typeof type !== "string" || KNOWN_ITEM_TYPES.has(type)) continue;
    if (opaquePairing(item as Record<string, unknown>) === "call") return type;
  }
  return undefined;
}

/**
 * The type of output item each tool message is written as, by index: the output of the call it
 * answers (the nearest earlier call with its id): `function_call_output`, `custom_tool_call_output`,
 * or for a call of a type the engine does not know, that type with `_output` (`local_shell_call` →
 * `local_shell_call_output`, its text as `output`).
 */
function outputTypes(messages: readonly ChatMessage[]): Map<number, string> {
  const latest = new Map<string, string>();
  const types = new Map<number, string>();
  messages.forEach((message, index) => {
    if (message.role === "tool") {
      const type = latest.get(message.tool_call_id ?? "");
      if (type !== undefined) types.set(index, type);
      return;
    }
    for (const call of message.tool_calls ?? []) {
      const opaque = opaqueCallType(message, call.id);
      latest.set(
        call.id,
        opaque !== undefined
          ? `${opaque}_output`
          : call.type === "custom"
            ? "custom_tool_call_output"
            : "function_call_output",
      );
    }
  });
  return types;
}

/**
 * The items `toResponses` builds for one message from its canonical fields (ignoring stored items);
 * a tool message is written as an `outputType` item.
 */
function messageItems(message: ChatMessage, outputType: string): ResponseItem[] {
  const content = message.content;
  if (message.role === "tool") {
    return [
      {
        type: outputType as "function_call_output",
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
    items.push(
      call.type === "custom"
        ? {
            type: "custom_tool_call",
            call_id: call.id,
            name: call.custom.name,
            input: call.custom.input,
          }
        : {
            type: "function_call",
            call_id: call.id,
            name: call.function.name,
            arguments: call.function.arguments,
          },
    );
  }
  return items;
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

function itemsFor(message: ChatMessage, outputType: string): ResponseItem[] {
  const fresh = messageItems(message, outputType);
  const stored = storedItems(message);
  if (stored === undefined) return fresh;
  const { groups } = groupItems(stored);
  const only = groups[0];
  if (groups.length === 1 && only !== undefined && sameMessage(only.message, message))
    return [...stored];
  // The message changed: rebuild it, keeping riders and unchanged items.
  const firstShown = stored.findIndex((item) => !isRider(item));
  const split = firstShown === -1 ? stored.length : firstShown;
  const leading = stored.slice(0, split);
  const trailing = stored.slice(split).filter(isRider);
  const storedShown = stored.filter((item) => !isRider(item));
  const rebuilt = fresh.map((item) => {
    const view = viewOf(item);
    return storedShown.find((old) => jsonEqual(viewOf(old), view)) ?? item;
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
  const types = outputTypes(messages);
  return messages.flatMap((message, index) =>
    itemsFor(message, types.get(index) ?? "function_call_output"),
  );
}
