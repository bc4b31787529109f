/**
 * @module upstream/openai-responses
 * The scripted upstream's OpenAI Responses protocol: `@condense/test-servers`'
 * (reasoning, when asked for, first as an item whose `encrypted_content` is
 * sealed; text; function and custom tool calls; OpenAI's rules and errors),
 * and the request read for the scripted model.
 */

import {
  contentText,
  inputItems,
  isObject,
  itemType,
  type JsonObject,
  objects,
  text,
  openaiResponses as wire,
} from "@condense/test-servers";
import type { ToolResult } from "../model/model-turn.ts";
import type { AgentProtocol } from "./wire.ts";

function outputText(value: unknown): string {
  if (typeof value === "string") return value;
  return contentText(value);
}

function trailingResults(items: JsonObject[]): ToolResult[] {
  const results: ToolResult[] = [];
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index];
    if (item === undefined) break;
    const type = itemType(item);
    if (type !== "function_call_output" && type !== "custom_tool_call_output") break;
    results.unshift({ callId: text(item.call_id), text: outputText(item.output) });
  }
  return results;
}

export const openaiResponses: AgentProtocol = {
  ...wire,
  read(body) {
    const items = inputItems(body);
    const last = items.at(-1);
    const system = [
      text(body.instructions),
      ...items
        .filter(
          (item) =>
            itemType(item) === "message" && (item.role === "developer" || item.role === "system"),
        )
        .map((item) => contentText(item.content)),
    ].join("\n");
    return {
      tools: objects(body.tools).map((tool) => text(tool.name) || text(tool.type)),
      toolResults: trailingResults(items),
      userText:
        last !== undefined && itemType(last) === "message" && last.role === "user"
          ? contentText(last.content)
          : "",
      systemText: system,
      reasoning:
        isObject(body.reasoning) &&
        Array.isArray(body.include) &&
        body.include.includes("reasoning.encrypted_content"),
    };
  },
};
