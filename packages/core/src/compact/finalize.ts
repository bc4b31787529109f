/**
 * @module compact/finalize
 * The last step of `compact()`: the messages it ends with checked against the
 * provider's rules, converted back to the caller's format, measured, and
 * returned as the `CompactResult` (summary, ledger, pruned and cut outputs,
 * the summarizer's failure and cooldown, the cost policy's cache state).
 */

import { CondenseError } from "../errors/condense-error.js";
import { fromCanonical } from "../formats/convert.js";
import { validateMessages } from "../formats/validate.js";
import type { ChatMessage, MessageFormat, Provider } from "../messages/types.js";
import type { Ledger } from "../summary/ledger-types.js";
import { countMessageTokens, messageTokens } from "../tokens/count.js";
import type { ResolvedOptions } from "./options.js";
import type { PassContext } from "./pass-context.js";
import { currentSummary, summaryDigest } from "./summary-anchor.js";
import { warningLevelFor } from "./trigger.js";
import type { CompactResult, CutToolOutput, Tier } from "./types.js";

/** What one `compact()` call knows before its passes, and what they left in `context`. */
export interface CompactRun {
  model: string;
  format: MessageFormat;
  resolved: ResolvedOptions;
  context: PassContext;
  /** Messages in the caller's input, before repair. */
  originalCount: number;
  originalTokens: number;
  /** The input made canonical and repaired: what the passes started from. */
  repaired: readonly ChatMessage[];
}

/** How the compaction ended. */
export interface Outcome {
  compacted: boolean;
  tier: Tier;
  passes: number;
  ledger: Ledger;
  /** Tool outputs cut to head and tail to fit the budget (reported only when `compacted`). */
  cut: CutToolOutput[];
  reason?: string;
}

function providerFor(format: MessageFormat): Provider {
  return format === "anthropic" ? "anthropic" : "openai";
}

/** The result of `run` ending with `messages` (canonical). */
export async function finalize(
  run: CompactRun,
  messages: ChatMessage[],
  outcome: Outcome,
): Promise<CompactResult<unknown>> {
  const { model, format, resolved, context } = run;
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
  const { summarySha256: _previous, ...ledger } = outcome.ledger;
  const cutToolOutputs = outcome.compacted ? outcome.cut : [];
  return {
    compacted: outcome.compacted,
    messages: converted.messages,
    ...(converted.system === undefined ? {} : { system: converted.system }),
    summary,
    tier: outcome.tier,
    originalCount: run.originalCount,
    finalCount: messages.length,
    originalTokens: run.originalTokens,
    finalTokens,
    contextWindow: resolved.contextWindow,
    budget: resolved.budget,
    warningLevel: warningLevelFor(finalTokens, resolved),
    prunedToolOutputs: outcome.compacted ? [...context.pruned.values()] : [],
    cutToolOutputs,
    ledger: summary === null ? ledger : { ...ledger, summarySha256: await summaryDigest(summary) },
    passes: outcome.passes,
    ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
    ...(failure === undefined
      ? {}
      : {
          summarizerFailure: failure,
          cooldownUntil:
            resolved.now + Math.max(resolved.cooldownSeconds, failure.retryAfter ?? 0) * 1000,
        }),
    summarizerCalls: context.summarizerCalls,
    summarizerInputTokens: context.summarizerInputTokens,
    ...(outcome.compacted && resolved.policy === "cost"
      ? {
          cacheState: {
            excessTokens: 0,
            compactedTokens: finalTokens,
            stableTokens: keptPrefixTokens(run.repaired, messages, model),
          },
        }
      : {}),
  };
}

/** Tokens of the leading messages a compaction kept as they were: the prefix that stays cached. */
function keptPrefixTokens(
  before: readonly ChatMessage[],
  after: readonly ChatMessage[],
  model: string,
): number {
  let tokens = 0;
  for (let i = 0; i < Math.min(before.length, after.length); i++) {
    const message = after[i] as ChatMessage;
    if (message !== before[i] && JSON.stringify(message) !== JSON.stringify(before[i])) break;
    tokens += messageTokens(message, model);
  }
  return tokens;
}
