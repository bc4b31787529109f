/**
 * `pnpm bench`: prints the engine's figures (nothing here is a test).
 * Reads every transcript of ../shared/corpus/normalized when it is present,
 * otherwise the fixtures kept in the repository. The cold-start rows import the
 * built package (`pnpm bench` builds it first) in a fresh Node process per sample;
 * the bundle row runs the Worker's `wrangler deploy --dry-run` into a temporary folder.
 *
 *   node --expose-gc --import tsx bench/bench.ts [--quick | --cold-start]
 */

import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { TRANSCRIPTS_DIR } from "@condense/test-fixtures/transcripts";
import { startTestServer } from "@condense/test-servers";
import { countTokens as gptTokenizerCount } from "gpt-tokenizer";
import { Tiktoken } from "js-tiktoken/lite";
import o200kBase from "js-tiktoken/ranks/o200k_base";
import { compact } from "../src/compact/compact.js";
import { toolCallInput, toolCallName } from "../src/messages/content.js";
import type { ChatMessage } from "../src/messages/types.js";
import { openAISummarizer } from "../src/summary/llm/openai-summarizer.js";
import { templateHandler } from "../src/test-support/summary-replies.js";
import { countMessageTokens, countTokens, messageTokens } from "../src/tokens/count.js";

const here = dirname(fileURLToPath(import.meta.url));
const model = "gpt-4o";
const quick = process.argv.includes("--quick");

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
// The JS heap plus typed arrays (the decoded rank tables live in ArrayBuffers).
const heapMB = () => {
  gc();
  const usage = process.memoryUsage();
  return (usage.heapUsed + usage.arrayBuffers) / 1_048_576;
};
const ms = (start: number) => performance.now() - start;
const fmt = (value: number, digits = 0) =>
  value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

function table(rows: Array<Record<string, string | number>>): void {
  const first = rows[0];
  if (first === undefined) return;
  const headers = Object.keys(first);
  const widths = headers.map((h) => Math.max(h.length, ...rows.map((r) => String(r[h]).length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i] ?? 0)).join("  ");
  console.log(line(headers));
  for (const row of rows) console.log(line(headers.map((h) => String(row[h]))));
}

interface Transcript {
  name: string;
  messages: ChatMessage[];
}

function loadTranscripts(): { source: string; transcripts: Transcript[] } {
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

const fresh = (messages: readonly ChatMessage[]): ChatMessage[] =>
  JSON.parse(JSON.stringify(messages)) as ChatMessage[];

// Special-token strings count as text, as in countTokens and js-tiktoken's encode(text, [], []).
const asText = { disallowedSpecial: new Set<string>() };
const gptTokenizerTokens = (text: string): number => gptTokenizerCount(text, asText);

const spread = (values: number[], digits = 0): string => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return `${fmt(sorted[0] ?? 0, digits)} / ${fmt(at(0.5), digits)} / ${fmt(sorted.at(-1) ?? 0, digits)}`;
};

// Each sample is a new Node process: import, then count one short text (o200k_base unless noted).
const COLD_RUNS = 12;
const coldScripts: Record<string, string> = {
  "@condense/core": `const m = await import("@condense/core"); const i = performance.now();
    m.countTokens(TEXT, "gpt-4o");`,
  "@condense/core (cl100k_base, gpt-4)": `const m = await import("@condense/core"); const i = performance.now();
    m.countTokens(TEXT, "gpt-4");`,
  "gpt-tokenizer 4.0.0": `const m = await import("gpt-tokenizer"); const i = performance.now();
    m.countTokens(TEXT, { disallowedSpecial: new Set() });`,
  "js-tiktoken 1.0.21": `const { Tiktoken } = await import("js-tiktoken/lite");
    const ranks = (await import("js-tiktoken/ranks/o200k_base")).default; const i = performance.now();
    new Tiktoken(ranks).encode(TEXT, [], []);`,
};

function coldStartFigures(): void {
  console.log(
    `\n## Cold start: import + first count, a fresh Node process per sample (${COLD_RUNS} runs)`,
  );
  const samples = new Map<string, Array<{ total: number; first: number }>>();
  for (let run = 0; run < COLD_RUNS; run++) {
    // Libraries alternate, so background load on the machine spreads over all of them.
    for (const [name, body] of Object.entries(coldScripts)) {
      const script = `const TEXT = "Count me: the first message of a session.";
        const start = performance.now(); ${body}
        const end = performance.now(); console.log(JSON.stringify({ total: end - start, first: end - i }));`;
      const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
        cwd: join(here, ".."),
        encoding: "utf8",
      });
      if (child.status !== 0) throw new Error(`${name}: ${child.stderr}`);
      const list = samples.get(name) ?? [];
      list.push(JSON.parse(child.stdout) as { total: number; first: number });
      samples.set(name, list);
    }
  }
  table(
    [...samples].map(([name, list]) => ({
      library: name,
      "import + first count ms (min / median / max)": spread(list.map((s) => s.total)),
      "of which first count ms": spread(list.map((s) => s.first)),
    })),
  );
}

function corpusSpeedFigures(transcripts: Transcript[]): void {
  console.log("\n## Exact counting on the corpus (o200k_base), tables already loaded");
  const texts = transcripts.flatMap(({ messages }) =>
    messages.flatMap((m) => [
      typeof m.content === "string" ? m.content : "",
      ...(m.tool_calls ?? []).flatMap((c) => [toolCallName(c), toolCallInput(c)]),
    ]),
  );
  countTokens("load the table", model);
  gptTokenizerTokens("load the table");
  const run = (count: (text: string) => number) => {
    const start = performance.now();
    let tokens = 0;
    for (const text of texts) tokens += count(text);
    return { tokens, ms: ms(start) };
  };
  const ours = run((text) => countTokens(text, model));
  const theirs = run(gptTokenizerTokens);
  table([
    {
      counter: "@condense/core countTokens",
      tokens: fmt(ours.tokens),
      ms: fmt(ours.ms),
      "ns/token": fmt((ours.ms * 1e6) / ours.tokens),
    },
    {
      counter: "gpt-tokenizer countTokens",
      tokens: fmt(theirs.tokens),
      ms: fmt(theirs.ms),
      "ns/token": fmt((theirs.ms * 1e6) / theirs.tokens),
    },
  ]);
  console.log(
    `${fmt(texts.length)} texts; the two totals ${ours.tokens === theirs.tokens ? "are equal" : "DIFFER"}`,
  );

  // One pre-token piece of n letters: plain BPE is quadratic in n.
  const letters = "a".repeat(quick ? 20_000 : 200_000);
  let start = performance.now();
  const ourCount = countTokens(letters, model);
  const ourMs = ms(start);
  start = performance.now();
  const theirCount = gptTokenizerTokens(letters);
  const theirMs = ms(start);
  table([
    {
      text: `${fmt(letters.length)} × "a"`,
      "@condense/core ms": fmt(ourMs),
      "gpt-tokenizer ms": fmt(theirMs),
      tokens: ourCount === theirCount ? fmt(ourCount) : `${fmt(ourCount)} vs ${fmt(theirCount)}`,
    },
  ]);
}

function bundleFigures(): void {
  console.log(
    "\n## Worker bundle (`wrangler deploy --dry-run`, what `pnpm build` in apps/worker makes)",
  );
  const worker = join(here, "../../../apps/worker");
  const outdir = mkdtempSync(join(tmpdir(), "condense-bundle-"));
  try {
    const wrangler = spawnSync(
      join(worker, "node_modules/.bin/wrangler"),
      ["deploy", "--dry-run", "--outdir", outdir],
      { cwd: worker, encoding: "utf8" },
    );
    if (wrangler.status !== 0) throw new Error(`wrangler: ${wrangler.stderr}`);
    const reported = /Total Upload: .*/.exec(wrangler.stdout)?.[0] ?? "(no total printed)";
    const modules = readdirSync(outdir).filter((file) => /\.(?:m?js|wasm|bin)$/.test(file));
    const rows = modules.map((file) => {
      const bytes = readFileSync(join(outdir, file));
      return {
        module: file,
        "raw KiB": fmt(bytes.length / 1024),
        "gzip KiB": fmt(gzipSync(bytes).length / 1024),
      };
    });
    const rankData = ["o200k-base", "cl100k-base"].map(
      (name) => gzipSync(readFileSync(join(here, `../src/tokens/rank-data/${name}.ts`))).length,
    );
    table(rows);
    console.log(`wrangler: ${reported}`);
    console.log(
      `rank data alone: o200k_base ${fmt(rankData[0] ?? 0)} B, cl100k_base ${fmt(rankData[1] ?? 0)} B gzipped ` +
        `(js-tiktoken's: ${fmt(gzipSync(JSON.stringify(o200kBase)).length)} B for o200k_base)`,
    );
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

function tokenizerFigures(): void {
  console.log("\n## Tokenizer");
  const heapBefore = heapMB();
  let start = performance.now();
  countTokens("warm up the o200k_base encoder", model);
  const o200k = ms(start);
  const heapAfter = heapMB();
  start = performance.now();
  countTokens("warm up the cl100k_base encoder", "gpt-4");
  const cl100k = ms(start);
  const heapEnd = heapMB();
  console.log(
    `o200k_base first use (decode, hash table; in this process): ${fmt(o200k)} ms, memory +${fmt(heapAfter - heapBefore, 1)} MB`,
  );
  console.log(
    `cl100k_base first use: ${fmt(cl100k)} ms, memory +${fmt(heapEnd - heapAfter, 1)} MB`,
  );

  const bytes = new Uint8Array(786_432);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2_654_435_761) >>> 24;
  const base64 = btoa(String.fromCharCode(...bytes.subarray(0, 60_000)))
    .repeat(13)
    .slice(0, 1_048_576);
  const minified = JSON.stringify(
    Array.from({ length: 12_000 }, (_, i) => ({
      id: i,
      key: `k${i.toString(36)}`,
      v: [i, i * 3, `x${i}`],
      ok: i % 2 === 0,
    })),
  ).slice(0, 1_048_576);
  const letters = "a".repeat(1_048_576);
  const reference = new Tiktoken(o200kBase);
  const rows = [];
  for (const [name, text] of [
    ["base64", base64],
    ["minified JSON", minified],
    ["one letter", letters],
  ] as const) {
    start = performance.now();
    const ours = countTokens(text, model);
    const oursMs = ms(start);
    // js-tiktoken's own merge is quadratic on long pieces: compare on a 20 KB sample it can still do.
    const sample = text.slice(0, 20_000);
    start = performance.now();
    const exact = reference.encode(sample).length;
    const referenceMs = ms(start);
    const sampleOurs = countTokens(sample, model);
    rows.push({
      text: `${name} (${fmt(text.length / 1_048_576, 1)} MB)`,
      tokens: fmt(ours),
      "count ms": fmt(oursMs),
      "20 KB sample: ours": fmt(sampleOurs),
      "js-tiktoken": fmt(exact),
      "js-tiktoken ms": fmt(referenceMs),
      "error %": fmt((100 * (sampleOurs - exact)) / exact, 2),
    });
  }
  table(rows);
}

function accountingFigures(transcripts: Transcript[]): void {
  console.log("\n## Token accounting per transcript (o200k_base, exact)");
  const rows = transcripts.map(({ name, messages }) => {
    const exact = countMessageTokens(fresh(messages), model);
    const chars = JSON.stringify(messages.map((m) => [m.content, m.tool_calls])).length;
    const estimate = Math.round(chars / 4);
    // Cost of accounting as a session grows: each appended message is counted once, as a new object.
    const copies = fresh(messages);
    const start = performance.now();
    for (const message of copies) countMessageTokens([message], model);
    const elapsed = ms(start);
    return {
      transcript: name.slice(0, 48),
      messages: messages.length,
      tokens: fmt(exact),
      "chars/4 error %": fmt((100 * (estimate - exact)) / exact, 1),
      "ms per 1k appended tokens": fmt(elapsed / (exact / 1000), 3),
    };
  });
  table(rows);
}

async function compactionFigures(transcripts: Transcript[]): Promise<void> {
  console.log("\n## Compaction, deterministic summarizer (force: true, default options)");
  const rows = [];
  for (const { name, messages } of transcripts) {
    for (const window of [64_000, 128_000]) {
      const input = fresh(messages);
      const start = performance.now();
      const result = await compact(
        { model, messages: input },
        { contextWindow: window, force: true },
      );
      rows.push({
        transcript: name.slice(0, 48),
        window: `${window / 1000}k`,
        before: fmt(result.originalTokens),
        after: fmt(result.finalTokens),
        tier: result.tier,
        passes: result.passes,
        "messages before→after": `${result.originalCount}→${result.finalCount}`,
        ms: fmt(ms(start)),
        fits: result.finalTokens <= result.budget ? "yes" : "NO",
      });
    }
  }
  table(rows);
}

/**
 * The largest Claude Code transcript of the fixtures (144k tokens), continued by a copy of its
 * turns (tool-call ids suffixed, so that they stay distinct) until it holds 200,000 tokens; it
 * ends after a complete tool-call block. Built the same on every machine.
 */
function session200k(): ChatMessage[] {
  const file = join(TRANSCRIPTS_DIR, "claude-code__258c7280-ae70-4798-800f-63464d01a85d.json");
  const base = (JSON.parse(readFileSync(file, "utf8")) as { messages: ChatMessage[] }).messages;
  const out = fresh(base);
  let tokens = countMessageTokens(out, model);
  for (let copy = 2; ; copy++) {
    for (const original of base) {
      if (original.role === "system") continue;
      if (tokens >= 200_000 && original.role !== "tool") return out;
      const message = structuredClone(original);
      for (const call of message.tool_calls ?? []) call.id = `${call.id}_${copy}`;
      if (message.tool_call_id !== undefined)
        message.tool_call_id = `${message.tool_call_id}_${copy}`;
      out.push(message);
      tokens += messageTokens(message, model);
    }
  }
}

/**
 * CPU time of a deterministic compaction (tier 4, force, 128k window) of a 200k-token session,
 * each sample in a fresh process (bench/compaction-sample.ts) whose token cache has never seen
 * the session: `cold` tokenizes every message, `seeded` gets the counts a store kept at append
 * (`input.tokenCounts`) and tokenizes only what the compaction writes.
 */
function compactionCpuFigures(runs: number): void {
  console.log(
    `\n## CPU of a deterministic compaction of a 200k-token session (${runs} fresh processes each)`,
  );
  const messages = session200k();
  const folder = mkdtempSync(join(tmpdir(), "condense-bench-"));
  const sessionFile = join(folder, "session.json");
  const tokenCounts = messages.map((message) => messageTokens(message, model));
  writeFileSync(sessionFile, JSON.stringify({ messages, tokenCounts }));
  try {
    const rows = [];
    for (const mode of ["cold", "seeded"] as const) {
      const samples: Array<{
        cpuMs: number;
        tier: number;
        originalTokens: number;
        finalTokens: number;
      }> = [];
      for (let run = 0; run < runs; run++) {
        const output = execFileSync(
          process.execPath,
          ["--import", "tsx", join(here, "compaction-sample.ts"), mode, sessionFile],
          { encoding: "utf8" },
        );
        samples.push(JSON.parse(output.trim().split("\n").at(-1) ?? "{}"));
      }
      const cpu = samples.map((sample) => sample.cpuMs).sort((a, b) => a - b);
      const first = samples[0];
      rows.push({
        "token counts": mode === "cold" ? "cold cache (tokenized)" : "seeded (input.tokenCounts)",
        messages: messages.length,
        "tokens before→after": first
          ? `${fmt(first.originalTokens)}→${fmt(first.finalTokens)}`
          : "-",
        tier: first?.tier ?? "-",
        "CPU ms min": fmt(cpu[0] ?? 0, 1),
        median: fmt(cpu[Math.floor(cpu.length / 2)] ?? 0, 1),
        max: fmt(cpu.at(-1) ?? 0, 1),
      });
    }
    table(rows);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

async function llmFigures(transcripts: Transcript[]): Promise<void> {
  console.log(
    "\n## Compaction through the LLM path (local OpenAI-protocol server, scripted summaries)",
  );
  const server = await startTestServer(templateHandler);
  try {
    const rows = [];
    for (const { name, messages } of transcripts) {
      const window = 64_000;
      const summarizer = openAISummarizer({
        apiKey: "bench",
        baseURL: server.url,
        model: "gpt-4o-mini",
        contextWindow: 32_000,
      });
      const before = server.requests.length;
      const start = performance.now();
      const result = await compact(
        { model, messages: fresh(messages) },
        { contextWindow: window, force: true, summarizer },
      );
      const elapsed = ms(start);
      // What left the context: everything but the summary that replaced it.
      const summaryTokens = result.summary === null ? 0 : countTokens(result.summary, model);
      const compactedTokens = result.originalTokens - (result.finalTokens - summaryTokens);
      rows.push({
        transcript: name.slice(0, 48),
        tier: result.tier,
        "summarizer calls": result.summarizerCalls,
        "requests seen": server.requests.length - before,
        "tokens compacted": fmt(compactedTokens),
        "tokens sent": fmt(result.summarizerInputTokens),
        "sent/compacted":
          compactedTokens > 0 ? fmt(result.summarizerInputTokens / compactedTokens, 2) : "-",
        "tokens before": fmt(result.originalTokens),
        after: fmt(result.finalTokens),
        ms: fmt(elapsed),
      });
    }
    table(rows);
  } finally {
    await server.close();
  }
}

// `--cold-start`: only the cold-start rows (each a fresh process, the libraries alternated).
if (process.argv.includes("--cold-start")) {
  coldStartFigures();
  process.exit(0);
}
const { source, transcripts } = loadTranscripts();
console.log(
  `# @condense/core benchmark — Node ${process.version}, ${transcripts.length} transcripts from ${source}`,
);
coldStartFigures();
tokenizerFigures();
corpusSpeedFigures(transcripts);
accountingFigures(transcripts);
await compactionFigures(quick ? transcripts.slice(0, 3) : transcripts);
compactionCpuFigures(quick ? 3 : 7);
await llmFigures(quick ? transcripts.slice(0, 3) : transcripts);
bundleFigures();
