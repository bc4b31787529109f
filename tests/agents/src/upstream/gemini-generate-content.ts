/**
 * @module upstream/gemini-generate-content
 * The scripted upstream's Gemini protocol: `@condense/test-servers`' (the
 * answer as Gemini streams it, its calls without ids as Gemini 2.5 sends them,
 * the first one signed; Gemini's rules, thought signatures and errors), with
 * one rule more (`upstream/gemini-alternation`), and the request read for the
 * scripted model. Gemini pairs a function response with its call by position
 * and name, not by id (Gemini CLI answers every call with an id of its own,
 * `run_shell_command_<ms>_0`), so each response is read with the call it
 * answers, from which the model knows its step (`model/call-steps`).
 */

import { geminiWire, isObject, type JsonObject, objects, text } from "@condense/test-servers";
import type { ToolResult } from "../model/model-turn.ts";
import { alternationViolation } from "./gemini-alternation.ts";
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

/**
 * The calls of the model turn before `content`, each response paired with one: the call at its
 * position when the names agree, else the first unpaired call of its name.
 */
function pairCalls(
  responses: JsonObject[],
  modelTurn: JsonObject | undefined,
): (JsonObject | undefined)[] {
  const calls = parts(modelTurn)
    .map((part) => part.functionCall)
    .filter(isObject);
  const taken = new Set<number>();
  return responses.map((response, index) => {
    const byPosition = calls[index];
    if (byPosition !== undefined && !taken.has(index) && byPosition.name === response.name) {
      taken.add(index);
      return byPosition;
    }
    const byName = calls.findIndex((call, at) => !taken.has(at) && call.name === response.name);
    if (byName === -1) return undefined;
    taken.add(byName);
    return calls[byName];
  });
}

function toolResults(contents: JsonObject[]): ToolResult[] {
  const content = contents.at(-1);
  if (content === undefined || (content.role ?? "user") !== "user") return [];
  const responses = parts(content)
    .map((part) => part.functionResponse)
    .filter(isObject);
  const calls = pairCalls(responses, contents.at(-2));
  return responses.map((response, index) => {
    const call = calls[index];
    return {
      callId: text(response.id) || text(response.name),
      ...(call === undefined ? {} : { call: { name: text(call.name), input: call.args ?? {} } }),
      text: responseText(response),
    };
  });
}

const wire = geminiWire({ callIds: false });

export const geminiGenerateContent: AgentProtocol = {
  ...wire,
  violation: (body, headers) => alternationViolation(body) ?? wire.violation(body, headers),
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
      toolResults: toolResults(contents),
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
