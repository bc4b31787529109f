/**
 * Real transcripts compacted through the LLM path: the real `openai` SDK
 * against a local Chat Completions server that answers with a template
 * summary which names no identifier at all, so the ledger guarantee has to
 * come from the engine, not from the model.
 */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TRANSCRIPTS_DIR } from "@condense/test-fixtures/transcripts";
import { startTestServer, type TestServer } from "@condense/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateMessages } from "../formats/validate.js";
import type { ChatMessage } from "../messages/types.js";
import { openAISummarizer } from "../summary/llm/openai-summarizer.js";
import { templateHandler } from "../test-support/summary-replies.js";
import { compact } from "./compact.js";

const corpus = join(import.meta.dirname, "../../../../../shared/corpus/normalized");
const folder = existsSync(corpus) ? corpus : TRANSCRIPTS_DIR;
const files = readdirSync(folder)
  .filter((file) => file.endsWith(".json"))
  .sort();

const textOf = (messages: readonly ChatMessage[]) =>
  JSON.stringify(messages.map((m) => [m.content, m.tool_calls]));

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(templateHandler);
});
afterAll(async () => {
  await server.close();
});

describe(`LLM tier over ${folder === corpus ? "the shared corpus" : "the fixtures"}`, () => {
  for (const file of files) {
    const transcript = (
      JSON.parse(readFileSync(join(folder, file), "utf8")) as { messages: ChatMessage[] }
    ).messages;
    for (const window of [64_000, 128_000]) {
      it(`${file} at ${window / 1000}k`, async () => {
        const summarizer = openAISummarizer({
          apiKey: "test-key",
          baseURL: server.url,
          model: "gpt-4o-mini",
          contextWindow: 32_000,
        });
        const before = server.requests.length;
        const result = await compact(
          { model: "gpt-4o", messages: transcript },
          { contextWindow: window, force: true, summarizer },
        );
        expect(result.finalTokens).toBeLessThanOrEqual(window - 20_000);
        expect(validateMessages(result.messages, "openai")).toEqual({ ok: true, problems: [] });
        expect(validateMessages(result.messages, "anthropic")).toEqual({ ok: true, problems: [] });
        const text = textOf(result.messages);
        for (const id of result.ledger.identifiers) {
          expect(text).toContain(JSON.stringify(id).slice(1, -1));
        }
        if (result.tier === 2 || result.tier === 3) {
          expect(result.summarizerCalls).toBe(server.requests.length - before);
          expect(result.summary).toContain("Summary written for request");
        } else {
          // Too little to summarize: nothing reached the model.
          expect(server.requests.length).toBe(before);
        }
      });
    }
  }
});
