import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Tiktoken } from "js-tiktoken/lite";
import o200kBase from "js-tiktoken/ranks/o200k_base";
import { beforeAll, describe, expect, it } from "vitest";
import { toolCallInput, toolCallName } from "../messages/content.js";
import type { ChatMessage } from "../messages/types.js";
import { countMessageTokens, countTokens } from "./count.js";

// Real agent transcripts (see /work/shared/corpus/README.md); skipped where the corpus is absent.
const corpusDir = "/work/shared/corpus/normalized";
const files = existsSync(corpusDir)
  ? readdirSync(corpusDir)
      .filter((name) => name.endsWith(".json"))
      .sort()
  : [];

function load(file: string): ChatMessage[] {
  const parsed = JSON.parse(readFileSync(join(corpusDir, file), "utf8")) as {
    messages: ChatMessage[];
  };
  return parsed.messages;
}

let reference: Tiktoken;
beforeAll(() => {
  reference = new Tiktoken(o200kBase);
});
const exact = (text: string): number => reference.encode(text, [], []).length;

describe.skipIf(files.length === 0)("counts on the real transcript corpus", () => {
  it("has transcripts to check", () => {
    expect(files.length).toBeGreaterThan(0);
  });

  for (const file of files) {
    it(`${file}: every text equals js-tiktoken's count`, () => {
      let ours = 0;
      let theirs = 0;
      let mismatches = 0;
      for (const message of load(file)) {
        const texts = [
          typeof message.content === "string" ? message.content : "",
          ...(message.tool_calls ?? []).flatMap((c) => [toolCallName(c), toolCallInput(c)]),
        ];
        for (const text of texts) {
          const a = countTokens(text, "gpt-4o");
          const b = exact(text);
          ours += a;
          theirs += b;
          if (a !== b) mismatches++;
        }
      }
      expect(mismatches).toBe(0);
      expect(Math.abs(ours - theirs) / Math.max(1, theirs)).toBeLessThanOrEqual(0.001);
    });

    it(`${file}: the transcript total follows the cookbook`, () => {
      const messages = load(file);
      let expected = 3;
      for (const m of messages) {
        expected += 3 + exact(m.role);
        if (typeof m.content === "string") expected += exact(m.content);
        if (m.name !== undefined) expected += 1 + exact(m.name);
        for (const call of m.tool_calls ?? []) {
          expected += 3 + exact(toolCallName(call)) + exact(toolCallInput(call));
        }
      }
      expect(countMessageTokens(messages, "gpt-4o")).toBe(expected);
      // Parsed again (new objects), the cached counts give the same total.
      expect(countMessageTokens(load(file), "gpt-4o")).toBe(expected);
    });
  }
});
