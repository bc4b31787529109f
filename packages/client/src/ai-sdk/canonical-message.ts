/**
 * @module ai-sdk/canonical-message
 * The service's canonical message (OpenAI Chat Completions, as
 * `@condense/core` defines it; the client has no dependency on core, so the
 * shape is restated here as `ChatMessage`), and the AI SDK message parts the
 * conversions both ways (`ai-sdk/to-canonical`, `ai-sdk/from-canonical`) take
 * apart and build.
 */

import type {
  LanguageModelV4FilePart,
  LanguageModelV4Message,
  LanguageModelV4TextPart,
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

export type UserPart = LanguageModelV4TextPart | LanguageModelV4FilePart;
export type AssistantPart = Extract<
  LanguageModelV4Message,
  { role: "assistant" }
>["content"][number];
export type ToolPart = Extract<LanguageModelV4Message, { role: "tool" }>["content"][number];

/** What a canonical message stands for: a whole AI SDK message, or one part of a tool message. */
export type Original = LanguageModelV4Message | ToolPart;

/** The tool a call calls. */
export function callName(call: ChatToolCall): string {
  return call.type === "custom" ? call.custom.name : call.function.name;
}

/** The text of a message's content: its text parts joined (media parts have none). */
export function textOf(content: ChatMessage["content"]): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** A plain object (not null, not an array); the client depends on no package, so not core's own. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
