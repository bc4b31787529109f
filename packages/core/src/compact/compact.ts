/**
 * @module compact/compact
 * `compact()`: keeps a conversation inside its context window. Each pass
 * protects the head and the tail, tries the tool strip (tier 1), then
 * summarizes the middle: the LLM over all of it (tier 2), the LLM over its
 * older half (tier 3), the deterministic summarizer (tier 4). The first result
 * that fits wins. A failing summarizer degrades to the next tier; no message is
 * ever dropped without being summarized or handed back in `prunedToolOutputs`.
 */

import {
  CondenseError,
  InvalidMessagesError,
  InvalidOptionsError,
  SummarizerError,
} from "../errors/condense-error.js";
import { fromCanonical, toCanonical } from "../formats/convert.js";
import { jsonEqual } from "../formats/json-equal.js";
import { validateMessages } from "../formats/validate.js";
import { reusedCallIds, type ToolResultCall, toolResultCalls } from "../messages/call-ids.js";
import { messageText } from "../messages/content.js";
import { repairMessages } from "../messages/repair.js";
import type { ChatMessage, MessageFormat, Provider } from "../messages/types.js";
import { extractiveSummarizer } from "../summary/extractive.js";
import { extractIdentifiers, isToolCallId } from "../summary/identifiers.js";
import {
  appendMissingIdentifiers,
  buildLedger,
  missingIdentifiers,
  retireToolCallIds,
} from "../summary/ledger.js";
import type { Ledger } from "../summary/ledger-types.js";
import { containsSecret, withholdSecrets } from "../summary/redact.js";
import type { SummarizeRequest, Summarizer } from "../summary/summarizer.js";
import { hasSummaryMarker, neutralizeSummaryMarkers } from "../summary/template.js";
import { countMessageTokens, messageTokens } from "../tokens/count.js";
import { extractSummary, placeSummary } from "./assemble.js";
import { findBoundaries, smallerTailBudget } from "./boundaries.js";
import { DEFAULTS, type ResolvedOptions, resolveOptions } from "./options.js";
import {
  isPrunePlaceholder,
  namingOf,
  type OutputNaming,
  pruneToolOutputs,
  referenceById,
} from "./prune.js";
import { anchorOf, locateSummary, summaryDigest } from "./summary-anchor.js";
import { decideTrigger, warningLevelFor } from "./trigger.js";
import type {
  CompactInput,
  CompactOptions,
  CompactResult,
  PrunedToolOutput,
  SummarizerFailure,
  Tier,
} from "./types.js";
import {
  EARLIER_SUMMARY,
  labelMessages,
  type MessageLabels,
  withholdInLedger,
  withholdInMessages,
} from "./withhold-secrets.js";

const emptyLedger = (): Ledger => ({
  identifiers: [],
  files: { read: [], modified: [] },
  userRequests: [],
});

/** Failures that say the LLM is unreachable: trying it again for tier 3 would only repeat them. */
const TRANSPORT_FAILURES = new Set([
  "timeout",
  "rate_limited",
  "server_error",
  "network",
  "aborted",
]);

interface LatestUser {
  /** The message that holds it, while it is still in the context (it may carry a merged summary). */
  message: ChatMessage | undefined;
  text: string;
  /** The user message as the user sent it, when there is one (not only a copy in a summary's text). */
  original: ChatMessage | undefined;
}

/** Images and other non-text parts cannot live in a summary's text: such a message is kept as a message. */
function hasNonTextParts(message: ChatMessage | undefined): message is ChatMessage {
  return Array.isArray(message?.content) && message.content.some((part) => part.type !== "text");
}

/**
 * A latest user message that cannot be quoted in a summary stays a message:
 * images, a secret (no summary holds one) or a marker tag (it would be
 * neutralized, so no longer verbatim).
 */
function staysMessage(latest: LatestUser): latest is LatestUser & { original: ChatMessage } {
  if (latest.original === undefined) return false;
  return (
    hasNonTextParts(latest.original) || containsSecret(latest.text) || hasSummaryMarker(latest.text)
  );
}

interface PassContext {
  model: string;
  /** Kept verbatim whatever is compacted. */
  latestUser: LatestUser | undefined;
  options: ResolvedOptions;
  /**
   * The call each tool message of the input answers (id, occurrence, tool), by message object: the
   * passes keep the input's objects, and an id the provider reused names several calls.
   */
  calls: Map<ChatMessage, ToolResultCall>;
  /** How placeholders name an output for fetching it back. */
  reference: OutputNaming["reference"];
  /** Tool outputs removed from the context so far, by occurrence and call id. */
  pruned: Map<string, PrunedToolOutput>;
  failure: SummarizerFailure | undefined;
  summarizerCalls: number;
  summarizerInputTokens: number;
  /** The digest of the summary the engine wrote (the caller's anchor, then each new summary's). */
  anchor: string | undefined;
  /** Where each input message is, for the pointers of withheld secrets. */
  labels: MessageLabels;
}

interface PassResult {
  messages: ChatMessage[];
  tokens: number;
  tier: Tier;
  ledger: Ledger | undefined;
  /** Tool outputs this pass removed from the context; recorded only if the pass is kept. */
  pruned: PrunedToolOutput[];
  /** The text of the summary this pass placed; undefined when it placed none. */
  summary: string | undefined;
}

/** The tokens of each message, in order. */
function perMessageTokens(messages: readonly ChatMessage[], model: string): number[] {
  return messages.map((message) => messageTokens(message, model));
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted)
    throw new CondenseError("aborted", "compaction was aborted by the caller's signal");
}

function providerFor(format: MessageFormat): Provider {
  return format === "anthropic" ? "anthropic" : "openai";
}

function recordPruned(context: PassContext, outputs: readonly PrunedToolOutput[]): void {
  for (const output of outputs) {
    const key = `${output.occurrence}:${output.toolCallId}`;
    if (!context.pruned.has(key)) context.pruned.set(key, output);
  }
}

/** The naming of outputs in a pass's `messages`: by the input's calls, else read from the list itself. */
function namingFor(context: PassContext, messages: readonly ChatMessage[]): OutputNaming {
  let own: OutputNaming | undefined;
  return {
    callOf: (message, index) => {
      const known = context.calls.get(message);
      if (known !== undefined) return known;
      own ??= namingOf(messages);
      return own.callOf(message, index);
    },
    reference: context.reference,
  };
}

/** Prunes like `pruneToolOutputs`, remembering which call each placeholder stands for. */
function prune(
  messages: readonly ChatMessage[],
  context: PassContext,
  range: Parameters<typeof pruneToolOutputs>[2],
): ReturnType<typeof pruneToolOutputs> {
  const naming = namingFor(context, messages);
  const outcome = pruneToolOutputs(messages, context.model, range, naming);
  outcome.messages.forEach((message, index) => {
    const before = messages[index];
    if (message !== before && before?.role === "tool")
      context.calls.set(message, naming.callOf(before, index));
  });
  return outcome;
}

/** Every real tool output in a range that is about to be summarized away. */
function outputsOf(
  messages: readonly ChatMessage[],
  all: readonly ChatMessage[],
  context: PassContext,
): PrunedToolOutput[] {
  const naming = namingFor(context, all);
  const outputs: PrunedToolOutput[] = [];
  for (const message of messages) {
    if (message.role !== "tool" || !message.tool_call_id) continue;
    const content = messageText(message);
    if (isPrunePlaceholder(content)) continue;
    const { toolCallId, occurrence, toolName } = naming.callOf(message, all.indexOf(message));
    outputs.push({
      toolCallId,
      occurrence,
      toolName: toolName ?? "tool",
      content,
      tokens: messageTokens(message, context.model),
    });
  }
  return outputs;
}

/** Strips tool outputs anywhere (oldest first) until the messages fit the limit. */
function fitByPruning(
  messages: ChatMessage[],
  context: PassContext,
): { messages: ChatMessage[]; pruned: PrunedToolOutput[] } {
  const tokens = countMessageTokens(messages, context.model);
  if (tokens <= context.options.limit) return { messages, pruned: [] };
  const outcome = prune(messages, context, {
    from: 0,
    to: messages.length,
    needToSave: tokens - context.options.limit,
  });
  return { messages: outcome.messages, pruned: outcome.pruned };
}

const LATEST_USER_HEADING = "## Latest user message (verbatim)";

/** Splits off the verbatim latest-user section the engine appends (always last) from a summary. */
function splitLatestUser(summary: string): { summary: string; latest: string | undefined } {
  const at = summary.indexOf(`${LATEST_USER_HEADING}\n`);
  if (at === -1 || (at > 0 && summary[at - 1] !== "\n")) return { summary, latest: undefined };
  return {
    summary: summary.slice(0, at).trimEnd(),
    latest: summary.slice(at + LATEST_USER_HEADING.length + 1),
  };
}

/**
 * The latest user message of the conversation: the newest user message, or
 * the verbatim copy an earlier compaction kept in its summary (the one at
 * `summaryAt`) when no user message came after that summary.
 */
function findLatestUser(
  messages: readonly ChatMessage[],
  summaryAt: number | undefined,
): LatestUser | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message === undefined) continue;
    const found = i === summaryAt ? extractSummary(message) : undefined;
    if (found !== undefined) {
      const latest = splitLatestUser(found.summary).latest;
      if (latest !== undefined) return { message: undefined, text: latest, original: undefined };
      // A summary merged into a user message: that message is the latest user message.
      const rest = found.remainder;
      if (message.role === "user" && rest !== undefined)
        return { message, text: messageText(rest), original: rest };
      return undefined;
    }
    if (message.role === "user") return { message, text: messageText(message), original: message };
  }
  return undefined;
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
  // The ledger guarantee must not depend on the summarizer obeying: check and complete it here.
  const missing = missingIdentifiers(clean, request.ledger);
  return missing.length === 0 ? clean : appendMissingIdentifiers(clean, missing);
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

async function summarizePass(
  messages: readonly ChatMessage[],
  headEnd: number,
  tailStart: number,
  summaryAt: number | undefined,
  context: PassContext,
): Promise<PassResult | undefined> {
  const { model, options } = context;
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
    // The verbatim latest-user section is the engine's to re-add, not the summarizer's to rewrite;
    // tool-call ids of earlier compactions retire (see retireToolCallIds).
    previousSummary = withholdSecrets(
      retireToolCallIds(splitLatestUser(found.summary).summary),
      EARLIER_SUMMARY,
    );
    if (found.remainder) middle.push(found.remainder);
  }
  // What summarizers read: the same messages with every secret withheld.
  const readable = withholdInMessages(middle, context.labels);
  const middleTokens = middle.reduce((sum, message) => sum + messageTokens(message, model), 0);
  const worthIt = middleTokens >= options.minSummarizableTokens || previousSummary !== undefined;
  // A context that does not fit at all is worth any summary that makes it fit.
  if (!worthIt && countMessageTokens(messages, model) <= options.budget) return undefined;
  if (middle.length === 0) return undefined;

  // Identifiers of earlier compactions are carried by code: from the caller's stored ledger when it has
  // one, and from the previous summary's text in any case.
  const fromSummary: Ledger | undefined =
    previousSummary === undefined
      ? undefined
      : { ...emptyLedger(), identifiers: extractIdentifiers(previousSummary) };
  const merged =
    options.ledger === undefined
      ? fromSummary
      : mergeLedgers(withholdInLedger(options.ledger), fromSummary ?? emptyLedger());
  const carried =
    merged === undefined
      ? undefined
      : { ...merged, identifiers: merged.identifiers.filter((id) => !isToolCallId(id)) };

  const available = options.target - countMessageTokens([...head, ...tail], model) - 200;
  const maxTokens = Math.min(
    options.summaryMaxTokens,
    Math.max(available, options.summaryMinTokens),
  );
  const targetTokens = Math.max(
    Math.min(Math.ceil(middleTokens * 0.2), maxTokens),
    Math.min(options.summaryMinTokens, maxTokens),
  );

  const request = (end: number): SummarizeRequest => {
    const range = readable.slice(0, end);
    return {
      messages: range,
      ...(previousSummary === undefined ? {} : { previousSummary }),
      model,
      targetTokens,
      maxTokens,
      ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
      ...(options.focus === undefined ? {} : { focus: options.focus }),
      identifierPolicy: options.identifierPolicy,
      ...(options.identifierInstructions === undefined
        ? {}
        : { identifierInstructions: options.identifierInstructions }),
      ledger: buildLedger(range, carried),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    };
  };

  const build = (
    summary: string,
    kept: readonly ChatMessage[],
  ): { messages: ChatMessage[]; pruned: PrunedToolOutput[]; summary: string } => {
    // The latest user message stays verbatim even when its turn is compacted.
    const latest = context.latestUser;
    // A merged summary's remainder is rebuilt on every extraction, so it is recognised by its content.
    const isLatest = (message: ChatMessage): boolean =>
      latest?.message !== undefined &&
      (message === latest.message ||
        (latest.original !== undefined &&
          latest.original !== latest.message &&
          message.role === "user" &&
          jsonEqual(message.content, latest.original.content)));
    const stillThere = head.some(isLatest) || kept.some(isLatest) || tail.some(isLatest);
    const place = (text: string, after: readonly ChatMessage[]) => ({
      ...fitByPruning(placeSummary(head, text, after), context),
      summary: text.trim(),
    });
    if (latest === undefined || stillThere) return place(summary, [...kept, ...tail]);
    if (staysMessage(latest)) {
      // It cannot be written into the summary: the message itself follows the summary.
      return place(splitLatestUser(summary).summary, [latest.original, ...kept, ...tail]);
    }
    const withLatest = `${splitLatestUser(summary).summary}\n\n${LATEST_USER_HEADING}\n${latest.text}`;
    return place(withLatest, [...kept, ...tail]);
  };

  const finish = (
    tier: Tier,
    assembled: { messages: ChatMessage[]; pruned: PrunedToolOutput[]; summary: string },
    summarized: readonly ChatMessage[],
    ledger: Ledger,
  ): PassResult => ({
    messages: assembled.messages,
    tokens: countMessageTokens(assembled.messages, model),
    tier,
    ledger,
    pruned: [...outputsOf(summarized, messages, context), ...assembled.pruned],
    summary: assembled.summary,
  });

  const inCooldown = options.cooldownUntil !== undefined && options.cooldownUntil > options.now;
  let best: PassResult | undefined;

  if (options.summarizer.kind === "llm" && !inCooldown) {
    const attempts: Array<{ tier: Tier; end: number }> = [{ tier: 2, end: middle.length }];
    const split = splitOlderHalf(middle, model);
    if (split > 0 && split < middle.length) attempts.push({ tier: 3, end: split });
    for (const attempt of attempts) {
      throwIfAborted(options.signal);
      const summarizeRequest = request(attempt.end);
      try {
        const summary = await summarizeWith(options.summarizer, summarizeRequest, context);
        const candidate = finish(
          attempt.tier,
          build(summary, middle.slice(attempt.end)),
          middle.slice(0, attempt.end),
          summarizeRequest.ledger,
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
  const fallbackRequest = request(middle.length);
  let summary: string;
  try {
    summary = await summarizeWith(fallback, fallbackRequest, context);
  } catch (error) {
    // A caller's own tier-4 summarizer failed: the built-in one never throws, so nothing is lost.
    throwIfAborted(options.signal);
    if (fallback === builtIn) throw error;
    context.failure = failureOf(error);
    summary = await summarizeWith(builtIn, fallbackRequest, context);
  }
  const candidate = finish(4, build(summary, []), middle, fallbackRequest.ledger);
  if (best === undefined || candidate.tokens <= best.tokens) return candidate;
  return best;
}

async function runPass(
  messages: readonly ChatMessage[],
  tailTokens: number,
  summarizeOnly: boolean,
  context: PassContext,
): Promise<PassResult | undefined> {
  const { model, options } = context;
  const tokens = perMessageTokens(messages, model);
  const current = countMessageTokens(messages, model);
  const summaryAt = await locateSummary(messages, context.anchor);
  const { headEnd, tailStart } = findBoundaries(messages, tokens, {
    headMessages: options.headMessages,
    tailTokens,
    minTailMessages: options.minTailMessages,
    summaryAt,
  });

  if (!summarizeOnly) {
    const outcome = prune(messages, context, {
      from: 0,
      to: tailStart,
      needToSave: current - options.target,
    });
    const after = countMessageTokens(outcome.messages, model);
    // Pruning is kept only when it reaches the aim: a prune that barely fits would be redone next turn.
    if (after <= options.target && outcome.saved > 0) {
      return {
        messages: outcome.messages,
        tokens: after,
        tier: 1,
        ledger: undefined,
        pruned: outcome.pruned,
        summary: undefined,
      };
    }
  }

  const summarized = await summarizePass(messages, headEnd, tailStart, summaryAt, context);
  if (summarized) return summarized;

  // Nothing worth a summary: the only lever left is stripping tool outputs, the tail's included, and
  // only when the context does not fit (a forced compaction of a small context changes nothing).
  if (current <= options.limit) return undefined;
  const outcome = prune(messages, context, {
    from: 0,
    to: messages.length,
    needToSave: current - options.target,
  });
  if (outcome.saved === 0) return undefined;
  return {
    messages: outcome.messages,
    tokens: countMessageTokens(outcome.messages, model),
    tier: 1,
    ledger: undefined,
    pruned: outcome.pruned,
    summary: undefined,
  };
}

function mergeLedgers(into: Ledger, from: Ledger): Ledger {
  const union = (a: string[], b: string[]) => [...new Set([...a, ...b])];
  return {
    identifiers: union(into.identifiers, from.identifiers),
    files: {
      read: union(into.files.read, from.files.read),
      modified: union(into.files.modified, from.files.modified),
    },
    userRequests: union(into.userRequests, from.userRequests),
  };
}

/** The summary the engine wrote, as it stands in `messages` (recognised by `anchor`), or null. */
async function currentSummary(
  messages: readonly ChatMessage[],
  anchor: string | undefined,
): Promise<string | null> {
  const at = await locateSummary(messages, anchor);
  const message = at === undefined ? undefined : messages[at];
  return (message && extractSummary(message)?.summary) ?? null;
}

export function compact(
  input: CompactInput & { format?: "openai" },
  options?: CompactOptions,
): Promise<CompactResult<ChatMessage>>;
export function compact(
  input: CompactInput,
  options?: CompactOptions,
): Promise<CompactResult<unknown>>;
export async function compact(
  input: CompactInput,
  options: CompactOptions = {},
): Promise<CompactResult<unknown>> {
  if (typeof input !== "object" || input === null) {
    throw new InvalidOptionsError("input", "expected an object `{ model, messages }`");
  }
  if (typeof input.model !== "string" || input.model.trim() === "") {
    throw new InvalidOptionsError(
      "model",
      "expected the model name as a non-empty string, e.g. `gpt-4o`",
    );
  }
  const model = input.model;
  const format: MessageFormat = input.format ?? "openai";
  const canonical = toCanonical({ format, messages: input.messages, system: input.system });
  const resolved = resolveOptions(model, options);
  const labels = labelMessages(canonical, format, input.seqs);
  throwIfAborted(resolved.signal);

  const originalTokens = countMessageTokens(canonical, model);
  const repair = repairMessages(canonical);
  const repaired = repair.messages;
  if (repaired.length === 0) {
    // Only orphaned tool results and empty turns: repairing drops them all, and no provider accepts
    // an empty list.
    throw new InvalidMessagesError(
      repair.repairs.map((change) =>
        change.kind === "dropped_empty_turn"
          ? {
              index: change.index,
              path: "content",
              kind: "empty_turn",
              message:
                "this message has no content and no tool calls, and empty turns are dropped, which leaves nothing left to send; start with a user message that says something",
            }
          : {
              index: change.index,
              path: "tool_call_id",
              kind: "orphan_result",
              message: `tool message answers \`${change.toolCallId ?? ""}\`, but no assistant message made that call, and orphaned results are dropped, which leaves nothing left to send; send the assistant message that made the call, or start with a user message`,
            },
      ),
    );
  }
  const calls = new Map<ChatMessage, ToolResultCall>();
  for (const [index, call] of toolResultCalls(repaired)) {
    const message = repaired[index];
    if (message !== undefined) calls.set(message, call);
  }
  const anchor = anchorOf(options);
  const context: PassContext = {
    model,
    latestUser: findLatestUser(repaired, await locateSummary(repaired, anchor)),
    options: resolved,
    calls,
    reference: resolved.toolOutputReference ?? referenceById(reusedCallIds(repaired)),
    pruned: new Map(),
    failure: undefined,
    summarizerCalls: 0,
    summarizerInputTokens: 0,
    anchor,
    labels,
  };
  // What a result that wrote no summary hands back: the caller's ledger, so passing it on loses nothing.
  const carriedLedger =
    resolved.ledger === undefined ? emptyLedger() : withholdInLedger(resolved.ledger);

  const finalize = async (
    messages: ChatMessage[],
    fields: { compacted: boolean; tier: Tier; passes: number; ledger: Ledger; reason?: string },
  ): Promise<CompactResult<unknown>> => {
    const validation = validateMessages(messages, providerFor(format));
    if (!validation.ok) {
      throw new CondenseError(
        "invalid_messages",
        `internal error: compaction produced invalid messages (${validation.problems[0]?.message ?? "unknown problem"})`,
        {
          details: { problems: validation.problems },
        },
      );
    }
    const finalTokens = countMessageTokens(messages, model);
    // Canonical output keeps the provider data the caller gave (a store round-trips it); the other
    // formats carry it in their own shape.
    const converted =
      format === "openai" ? { messages, system: undefined } : fromCanonical(messages, format);
    const failure = context.failure;
    const summary = await currentSummary(messages, context.anchor);
    const { summarySha256: _previous, ...ledger } = fields.ledger;
    return {
      compacted: fields.compacted,
      messages: converted.messages,
      ...(converted.system === undefined ? {} : { system: converted.system }),
      summary,
      tier: fields.tier,
      originalCount: canonical.length,
      finalCount: messages.length,
      originalTokens,
      finalTokens,
      contextWindow: resolved.contextWindow,
      budget: resolved.budget,
      warningLevel: warningLevelFor(finalTokens, resolved),
      prunedToolOutputs: fields.compacted ? [...context.pruned.values()] : [],
      ledger:
        summary === null ? ledger : { ...ledger, summarySha256: await summaryDigest(summary) },
      passes: fields.passes,
      ...(fields.reason === undefined ? {} : { reason: fields.reason }),
      ...(failure === undefined
        ? {}
        : {
            summarizerFailure: failure,
            cooldownUntil:
              resolved.now + Math.max(resolved.cooldownSeconds, failure.retryAfter ?? 0) * 1000,
          }),
      summarizerCalls: context.summarizerCalls,
      summarizerInputTokens: context.summarizerInputTokens,
    };
  };

  const decision = decideTrigger(originalTokens, resolved);
  if (!resolved.force && !decision.compact) {
    return finalize(repaired, {
      compacted: false,
      tier: 0,
      passes: 0,
      ledger: carriedLedger,
      reason: `the context holds ${originalTokens} tokens, under the trigger of ${decision.triggerTokens} (${resolved.threshold} × ${resolved.contextWindow}) with ${resolved.reserveTokens} tokens of reserve free; pass force: true to compact anyway`,
    });
  }

  let messages = repaired;
  let tokens = countMessageTokens(messages, model);
  let tier: Tier = 0;
  let ledger: Ledger | undefined;
  let passes = 0;
  let tailTokens = resolved.tailTokens;
  while (passes < DEFAULTS.maxPasses) {
    throwIfAborted(resolved.signal);
    const summarizeOnly = resolved.force || passes > 0;
    let pass = await runPass(messages, tailTokens, summarizeOnly, context);
    // A pass that saved nothing may have failed for want of a middle: the tail held nearly
    // everything the head did not. Retry with a smaller tail before giving up.
    for (let retry = 0; retry < DEFAULTS.maxTailRetries; retry++) {
      if (pass !== undefined && pass.tokens < tokens) break;
      const smaller = smallerTailBudget(messages, perMessageTokens(messages, model), {
        headMessages: resolved.headMessages,
        tailTokens,
        minTailMessages: resolved.minTailMessages,
      });
      if (smaller === undefined) break;
      throwIfAborted(resolved.signal);
      tailTokens = smaller;
      pass = await runPass(messages, tailTokens, summarizeOnly, context);
    }
    if (pass === undefined || pass.tokens >= tokens) break;
    const saving = (tokens - pass.tokens) / tokens;
    passes++;
    messages = pass.messages;
    recordPruned(context, pass.pruned);
    tokens = pass.tokens;
    if (pass.tier > 1 || tier === 0) tier = pass.tier;
    if (pass.ledger) ledger = mergeLedgers(ledger ?? emptyLedger(), pass.ledger);
    if (pass.summary !== undefined) context.anchor = await summaryDigest(pass.summary);
    if (tokens <= resolved.limit || saving < DEFAULTS.minPassSaving) break;
    tailTokens = Math.floor(tailTokens / 2);
  }

  if (passes === 0 || tokens >= originalTokens) {
    context.anchor = anchor;
    return finalize(repaired, {
      compacted: false,
      tier: 0,
      passes,
      ledger: carriedLedger,
      reason:
        "nothing could be compacted without growing the context: the middle is too small to summarize and no tool output is large enough to prune",
    });
  }
  return finalize(messages, { compacted: true, tier, passes, ledger: ledger ?? carriedLedger });
}
