/**
 * @module ai-sdk/from-canonical
 * The session's canonical messages as an AI SDK prompt, the reverse of
 * `ai-sdk/to-canonical`: the original AI SDK message of every message the
 * middleware converted comes back from its `PromptMemory`; the others
 * (summaries, or everything after a restart) are converted. The middleware
 * asks for the context with `providerData=true`, so each message's thinking
 * blocks (as reasoning parts, with Anthropic's signature or redacted data) and
 * a tool result's error flag come with it.
 */

import type { LanguageModelV4FilePart, LanguageModelV4Prompt } from "@ai-sdk/provider";
import {
  type AssistantPart,
  type ChatMessage,
  type ChatPart,
  callName,
  isRecord,
  type Original,
  type ToolPart,
  textOf,
  type UserPart,
} from "./canonical-message.js";
import type { PromptMemory } from "./message-keys.js";

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

function isToolPart(value: Original): value is ToolPart {
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
