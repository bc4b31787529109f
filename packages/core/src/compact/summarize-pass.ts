/**
 * @module compact/summarize-pass
 * One pass's summary of the middle (between the protected head and tail):
 * the LLM over all of it (tier 2), the LLM over its older half (tier 3), then
 * the deterministic summarizer (tier 4); the first result that fits wins, else
 * the smallest. Summarizers read the middle with every secret withheld and
 * the previous summary without the engine's own sections; whatever they
 * return is cleaned (no marker tag, no secret) and completed (every ledger
 * identifier), so the guarantees never depend on a summarizer obeying. A
 * failing LLM degrades to the next tier; a failing tier-4 summarizer of the
 * caller's to the built-in one. The newest messages (`compact/protected-tail`)
 * end the tail and are never pruned to make a summary fit.
 */

import { SummarizerError } from "../errors/condense-error.js";
import type { ChatMessage } from "../messages/types.js";
import { extractiveSummarizer } from "../summary/extractive/extractive.js";
import { buildLedger, carriedLedger, retireToolCallIds } from "../summary/ledger/ledger.js";
import { completeSummary } from "../summary/ledger/ledger-guarantee.js";
import type { Ledger } from "../summary/ledger-types.js";
import { withholdSecrets } from "../summary/redact.js";
import type { SummarizeRequest, Summarizer } from "../summary/summarizer.js";
import { neutralizeSummaryMarkers } from "../summary/template.js";
import { countMessageTokens, countTokens, messageTokens } from "../tokens/count.js";
import { extractSummary, placeSummary } from "./assemble.js";
import { keepLatestUser, latestUserSection, splitLatestUser } from "./latest-user.js";
import {
  fitByPruning,
  outputsOf,
  type PassContext,
  type PassResult,
  throwIfAborted,
} from "./pass-context.js";
import type { PrunedToolOutput, SummarizerFailure, Tier } from "./types.js";
import { EARLIER_SUMMARY, withholdInLedger, withholdInMessages } from "./withhold-secrets.js";

/** Failures that say the LLM is unreachable: trying it again for tier 3 would only repeat them. */
const TRANSPORT_FAILURES = new Set([
  "timeout",
  "rate_limited",
  "server_error",
  "network",
  "aborted",
]);

/** What every summarizer attempt of one pass shares. */
interface SummarySetup {
  /** The messages of the pass, and the head and tail kept verbatim around the summary. */
  messages: readonly ChatMessage[];
  head: ChatMessage[];
  tail: ChatMessage[];
  /** How many messages end the tail that no pruning may touch (`compact/protected-tail`). */
  newest: number;
  /** The middle to summarize (the previous summary's own message left out, its remainder kept). */
  middle: ChatMessage[];
  /** The middle as summarizers read it: the same messages with every secret withheld. */
  readable: ChatMessage[];
  /** The previous summary's text without the engine's latest-user section, secrets withheld. */
  previousSummary: string | undefined;
  /** The ledger earlier compactions carry by code into this summary's ledger. */
  carried: Ledger | undefined;
  targetTokens: number;
  /** What the summarizer may write: the limit less the room kept for the latest user message. */
  maxTokens: number;
  /** The summary's size limit, latest-user section included. */
  limit: number;
}

/** A summary placed between the head and the rest, and the outputs pruned to make it fit. */
interface PlacedSummary {
  messages: ChatMessage[];
  pruned: PrunedToolOutput[];
  summary: string;
}

/** Splits the middle near its token midpoint, on a boundary that keeps calls with their results. */
function splitOlderHalf(middle: readonly ChatMessage[], model: string): number {
  const costs = middle.map((message) => messageTokens(message, model));
  const half = costs.reduce((sum, cost) => sum + cost, 0) / 2;
  let used = 0;
  let split = 0;
  while (split < middle.length && used < half) {
    used += costs[split] ?? 0;
    split++;
  }
  while (split < middle.length && middle[split]?.role === "tool") split++;
  return split;
}

async function summarizeWith(
  summarizer: Summarizer,
  request: SummarizeRequest,
  context: PassContext,
): Promise<string> {
  const result: unknown = await summarizer.summarize(request);
  if (typeof result !== "object" || result === null) {
    throw new SummarizerError(
      "malformed",
      `summarizer ${summarizer.name} returned no result object`,
    );
  }
  const { summary, calls, inputTokens } = result as Partial<Record<string, unknown>>;
  if (summarizer.kind === "llm") {
    if (typeof calls === "number" && Number.isFinite(calls)) context.summarizerCalls += calls;
    if (typeof inputTokens === "number" && Number.isFinite(inputTokens))
      context.summarizerInputTokens += inputTokens;
  }
  if (typeof summary !== "string" || summary.trim() === "") {
    throw new SummarizerError(
      "malformed",
      `summarizer ${summarizer.name} returned no summary text; \`summarize\` must resolve to { summary: string, calls, inputTokens }`,
    );
  }
  // Neither a marker tag nor a secret may stand in a summary, whatever the summarizer wrote (the range
  // it read had its secrets withheld already; this also covers text it made up).
  const clean = withholdSecrets(neutralizeSummaryMarkers(summary));
  // The ledger guarantee must not depend on the summarizer obeying: check and complete it here,
  // within the summary's size limit (what does not fit is pointed to).
  return completeSummary(clean, request.ledger, request.maxTokens, request.model);
}

/** What a failed summarizer call is reported as. */
function failureOf(error: unknown): SummarizerFailure {
  if (SummarizerError.isInstance(error)) {
    return {
      kind: error.kind,
      message: error.message,
      ...(error.retryAfter === undefined ? {} : { retryAfter: error.retryAfter }),
    };
  }
  return { kind: "other", message: error instanceof Error ? error.message : String(error) };
}

/** The summary's text as a summarizer reads it. */
function readablePrevious(summary: string): string {
  // The verbatim latest-user section is the engine's to re-add, not the summarizer's to rewrite;
  // tool-call ids of earlier compactions retire (see retireToolCallIds).
  return withholdSecrets(retireToolCallIds(splitLatestUser(summary).summary), EARLIER_SUMMARY);
}

/** Where a pass splits its messages: head `[0, headEnd)`, tail `[tailStart, …)`, whose last `newest` are protected. */
export interface PassBounds {
  headEnd: number;
  tailStart: number;
  newest: number;
}

/** The middle of the pass and what its summarizers share; undefined when it is not worth a summary. */
function setUpSummary(
  messages: readonly ChatMessage[],
  bounds: PassBounds,
  summaryAt: number | undefined,
  context: PassContext,
): SummarySetup | undefined {
  const { model, options } = context;
  const { headEnd, tailStart } = bounds;
  const head = messages.slice(0, headEnd);
  const tail = messages.slice(tailStart);

  // Only the recognised summary is the previous summary; any other marker block is content.
  let previousSummary: string | undefined;
  const middle: ChatMessage[] = [];
  for (let index = headEnd; index < tailStart; index++) {
    const message = messages[index];
    if (message === undefined) continue;
    const found = index === summaryAt ? extractSummary(message) : undefined;
    if (found === undefined) {
      middle.push(message);
      continue;
    }
    previousSummary = readablePrevious(found.summary);
    if (found.remainder) middle.push(found.remainder);
  }
  // A summary merged into a message the tail must keep (`compact/boundaries`): its text becomes the
  // previous summary, and the message stays in the tail without it.
  const inTail = summaryAt !== undefined && summaryAt >= tailStart ? summaryAt - tailStart : -1;
  const merged = inTail >= 0 ? tail[inTail] : undefined;
  const found = merged === undefined ? undefined : extractSummary(merged);
  if (found !== undefined) {
    previousSummary = readablePrevious(found.summary);
    if (found.remainder === undefined) tail.splice(inTail, 1);
    else tail[inTail] = found.remainder;
  }
  // What summarizers read: the same messages with every secret withheld.
  const readable = withholdInMessages(middle, context.labels);
  const middleTokens = middle.reduce((sum, message) => sum + messageTokens(message, model), 0);
  const worthIt = middleTokens >= options.minSummarizableTokens || previousSummary !== undefined;
  // A context that does not fit at all is worth any summary that makes it fit.
  if (!worthIt && countMessageTokens(messages, model) <= options.budget) return undefined;
  if (middle.length === 0) return undefined;

  // Identifiers of earlier compactions are carried by code: from the caller's stored ledger when it has
  // one (an earlier pass's ledger, which holds it, once one is written), and from the previous
  // summary's text in any case.
  const stored =
    context.passLedger ??
    (options.ledger === undefined ? undefined : withholdInLedger(options.ledger));
  const carried = carriedLedger(stored, previousSummary);

  const available = options.target - countMessageTokens([...head, ...tail], model) - 200;
  const limit = Math.min(options.summaryMaxTokens, Math.max(available, options.summaryMinTokens));
  // The summary's size limit holds with the latest user message quoted in it: a short message
  // has its room kept (the summarizer writes within the rest); a long one follows the summary as
  // itself instead (`keepLatestUser`).
  const quote = quotedLatestTokens(context, head, tail);
  const maxTokens = quote <= limit / 4 ? Math.max(1, limit - quote) : limit;
  const targetTokens = Math.max(
    Math.min(Math.ceil(middleTokens * 0.2), maxTokens),
    Math.min(options.summaryMinTokens, maxTokens),
  );
  return {
    messages,
    head,
    tail,
    newest: bounds.newest,
    middle,
    readable,
    previousSummary,
    carried,
    targetTokens,
    maxTokens,
    limit,
  };
}

/** The tokens of the latest-user section a summary of this pass would end with (0: none). */
function quotedLatestTokens(
  context: PassContext,
  head: readonly ChatMessage[],
  tail: readonly ChatMessage[],
): number {
  const latest = context.latestUser;
  if (latest === undefined) return 0;
  const there = (message: ChatMessage) => message === latest.message;
  if (head.some(there) || tail.some(there)) return 0;
  return countTokens(latestUserSection(latest.text), context.model);
}

/** The request for a summary of the first `end` messages of the middle. */
function summarizeRequest(
  setup: SummarySetup,
  context: PassContext,
  end: number,
): SummarizeRequest {
  const { options } = context;
  const range = setup.readable.slice(0, end);
  return {
    messages: range,
    ...(setup.previousSummary === undefined ? {} : { previousSummary: setup.previousSummary }),
    model: context.model,
    targetTokens: setup.targetTokens,
    maxTokens: setup.maxTokens,
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    ...(options.focus === undefined ? {} : { focus: options.focus }),
    identifierPolicy: options.identifierPolicy,
    ...(options.identifierInstructions === undefined
      ? {}
      : { identifierInstructions: options.identifierInstructions }),
    ledger: buildLedger(range, setup.carried),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
}

/** Head, summary, the middle's `kept` messages and the tail, pruned to fit when they do not. */
function placeBetween(
  setup: SummarySetup,
  context: PassContext,
  summary: string,
  kept: readonly ChatMessage[],
): PlacedSummary {
  const own = countTokens(summary, context.model);
  const placed = keepLatestUser(
    context.latestUser,
    summary,
    setup.head,
    kept,
    setup.tail,
    (section) => own + countTokens(section, context.model) <= setup.limit,
  );
  return {
    ...fitByPruning(
      placeSummary(setup.head, placed.summary, placed.after, context.options.recallTool),
      context,
      setup.newest,
    ),
    summary: placed.summary.trim(),
  };
}

/** The pass's result for a placed summary of `summarized`, whose tool outputs it hands back. */
function resultOf(
  setup: SummarySetup,
  context: PassContext,
  tier: Tier,
  placed: PlacedSummary,
  summarized: readonly ChatMessage[],
  ledger: Ledger,
): PassResult {
  return {
    messages: placed.messages,
    tokens: countMessageTokens(placed.messages, context.model),
    tier,
    ledger,
    pruned: [...outputsOf(summarized, setup.messages, context), ...placed.pruned],
    summary: placed.summary,
  };
}

/** Summarizes the middle `[headEnd, tailStart)` of `messages`; undefined when it is not worth it. */
export async function summarizePass(
  messages: readonly ChatMessage[],
  bounds: PassBounds,
  summaryAt: number | undefined,
  context: PassContext,
): Promise<PassResult | undefined> {
  const setup = setUpSummary(messages, bounds, summaryAt, context);
  if (setup === undefined) return undefined;
  const { model, options } = context;
  const { middle } = setup;

  const inCooldown = options.cooldownUntil !== undefined && options.cooldownUntil > options.now;
  let best: PassResult | undefined;

  if (options.summarizer.kind === "llm" && !inCooldown) {
    const attempts: Array<{ tier: Tier; end: number }> = [{ tier: 2, end: middle.length }];
    const split = splitOlderHalf(middle, model);
    if (split > 0 && split < middle.length) attempts.push({ tier: 3, end: split });
    for (const attempt of attempts) {
      throwIfAborted(options.signal);
      const request = summarizeRequest(setup, context, attempt.end);
      try {
        const summary = await summarizeWith(options.summarizer, request, context);
        const candidate = resultOf(
          setup,
          context,
          attempt.tier,
          placeBetween(setup, context, summary, middle.slice(attempt.end)),
          middle.slice(0, attempt.end),
          request.ledger,
        );
        if (candidate.tokens <= options.limit) return candidate;
        best ??= candidate;
      } catch (error) {
        throwIfAborted(options.signal);
        const failure = failureOf(error);
        context.failure = failure;
        if (SummarizerError.isInstance(error) && error.usage !== undefined) {
          context.summarizerCalls += error.usage.calls;
          context.summarizerInputTokens += error.usage.inputTokens;
        }
        if (TRANSPORT_FAILURES.has(failure.kind)) break;
      }
    }
  }

  throwIfAborted(options.signal);
  const builtIn = extractiveSummarizer();
  const fallback = options.summarizer.kind === "extractive" ? options.summarizer : builtIn;
  const request = summarizeRequest(setup, context, middle.length);
  let summary: string;
  try {
    summary = await summarizeWith(fallback, request, context);
  } catch (error) {
    // A caller's own tier-4 summarizer failed: the built-in one never throws, so nothing is lost.
    throwIfAborted(options.signal);
    if (fallback === builtIn) throw error;
    context.failure = failureOf(error);
    summary = await summarizeWith(builtIn, request, context);
  }
  const candidate = resultOf(
    setup,
    context,
    4,
    placeBetween(setup, context, summary, []),
    middle,
    request.ledger,
  );
  if (best === undefined || candidate.tokens <= best.tokens) return candidate;
  return best;
}
