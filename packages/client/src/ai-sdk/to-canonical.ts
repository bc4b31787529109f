/**
 * @module ai-sdk/to-canonical
 * The AI SDK's language-model prompt (`LanguageModelV4Prompt`) as the
 * service's canonical messages (`ai-sdk/canonical-message`), what the session
 * stores:
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
 * Each canonical message comes with the original it stands for, which the
 * middleware keeps in its `PromptMemory` (`ai-sdk/message-keys`).
 */

import type {
  LanguageModelV4Content,
  LanguageModelV4FilePart,
  LanguageModelV4Message,
  LanguageModelV4ToolResultOutput,
  LanguageModelV4ToolResultPart,
} from "@ai-sdk/provider";
import {
  type AssistantPart,
  type ChatMessage,
  type ChatPart,
  type ChatToolCall,
  isRecord,
  type Original,
  type UserPart,
} from "./canonical-message.js";

function base64(data: Uint8Array | string): string {
  if (typeof data === "string") return data;
  let binary = "";
  const chunk = 0x8000;
  for (let index = 0; index < data.length; index += chunk)
    binary += String.fromCharCode(...data.subarray(index, index + chunk));
  return btoa(binary);
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
): Array<{ message: ChatMessage; original: Original }> {
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
): Array<{ message: ChatMessage; original: Original }> {
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
