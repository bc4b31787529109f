/**
 * @module model/messages
 * How the inspector reads a Chat Completions message as the API serves it:
 * its text, its tool calls, and a key under which the same message is found
 * in the transcript and in the context (the context serves messages as
 * appended, so a message kept verbatim has the same key in both).
 */

import { isRecord } from "@condense/core";
import type { ChatLike } from "../api/types.ts";

export interface ToolCallView {
  id: string;
  name: string;
  arguments: string;
}

/** The message's text: a string content, or its text parts joined; other parts are named in brackets. */
export function contentText(message: ChatLike): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => {
      if (!isRecord(part)) return "";
      if (typeof part.text === "string") return part.text;
      return `[${typeof part.type === "string" ? part.type : "part"}]`;
    })
    .join("\n");
}

export function toolCalls(message: ChatLike): ToolCallView[] {
  return (message.tool_calls ?? []).filter(isRecord).map((call) => {
    const fn = isRecord(call.function) ? call.function : {};
    return {
      id: typeof call.id === "string" ? call.id : "",
      name: typeof fn.name === "string" ? fn.name : "",
      arguments:
        typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments ?? null),
    };
  });
}

/** Equal for the same message as stored in the transcript and as served in the context. */
export function messageKey(message: ChatLike): string {
  return JSON.stringify([
    message.role,
    contentText(message),
    message.tool_call_id ?? null,
    toolCalls(message).map((call) => [call.id, call.name, call.arguments]),
  ]);
}

/** How much a message weighs when tokens are shared out by size (text and call arguments). */
export function messageChars(message: ChatLike): number {
  return (
    contentText(message).length +
    toolCalls(message).reduce((sum, call) => sum + call.name.length + call.arguments.length, 0) +
    4
  );
}
