/**
 * @module upstream/chat-completions
 * The scripted upstream's OpenAI Chat Completions protocol:
 * `@condense/test-servers`' (the answer as OpenAI streams it, OpenAI's rules
 * and errors), and the request read for the scripted model.
 */

import {
  contentText,
  isObject,
  type JsonObject,
  objects,
  text,
  chatCompletions as wire,
} from "@condense/test-servers";
import type { ToolResult } from "../model/model-turn.ts";
import type { AgentProtocol } from "./wire.ts";

function trailingResults(messages: JsonObject[]): ToolResult[] {
  const results: ToolResult[] = [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role !== "tool") break;
    results.unshift({ callId: text(message.tool_call_id), text: contentText(message.content) });
  }
  return results;
}

export const chatCompletions: AgentProtocol = {
  ...wire,
  read(body) {
    const messages = objects(body.messages);
    const last = messages.at(-1);
    return {
      tools: objects(body.tools).map((tool) =>
        isObject(tool.function) ? text(tool.function.name) : text(tool.name),
      ),
      toolResults: trailingResults(messages),
      userText: last?.role === "user" ? contentText(last.content) : "",
      systemText: messages
        .filter((message) => message.role === "system" || message.role === "developer")
        .map((message) => contentText(message.content))
        .join("\n"),
      reasoning: false,
    };
  },
};
