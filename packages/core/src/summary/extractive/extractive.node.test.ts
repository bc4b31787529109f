import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../messages/types.js";
import { countTokens } from "../../tokens/count.js";
import { buildLedger, missingIdentifiers } from "../ledger/ledger.js";
import { missingSections } from "../template.js";
import { extractiveSummary } from "./extractive.js";

// The real transcripts of the shared corpus (MIT; see its README). Skipped when absent.
const corpusDir = "/work/shared/corpus/normalized";
const files = existsSync(corpusDir)
  ? readdirSync(corpusDir).filter((name) => name.endsWith(".json"))
  : [];
const MODEL = "gpt-4o";
const MAX_TOKENS = 12_000;

function load(name: string): ChatMessage[] {
  const parsed = JSON.parse(readFileSync(join(corpusDir, name), "utf8")) as {
    messages: ChatMessage[];
  };
  return parsed.messages;
}

describe.skipIf(files.length === 0)("extractive summary of every corpus transcript", () => {
  for (const name of files) {
    it(`summarizes ${name} completely and within maxTokens`, () => {
      const messages = load(name);
      const ledger = buildLedger(messages);
      const summary = extractiveSummary({
        messages,
        model: MODEL,
        targetTokens: 2000,
        maxTokens: MAX_TOKENS,
        identifierPolicy: "strict",
        ledger,
      });
      expect(missingSections(summary)).toEqual([]);
      expect(missingIdentifiers(summary, ledger)).toEqual([]);
      expect(countTokens(summary, MODEL)).toBeLessThanOrEqual(MAX_TOKENS);
      expect(ledger.identifiers.length).toBeGreaterThan(0);
    });

    it(`carries ${name} across two compactions`, () => {
      const messages = load(name);
      // Split before a user or assistant message so no tool result loses its call.
      let split = Math.floor(messages.length / 2);
      while (split < messages.length && messages[split]?.role === "tool") split++;
      const first = messages.slice(0, split);
      const second = messages.slice(split);
      const base = {
        model: MODEL,
        targetTokens: 2000,
        maxTokens: MAX_TOKENS,
        identifierPolicy: "strict" as const,
      };
      const firstLedger = buildLedger(first);
      const firstSummary = extractiveSummary({ ...base, messages: first, ledger: firstLedger });
      const secondLedger = buildLedger(second, firstLedger);
      const summary = extractiveSummary({
        ...base,
        messages: second,
        previousSummary: firstSummary,
        ledger: secondLedger,
      });
      expect(missingSections(summary)).toEqual([]);
      expect(missingIdentifiers(summary, secondLedger)).toEqual([]);
      // Everything the first summary had to keep is still there.
      expect(missingIdentifiers(summary, firstLedger)).toEqual([]);
      expect(countTokens(summary, MODEL)).toBeLessThanOrEqual(MAX_TOKENS);
    });
  }
});
