/**
 * @module formats/gemini/convert
 * Conversion between Gemini `generateContent` contents (and its
 * `systemInstruction`) and canonical Chat Completions messages.
 *
 * Mapping:
 * - `systemInstruction` ↔ a system message (its text parts joined by blank lines).
 * - A `user` content ↔ a user message (text ↔ text, `inlineData` of an image ↔ an image as a data
 *   URL, other `inlineData` ↔ a file as a data URL, `fileData` ↔ a text part naming the file), each
 *   `functionResponse` part ↔ a tool message (before the user message when both are in one content).
 * - A `model` content ↔ an assistant message: its text parts (not thoughts) joined are the text,
 *   each `functionCall` a tool call (its `args` as JSON arguments). Thought parts and signatures
 *   are never content: the original parts ride in `provider_data.gemini.parts`.
 * - Gemini's calls often carry no `id`, and agents write ids of their own on them (Gemini CLI 0.61
 *   names each call `<name>_<ms>_<n>` in its history and on its response). A call is named
 *   `call_<n>` (its place among the content's calls) whatever id it carries, which is the same
 *   whether the call is read from an answer or from the next request's history (so the session
 *   knows the turn it served); a `functionResponse` answers the call of the turn before it with its
 *   `id`, else the earliest unanswered one with its name. The ids the client wrote stay in its
 *   original parts. Core's call tracking accepts an id used again once its call has its result
 *   (`messages/call-ids`).
 * - Every message keeps its original parts in `provider_data.gemini.parts`; they are sent back
 *   verbatim (thought signatures included) while they still read as the message does. A message
 *   compaction changed is rebuilt, and a rebuilt model turn's first call carries its original
 *   signature when it had one, else Gemini's documented placeholder
 *   (`skip_thought_signature_validator`), as Gemini 3 requires a signature there.
 * - Consecutive messages of one Gemini role are merged into one content (Gemini's roles
 *   alternate); a system message after the first turn (a summary) is a user text part.
 *
 * Written by hand: Google's SDK has the types but no conversion to or from other formats.
 */

import { InvalidMessagesError, type MessageProblem } from "../../errors/condense-error.js";
import { isRecord, ProblemCollector, typeName } from "../../messages/input-checks.js";
import type { ChatMessage, ContentPart, MessageContent, ToolCall } from "../../messages/types.js";
import { jsonEqual } from "../json-equal.js";
import { stableJson } from "../stable-json.js";

/** The signature Gemini documents for function calls it did not sign (a rewritten turn). */
export const GEMINI_PLACEHOLDER_SIGNATURE = "skip_thought_signature_validator";

type Part = Record<string, unknown>;

export interface GeminiContent {
  role: "user" | "model";
  parts: Part[];
}

export interface GeminiRequest {
  contents: GeminiContent[];
  systemInstruction?: { parts: Part[] };
}

// ---------------------------------------------------------------------------
// Gemini → canonical

function checkContents(contents: readonly unknown[], system: unknown): void {
  const problems = new ProblemCollector();
  if (system !== undefined && typeof system !== "string") {
    if (!isRecord(system) || !Array.isArray(system.parts)) {
      problems.add(
        -1,
        "systemInstruction",
        "invalid_content",
        `\`systemInstruction\` must be a content like { "parts": [{ "text": "…" }] }, got ${typeName(system)}`,
      );
    }
  }
  contents.forEach((content, index) => {
    if (!isRecord(content)) {
      problems.add(
        index,
        "",
        "invalid_content",
        `a content must be an object with \`role\` and \`parts\`, got ${typeName(content)}`,
      );
      return;
    }
    const role = content.role ?? "user";
    if (role !== "user" && role !== "model") {
      problems.add(
        index,
        "role",
        "invalid_role",
        `a content's role is "user" or "model", got ${JSON.stringify(role)}`,
      );
    }
    if (!Array.isArray(content.parts) || content.parts.length === 0) {
      problems.add(
        index,
        "parts",
        "invalid_content",
        `a content needs a non-empty \`parts\` array, got ${typeName(content.parts)}`,
      );
      return;
    }
    content.parts.forEach((part: unknown, at) => {
      if (!isRecord(part)) {
        problems.add(
          index,
          `parts[${at}]`,
          "invalid_part",
          `a part must be an object, got ${typeName(part)}`,
        );
        return;
      }
      const call = part.functionCall ?? part.functionResponse;
      if (call !== undefined && (!isRecord(call) || typeof call.name !== "string")) {
        problems.add(
          index,
          `parts[${at}]`,
          "invalid_part",
          "a functionCall or functionResponse needs a string `name`",
        );
      }
    });
  });
  if (contents.length === 0) {
    problems.add(
      -1,
      "",
      "empty",
      "`contents` is empty; send at least one user content with a text part",
    );
  }
  problems.throwIfAny();
}

function systemText(system: unknown): string {
  if (typeof system === "string") return system;
  const parts = isRecord(system) && Array.isArray(system.parts) ? system.parts : [];
  return parts
    .map((part: unknown) => (isRecord(part) && typeof part.text === "string" ? part.text : ""))
    .filter((text) => text !== "")
    .join("\n\n");
}

/** The canonical part a user part stands for (`undefined`: a function response). */
function userPart(part: Part): ContentPart | undefined {
  if (part.functionResponse !== undefined) return undefined;
  if (typeof part.text === "string") return { type: "text", text: part.text };
  const inline = part.inlineData;
  if (isRecord(inline) && typeof inline.data === "string") {
    const mime = typeof inline.mimeType === "string" ? inline.mimeType : "application/octet-stream";
    const url = `data:${mime};base64,${inline.data}`;
    return mime.startsWith("image/")
      ? { type: "image_url", image_url: { url } }
      : { type: "file", file: { file_data: url } };
  }
  const file = part.fileData;
  if (isRecord(file) && typeof file.fileUri === "string") {
    return { type: "text", text: `[file: ${file.fileUri}]` };
  }
  return { type: "text", text: stableJson(part) };
}

/** A function response's text: its `output` when that is all it says, else its whole JSON. */
function responseText(response: Record<string, unknown>): string {
  const body = response.response;
  if (isRecord(body) && typeof body.output === "string" && Object.keys(body).length === 1) {
    return body.output;
  }
  return stableJson(body ?? {});
}

function userContent(parts: readonly ContentPart[]): MessageContent {
  const first = parts[0];
  return parts.length === 1 && first?.type === "text" ? first.text : [...parts];
}

/** Tool calls and text of a model content, and the id the client wrote on each call (if any). */
function modelView(parts: readonly Part[]): {
  text: string;
  calls: ToolCall[];
  clientIds: (string | undefined)[];
} {
  let text = "";
  const calls: ToolCall[] = [];
  const clientIds: (string | undefined)[] = [];
  for (const part of parts) {
    if (typeof part.text === "string" && part.thought !== true) text += part.text;
    const call = part.functionCall;
    if (isRecord(call) && typeof call.name === "string") {
      calls.push({
        id: `call_${calls.length}`,
        type: "function",
        function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
      });
      clientIds.push(typeof call.id === "string" && call.id !== "" ? call.id : undefined);
    }
  }
  return { text, calls, clientIds };
}

function modelMessage(parts: Part[]): ChatMessage {
  const { text, calls } = modelView(parts);
  return {
    role: "assistant",
    content: text === "" && calls.length > 0 ? null : text,
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
    provider_data: { gemini: { parts } },
  };
}

interface OpenCall {
  id: string;
  /** The id the client wrote on the call, which its response carries. */
  clientId: string | undefined;
  name: string;
  answered: boolean;
}

/** The id of the call `response` answers among the turn's `open` calls (marked answered). */
function answeredId(response: Record<string, unknown>, open: OpenCall[]): string {
  const name = String(response.name);
  const byId = open.find(
    (call) => !call.answered && call.clientId !== undefined && call.clientId === response.id,
  );
  const call = byId ?? open.find((candidate) => !candidate.answered && candidate.name === name);
  if (call !== undefined) {
    call.answered = true;
    return call.id;
  }
  return typeof response.id === "string" && response.id !== "" ? response.id : `${name}_result`;
}

/**
 * Converts Gemini contents (and `systemInstruction`) to canonical messages. The input is
 * untrusted: it is shape-checked and `InvalidMessagesError` lists every problem.
 */
export function fromGemini(input: {
  system?: unknown;
  messages: readonly unknown[];
}): ChatMessage[] {
  checkContents(input.messages, input.system);
  const out: ChatMessage[] = [];
  if (input.system !== undefined) {
    out.push({
      role: "system",
      content: systemText(input.system),
      ...(isRecord(input.system)
        ? { provider_data: { gemini: { parts: input.system.parts as Part[] } } }
        : {}),
    });
  }
  let open: OpenCall[] = [];
  for (const content of input.messages as Array<Record<string, unknown>>) {
    const parts = content.parts as Part[];
    if (content.role === "model") {
      out.push(modelMessage(parts));
      const { calls, clientIds } = modelView(parts);
      open = calls.map((call, index) => ({
        id: call.id,
        clientId: clientIds[index],
        name: call.type === "function" ? call.function.name : call.custom.name,
        answered: false,
      }));
      continue;
    }
    const others: Part[] = [];
    for (const part of parts) {
      const response = part.functionResponse;
      if (isRecord(response)) {
        out.push({
          role: "tool",
          tool_call_id: answeredId(response, open),
          content: responseText(response),
          provider_data: { gemini: { parts: [part] } },
        });
      } else {
        others.push(part);
      }
    }
    open = [];
    if (others.length > 0) {
      const canonical = others.map(userPart).filter((part) => part !== undefined);
      out.push({
        role: "user",
        content: userContent(canonical),
        provider_data: { gemini: { parts: others } },
      });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// canonical → Gemini

function dataUrl(url: string): { mimeType: string; data: string } | undefined {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return match?.[1] !== undefined && match[2] !== undefined
    ? { mimeType: match[1], data: match[2] }
    : undefined;
}

function mimeOfUrl(url: string): string {
  const extension = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(url)?.[1]?.toLowerCase();
  if (extension === "jpg" || extension === "jpeg") return "image/jpeg";
  if (extension === "gif" || extension === "webp") return `image/${extension}`;
  return "image/png";
}

function partOf(part: ContentPart): Part | undefined {
  switch (part.type) {
    case "text":
      return { text: part.text };
    case "image_url": {
      const inline = dataUrl(part.image_url.url);
      return inline !== undefined
        ? { inlineData: inline }
        : { fileData: { mimeType: mimeOfUrl(part.image_url.url), fileUri: part.image_url.url } };
    }
    case "input_audio":
      return {
        inlineData: { mimeType: `audio/${part.input_audio.format}`, data: part.input_audio.data },
      };
    case "file": {
      const inline = part.file.file_data === undefined ? undefined : dataUrl(part.file.file_data);
      return inline === undefined ? undefined : { inlineData: inline };
    }
    default:
      return undefined;
  }
}

function textOf(content: MessageContent | undefined): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

function contentParts(content: MessageContent | undefined): Part[] {
  if (content === null || content === undefined) return [];
  if (typeof content === "string") return content === "" ? [] : [{ text: content }];
  return content.map(partOf).filter((part) => part !== undefined);
}

/** Calls as compared: id, name, and arguments parsed (spacing and key order aside). */
function callsForm(calls: readonly ToolCall[]): unknown[] {
  return calls.map((call) => {
    if (call.type === "custom") return [call.id, call.custom.name, call.custom.input];
    try {
      return [call.id, call.function.name, JSON.parse(call.function.arguments || "{}") as unknown];
    } catch {
      return [call.id, call.function.name, call.function.arguments];
    }
  });
}

/** The original parts of `message` when they still read as it does. */
function keptParts(message: ChatMessage): Part[] | undefined {
  const parts = message.provider_data?.gemini?.parts;
  if (!Array.isArray(parts)) return undefined;
  const original = parts.filter(isRecord);
  if (message.role === "assistant") {
    const view = modelView(original);
    return view.text === textOf(message.content) &&
      jsonEqual(callsForm(view.calls), callsForm(message.tool_calls ?? []))
      ? original
      : undefined;
  }
  if (message.role === "tool") {
    const response = original[0]?.functionResponse;
    return isRecord(response) && responseText(response) === textOf(message.content)
      ? original
      : undefined;
  }
  if (message.role === "user") {
    const canonical = original.map(userPart).filter((part) => part !== undefined);
    return jsonEqual(userContent(canonical), message.content) ? original : undefined;
  }
  return undefined;
}

/** A model turn's parts rebuilt: text, then its calls, their signatures kept from `original`. */
function modelParts(message: ChatMessage, name: (id: string) => string, original: Part[]): Part[] {
  const text = textOf(message.content);
  const parts: Part[] = text === "" ? [] : [{ text }];
  const signed = original.filter((part) => isRecord(part.functionCall));
  for (const call of message.tool_calls ?? []) {
    const callName = call.type === "function" ? call.function.name : call.custom.name;
    let args: unknown = {};
    try {
      args = call.type === "function" ? JSON.parse(call.function.arguments || "{}") : {};
    } catch {
      args = {};
    }
    if (call.type === "custom") args = { input: call.custom.input };
    const before = signed.find(
      (part) =>
        isRecord(part.functionCall) &&
        part.functionCall.name === callName &&
        jsonEqual(part.functionCall.args ?? {}, args),
    );
    const id =
      before !== undefined &&
      isRecord(before.functionCall) &&
      typeof before.functionCall.id === "string"
        ? { id: before.functionCall.id }
        : {};
    const part: Part = { functionCall: { ...id, name: callName || name(call.id), args } };
    if (typeof before?.thoughtSignature === "string")
      part.thoughtSignature = before.thoughtSignature;
    parts.push(part);
  }
  return parts;
}

function rebuiltModelParts(message: ChatMessage, name: (id: string) => string): Part[] {
  const original = (message.provider_data?.gemini?.parts ?? []).filter(isRecord);
  const parts = modelParts(message, name, original);
  const firstCall = parts.find((part) => part.functionCall !== undefined);
  if (firstCall !== undefined && firstCall.thoughtSignature === undefined) {
    firstCall.thoughtSignature = GEMINI_PLACEHOLDER_SIGNATURE;
  }
  return parts;
}

/**
 * Writes canonical messages as a Gemini request's `contents` and `systemInstruction`. Throws
 * `InvalidMessagesError` (kind `unsupported_part`) for a file Gemini cannot take inline (one known
 * only by its `file_id`).
 */
export function toGemini(messages: readonly ChatMessage[]): GeminiRequest {
  const problems = geminiUnsupportedParts(messages);
  if (problems.length > 0) throw new InvalidMessagesError(problems);
  const names = new Map<string, string>();
  const name = (id: string) => names.get(id) ?? id;
  const systems: string[] = [];
  const contents: GeminiContent[] = [];
  const push = (role: "user" | "model", parts: Part[]) => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  let systemParts: Part[] | undefined;
  for (const message of messages) {
    for (const call of message.tool_calls ?? []) {
      names.set(call.id, call.type === "function" ? call.function.name : call.custom.name);
    }
    if (message.role === "system" || message.role === "developer") {
      if (contents.length === 0) {
        systems.push(textOf(message.content));
        systemParts = message.provider_data?.gemini?.parts;
      } else {
        push("user", [{ text: textOf(message.content) }]);
      }
      continue;
    }
    const kept = keptParts(message);
    if (message.role === "assistant") {
      push("model", kept ?? rebuiltModelParts(message, name));
    } else if (message.role === "tool") {
      const id = message.tool_call_id ?? "";
      push(
        "user",
        kept ?? [
          { functionResponse: { name: name(id), response: { output: textOf(message.content) } } },
        ],
      );
    } else {
      push("user", kept ?? contentParts(message.content));
    }
  }
  const request: GeminiRequest = { contents };
  if (systems.length > 0) {
    const text = systems.join("\n\n");
    request.systemInstruction =
      systems.length === 1 &&
      systemParts !== undefined &&
      systemText({ parts: systemParts }) === text
        ? { parts: systemParts }
        : { parts: [{ text }] };
  }
  return request;
}

/** The parts Gemini cannot carry: a file known only by its `file_id` (Gemini takes files inline). */
export function geminiUnsupportedParts(messages: readonly ChatMessage[]): MessageProblem[] {
  const problems: MessageProblem[] = [];
  messages.forEach((message, index) => {
    if (!Array.isArray(message.content)) return;
    message.content.forEach((part, at) => {
      if (part.type === "file" && part.file.file_data === undefined) {
        problems.push({
          index,
          path: `content[${at}]`,
          kind: "unsupported_part",
          message:
            "Gemini takes files inline: a file known only by its `file_id` cannot be sent; send its `file_data`",
        });
      }
    });
  });
  return problems;
}
