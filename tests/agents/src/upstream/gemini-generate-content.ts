/**
 * @module upstream/gemini-generate-content
 * The scripted upstream's Gemini protocol: `@condense/test-servers`' (the
 * answer as Gemini streams it, Gemini's rules, thought signatures and
 * errors), its calls carrying the scripted model's ids (Gemini's API has an
 * `id` on calls; Gemini CLI answers with it when it is there), and the
 * request read for the scripted model.
 */

import { geminiWire, isObject, type JsonObject, objects, text } from "@condense/test-servers";
import type { ToolResult } from "../model/model-turn.ts";
import type { AgentProtocol } from "./wire.ts";

function parts(content: JsonObject | undefined): JsonObject[] {
  return content === undefined ? [] : objects(content.parts);
}

/** A function response's text: its `output` (or `error`) when it says one, else its JSON. */
function responseText(response: JsonObject): string {
  const body = isObject(response.response) ? response.response : {};
  if (typeof body.output === "string") return body.output;
  if (typeof body.error === "string") return body.error;
  return JSON.stringify(body);
}

function toolResults(content: JsonObject | undefined): ToolResult[] {
  if (content === undefined || (content.role ?? "user") !== "user") return [];
  return parts(content)
    .map((part) => part.functionResponse)
    .filter(isObject)
    .map((response) => ({
      callId: text(response.id) || text(response.name),
      text: responseText(response),
    }));
}

export const geminiGenerateContent: AgentProtocol = {
  ...geminiWire({ callIds: true }),
  read(body) {
    const contents = objects(body.contents);
    const last = contents.at(-1);
    const system = isObject(body.systemInstruction) ? parts(body.systemInstruction) : [];
    const thinking = isObject(body.generationConfig)
      ? body.generationConfig.thinkingConfig
      : undefined;
    return {
      tools: objects(body.tools).flatMap((tool) =>
        objects(tool.functionDeclarations).map((declaration) => text(declaration.name)),
      ),
      toolResults: toolResults(last),
      userText:
        (last?.role ?? "user") === "user"
          ? parts(last)
              .filter((part) => typeof part.text === "string")
              .map((part) => text(part.text))
              .join("\n")
          : "",
      systemText: system.map((part) => text(part.text)).join("\n"),
      reasoning: isObject(thinking) && thinking.includeThoughts === true,
    };
  },
};
