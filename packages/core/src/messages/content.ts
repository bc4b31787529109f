/**
 * @module messages/content
 * Reading a message's text and its tool calls, the same way everywhere.
 */

import type { ChatMessage, ContentPart } from "./types.js";

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
    for (const call of message.tool_calls ?? []) names.set(call.id, call.function.name);
  }
  return names;
}
