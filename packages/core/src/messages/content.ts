/**
 * @module messages/content
 * Reading a message's text and its tool calls, the same way everywhere.
 */

import type { ChatMessage, ContentPart, ToolCall } from "./types.js";

/** The text of a message: string content, or its text parts joined by newlines (images are skipped). */
export function messageText(message: ChatMessage): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (content === null) return "";
  return content
    .filter((part) => part.type === "text")
    .map((part) => part.text)
    .join("\n");
}

/** What stands for a part that is not text where only text can go: `[image]`, `[file name]`, `[audio]`. */
export function partPlaceholder(part: Exclude<ContentPart, { type: "text" }>): string {
  switch (part.type) {
    case "image_url":
      return "[image]";
    case "file":
      return part.file.filename === undefined ? "[file]" : `[file ${part.file.filename}]`;
    default:
      return "[audio]";
  }
}

/** Tool names by tool-call id, from the assistant messages of the list. */
export function toolNamesById(messages: readonly ChatMessage[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    for (const call of message.tool_calls ?? []) names.set(call.id, toolCallName(call));
  }
  return names;
}

/** The tool a call calls: a function's name or a custom tool's. */
export function toolCallName(call: ToolCall): string {
  return call.type === "custom" ? call.custom.name : call.function.name;
}

/** What a call passes its tool: a function's arguments (JSON text) or a custom tool's input text. */
export function toolCallInput(call: ToolCall): string {
  return call.type === "custom" ? call.custom.input : call.function.arguments;
}

/**
 * Whether `message` carries Responses items that hold state existing nowhere else (a compaction
 * item, an item type the engine does not know), which go out verbatim: such a turn is not empty
 * even when its own text is.
 */
export function holdsOpaqueItems(message: ChatMessage): boolean {
  const items = message.provider_data?.responses?.items;
  return (
    Array.isArray(items) &&
    items.some((item: unknown) => {
      const type =
        typeof item === "object" && item !== null ? Reflect.get(item, "type") : undefined;
      // Reasoning is no turn by itself: a provider refuses a reasoning item without the output it
      // reasoned toward, so a turn holding nothing else is as empty as an aborted one.
      return (
        typeof type === "string" &&
        type !== "message" &&
        type !== "reasoning" &&
        !type.startsWith("function_call")
      );
    })
  );
}
