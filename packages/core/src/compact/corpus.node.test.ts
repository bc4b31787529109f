/**
 * Every transcript of ../shared/corpus/normalized (when present beside the
 * repository) compacted at 64k and 128k with the default summarizer. The
 * fixtures kept in the repository are covered by compact.test.ts.
 */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { toAnthropic } from "../formats/anthropic/convert.js";
import { validateMessages } from "../formats/validate.js";
import type { ChatMessage } from "../messages/types.js";
import { extractSummary } from "./assemble.js";
import { compact } from "./compact.js";

const corpus = join(import.meta.dirname, "../../../../../shared/corpus/normalized");
const files = existsSync(corpus)
  ? readdirSync(corpus)
      .filter((file) => file.endsWith(".json"))
      .sort()
  : [];

const textOf = (messages: readonly ChatMessage[]) =>
  JSON.stringify(messages.map((m) => [m.content, m.tool_calls]));

describe.skipIf(files.length === 0)("shared corpus", () => {
  for (const file of files) {
    const transcript = (
      JSON.parse(readFileSync(join(corpus, file), "utf8")) as { messages: ChatMessage[] }
    ).messages;
    for (const window of [64_000, 128_000]) {
      it(`${file} at ${window / 1000}k`, async () => {
        const result = await compact(
          { model: "gpt-4o", messages: transcript },
          { contextWindow: window, force: true },
        );
        expect(result.finalTokens).toBeLessThanOrEqual(window - 20_000);
        expect(validateMessages(result.messages, "openai")).toEqual({ ok: true, problems: [] });
        expect(validateMessages(result.messages, "anthropic")).toEqual({ ok: true, problems: [] });
        expect(toAnthropic(result.messages).messages[0]?.role).toBe("user");
        const text = textOf(result.messages);
        for (const id of result.ledger.identifiers)
          expect(text).toContain(JSON.stringify(id).slice(1, -1));
        const latest = [...transcript]
          .reverse()
          .find((m) => m.role === "user" && extractSummary(m) === undefined);
        if (typeof latest?.content === "string")
          expect(text).toContain(JSON.stringify(latest.content).slice(1, -1));
      });
    }
  }
});
