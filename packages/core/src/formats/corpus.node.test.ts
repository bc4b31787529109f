/**
 * Real agent transcripts (/work/shared/corpus/normalized, OpenAI chat format):
 * each parses, is valid for OpenAI, and survives Anthropic and Responses
 * round-trips without losing visible text, calls or results.
 */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { toolCallInput, toolCallName } from "../messages/content.js";
import { parseMessages } from "../messages/parse.js";
import type { ChatMessage, MessageContent } from "../messages/types.js";
import { fromAnthropic, toAnthropic } from "./anthropic/convert.js";
import { fromResponses, toResponses } from "./responses/convert.js";
import { validateMessages } from "./validate.js";

const corpusDir = "/work/shared/corpus/normalized";
const files = existsSync(corpusDir)
  ? readdirSync(corpusDir)
      .filter((name) => name.endsWith(".json"))
      .sort()
  : [];

function texts(content: MessageContent): string[] {
  if (content === null) return [];
  const all =
    typeof content === "string"
      ? [content]
      : content.map((part) =>
          part.type === "text" ? part.text : part.type === "image_url" ? part.image_url.url : "",
        );
  return all.filter((text) => text.trim() !== "");
}

/**
 * What a model sees, independent of how a format groups it: system texts, and
 * the sequence of visible texts, calls (arguments compared as JSON) and results.
 */
function fingerprint(messages: readonly ChatMessage[]): { system: string[]; turns: unknown[] } {
  const system: string[] = [];
  const turns: unknown[] = [];
  for (const message of messages) {
    if (message.role === "system" || message.role === "developer") {
      system.push(...texts(message.content));
      continue;
    }
    if (message.role === "tool") {
      turns.push({
        result: message.tool_call_id,
        content: typeof message.content === "string" ? message.content : texts(message.content),
      });
      continue;
    }
    for (const text of texts(message.content)) turns.push({ role: message.role, text });
    for (const call of message.tool_calls ?? []) {
      turns.push({
        call: call.id,
        name: toolCallName(call),
        input: JSON.parse(toolCallInput(call)) as unknown,
      });
    }
  }
  return { system, turns };
}

describe.skipIf(files.length === 0)("real transcripts", () => {
  it.each(files)("%s parses, validates and round-trips", (file) => {
    const data = JSON.parse(readFileSync(join(corpusDir, file), "utf8")) as { messages: unknown };
    const messages = parseMessages(data.messages);
    expect(messages.length).toBeGreaterThan(0);
    expect(validateMessages(messages, "openai").problems).toEqual([]);

    const anthropic = toAnthropic(messages);
    const fromClaude = fromAnthropic(anthropic);
    expect(validateMessages(fromClaude, "anthropic").problems).toEqual([]);
    expect(validateMessages(fromClaude, "openai").problems).toEqual([]);
    expect(toAnthropic(fromClaude)).toEqual(anthropic);
    expect(fingerprint(fromClaude)).toEqual(fingerprint(messages));

    const items = toResponses(messages);
    const fromItems = fromResponses(items);
    expect(validateMessages(fromItems, "openai").problems).toEqual([]);
    expect(toResponses(fromItems)).toEqual(items);
    expect(fingerprint(fromItems)).toEqual(fingerprint(messages));
  });
});
