/**
 * @module upstream/anthropic-messages
 * The scripted upstream's Anthropic Messages protocol: `@condense/test-servers`'
 * (a signed thinking block first when thinking is on, text, `tool_use` with
 * its input as JSON deltas, Anthropic's rules and errors), and the request
 * read for the scripted model.
 */

import {
  contentText,
  isObject,
  type JsonObject,
  objects,
  text,
  anthropicMessages as wire,
} from "@condense/test-servers";
import type { ToolResult } from "../model/model-turn.ts";
import type { AgentProtocol } from "./wire.ts";

function blocks(message: JsonObject): JsonObject[] {
  return typeof message.content === "string"
    ? [{ type: "text", text: message.content }]
    : objects(message.content);
}

function toolResults(message: JsonObject | undefined): ToolResult[] {
  if (message?.role !== "user") return [];
  return blocks(message)
    .filter((block) => block.type === "tool_result")
    .map((block) => ({ callId: text(block.tool_use_id), text: contentText(block.content) }));
}

export const anthropicMessages: AgentProtocol = {
  ...wire,
  read(body) {
    // A system turn after the newest user message (Claude Code's on `--continue`) is no turn of its own.
    const messages = objects(body.messages).filter((message) => message.role !== "system");
    const last = messages.at(-1);
    const system = Array.isArray(body.system) ? contentText(body.system) : text(body.system);
    return {
      tools: objects(body.tools).map((tool) => text(tool.name)),
      toolResults: toolResults(last),
      userText:
        last?.role === "user"
          ? blocks(last)
              .filter((block) => block.type === "text")
              .map((block) => text(block.text))
              .join("\n")
          : "",
      systemText: system,
      reasoning:
        isObject(body.thinking) &&
        (body.thinking.type === "enabled" || body.thinking.type === "adaptive"),
    };
  },
};
