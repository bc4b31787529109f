/**
 * @module compact/types
 * The public contract of `compact()`: its input, options and result.
 */

import type { SummarizerFailureKind } from "../errors/condense-error.js";
import type { ToolOutputKey } from "../messages/call-ids.js";
import type { ChatMessage, MessageFormat } from "../messages/types.js";
import type { PricingOverride } from "../models/pricing.js";
import type { Ledger } from "../summary/ledger-types.js";
import type { IdentifierPolicy, Summarizer } from "../summary/summarizer.js";
import type { CacheState } from "./cost-policy.js";

/**
 * When to compact. `cost` (the default): once the context passes `floor × window` and compacting
 * pays for the prompt cache it breaks, and always over the limit; deep (straight to a summary, a
 * small tail), so compactions are rare. `window`: at `threshold × window` (or when the reserve
 * runs out), aiming 20% under the limit, trying the tool strip (tier 1) first.
 */
export type CompactionPolicy = "cost" | "window";

export interface CompactInput {
  model: string;
  /** Chat Completions messages, Anthropic `messages`, or Responses input items, per `format`. */
  messages: readonly unknown[];
  /**
   * How `messages` are shaped: Chat Completions, Anthropic Messages, Responses input items or Gemini contents.
   * @default "openai"
   */
  format?: MessageFormat;
  /** Anthropic top-level `system` (string or text blocks), when `format` is `anthropic`. */
  system?: unknown;
  /**
   * Format `openai` only: the caller's number of each message (same length as
   * `messages`, null where there is none), e.g. the Worker's transcript seq.
   * A summary that withholds a secret points to it as `[redacted:seq:<n>]`;
   * without `seqs`, as `[redacted:message:<index>]`.
   */
  seqs?: readonly (number | null)[];
  /**
   * Format `openai` only: the count a store kept of each message (same length as `messages`,
   * null where it has none), each what `messageTokens(message, model)` returns for it, e.g. the
   * Worker's count from append time. Those messages are not tokenized again; the counts are
   * trusted, and the result is the same as without them.
   */
  tokenCounts?: readonly (number | null)[];
}

export interface CompactOptions {
  /**
   * Tokens a request may carry (the input limit), a number or `"128k"`, `"1m"`.
   * @default the model's window in the model table
   */
  contextWindow?: number | string;
  /**
   * When to compact: see {@link CompactionPolicy}.
   * @default "cost"
   */
  policy?: CompactionPolicy;
  /**
   * Policy `cost`: the fraction of the window under which the context is left alone, however
   * cheap a compaction would be. At the default a deep compaction leaves the model a quarter
   * or less of what it had, at a bill well under compacting at the limit (docs/notes/cost-model.md).
   * With an explicit `threshold` the floor is at least that threshold (the policy never compacts
   * below a threshold the caller set), and an explicit floor under it is refused. An explicit
   * floor above a small window's default limit (16,000 at 32k) lowers the default reserve so the
   * limit reaches it (up to the threshold); an explicit `reserveTokens` is kept.
   * @default 0.5
   */
  floor?: number;
  /**
   * Policy `cost`: the prompt-cache prices to decide with (multiples of the input price), over the
   * model's catalog entry; e.g. `{ cacheWrite: 1.25, cacheRead: 0.1 }` for Anthropic.
   */
  pricing?: PricingOverride;
  /**
   * Policy `cost`: the state the caller carries between turns, as the last `shouldCompact`
   * decision (when it did not compact) or `compact()` result (when it did) returned it in
   * `cacheState`. Without it the policy compacts past the floor when that halves the context.
   */
  cacheState?: CacheState;
  /**
   * Policy `cost`: what an LLM summary costs, in uncached input tokens of the session's model
   * (its input and output tokens at the summarizer's prices); it joins the cache bust in the
   * decision. The default fits the deterministic summarizer, which costs nothing.
   * @default 0
   */
  summarizerCostTokens?: number;
  /**
   * Policy `cost`: when the provider's prompt cache was last read (a Date or milliseconds since
   * the epoch: the session's last model request). Past the provider's cache lifetime
   * (`models/cache-lifetime`: Anthropic 5 minutes, automatic caching 10) the cache is cold, and a
   * context past the floor is compacted at once (reason `cold_cache`): it costs no bust.
   */
  cacheLastReadAt?: Date | number;
  /**
   * Fraction of the window over which a compaction is forced (policy `window`: the trigger).
   * Set explicitly, it is also where policy `cost` starts: it never compacts below it (its `floor`
   * rises to it).
   * @default 0.75
   */
  threshold?: number;
  /**
   * Free tokens guaranteed after compaction.
   * @default max(20000, maxOutputTokens), at most half the window (less where an explicit floor needs the room)
   */
  reserveTokens?: number;
  /**
   * Tokens the model may answer with (a request's `max_tokens`); counted into the reserve up to a
   * quarter of the window, as agents ask for far more than answers use.
   */
  maxOutputTokens?: number;
  /**
   * Leading messages kept verbatim after system/developer messages.
   * @default 3
   */
  headMessages?: number;
  /**
   * Token budget of the verbatim tail; default or explicit, at most half the aim. Left out, the
   * tail also keeps the outputs of the model's last two turns whole, within half the aim (policy
   * `cost` where its limit is its floor, as at 32k and under: within the tail); set, it is the
   * whole of what stays verbatim (with the newest messages).
   * @default policy cost: 5% of the window, at least 2000; policy window: 20000 (a quarter of small windows)
   */
  tailTokens?: number;
  /**
   * Messages the tail keeps at least; left out, 2 (the last turn's call and output) under policy
   * `cost` where its limit is its floor, as at 32k and under.
   * @default 4
   */
  minTailMessages?: number;
  /**
   * Any `Summarizer`; `openAISummarizer({ apiKey, baseURL, model })` for an LLM.
   * @default extractiveSummarizer()
   */
  summarizer?: Summarizer;
  /**
   * `strict`, `custom` (with `identifierInstructions`) or `off`: what the summarizer is told about
   * identifiers. The ledger is verified under every policy.
   * @default "strict"
   */
  identifierPolicy?: IdentifierPolicy;
  /** Operator text for `identifierPolicy: "custom"`. */
  identifierInstructions?: string;
  /** Manual-compaction instructions for the summarizer. */
  instructions?: string;
  /** What the summary should focus on. */
  focus?: string;
  /**
   * Compact even below the threshold.
   * @default false
   */
  force?: boolean;
  /** Aborts the compaction (and its summarizer calls). */
  signal?: AbortSignal;
  /**
   * Clock for cooldown decisions, ms since epoch or a Date.
   * @default Date.now()
   */
  now?: number | Date;
  /** While in the future (ms since epoch), the LLM tiers are skipped. */
  cooldownUntil?: number;
  /**
   * Cooldown after a summarizer failure, in seconds.
   * @default 600
   */
  cooldownSeconds?: number;
  /**
   * The `ledger` an earlier compaction of this conversation returned. Its
   * identifiers and files are carried forward by code, so a model rewriting the
   * summary cannot lose them, and its `summarySha256` is how the previous
   * summary is recognised: without it, no message counts as a summary.
   */
  ledger?: Ledger;
  /**
   * Summary size bounds in tokens (the target is 20% of what the summary replaces).
   * @default 2000, at most a quarter of the aim (small windows)
   */
  summaryMinTokens?: number;
  /**
   * The upper bound of the summary's size in tokens.
   * @default 12000
   */
  summaryMaxTokens?: number;
  /**
   * How a prune placeholder names the output it replaced, to fetch it back: a store that serves
   * pruned outputs gives its own handle.
   * @default "tool call id <id>", plus " (call <n> with that id)" when the conversation reuses the id
   */
  toolOutputReference?: (output: ToolOutputKey) => string;
  /**
   * How the marker of a newest output cut to its head and tail (because it alone did not fit)
   * names the whole output, e.g. with the route that serves it.
   * @default toolOutputReference
   */
  cutOutputReference?: (output: ToolOutputKey) => string;
  /**
   * Before any summary, replace the largest tool outputs the model has already seen, the verbatim
   * tail's included, by placeholders (the whole outputs come back in `prunedToolOutputs`, for a
   * store to serve them by call id), largest first, until the context reaches its aim. For a
   * conversation whose context refills within a few turns of each compaction (thrashing): what
   * refills it is its largest outputs, and a new summary every few turns buys little.
   * @default false
   */
  pruneLargestOutputs?: boolean;
  /**
   * The name of a tool the agent has for recalling compacted history (e.g. `recall`): the summary
   * block then says, in one line, that earlier details can be recalled with it by query or by
   * tool-call id. Letters, digits, `_`, `-` and `.`, at most 64. Left out, no such line.
   */
  recallTool?: string;
}

export type Tier = 0 | 1 | 2 | 3 | 4;

export type WarningLevel = "none" | "warning" | "critical";

export interface PrunedToolOutput {
  toolCallId: string;
  /**
   * Which call with `toolCallId` in the input this output answers, from 1: ids that a provider
   * reuses (`call_0` every turn) name several calls, so (toolCallId, occurrence) is the key.
   */
  occurrence: number;
  toolName: string;
  /** The output exactly as it was in the input. */
  content: string;
  tokens: number;
}

/**
 * A tool output cut to its head and tail (a marker between them says how much was cut and how to
 * fetch it): one the model had not seen yet, because the context could not fit otherwise, or, in
 * a small window, one of the last turns' (`compact/recent-reads`), kept cut rather than summarized.
 */
export interface CutToolOutput extends PrunedToolOutput {
  /** Tokens of the cut message now in the context (`tokens`: of the output as it was). */
  keptTokens: number;
  /** Tokens of the output's text the cut left out. */
  cutTokens: number;
}

export interface SummarizerFailure {
  kind: SummarizerFailureKind;
  message: string;
  retryAfter?: number;
}

export interface CompactResult<M = ChatMessage> {
  compacted: boolean;
  /** Valid messages in the input's format. */
  messages: M[];
  /** Anthropic top-level `system`, when the input format is `anthropic`. */
  system?: unknown;
  /** The summary now in the context (the engine's own, recognised by its anchor), or null. */
  summary: string | null;
  tier: Tier;
  originalCount: number;
  finalCount: number;
  originalTokens: number;
  finalTokens: number;
  contextWindow: number;
  /** Tokens the context may hold and still leave the reserve free. */
  budget: number;
  /** `none`, `warning` or `critical`: how close the result is to the window. */
  warningLevel: WarningLevel;
  /** The tool outputs that left the context, so a store can serve them back by call id. */
  prunedToolOutputs: PrunedToolOutput[];
  /**
   * Tool outputs cut to their head and tail, with a marker saying how to fetch the whole one:
   * those after the last assistant turn (never compacted) that did not fit the window, cut so that
   * the context fits its budget, rather than dropped or sent whole; and, in a small window (policy
   * `cost`, limit at its floor), those of the last turns kept cut rather than summarized, which
   * promise no budget.
   */
  cutToolOutputs: CutToolOutput[];
  /**
   * `identifiers`, `files: { read, modified }`, `userRequests` and `summarySha256` (the anchor of
   * `summary`): hand it back as `options.ledger` at the next compaction. A result that wrote no
   * summary hands back the ledger it was given.
   */
  ledger: Ledger;
  /** Passes run (at most 3; a pass saving under 5% ends the loop). */
  passes: number;
  /** Why nothing was done, when `compacted` is false. */
  reason?: string;
  summarizerFailure?: SummarizerFailure;
  /** Set after a summarizer failure: until then, skip the LLM tiers. */
  cooldownUntil?: number;
  /** Calls made to an LLM summarizer and tokens sent to it. */
  summarizerCalls: number;
  summarizerInputTokens: number;
  /**
   * Policy `cost`, when `compacted`: the state to pass as `cacheState` from now on (no excess
   * read yet, the context this compaction left, and the part of it kept from the input).
   */
  cacheState?: CacheState;
}
