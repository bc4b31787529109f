/**
 * @module demo/demo
 * `pnpm demo`: replays a real agent transcript through Condense, turn by
 * turn, the way the agent would have run with it: append what happened,
 * fetch the context, "send" it to a model with a small window (a simulated
 * model that counts the prompt and refuses it, with OpenAI's overflow error,
 * if it does not fit; the error goes to `POST /overflow` like `withCompaction`
 * does). Shows progress and each compaction live, then a summary, a recall
 * of something compacted away (demo/recall-step.ts) and a self-contained HTML
 * report.
 *
 * With `--via ai-sdk` the same replay runs as an AI SDK agent would: through
 * `wrapLanguageModel` and `condenseMiddleware` (demo/ai-sdk-replay.ts).
 *
 * Usage: pnpm demo [--file <transcript.json>] [--window 32k] [--model gpt-4o] [--via client|ai-sdk] [--port 8787] [--out demo-report.html]
 */

import { writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { ChatMessage } from "@condense/core";
import { TRANSCRIPTS_DIR } from "@condense/test-fixtures/transcripts";
import type { InputMessage, SessionStatusBody } from "../src/index.js";
import { Condense, CondenseApiError } from "../src/index.js";
import { aiSdkReplay } from "./ai-sdk-replay.js";
import { type LedgerCompleteness, ledgerCompleteness } from "./ledger.js";
import { recallStep } from "./recall-step.js";
import { type CompactionMark, renderReport, type TurnPoint } from "./report-html.js";
import { ensureCoreBuilt, ensureService, type Service } from "./service.js";
import { formatNumber, LiveView, style, table } from "./terminal.js";
import { loadTranscript, type Transcript } from "./transcript.js";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, "../../..");
const workerDir = join(repoRoot, "apps/worker");
const coreDir = join(repoRoot, "packages/core");
const DEFAULT_FILE = join(TRANSCRIPTS_DIR, "mini-swe-agent__django__django-11910.json");

const USAGE = `Usage: pnpm demo [options]

  --file <path>    transcript to replay (corpus format; default: ${basename(DEFAULT_FILE)})
  --window <n>     the model's context window, e.g. 32000 or 32k (default 32k)
  --model <name>   model whose tokenizer counts the tokens (default gpt-4o)
  --via <path>     client (the Condense client's calls, default) or ai-sdk (an AI SDK model
                   wrapped with condenseMiddleware)
  --port <n>       where the service answers or is started (default 8787)
  --out <path>     the HTML report (default demo-report.html)

Environment: SUMMARIZER_BASE_URL / SUMMARIZER_API_KEY / SUMMARIZER_MODEL make a service the demo starts
summarize with that LLM; CONDENSE_API_KEY is the key for a service that is already running.`;

interface Options {
  file: string;
  window: number;
  model: string;
  via: "client" | "ai-sdk";
  port: number;
  out: string;
}

function parseWindow(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*$/.exec(text);
  if (match?.[1] === undefined)
    throw new Error(`--window ${text}: expected a number such as 32000 or 32k`);
  const factor =
    match[2]?.toLowerCase() === "k" ? 1_000 : match[2]?.toLowerCase() === "m" ? 1_000_000 : 1;
  return Math.round(Number(match[1]) * factor);
}

function options(): Options | undefined {
  const { values } = parseArgs({
    options: {
      file: { type: "string" },
      window: { type: "string", default: "32k" },
      model: { type: "string", default: "gpt-4o" },
      via: { type: "string", default: "client" },
      port: { type: "string", default: "8787" },
      out: { type: "string", default: "demo-report.html" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help === true) return undefined;
  if (values.via !== "client" && values.via !== "ai-sdk")
    throw new Error(`--via ${values.via}: expected client or ai-sdk`);
  // `pnpm demo` runs in packages/client; paths are meant from where the command was typed, which
  // pnpm and npm pass as INIT_CWD.
  const from = process.env.INIT_CWD ?? process.cwd();
  return {
    file: values.file === undefined ? DEFAULT_FILE : resolve(from, values.file),
    window: parseWindow(values.window),
    model: values.model,
    via: values.via,
    port: Number(values.port),
    out: resolve(from, values.out),
  };
}

/** What OpenAI answers when the prompt does not fit. */
function overflowError(tokens: number, window: number) {
  const message = `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`;
  return {
    status: 400,
    message,
    body: {
      error: {
        message,
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    },
  };
}

function sessionIdFor(file: string): string {
  const stem = basename(file, ".json")
    .replace(/[^A-Za-z0-9._:-]/g, "-")
    .slice(0, 80);
  return `demo-${stem}-${crypto.randomUUID().slice(0, 8)}`;
}

interface RunResult {
  points: TurnPoint[];
  marks: CompactionMark[];
  overflows: number;
  overLimit: number;
  ledger: LedgerCompleteness;
  summarizers: Set<string>;
  finalContextTokens: number;
  messageCount: number;
  seconds: number;
  sessionId: string;
  finalContext: unknown[];
  /** The session's bill under prompt caching, beside the whole history's (issue 19). */
  bill: SessionStatusBody["bill"];
}

async function replay(
  transcript: Transcript,
  opts: Options,
  service: Service,
  core: typeof import("@condense/core"),
): Promise<RunResult> {
  const started = performance.now();
  const condense = new Condense({
    baseUrl: service.baseUrl,
    apiKey: service.apiKey,
    timeoutMs: 120_000,
  });
  const sessionId = sessionIdFor(opts.file);
  const session = condense.session(sessionId);
  const count = (messages: readonly ChatMessage[]) => core.countMessageTokens(messages, opts.model);
  const input = (messages: readonly ChatMessage[]): InputMessage[] =>
    messages.map((m) => ({ ...m }));

  const view = new LiveView();
  // Through the AI SDK the middleware appends the head with the first call's prompt.
  const viaAiSdk =
    opts.via === "ai-sdk"
      ? aiSdkReplay({
          session,
          transcript,
          model: opts.model,
          window: opts.window,
          count,
          onRefusal: (tokens) =>
            view.event(
              style.yellow(
                `  ↯ the model refused ${formatNumber(tokens)} tokens; the middleware reported it to /overflow`,
              ),
            ),
        })
      : undefined;
  await session.update({ contextWindow: opts.window, model: opts.model });
  const sent: ChatMessage[] = [...transcript.head];
  // Both paths append as an agent does: what came in since the model's last answer (the head,
  // then tool results and user messages) right before a model call, the answer right after it.
  let arrived: ChatMessage[] = [...transcript.head];

  const points: TurnPoint[] = [];
  const marks: CompactionMark[] = [];
  const summarizers = new Set<string>();
  let overflows = 0;
  let overLimit = 0;
  let coveredSeq = 0;
  let seenEvents = 0;
  const total = transcript.turns.length;

  for (const [index, turn] of transcript.turns.entries()) {
    const number = index + 1;
    let tokens: number;
    let compactedSince: boolean;
    if (viaAiSdk !== undefined) {
      const call = await viaAiSdk.call(index);
      tokens = call.tokens;
      overflows += call.refusals;
      if (call.failed) {
        overLimit++;
        view.event(
          style.red(`  ✗ turn ${number}: ${formatNumber(tokens)} tokens still exceed the window`),
        );
      }
      compactedSince = call.coveredSeq !== coveredSeq;
      coveredSeq = call.coveredSeq;
    } else {
      if (arrived.length > 0) await session.append(input(arrived), { model: opts.model });
      // What the agent sends to the model now.
      let context = await session.context({ format: "openai" });
      tokens = count(context.messages as ChatMessage[]);
      for (let attempt = 0; tokens > opts.window && attempt < 2; attempt++) {
        overflows++;
        view.event(
          style.yellow(
            `  ↯ turn ${number}: the model refused ${formatNumber(tokens)} tokens; reported to /overflow`,
          ),
        );
        context = await session.reportOverflow(overflowError(tokens, opts.window), {
          format: "openai",
        });
        tokens = count(context.messages as ChatMessage[]);
      }
      if (tokens > opts.window) {
        overLimit++;
        view.event(
          style.red(`  ✗ turn ${number}: ${formatNumber(tokens)} tokens still exceed the window`),
        );
      }
      compactedSince = context.coveredSeq !== coveredSeq;
      coveredSeq = context.coveredSeq;
    }

    if (compactedSince) {
      const events = await session.compactions();
      for (const event of events.slice(seenEvents)) {
        const ms = event.durationMs;
        const failure =
          event.summarizerFailure === null
            ? ""
            : ` after the LLM failed (${event.summarizerFailure.kind})`;
        const summarizer = event.summarizer === null ? null : `${event.summarizer}${failure}`;
        if (summarizer !== null) summarizers.add(summarizer);
        marks.push({
          turn: number,
          tier: event.tier,
          tokensBefore: event.tokensBefore,
          tokensAfter: event.tokensAfter,
          durationMs: ms,
          trigger: event.trigger,
          summarizer,
        });
        const saved =
          event.tokensBefore > 0
            ? Math.round((1 - event.tokensAfter / event.tokensBefore) * 100)
            : 0;
        view.event(
          `${style.magenta("⚡ compaction")} #${marks.length} before turn ${number}: tier ${event.tier}  ${formatNumber(event.tokensBefore)} → ${style.bold(formatNumber(event.tokensAfter))} tokens ${style.dim(`(−${saved}%)`)}  ${ms === null ? style.dim("time n/a") : `${ms} ms`}  ${style.dim(`[${event.trigger}${summarizer === null ? "" : `, ${summarizer}`}]`)}`,
        );
      }
      seenEvents = events.length;
    }

    const raw = count(sent);
    points.push({ turn: number, contextTokens: tokens, rawTokens: raw });
    view.update({
      turn: number,
      turns: total,
      contextTokens: tokens,
      window: opts.window,
      rawTokens: raw,
      compactions: marks.length,
    });

    // The model's answer (through the AI SDK, the middleware appends it, and what followed it
    // with the next call).
    const [answer, ...followed] = turn;
    if (viaAiSdk === undefined && answer !== undefined)
      await session.append(input([answer]), { model: opts.model });
    arrived = followed;
    sent.push(...turn);
  }
  if (viaAiSdk !== undefined) await viaAiSdk.finish();
  else if (arrived.length > 0) await session.append(input(arrived), { model: opts.model });
  view.finish();

  const final = await session.context({ format: "openai" });
  const ledger = await ledgerCompleteness(transcript.messages, final.messages, session);
  const status = await session.status();
  return {
    points,
    marks,
    overflows,
    overLimit,
    ledger,
    summarizers,
    finalContextTokens: count(final.messages as ChatMessage[]),
    messageCount: status.messageCount,
    seconds: (performance.now() - started) / 1000,
    sessionId,
    finalContext: final.messages,
    bill: status.bill,
  };
}

function percent(part: number, whole: number): string {
  return whole === 0 ? "—" : `${((part / whole) * 100).toFixed(1)}%`;
}

function dollars(value: number | null): string {
  return value === null ? "—" : `$${value.toFixed(value < 1 ? 4 : 2)}`;
}

/**
 * What the turns' input cost under the model's prompt cache (the catalog's prices), beside sending
 * the whole history every turn under the same cache: the figure that counts, not tokens saved.
 */
function billLine(bill: SessionStatusBody["bill"]): string {
  const ratio = bill.ratio === null ? "—" : `${bill.ratio.toFixed(2)}×`;
  return `${dollars(bill.dollars)} vs ${dollars(bill.wholeHistoryDollars)} for the whole history (${ratio}, ${bill.model}, ${bill.turns} turns, ${bill.cacheBusts} cache busts)`;
}

function summaryRows(
  transcript: Transcript,
  opts: Options,
  run: RunResult,
  service: Service,
): Array<[string, string]> {
  const peak = Math.max(0, ...run.points.map((p) => p.contextTokens));
  const rawFinal = run.points.at(-1)?.rawTokens ?? 0;
  const rawSum = run.points.reduce((sum, p) => sum + p.rawTokens, 0);
  const sentSum = run.points.reduce((sum, p) => sum + p.contextTokens, 0);
  const byTier = new Map<number, number>();
  for (const mark of run.marks) byTier.set(mark.tier, (byTier.get(mark.tier) ?? 0) + 1);
  const tiers = [...byTier.entries()]
    .sort(([a], [b]) => a - b)
    .map(([tier, n]) => `tier ${tier} ×${n}`)
    .join(", ");
  const { ledger } = run;
  const summarizer =
    run.summarizers.size > 0
      ? [...run.summarizers].join(", ")
      : service.summarizer === "llm"
        ? "LLM (SUMMARIZER_BASE_URL)"
        : "deterministic";
  return [
    ["transcript", `${basename(transcript.path)} (${transcript.messages.length} messages)`],
    ["turns (model calls)", String(run.points.length)],
    ["model / window", `${opts.model} / ${formatNumber(opts.window)} tokens`],
    [
      "via",
      opts.via === "ai-sdk" ? "the AI SDK (wrapLanguageModel + condenseMiddleware)" : "the client",
    ],
    ["compactions", `${run.marks.length}${tiers === "" ? "" : ` (${tiers})`}`],
    [
      "peak context sent",
      `${formatNumber(peak)} tokens (${percent(peak, opts.window)} of the window)`,
    ],
    [
      "raw transcript",
      `${formatNumber(rawFinal)} tokens at the last turn (${percent(rawFinal, opts.window)} of the window)`,
    ],
    ["final context", `${formatNumber(run.finalContextTokens)} tokens`],
    [
      "tokens saved",
      `${formatNumber(rawSum - sentSum)} of ${formatNumber(rawSum)} prompt tokens over all turns (${percent(rawSum - sentSum, rawSum)})`,
    ],
    ["bill (input, prompt caching)", billLine(run.bill)],
    [
      "overflows",
      `${run.overflows} refused by the model and recovered; ${run.overLimit} left over the window`,
    ],
    [
      "ledger completeness",
      `${percent(ledger.inContext + ledger.retrievable, ledger.total)} of ${formatNumber(ledger.total)} identifiers: ${formatNumber(ledger.inContext)} in the context, ${formatNumber(ledger.retrievable)} retrievable via /tool-outputs, ${formatNumber(ledger.missing.length)} missing`,
    ],
    ["summarizer", summarizer],
    [
      "transcript stored",
      `${formatNumber(run.messageCount)} messages, all retrievable via /transcript`,
    ],
    ["time", `${run.seconds.toFixed(1)} s`],
  ];
}

async function main(): Promise<number> {
  let opts: Options | undefined;
  try {
    opts = options();
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (opts === undefined) {
    console.log(USAGE);
    return 0;
  }
  let transcript: Transcript;
  try {
    transcript = loadTranscript(opts.file);
  } catch (error) {
    console.error(style.red(error instanceof Error ? error.message : String(error)));
    return 2;
  }
  console.log(
    `${style.bold("Condense demo")}: replaying ${style.cyan(basename(transcript.path))} (${transcript.source}, ${transcript.turns.length} turns, ${transcript.license}) against a ${formatNumber(opts.window)}-token window\n${style.dim(`source: ${transcript.origin}`)}`,
  );
  ensureCoreBuilt(coreDir, (line) => console.log(style.dim(line)));
  const core = await import("@condense/core");

  const service = await ensureService({
    port: opts.port,
    workerDir,
    log: (line) => console.log(style.dim(line)),
  });
  const stopOnSignal = () => {
    void service.stop().finally(() => process.exit(130));
  };
  process.once("SIGINT", stopOnSignal);
  process.once("SIGTERM", stopOnSignal);
  try {
    if (service.started && service.summarizer === "deterministic") {
      console.log(
        style.dim(
          "No SUMMARIZER_BASE_URL set: the deterministic summarizer serves (no LLM calls).",
        ),
      );
    }
    const run = await replay(transcript, opts, service, core);
    const rows = summaryRows(transcript, opts, run, service);
    console.log(`\n${style.bold("Summary")}\n${table(rows)}\n`);
    if (run.ledger.missing.length > 0) {
      console.log(
        style.dim(
          `Identifiers no longer in the context: ${run.ledger.missing.slice(0, 10).join(", ")}${run.ledger.missing.length > 10 ? ", …" : ""}\n`,
        ),
      );
    }
    await recallStep(
      new Condense({ baseUrl: service.baseUrl, apiKey: service.apiKey }),
      run.sessionId,
      transcript.messages,
      run.finalContext,
    );
    writeFileSync(
      opts.out,
      renderReport({
        title: `Condense: ${basename(transcript.path)} in a ${formatNumber(opts.window)}-token window`,
        source: transcript.source,
        origin: transcript.origin,
        license: transcript.license,
        window: opts.window,
        points: run.points,
        compactions: run.marks,
        summary: rows,
        generatedAt: new Date().toISOString(),
      }),
    );
    console.log(`Report: ${style.cyan(opts.out)}`);
    return run.overLimit === 0 ? 0 : 1;
  } catch (error) {
    const detail = CondenseApiError.isInstance(error)
      ? `${error.message} (HTTP ${error.status} ${error.code}${error.requestId ? `, request ${error.requestId}` : ""})`
      : error instanceof Error
        ? error.message
        : String(error);
    console.error(style.red(`\nThe demo failed: ${detail}`));
    if (CondenseApiError.isInstance(error) && error.status === 401 && !service.started) {
      console.error(
        `Set CONDENSE_API_KEY to a key of the service on ${service.baseUrl}, or stop it and let the demo start its own.`,
      );
    }
    return 1;
  } finally {
    await service.stop();
  }
}

process.exitCode = await main();
