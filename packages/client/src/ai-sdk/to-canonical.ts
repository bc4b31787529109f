/**
 * @module ai-sdk/to-canonical
 * Conversion between the AI SDK's language-model prompt (`LanguageModelV4Prompt`)
 * and the service's canonical messages (OpenAI Chat Completions, as
 * `@condense/core` defines them; the client has no dependency on core, so the
 * shape is restated here as `ChatMessage`).
 *
 * AI SDK → canonical (what the session stores):
 * - system → a system message;
 * - user: text parts → text parts (one text alone → string content); image files
 *   → `image_url` (bytes as a `data:` URL, URLs as they are); WAV and MP3 bytes
 *   → `input_audio`; other files' bytes (PDF, text, other audio, …) → `file`
 *   (`file_data` a `data:` URL of their media type, with the filename); OpenAI
 *   file references → `file` with its `file_id`; inline-text files → their text;
 *   other files by URL and other provider references → a text part naming them
 *   (the canonical file part holds bytes or an id, no URL);
 * - assistant: text parts → content (joined), tool calls → `tool_calls`
 *   (`input` as JSON text), reasoning → `provider_data.anthropic.thinking`
 *   (Anthropic's signature or redacted data from `providerOptions.anthropic`
 *   rides along, so Claude gets its thinking blocks back);
 * - tool: each tool result → a tool message (output as text, JSON outputs as
 *   JSON text; error outputs flagged `is_error`); its tool's name comes back from
 *   the call it answers, which compaction never separates from its results.
 * - a model's answer keeps its tool calls' arguments exactly as the provider
 *   wrote them (`answerToCanonical`); keys compare arguments as parsed JSON.
 *
 * Canonical → AI SDK is the reverse. The middleware asks for the context with
 * `providerData=true`, so each message's thinking blocks and error flag come
 * with it. The canonical format has no place for
 * provider options on parts, assistant files, custom parts, provider-executed
 * tool calls and results, approval responses, or the exact output kind of a
 * tool result; `PromptMemory` keeps every message the middleware converted, by
 * its canonical key, and gives back the original when the session's context
 * holds that message again, so nothing is lost within a process. Messages only
 * the session has (summaries, or everything after a restart) are converted.
 */

import type {
  LanguageModelV4Content,
  LanguageModelV4FilePart,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4TextPart,
  LanguageModelV4ToolResultOutput,
  LanguageModelV4ToolResultPart,
} from "@ai-sdk/provider";

/** A canonical part: text, image, file or audio (what `@condense/core`'s `ContentPart` is). */
export type ChatPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string; detail?: "auto" | "low" | "high" } }
  | { type: "file"; file: { file_data?: string; file_id?: string; filename?: string } }
  | { type: "input_audio"; input_audio: { data: string; format: "wav" | "mp3" } };

/** A canonical tool call: a function's (JSON arguments) or a custom tool's (free-form input). */
export type ChatToolCall =
  | { id: string; type: "function"; function: { name: string; arguments: string } }
  | { id: string; type: "custom"; custom: { name: string; input: string } };

/** The tool a call calls. */
function callName(call: ChatToolCall): string {
  return call.type === "custom" ? call.custom.name : call.function.name;
}

/** A canonical message as the service stores it (`@condense/core`'s `ChatMessage`). */
export interface ChatMessage {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  content: string | ChatPart[] | null;
  name?: string;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
  /** Only what the middleware reads or writes of it; the service keeps the rest. */
  provider_data?: { anthropic?: { thinking?: unknown[]; is_error?: boolean } };
}

type UserPart = LanguageModelV4TextPart | LanguageModelV4FilePart;
type AssistantPart = Extract<LanguageModelV4Message, { role: "assistant" }>["content"][number];
type ToolPart = Extract<LanguageModelV4Message, { role: "tool" }>["content"][number];

function base64(data: Uint8Array | string): string {
  if (typeof data === "string") return data;
  let binary = "";
  const chunk = 0x8000;
  for (let index = 0; index < data.length; index += chunk)
    binary += String.fromCharCode(...data.subarray(index, index + chunk));
  return btoa(binary);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function anthropicOptions(options: unknown): Record<string, unknown> | undefined {
  if (!isRecord(options)) return undefined;
  const anthropic = options.anthropic;
  return isRecord(anthropic) ? anthropic : undefined;
}

/** Chat Completions' audio formats, by media type: other audio rides as a file part. */
const AUDIO_FORMATS: Record<string, "wav" | "mp3"> = {
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/wave": "wav",
  "audio/vnd.wave": "wav",
  "audio/mpeg": "mp3",
  "audio/mp3": "mp3",
  "audio/mpeg3": "mp3",
};

function isImage(mediaType: string): boolean {
  return mediaType === "image" || mediaType.startsWith("image/");
}

function fileName(part: LanguageModelV4FilePart): { filename?: string } {
  return part.filename === undefined ? {} : { filename: part.filename };
}

function userPart(part: UserPart): ChatPart {
  if (part.type === "text") return { type: "text", text: part.text };
  const data = part.data;
  switch (data.type) {
    case "data": {
      const bytes = base64(data.data);
      if (isImage(part.mediaType))
        return { type: "image_url", image_url: { url: `data:${part.mediaType};base64,${bytes}` } };
      const format = AUDIO_FORMATS[part.mediaType.toLowerCase()];
      if (format !== undefined)
        return { type: "input_audio", input_audio: { data: bytes, format } };
      return {
        type: "file",
        file: { file_data: `data:${part.mediaType};base64,${bytes}`, ...fileName(part) },
      };
    }
    case "url": {
      const url = data.originalUrl ?? data.url.href;
      if (isImage(part.mediaType)) return { type: "image_url", image_url: { url } };
      // Chat Completions' file part takes bytes or an id, not a URL: the file is named in text.
      return { type: "text", text: `[file${nameOf(part)} (${part.mediaType}): ${url}]` };
    }
    case "text":
      return { type: "text", text: data.text };
    case "reference": {
      const id = data.reference.openai;
      if (id !== undefined) return { type: "file", file: { file_id: id, ...fileName(part) } };
      return {
        type: "text",
        text: `[file${nameOf(part)} (${part.mediaType}): provider reference ${JSON.stringify(data.reference)}]`,
      };
    }
  }
}

function nameOf(part: LanguageModelV4FilePart): string {
  return part.filename === undefined ? "" : ` ${part.filename}`;
}

function outputText(output: LanguageModelV4ToolResultOutput): { text: string; isError: boolean } {
  switch (output.type) {
    case "text":
      return { text: output.value, isError: false };
    case "json":
      return { text: JSON.stringify(output.value), isError: false };
    case "error-text":
      return { text: output.value, isError: true };
    case "error-json":
      return { text: JSON.stringify(output.value), isError: true };
    case "execution-denied":
      return { text: output.reason ?? "The tool call was denied.", isError: true };
    case "content":
      return {
        text: output.value
          .map((item) =>
            item.type === "text"
              ? item.text
              : item.type === "file"
                ? `[file ${item.filename ?? ""} (${item.mediaType})]`
                : "",
          )
          .join("\n"),
        isError: false,
      };
  }
}

function toolMessage(part: LanguageModelV4ToolResultPart): ChatMessage {
  const { text, isError } = outputText(part.output);
  return {
    role: "tool",
    tool_call_id: part.toolCallId,
    content: text,
    ...(isError ? { provider_data: { anthropic: { is_error: true } } } : {}),
  };
}

/** Anthropic's form of a reasoning part: what `toAnthropic` sends back as a thinking block. */
function thinkingBlock(part: { text: string; providerOptions?: unknown }): unknown {
  const anthropic = anthropicOptions(part.providerOptions);
  if (typeof anthropic?.redactedData === "string")
    return { type: "redacted_thinking", data: anthropic.redactedData };
  const signature = typeof anthropic?.signature === "string" ? anthropic.signature : "";
  return { type: "thinking", thinking: part.text, signature };
}

function assistantMessage(parts: readonly AssistantPart[]): ChatMessage {
  const texts: string[] = [];
  const calls: ChatToolCall[] = [];
  const thinking: unknown[] = [];
  for (const part of parts) {
    if (part.type === "text") texts.push(part.text);
    else if (part.type === "reasoning") thinking.push(thinkingBlock(part));
    else if (part.type === "tool-call" && part.providerExecuted !== true) {
      calls.push({
        id: part.toolCallId,
        type: "function",
        function: {
          name: part.toolName,
          arguments: typeof part.input === "string" ? part.input : JSON.stringify(part.input ?? {}),
        },
      });
    }
  }
  const text = texts.join("");
  const message: ChatMessage = {
    role: "assistant",
    content: calls.length > 0 && text === "" ? null : text,
  };
  if (calls.length > 0) message.tool_calls = calls;
  if (thinking.length > 0) message.provider_data = { anthropic: { thinking } };
  return message;
}

/**
 * The canonical messages of one AI SDK message, each with the original it stands for (a whole
 * message, or the one tool-result part of a tool message).
 */
export function toCanonical(
  message: LanguageModelV4Message,
): Array<{ message: ChatMessage; original: LanguageModelV4Message | ToolPart }> {
  switch (message.role) {
    case "system":
      return [{ message: { role: "system", content: message.content }, original: message }];
    case "user": {
      const parts = message.content.map(userPart);
      const only = parts[0];
      const content =
        parts.length === 1 && only?.type === "text" ? only.text : parts.length === 0 ? "" : parts;
      return [{ message: { role: "user", content }, original: message }];
    }
    case "assistant":
      return [{ message: assistantMessage(message.content), original: message }];
    case "tool":
      return message.content
        .filter((part) => part.type === "tool-result")
        .map((part) => ({ message: toolMessage(part), original: part }));
  }
}

/** The AI SDK message the SDK itself makes of a model's answer for its next step. */
export function answerMessage(
  content: readonly LanguageModelV4Content[],
): LanguageModelV4Message | undefined {
  const parts: AssistantPart[] = [];
  for (const part of content) {
    const options = part.type === "source" ? undefined : part.providerMetadata;
    const providerOptions = options === undefined ? {} : { providerOptions: options };
    switch (part.type) {
      case "text":
        if (part.text.length > 0 || options !== undefined)
          parts.push({ type: "text", text: part.text, ...providerOptions });
        break;
      case "reasoning":
        parts.push({ type: "reasoning", text: part.text, ...providerOptions });
        break;
      case "tool-call": {
        let input: unknown;
        try {
          input = JSON.parse(part.input);
        } catch {
          input = part.input;
        }
        parts.push({
          type: "tool-call",
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input,
          ...(part.providerExecuted === true ? { providerExecuted: true } : {}),
          ...providerOptions,
        });
        break;
      }
      case "file":
        parts.push({
          type: "file",
          mediaType: part.mediaType,
          data: part.data,
          ...providerOptions,
        });
        break;
      case "custom":
        parts.push({ type: "custom", kind: part.kind, ...providerOptions });
        break;
      default:
        // Sources, approval requests and provider-executed tool results are not sent back.
        break;
    }
  }
  return parts.length === 0 ? undefined : { role: "assistant", content: parts };
}

/**
 * The canonical messages of a model's answer (its `answerMessage`), with each tool call's
 * arguments as the provider wrote them rather than re-serialized, so the session counts and
 * keeps what the model produced.
 */
export function answerToCanonical(
  content: readonly LanguageModelV4Content[],
): Array<{ message: ChatMessage; original: LanguageModelV4Message | ToolPart }> {
  const message = answerMessage(content);
  if (message === undefined) return [];
  const raw = new Map<string, string>();
  for (const part of content) if (part.type === "tool-call") raw.set(part.toolCallId, part.input);
  return toCanonical(message).map(({ message: item, original }) => ({
    message:
      item.tool_calls === undefined
        ? item
        : {
            ...item,
            // The AI SDK's calls are function calls (toCanonical makes no custom ones).
            tool_calls: item.tool_calls.map((call) =>
              call.type === "custom"
                ? call
                : {
                    ...call,
                    function: {
                      ...call.function,
                      arguments: raw.get(call.id) ?? call.function.arguments,
                    },
                  },
            ),
          },
    original,
  }));
}

// ---------------------------------------------------------------------------
// canonical → AI SDK

function textOf(content: ChatMessage["content"]): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

function filePart(url: string): LanguageModelV4FilePart {
  const match = DATA_URL.exec(url);
  if (match?.[1] !== undefined && match[2] !== undefined)
    return { type: "file", mediaType: match[1], data: { type: "data", data: match[2] } };
  return { type: "file", mediaType: "image", data: { type: "url", url: new URL(url) } };
}

/** The AI SDK file part of a canonical image, file or audio part. */
function mediaPart(part: Exclude<ChatPart, { type: "text" }>): LanguageModelV4FilePart {
  switch (part.type) {
    case "image_url":
      return filePart(part.image_url.url);
    case "input_audio":
      return {
        type: "file",
        mediaType: part.input_audio.format === "wav" ? "audio/wav" : "audio/mpeg",
        data: { type: "data", data: part.input_audio.data },
      };
    case "file": {
      const { file_data: data, file_id: id, filename } = part.file;
      const name = filename === undefined ? {} : { filename };
      const match = data === undefined ? null : DATA_URL.exec(data);
      if (match?.[1] !== undefined && match[2] !== undefined)
        return {
          type: "file",
          mediaType: match[1],
          data: { type: "data", data: match[2] },
          ...name,
        };
      // Bare base64 is a PDF (the canonical format's reading); an id is an OpenAI file's.
      if (data !== undefined)
        return {
          type: "file",
          mediaType: "application/pdf",
          data: { type: "data", data },
          ...name,
        };
      return {
        type: "file",
        mediaType: "application/pdf",
        data: { type: "reference", reference: { openai: id ?? "" } },
        ...name,
      };
    }
  }
}

function reasoningPart(block: unknown): AssistantPart | undefined {
  if (!isRecord(block)) return undefined;
  if (block.type === "thinking" && typeof block.thinking === "string") {
    const signature = typeof block.signature === "string" ? block.signature : "";
    return {
      type: "reasoning",
      text: block.thinking,
      ...(signature === "" ? {} : { providerOptions: { anthropic: { signature } } }),
    };
  }
  if (block.type === "redacted_thinking" && typeof block.data === "string")
    return {
      type: "reasoning",
      text: "",
      providerOptions: { anthropic: { redactedData: block.data } },
    };
  return undefined;
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * What the middleware converted, to give back unchanged: by canonical key and provider data, so
 * two answers that read the same but thought differently (their reasoning and signatures) each
 * get their own back.
 */
export class PromptMemory {
  readonly #originals = new Map<string, LanguageModelV4Message | ToolPart>();

  remember(message: ChatMessage, original: LanguageModelV4Message | ToolPart): void {
    this.#originals.set(memoryKey(message), original);
  }

  original(message: ChatMessage): LanguageModelV4Message | ToolPart | undefined {
    return this.#originals.get(memoryKey(message));
  }
}

function memoryKey(message: ChatMessage): string {
  return `${canonicalKey(message)}|${sortedJson(message.provider_data ?? null)}`;
}

/** JSON with object keys in order, so equal data stored and read back gives the same text. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(",")}]`;
  if (isRecord(value)) {
    const entries = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${sortedJson(value[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function isToolPart(value: LanguageModelV4Message | ToolPart): value is ToolPart {
  return "type" in value;
}

/** The session's canonical messages as an AI SDK prompt (originals restored from `memory`). */
export function fromCanonical(
  messages: readonly ChatMessage[],
  memory: PromptMemory,
): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [];
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    const original = memory.original(message);
    if (message.role === "tool") {
      const part: ToolPart =
        original !== undefined && isToolPart(original)
          ? original
          : {
              type: "tool-result",
              toolCallId: message.tool_call_id ?? "",
              toolName: message.name ?? toolNames.get(message.tool_call_id ?? "") ?? "",
              output:
                message.provider_data?.anthropic?.is_error === true
                  ? { type: "error-text", value: textOf(message.content) }
                  : { type: "text", value: textOf(message.content) },
            };
      const last = prompt.at(-1);
      if (last?.role === "tool") last.content.push(part);
      else prompt.push({ role: "tool", content: [part] });
      continue;
    }
    for (const call of message.tool_calls ?? []) toolNames.set(call.id, callName(call));
    if (original !== undefined && !isToolPart(original)) {
      prompt.push(original);
      continue;
    }
    switch (message.role) {
      case "system":
      case "developer":
        prompt.push({ role: "system", content: textOf(message.content) });
        break;
      case "user": {
        const content: UserPart[] =
          typeof message.content === "string" || message.content === null
            ? [{ type: "text", text: message.content ?? "" }]
            : message.content.map((part) => (part.type === "text" ? part : mediaPart(part)));
        prompt.push({ role: "user", content });
        break;
      }
      case "assistant": {
        const content: AssistantPart[] = [];
        for (const block of message.provider_data?.anthropic?.thinking ?? []) {
          const part = reasoningPart(block);
          if (part !== undefined) content.push(part);
        }
        const text = textOf(message.content);
        if (text !== "" || (message.tool_calls ?? []).length === 0)
          content.push({ type: "text", text });
        for (const call of message.tool_calls ?? []) {
          content.push({
            type: "tool-call",
            toolCallId: call.id,
            toolName: callName(call),
            // A custom tool's input is its text, as the AI SDK holds a string input.
            input:
              call.type === "custom" ? call.custom.input : parseArguments(call.function.arguments),
          });
        }
        prompt.push({ role: "assistant", content });
        break;
      }
    }
  }
  return prompt;
}

/**
 * What identifies a canonical message when the middleware compares what the session holds with
 * what the AI SDK sends: role, visible content, tool calls and the id a tool message answers.
 * Provider data (thinking signatures) and the shape of the content (one string or text parts)
 * do not count, so a message reads the same whichever way it took.
 */
export function canonicalKey(message: ChatMessage): string {
  const content =
    message.content === null
      ? ""
      : typeof message.content === "string"
        ? message.content
        : message.content.every((part) => part.type === "text")
          ? textOf(message.content)
          : message.content;
  const calls = (message.tool_calls ?? []).map((call) =>
    call.type === "custom"
      ? [call.id, call.custom.name, { custom: call.custom.input }]
      : [call.id, call.function.name, normalizedArguments(call.function.arguments)],
  );
  const role = message.role === "developer" ? "system" : message.role;
  return JSON.stringify([role, content, calls, message.tool_call_id ?? null]);
}

/** Arguments as parsed JSON re-serialized, so spacing or key quoting styles compare equal. */
function normalizedArguments(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}
