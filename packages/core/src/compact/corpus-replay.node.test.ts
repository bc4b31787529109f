/**
 * Every transcript of ../shared/corpus/normalized (when present beside the repository) replayed
 * turn by turn through the engine as a session runs it (`test-support/session-replay`), at 32k
 * and 128k under the cost policy: every summary within `summaryMaxTokens` (2,000 here), and, at
 * the default limits, every identifier the conversation named so far still in what the model is
 * sent, at every tenth turn.
 */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../messages/types.js";
import { isToolCallId } from "../summary/identifiers.js";
import { buildLedger } from "../summary/ledger.js";
import { replaySession } from "../test-support/session-replay.js";
import { countTokens } from "../tokens/count.js";

const corpus = join(import.meta.dirname, "../../../../../shared/corpus/normalized");
const files = existsSync(corpus)
  ? readdirSync(corpus)
      .filter((file) => file.endsWith(".json"))
      .sort()
  : [];

const read = (file: string) =>
  (JSON.parse(readFileSync(join(corpus, file), "utf8")) as { messages: ChatMessage[] }).messages;

describe.skipIf(files.length === 0)("shared corpus, replayed session by session", () => {
  for (const file of files) {
    for (const window of [32_000, 128_000]) {
      it(`${file} at ${window / 1000}k: every summary within summaryMaxTokens 2,000`, {
        timeout: 120_000,
      }, async () => {
        const replay = await replaySession(read(file), {
          contextWindow: window,
          summaryMaxTokens: 2_000,
          summaryMinTokens: 2_000,
        });
        for (const compaction of replay.compactions)
          expect(countTokens(compaction.summary ?? "", "gpt-4o")).toBeLessThanOrEqual(2_000);
      });

      it(`${file} at ${window / 1000}k: every identifier named so far is in the context`, {
        timeout: 120_000,
      }, async () => {
        const lost: string[] = [];
        await replaySession(read(file), {
          contextWindow: window,
          onTurn: ({ turn, history, context }) => {
            if (turn % 10 !== 9) return;
            const ledger = buildLedger(history);
            const text = JSON.stringify(context.map((m) => [m.content, m.tool_calls]));
            for (const id of new Set([
              ...ledger.identifiers,
              ...ledger.files.modified,
              ...ledger.files.read,
            ]))
              if (!isToolCallId(id) && !text.includes(JSON.stringify(id).slice(1, -1)))
                lost.push(`${turn}: ${id}`);
          },
        });
        expect(lost).toEqual([]);
      });
    }
  }
});
