/**
 * @module compact/compact
 * `compact()`: keeps a conversation inside its context window. Each pass
 * protects the head and the tail, tries the tool strip (tier 1), then
 * summarizes the middle: the LLM over all of it (tier 2), the LLM over its
 * older half (tier 3), the deterministic summarizer (tier 4). The first result
 * that fits wins. A failing summarizer degrades to the next tier; no message is
 * ever dropped without being summarized or handed back in `prunedToolOutputs`.
 * The messages after the last assistant turn are never touched by any tier
 * (`compact/protected-tail`); the outputs of the last few turns stay whole
 * within a share of the aim (`compact/recent-reads`); when the newest messages
 * alone are over the budget, their tool outputs are cut to head and tail
 * (`compact/fit-context`).
 *
 * Here: the input checked and made canonical, the pass loop and the result.
 * A pass's summary is `compact/summarize-pass`, what the passes share
 * `compact/pass-context`, the latest user message `compact/latest-user`.
 */

import { InvalidMessagesError, InvalidOptionsError } from "../errors/condense-error.js";
import { toCanonical } from "../formats/convert.js";
import { reusedCallIds, type ToolResultCall, toolResultCalls } from "../messages/call-ids.js";
import { messageText } from "../messages/content.js";
import { repairMessages } from "../messages/repair.js";
import type { ChatMessage, MessageFormat } from "../messages/types.js";
import { emptyLedger, mergeLedgers } from "../summary/ledger/ledger.js";
import type { Ledger } from "../summary/ledger-types.js";
import { countMessageTokens, messageTokens } from "../tokens/count.js";
import { findBoundaries, smallerTailBudget } from "./boundaries.js";
import { isCutOutput } from "./cut-output.js";
import { type CompactRun, finalize } from "./finalize.js";
import { cutOutputsWithin, fitContext } from "./fit-context.js";
import { findLatestUser } from "./latest-user.js";
import { DEFAULTS, resolveOptions } from "./options.js";
import {
  namingFor,
  type PassContext,
  type PassResult,
  prune,
  throwIfAborted,
} from "./pass-context.js";
import { protectedFrom } from "./protected-tail.js";
import { referenceById } from "./prune.js";
import { recentReadsFrom, recentTurns } from "./recent-reads.js";
import { summarizePass } from "./summarize-pass.js";
import { locateSummary, summaryDigest } from "./summary-anchor.js";
import { seedTokenCounts } from "./token-counts.js";
import { decideTrigger } from "./trigger.js";
import type {
  CompactInput,
  CompactOptions,
  CompactResult,
  CutToolOutput,
  PrunedToolOutput,
  Tier,
} from "./types.js";
import { labelMessages, withholdInLedger } from "./withhold-secrets.js";

/** The tokens of each message, in order. */
function perMessageTokens(messages: readonly ChatMessage[], model: string): number[] {
  return messages.map((message) => messageTokens(message, model));
}

function recordPruned(context: PassContext, outputs: readonly PrunedToolOutput[]): void {
  for (const output of outputs) {
    const key = `${output.occurrence}:${output.toolCallId}`;
    // An output a recent turn's cut shortened is handed back as it was in the input.
    const whole = context.recentCuts.get(key);
    const recorded =
      whole === undefined ? output : { ...output, content: whole.content, tokens: whole.tokens };
    if (!context.pruned.has(key)) context.pruned.set(key, recorded);
  }
}

/**
 * One pass: the tool strip (tier 1) when it reaches the aim, else a summary of the middle, else,
 * when the context does not fit, tool outputs stripped everywhere. Undefined when nothing changed.
 */
async function runPass(
  input: readonly ChatMessage[],
  tailTokens: number,
  summarizeOnly: boolean,
  context: PassContext,
  keepRecent: boolean,
): Promise<PassResult | undefined> {
  const { model, options } = context;
  const summaryAt = await locateSummary(input, context.anchor);
  const newestFrom = protectedFrom(input, summaryAt);
  if (options.pruneLargestOutputs) {
    // What refills a thrashing context: its largest outputs, the tail's too, before any summary.
    const outcome = prune(input, context, {
      from: 0,
      to: newestFrom,
      needToSave: countMessageTokens(input, model) - options.target,
      order: "largest",
    });
    if (outcome.saved > 0) {
      return {
        messages: outcome.messages,
        tokens: countMessageTokens(outcome.messages, model),
        tier: 1,
        ledger: undefined,
        pruned: outcome.pruned,
        summary: undefined,
      };
    }
  }

  // Small windows keep the recent turns cut to their share; elsewhere they stay whole within it.
  const recent =
    keepRecent && options.recentTurnTokens !== undefined
      ? cutRecentTurns(input, newestFrom, summaryAt, options.recentTurnTokens, context)
      : undefined;
  const messages = recent?.messages ?? input;
  const cut = recent?.cut ?? [];
  const tokens = perMessageTokens(messages, model);
  const current = countMessageTokens(messages, model);
  // The outputs of the last few turns stay too, within their share (`compact/recent-reads`).
  const keepFrom =
    recent?.from ??
    (keepRecent
      ? recentReadsFrom(messages, tokens, newestFrom, options.recentReadTokens, summaryAt)
      : newestFrom);
  const { headEnd, tailStart } = findBoundaries(messages, tokens, {
    headMessages: options.headMessages,
    tailTokens,
    minTailMessages: options.minTailMessages,
    summaryAt,
    newestFrom: keepFrom,
  });

  if (!summarizeOnly) {
    const outcome = prune(messages, context, {
      from: 0,
      // The head may reach the newest messages (a short conversation): they stay untouched there too.
      to: Math.min(tailStart, keepFrom),
      needToSave: current - options.target,
    });
    const after = countMessageTokens(outcome.messages, model);
    // Pruning is kept only when it reaches the aim: a prune that barely fits would be redone next turn.
    if (after <= options.target && outcome.saved > 0) {
      return {
        messages: outcome.messages,
        tokens: after,
        cut,
        tier: 1,
        ledger: undefined,
        pruned: outcome.pruned,
        summary: undefined,
      };
    }
  }

  const summarized = await summarizePass(
    messages,
    { headEnd, tailStart, newest: messages.length - keepFrom },
    summaryAt,
    context,
  );
  if (summarized) return { ...summarized, cut };

  // Nothing worth a summary: the only lever left is stripping tool outputs, the tail's included up
  // to the newest messages, and only when the context does not fit (a forced compaction of a small
  // context changes nothing).
  if (current <= options.limit) return undefined;
  const outcome = prune(messages, context, {
    from: 0,
    to: newestFrom,
    needToSave: current - options.target,
  });
  if (outcome.saved === 0) return undefined;
  return {
    messages: outcome.messages,
    tokens: countMessageTokens(outcome.messages, model),
    cut,
    tier: 1,
    ledger: undefined,
    pruned: outcome.pruned,
    summary: undefined,
  };
}

/**
 * Small windows (`recentTurnTokens`): the recent turns (`compact/recent-reads`), newest first,
 * each kept within `budget` tokens by itself, its tool outputs cut to head and tail past it. A turn
 * that does not fit even cut (a long reply or request between the calls) is left to the summary,
 * with every turn before it. `from` is where the kept turns start (`newestFrom` when none is).
 */
function cutRecentTurns(
  messages: readonly ChatMessage[],
  newestFrom: number,
  summaryAt: number | undefined,
  budget: number,
  context: PassContext,
): { messages: ChatMessage[]; from: number; cut: CutToolOutput[] } {
  const { model, options } = context;
  const tokens = perMessageTokens(messages, model);
  const naming = namingFor(context, messages);
  let kept = [...messages];
  let from = newestFrom;
  const cut: CutToolOutput[] = [];
  // The call whose results are the newest messages stays with them whatever its size.
  const alwaysKept = messages[newestFrom]?.role === "tool" ? newestFrom - 1 : newestFrom;
  for (const turn of recentTurns(messages, newestFrom, summaryAt)) {
    let cost = 0;
    for (let i = turn.from; i < Math.min(turn.to, alwaysKept); i++) cost += tokens[i] ?? 0;
    if (cost > budget) {
      const fitted = cutOutputsWithin(
        kept,
        { ...turn, tokens: cost },
        {
          model,
          limit: budget,
          naming,
          why: "the compacted context stays small",
          ...(options.cutOutputReference === undefined
            ? {}
            : { cutReference: options.cutOutputReference }),
          ...(options.recallTool === undefined ? {} : { recallTool: options.recallTool }),
        },
      );
      if (!fitted.fits) break;
      for (let i = turn.from; i < turn.to; i++) {
        const before = kept[i];
        const after = fitted.messages[i];
        if (before !== undefined && after !== undefined && after !== before)
          context.calls.set(after, naming.callOf(before, i));
      }
      kept = fitted.messages;
      cut.push(...fitted.cut);
      for (const output of fitted.cut)
        context.recentCuts.set(`${output.occurrence}:${output.toolCallId}`, output);
    }
    from = turn.from;
  }
  return { messages: kept, from, cut };
}

/** The cut outputs of `cut` still in `messages` (a later pass may have summarized them). */
function cutStillIn(
  messages: readonly ChatMessage[],
  cut: readonly CutToolOutput[],
): CutToolOutput[] {
  const present = new Set(
    messages
      .filter((message) => message.role === "tool" && isCutOutput(messageText(message)))
      .map((message) => message.tool_call_id),
  );
  return cut.filter((output) => present.has(output.toolCallId));
}

/**
 * What is left over the window once the tiers did what they could is made to fit its budget
 * (`compact/fit-context`): seen outputs pruned, then the newest outputs, which no tier touches,
 * cut to their head and tail. The newest messages stay whole while they fit the window (the model
 * sees what it asked for, at the cost of the reserve); once cut, the cut leaves the reserve free.
 * Undefined when the messages fit the window, or when nothing could be cut.
 */
async function fitBudget(
  messages: ChatMessage[],
  context: PassContext,
): Promise<
  { messages: ChatMessage[]; pruned: PrunedToolOutput[]; cut: CutToolOutput[] } | undefined
> {
  const { model, options } = context;
  if (countMessageTokens(messages, model) <= options.contextWindow) return undefined;
  const fit = fitContext(messages, {
    model,
    limit: options.budget,
    unseenFrom: protectedFrom(messages, await locateSummary(messages, context.anchor)),
    naming: namingFor(context, messages),
    ...(options.cutOutputReference === undefined
      ? {}
      : { cutReference: options.cutOutputReference }),
    ...(options.recallTool === undefined ? {} : { recallTool: options.recallTool }),
  });
  if (fit.pruned.length === 0 && fit.cut.length === 0) return undefined;
  return fit;
}

/** Why a compaction changed nothing: too little to compact, or only the newest messages left. */
async function nothingCompactedReason(
  messages: readonly ChatMessage[],
  anchor: string | undefined,
  tokens: number,
  limit: number,
  model: string,
): Promise<string> {
  const newest = messages.slice(protectedFrom(messages, await locateSummary(messages, anchor)));
  if (tokens <= limit || newest.length === 0) {
    return "nothing could be compacted without growing the context: the middle is too small to summarize and no tool output is large enough to prune";
  }
  return `the context holds ${tokens} tokens, over the ${limit} it may hold, and nothing older than the newest messages can make room: the ${newest.length} message(s) after the last assistant turn (${countMessageTokens(newest, model)} tokens, what the model asked for and has not seen) are never compacted; send them to a model with a larger window, or make the tool outputs smaller`;
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
  seedTokenCounts(canonical, format, input.tokenCounts, model);
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
  const anchor = resolved.summaryAnchor;
  const context: PassContext = {
    model,
    latestUser: findLatestUser(repaired, await locateSummary(repaired, anchor)),
    options: resolved,
    calls,
    reference: resolved.toolOutputReference ?? referenceById(reusedCallIds(repaired)),
    pruned: new Map(),
    recentCuts: new Map(),
    failure: undefined,
    summarizerCalls: 0,
    summarizerInputTokens: 0,
    anchor,
    labels,
    passLedger: undefined,
  };
  // What a result that wrote no summary hands back: the caller's ledger, so passing it on loses nothing.
  const carriedLedger =
    resolved.ledger === undefined ? emptyLedger() : withholdInLedger(resolved.ledger);

  const run: CompactRun = {
    model,
    format,
    resolved,
    context,
    originalCount: canonical.length,
    originalTokens,
    repaired,
  };

  const decision = decideTrigger(originalTokens, resolved);
  if (!resolved.force && !decision.compact) {
    const trigger =
      resolved.policy === "window"
        ? `under the trigger of ${decision.triggerTokens} (${resolved.threshold} × ${resolved.contextWindow}) with ${resolved.reserveTokens} tokens of reserve free`
        : originalTokens < decision.triggerTokens
          ? `under the floor of ${decision.triggerTokens} (${resolved.floor} × ${resolved.contextWindow}) and within the limit of ${resolved.limit}`
          : `within the limit of ${resolved.limit}, and compacting now would not yet pay for the prompt cache it breaks (policy cost)`;
    return finalize(run, repaired, {
      compacted: false,
      tier: 0,
      passes: 0,
      ledger: carriedLedger,
      cut: [],
      reason: `the context holds ${originalTokens} tokens, ${trigger}; pass force: true to compact anyway`,
    });
  }

  let messages = repaired;
  let tokens = countMessageTokens(messages, model);
  let tier: Tier = 0;
  let ledger: Ledger | undefined;
  let passes = 0;
  let tailTokens = resolved.tailTokens;
  let recentCut: CutToolOutput[] = [];
  while (passes < DEFAULTS.maxPasses) {
    throwIfAborted(resolved.signal);
    // The cost policy compacts deep: a prune alone leaves the context near the limit, so the next
    // compaction, and its cache bust, comes a few turns later. Tier 1 stays the fallback when
    // nothing can be summarized (`runPass`).
    const summarizeOnly = resolved.force || passes > 0 || resolved.policy === "cost";
    // The first pass keeps the recent reads; a pass after it (the context still over its limit),
    // or one that could not make the context smaller with them, goes without.
    const keepRecent = passes === 0 && resolved.keepRecentReads;
    let pass = await runPass(messages, tailTokens, summarizeOnly, context, keepRecent);
    if (keepRecent && (pass === undefined || pass.tokens >= tokens))
      pass = await runPass(messages, tailTokens, summarizeOnly, context, false);
    // A pass that saved nothing may have failed for want of a middle: the tail held nearly
    // everything the head did not. Retry with a smaller tail before giving up.
    for (let retry = 0; retry < DEFAULTS.maxTailRetries; retry++) {
      if (pass !== undefined && pass.tokens < tokens) break;
      const smaller = smallerTailBudget(messages, perMessageTokens(messages, model), {
        headMessages: resolved.headMessages,
        tailTokens,
        minTailMessages: resolved.minTailMessages,
        newestFrom: protectedFrom(messages, await locateSummary(messages, context.anchor)),
      });
      if (smaller === undefined) break;
      throwIfAborted(resolved.signal);
      tailTokens = smaller;
      pass = await runPass(messages, tailTokens, summarizeOnly, context, false);
    }
    if (pass === undefined || pass.tokens >= tokens) break;
    const saving = (tokens - pass.tokens) / tokens;
    passes++;
    messages = pass.messages;
    recentCut = cutStillIn(messages, [...recentCut, ...(pass.cut ?? [])]);
    recordPruned(context, pass.pruned);
    tokens = pass.tokens;
    if (pass.tier > 1 || tier === 0) tier = pass.tier;
    if (pass.ledger) {
      ledger = mergeLedgers(ledger ?? emptyLedger(), pass.ledger);
      context.passLedger = ledger;
    }
    if (pass.summary !== undefined) context.anchor = await summaryDigest(pass.summary);
    if (tokens <= resolved.limit || saving < DEFAULTS.minPassSaving) break;
    tailTokens = Math.floor(tailTokens / 2);
  }

  if (passes === 0 || tokens >= originalTokens) {
    context.anchor = anchor;
    const fitted = await fitBudget(repaired, context);
    if (fitted !== undefined) {
      recordPruned(context, fitted.pruned);
      return finalize(run, fitted.messages, {
        compacted: true,
        tier: 1,
        passes,
        ledger: carriedLedger,
        cut: fitted.cut,
      });
    }
    return finalize(run, repaired, {
      compacted: false,
      tier: 0,
      passes,
      ledger: carriedLedger,
      cut: [],
      reason: await nothingCompactedReason(repaired, anchor, originalTokens, resolved.limit, model),
    });
  }
  const fitted = await fitBudget(messages, context);
  if (fitted !== undefined) {
    recordPruned(context, fitted.pruned);
    messages = fitted.messages;
  }
  return finalize(run, messages, {
    compacted: true,
    tier,
    passes,
    ledger: ledger ?? carriedLedger,
    cut: [...cutStillIn(messages, recentCut), ...(fitted?.cut ?? [])],
  });
}
