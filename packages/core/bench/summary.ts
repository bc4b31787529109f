/**
 * `pnpm bench` (core), the deterministic summary's figures: every transcript of
 * ../shared/corpus/normalized (else the fixtures) compacted with the default
 * options and `force: true` at 32k, 64k and 128k, and for each summary what
 * `test-support/summary-figures` measures, against the size limit the engine
 * gave the summarizer and against the summary tokens recorded in
 * `bench/summary-baseline.json` (the summarizer before issue 14). Then each transcript replayed
 * turn by turn as a session runs it (`test-support/session-replay`, the cost policy at 32k and
 * 128k): at every tenth turn, the identifiers the conversation named so far that the context
 * still holds; and with `summaryMaxTokens` 2,000, the largest summary.
 *
 *   node --import tsx bench/summary.ts [--write-baseline]
 */

import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TRANSCRIPTS_DIR } from "@condense/test-fixtures/transcripts";
import { compact } from "../src/compact/compact.js";
import type { ChatMessage } from "../src/messages/types.js";
import { extractiveSummarizer } from "../src/summary/extractive.js";
import { isToolCallId } from "../src/summary/identifiers.js";
import { buildLedger } from "../src/summary/ledger.js";
import type { Summarizer } from "../src/summary/summarizer.js";
import { replaySession } from "../src/test-support/session-replay.js";
import { summaryFigures } from "../src/test-support/summary-figures.js";
import { countTokens } from "../src/tokens/count.js";

const here = dirname(fileURLToPath(import.meta.url));
const model = "gpt-4o";
const windows = [32_000, 64_000, 128_000];
const baselineFile = join(here, "summary-baseline.json");
const writeBaseline = process.argv.includes("--write-baseline");

const fmt = (value: number, digits = 0) =>
  value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const percent = (part: number, whole: number) =>
  whole === 0 ? "-" : `${fmt((100 * part) / whole)}%`;

function table(rows: Array<Record<string, string | number>>): void {
  const first = rows[0];
  if (first === undefined) return;
  const headers = Object.keys(first);
  const widths = headers.map((h) => Math.max(h.length, ...rows.map((r) => String(r[h]).length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i] ?? 0)).join("  ");
  console.log(line(headers));
  for (const row of rows) console.log(line(headers.map((h) => String(row[h]))));
}

function loadTranscripts(): {
  source: string;
  transcripts: { name: string; messages: ChatMessage[] }[];
} {
  const shared = join(here, "../../../../shared/corpus/normalized");
  const folder = existsSync(shared) ? shared : TRANSCRIPTS_DIR;
  const transcripts = readdirSync(folder)
    .filter((file) => file.endsWith(".json"))
    .sort()
    .map((file) => ({
      name: file.replace(/\.json$/, ""),
      messages: (
        JSON.parse(readFileSync(join(folder, file), "utf8")) as { messages: ChatMessage[] }
      ).messages,
    }));
  return { source: folder, transcripts };
}

/** The built-in summarizer, recording the size limit of the last request it was given. */
function recording(): { summarizer: Summarizer; maxTokens: () => number } {
  const inner = extractiveSummarizer();
  let maxTokens = 0;
  return {
    summarizer: {
      name: inner.name,
      kind: inner.kind,
      summarize(request) {
        maxTokens = request.maxTokens;
        return inner.summarize(request);
      },
    },
    maxTokens: () => maxTokens,
  };
}

const COLUMNS = [
  "summary tokens",
  "limit",
  "vs before",
  "bare ids",
  "modified described",
  "call ids named",
  "ids kept",
];

const baseline: Record<string, number> = existsSync(baselineFile)
  ? (JSON.parse(readFileSync(baselineFile, "utf8")) as Record<string, number>)
  : {};
const recorded: Record<string, number> = {};

const { source, transcripts } = loadTranscripts();
console.log(`\n## Deterministic summary, ${transcripts.length} transcripts from ${source}`);
console.log(
  "bare ids: tokens on lines that, without their identifiers and punctuation, say fewer than three words (the list of files only read set aside)",
);
const rows = [];
const totals = { bare: 0, modified: 0, described: 0, shown: 0, named: 0, ids: 0, kept: 0 };
let worstShare = 0;
let worstGrowth = 0;
for (const { name, messages } of transcripts) {
  for (const window of windows) {
    const input = JSON.parse(JSON.stringify(messages)) as ChatMessage[];
    const { summarizer, maxTokens } = recording();
    const result = await compact(
      { model, messages: input },
      { contextWindow: window, force: true, summarizer },
    );
    const key = `${name}@${window / 1000}k`;
    if (result.summary === undefined || result.summary === null) {
      rows.push({
        transcript: name.slice(0, 44),
        window: `${window / 1000}k`,
        tier: result.tier,
        ...Object.fromEntries(COLUMNS.map((column) => [column, "-"])),
        fits: "no summary",
      });
      continue;
    }
    const figures = summaryFigures(result.summary, messages, result.ledger, result.messages, model);
    recorded[key] = figures.summaryTokens;
    const before = baseline[key];
    const growth = before === undefined ? undefined : figures.summaryTokens / before;
    worstShare = Math.max(worstShare, figures.bareListShare);
    if (growth !== undefined) worstGrowth = Math.max(worstGrowth, growth);
    totals.bare += figures.bareListShare;
    totals.modified += figures.modifiedFiles;
    totals.described += figures.modifiedDescribed;
    totals.shown += figures.toolCallIdsShown;
    totals.named += figures.toolCallIdsNamed;
    totals.ids += figures.identifiers;
    totals.kept += figures.identifiersKept;
    rows.push({
      transcript: name.slice(0, 44),
      window: `${window / 1000}k`,
      tier: result.tier,
      "summary tokens": fmt(figures.summaryTokens),
      limit: fmt(maxTokens()),
      "vs before": growth === undefined ? "-" : `${fmt(growth, 2)}×`,
      "bare ids": `${fmt(100 * figures.bareListShare)}%`,
      "modified described": `${figures.modifiedDescribed}/${figures.modifiedFiles}`,
      "call ids named": `${figures.toolCallIdsNamed}/${figures.toolCallIdsShown}`,
      "ids kept": `${figures.identifiersKept}/${figures.identifiers}`,
      fits: figures.summaryTokens <= maxTokens() ? "yes" : "NO",
    });
  }
}
table(rows);
const runs = Object.keys(recorded).length;
console.log(
  `\nbare ids: mean ${percent(totals.bare, runs)}, worst ${fmt(100 * worstShare)}%; ` +
    `modified files described: ${totals.described} of ${totals.modified}; ` +
    `tool-call ids on a line naming tool and target: ${totals.named} of ${totals.shown}; ` +
    `identifiers kept: ${totals.kept} of ${totals.ids}; ` +
    `largest summary vs before: ${worstGrowth === 0 ? "-" : `${fmt(worstGrowth, 2)}×`}`,
);
console.log(
  `\n## Replayed sessions: identifiers kept and summary bound, ${transcripts.length} transcripts, cost policy`,
);
console.log(
  "identifiers: at every tenth turn, those the conversation named so far (user and assistant text, tool arguments) found verbatim in the context; largest summary with summaryMaxTokens 2,000",
);
const replayRows = [];
let named = 0;
let kept = 0;
let largestBounded = 0;
for (const { name, messages } of transcripts) {
  for (const window of [32_000, 128_000]) {
    let rowNamed = 0;
    let rowKept = 0;
    const replay = await replaySession(messages, {
      contextWindow: window,
      onTurn: ({ turn, history, context }) => {
        if (turn % 10 !== 9) return;
        const ledger = buildLedger(history);
        const text = JSON.stringify(context.map((m) => [m.content, m.tool_calls]));
        for (const id of new Set([
          ...ledger.identifiers,
          ...ledger.files.modified,
          ...ledger.files.read,
        ])) {
          if (isToolCallId(id)) continue;
          rowNamed++;
          if (text.includes(JSON.stringify(id).slice(1, -1))) rowKept++;
        }
      },
    });
    const bounded = await replaySession(messages, {
      contextWindow: window,
      summaryMaxTokens: 2_000,
      summaryMinTokens: 2_000,
    });
    const largest = Math.max(
      0,
      ...bounded.compactions.map((c) => countTokens(c.summary ?? "", model)),
    );
    largestBounded = Math.max(largestBounded, largest);
    named += rowNamed;
    kept += rowKept;
    replayRows.push({
      transcript: name.slice(0, 44),
      window: `${window / 1000}k`,
      compactions: replay.compactions.length,
      "ids kept": `${rowKept}/${rowNamed}`,
      "largest summary at 2,000": largest === 0 ? "-" : fmt(largest),
    });
  }
}
table(replayRows);
console.log(
  `\nreplayed: identifiers kept ${kept} of ${named}; largest summary with summaryMaxTokens 2,000: ${fmt(largestBounded)} tokens`,
);

if (writeBaseline) {
  writeFileSync(baselineFile, `${JSON.stringify(recorded, null, 2)}\n`);
  console.log(`baseline written to ${baselineFile}`);
}
