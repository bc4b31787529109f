/**
 * @module compact/options
 * Turns the caller's `CompactOptions` into a complete, validated set with the
 * documented defaults, so the rest of the engine never sees `undefined`.
 */

import { InvalidOptionsError } from "../errors/condense-error.js";
import { nonNegativeInteger, optionalString } from "../errors/option-checks.js";
import type { ToolOutputKey } from "../messages/call-ids.js";
import { contextWindowFor, parseContextWindow } from "../models/context-window.js";
import { type ModelPricing, modelPricing } from "../models/pricing.js";
import { extractiveSummarizer } from "../summary/extractive/extractive.js";
import type { Ledger, LedgerCommand, LedgerError } from "../summary/ledger-types.js";
import type { IdentifierPolicy, Summarizer } from "../summary/summarizer.js";
import type { CacheState } from "./cost-policy.js";
import { RECENT_READ_SHARE } from "./recent-reads.js";
import type { CompactionPolicy, CompactOptions } from "./types.js";

export const DEFAULTS = {
  /** Compact when it pays for the prompt cache it breaks (`compact/cost-policy`), deep. */
  policy: "cost",
  /** The cost policy leaves a context under this fraction of the window alone. */
  floor: 0.5,
  /** The cost policy's tail: this share of the window, and at least `costTailMinTokens`. */
  costTailShare: 0.05,
  costTailMinTokens: 2_000,
  threshold: 0.75,
  reserveFloor: 20_000,
  /** The most of the window a request's `maxOutputTokens` reserves for the answer. */
  maxAnswerReserveShare: 0.25,
  headMessages: 3,
  tailTokens: 20_000,
  minTailMessages: 4,
  /**
   * Where the cost policy's limit is its floor: the last turn (its call and result); four messages
   * reach back to the turn before, whatever its output's size (`recentReadBudget`).
   */
  smallWindowTailMessages: 2,
  /**
   * There each of the last turns before the newest messages keeps at most this share of the tail,
   * its outputs cut to head and tail past it: what the model read a turn ago stays in view (the
   * probe bench's `recent` probes) at a bounded price (`recentTurnTokens`).
   */
  recentTurnTailShare: 0.5,
  cooldownSeconds: 600,
  summaryMinTokens: 2_000,
  summaryMaxTokens: 12_000,
  /** A middle smaller than this is not worth a summary (less in small windows). */
  minSummarizableTokens: 2_000,
  /**
   * A compaction aims this far under its limit, so the next turns do not
   * trigger it again at once (each compaction rewrites the prompt's start and
   * so invalidates provider prompt caches).
   */
  headroom: 0.8,
  /** Tool outputs at most this long are never replaced by a placeholder. */
  prunableOutputChars: 200,
  maxPasses: 3,
  /** A pass that fails with its tail is retried with ever smaller tails at most this often. */
  maxTailRetries: 4,
  /** A pass that saves less than this fraction ends the loop. */
  minPassSaving: 0.05,
} as const;

export interface ResolvedOptions {
  contextWindow: number;
  policy: CompactionPolicy;
  /** Under `floor × window` tokens the cost policy leaves the context alone. */
  floor: number;
  /** The model's cache prices, with the caller's `pricing` on top. */
  pricing: ModelPricing;
  cacheState: CacheState | undefined;
  /** When the provider's cache was last read (ms), if the caller knows. */
  cacheLastReadAt: number | undefined;
  summarizerCostTokens: number;
  threshold: number;
  reserveTokens: number;
  /** Tokens the context may hold: window − reserve. */
  budget: number;
  /** The most a compacted context may hold: the budget or the trigger, whichever is lower. */
  limit: number;
  /** What a compaction aims for: `headroom` × limit. */
  target: number;
  /** A middle smaller than this is not worth a summary unless the context does not fit. */
  minSummarizableTokens: number;
  headMessages: number;
  tailTokens: number;
  minTailMessages: number;
  /**
   * Whether a compaction keeps the outputs of the last turns whole (`compact/recent-reads`): unless
   * the caller sets `tailTokens`, which says how much of the end stays verbatim.
   */
  keepRecentReads: boolean;
  /**
   * Tokens the recent reads may take, the newest messages included: half the aim, or the tail
   * where the cost policy's limit is its floor (small windows: see `recentReadBudget`).
   */
  recentReadTokens: number;
  /**
   * Where the cost policy's limit is its floor: the most each of the recent turns before the
   * newest messages keeps, its outputs cut to head and tail past it (half the tail); undefined
   * elsewhere, where they stay whole within `recentReadTokens` or go to the summary.
   */
  recentTurnTokens: number | undefined;
  summarizer: Summarizer;
  identifierPolicy: IdentifierPolicy;
  identifierInstructions: string | undefined;
  instructions: string | undefined;
  focus: string | undefined;
  force: boolean;
  signal: AbortSignal | undefined;
  now: number;
  cooldownUntil: number | undefined;
  cooldownSeconds: number;
  summaryMinTokens: number;
  summaryMaxTokens: number;
  /** The caller's ledger lists (its `summarySha256` is `summaryAnchor`). */
  ledger: Ledger | undefined;
  /**
   * The digest of the summary the previous compaction wrote (`ledger.summarySha256`), checked
   * here: only the message carrying exactly that summary is the previous summary
   * (`compact/summary-anchor`).
   */
  summaryAnchor: string | undefined;
  toolOutputReference: ((output: ToolOutputKey) => string) | undefined;
  /** How a cut marker names the whole output (default: as placeholders name it). */
  cutOutputReference: ((output: ToolOutputKey) => string) | undefined;
  /** The recall tool the summary block names, if any. */
  recallTool: string | undefined;
  /** Prune the largest seen outputs, the tail's too, before any summary (thrashing). */
  pruneLargestOutputs: boolean;
}

function resolveNow(value: unknown): number {
  return value === undefined ? Date.now() : resolveTime("now", value);
}

function resolveTime(name: string, value: unknown): number {
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.getTime();
  if (typeof value === "number" && Number.isFinite(value)) return value;
  throw new InvalidOptionsError(name, "expected a Date or milliseconds since the epoch");
}

function stringArray(name: string, value: unknown): string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
    throw new InvalidOptionsError(
      name,
      "expected an array of strings, as a previous result's `ledger` has",
    );
  }
  return value as string[];
}

function resolveLedger(value: unknown): Ledger | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null) {
    throw new InvalidOptionsError(
      "ledger",
      "expected the `ledger` object of a previous compaction result",
    );
  }
  const ledger = value as Partial<Ledger>;
  return {
    identifiers: stringArray("ledger.identifiers", ledger.identifiers ?? []),
    files: {
      read: stringArray("ledger.files.read", ledger.files?.read ?? []),
      modified: stringArray("ledger.files.modified", ledger.files?.modified ?? []),
    },
    userRequests: stringArray("ledger.userRequests", ledger.userRequests ?? []),
    errors: recordArray("ledger.errors", ledger.errors ?? [], isLedgerError),
    commands: recordArray("ledger.commands", ledger.commands ?? [], isLedgerCommand),
  };
}

function isLedgerError(value: unknown): value is LedgerError {
  const error = value as Partial<Record<keyof LedgerError, unknown>>;
  return (
    typeof value === "object" &&
    value !== null &&
    typeof error.signature === "string" &&
    typeof error.step === "string" &&
    (error.state === "failing" || error.state === "fixed")
  );
}

function isLedgerCommand(value: unknown): value is LedgerCommand {
  const command = value as Partial<Record<keyof LedgerCommand, unknown>>;
  return (
    typeof value === "object" &&
    value !== null &&
    typeof command.step === "string" &&
    (command.kind === "test" || command.kind === "build") &&
    typeof command.outcome === "string" &&
    typeof command.failed === "boolean"
  );
}

/** A ledger list of records, each checked: the caller hands back what a result gave. */
function recordArray<T>(name: string, value: unknown, valid: (entry: unknown) => entry is T): T[] {
  if (!Array.isArray(value) || !value.every(valid)) {
    throw new InvalidOptionsError(
      name,
      "expected the list a previous result's `ledger` has; pass that ledger back unchanged",
    );
  }
  return value.map((entry) => ({ ...entry }));
}

const DIGEST = /^[0-9a-f]{64}$/;

/** The anchor the caller handed back in `ledger.summarySha256`, if any. */
function resolveSummaryAnchor(ledger: unknown): string | undefined {
  if (typeof ledger !== "object" || ledger === null) return undefined;
  const anchor: unknown = (ledger as { summarySha256?: unknown }).summarySha256;
  if (anchor === undefined || anchor === null) return undefined;
  if (typeof anchor !== "string" || !DIGEST.test(anchor)) {
    throw new InvalidOptionsError(
      "ledger.summarySha256",
      "expected the 64 lowercase hex digits of a previous result's `ledger.summarySha256`; pass that ledger back unchanged",
    );
  }
  return anchor;
}

/** An AbortSignal from any realm (workerd, Node, a polyfill): the engine reads `aborted` and subscribes to `abort`. */
function resolveSignal(value: unknown): AbortSignal | undefined {
  if (value === undefined || value === null) return undefined;
  const candidate = value as Partial<AbortSignal>;
  if (
    typeof value === "object" &&
    typeof candidate.aborted === "boolean" &&
    typeof candidate.addEventListener === "function"
  )
    return value as AbortSignal;
  throw new InvalidOptionsError(
    "signal",
    "expected an AbortSignal, e.g. `AbortSignal.timeout(30_000)` or an AbortController's `signal`",
  );
}

export function resolveOptions(model: string, given: CompactOptions | null = {}): ResolvedOptions {
  if (given !== null && (typeof given !== "object" || Array.isArray(given))) {
    throw new InvalidOptionsError(
      "options",
      `expected an object such as { contextWindow: 64_000 }, or nothing, got ${Array.isArray(given) ? "an array" : typeof given}`,
    );
  }
  const options: CompactOptions = given ?? {};
  const contextWindow =
    options.contextWindow === undefined
      ? contextWindowFor(model)
      : parseContextWindow(options.contextWindow);

  const policy = options.policy ?? DEFAULTS.policy;
  if (policy !== "cost" && policy !== "window") {
    throw new InvalidOptionsError(
      "policy",
      `expected "cost" (compact when it pays for the prompt cache it breaks) or "window" (at the threshold), got ${JSON.stringify(policy)}`,
    );
  }
  const requestedFloor = options.floor ?? DEFAULTS.floor;
  if (typeof requestedFloor !== "number" || !(requestedFloor >= 0 && requestedFloor <= 1)) {
    throw new InvalidOptionsError(
      "floor",
      `expected a fraction of the window in [0, 1], e.g. 0.5, got ${JSON.stringify(requestedFloor)}`,
    );
  }
  const pricing = modelPricing(model, resolvePricing(options.pricing));

  const threshold = options.threshold ?? DEFAULTS.threshold;
  if (typeof threshold !== "number" || !(threshold > 0 && threshold <= 1)) {
    throw new InvalidOptionsError(
      "threshold",
      `expected a fraction in (0, 1], got ${JSON.stringify(threshold)}`,
    );
  }
  const floor = costFloor(policy, requestedFloor, options);

  const maxOutputTokens = nonNegativeInteger("maxOutputTokens", options.maxOutputTokens, 0);
  const leastReserve = reserveFloor(policy, floor, threshold, contextWindow, options);
  const requestedReserve = nonNegativeInteger("reserveTokens", options.reserveTokens, leastReserve);
  // A request's max_tokens is an allowance, not what the answer uses: agents send their model's
  // output ceiling (32,000 to 64,000, above a small window), and answers rarely need a tenth of it.
  // Reserved whole, it would leave the context a sliver of the window and compact away what the
  // model needs; so it counts for at most a quarter of the window, the room the default threshold
  // (0.75) leaves free anyway. A provider that refuses input + max_tokens over the window says so
  // in an overflow error, which the caller recovers from as from any other.
  const answerReserve = Math.min(
    maxOutputTokens,
    Math.floor(contextWindow * DEFAULTS.maxAnswerReserveShare),
  );
  // The floor keeps room for the next turn; small windows could not hold anything else, so cap at half.
  const reserveTokens = Math.min(
    Math.max(requestedReserve, leastReserve, answerReserve),
    Math.floor(contextWindow / 2),
  );
  const budget = contextWindow - reserveTokens;
  const limit = Math.min(budget, Math.floor(threshold * contextWindow));
  const target = Math.floor(limit * DEFAULTS.headroom);

  // The tail, default or explicit, takes at most half the aim: the other half is for the head and
  // the summary, else a compaction has nothing to summarize (a 2,000-token window at threshold 0.25
  // aims at 400 tokens, and a quarter-window tail of 500 left no middle at all). The default also
  // shrinks with the window.
  // The cost policy compacts deep: a small tail, so the context it leaves (and the next compaction's
  // bust) is small.
  const defaultTail =
    policy === "cost"
      ? Math.max(DEFAULTS.costTailMinTokens, Math.floor(contextWindow * DEFAULTS.costTailShare))
      : Math.min(DEFAULTS.tailTokens, Math.floor(contextWindow / 4));
  const requestedTail =
    options.tailTokens === undefined
      ? defaultTail
      : nonNegativeInteger("tailTokens", options.tailTokens, DEFAULTS.tailTokens);
  const tailTokens = Math.min(requestedTail, Math.floor(target / 2));

  const identifierPolicy = options.identifierPolicy ?? "strict";
  if (!["strict", "custom", "off"].includes(identifierPolicy)) {
    throw new InvalidOptionsError(
      "identifierPolicy",
      `expected strict, custom or off, got ${JSON.stringify(identifierPolicy)}`,
    );
  }
  const identifierInstructions = optionalString(
    "identifierInstructions",
    options.identifierInstructions,
  );
  if (identifierPolicy === "custom" && identifierInstructions === undefined) {
    throw new InvalidOptionsError(
      "identifierInstructions",
      "identifierPolicy `custom` needs identifierInstructions",
    );
  }

  // In small windows a 2,000-token summary would crowd out the tail it is meant to make room for.
  const summaryMinTokens = nonNegativeInteger(
    "summaryMinTokens",
    options.summaryMinTokens,
    Math.min(DEFAULTS.summaryMinTokens, Math.floor(target / 4)),
  );
  const summaryMaxTokens = nonNegativeInteger(
    "summaryMaxTokens",
    options.summaryMaxTokens,
    DEFAULTS.summaryMaxTokens,
  );
  if (summaryMaxTokens < summaryMinTokens || summaryMaxTokens === 0) {
    throw new InvalidOptionsError(
      "summaryMaxTokens",
      `must be > 0 and ≥ summaryMinTokens (${summaryMinTokens})`,
    );
  }

  const summarizer = options.summarizer ?? extractiveSummarizer();
  if (
    typeof summarizer !== "object" ||
    summarizer === null ||
    typeof summarizer.summarize !== "function"
  ) {
    throw new InvalidOptionsError(
      "summarizer",
      "expected an object with a summarize(request) method",
    );
  }
  if (summarizer.kind !== "llm" && summarizer.kind !== "extractive") {
    throw new InvalidOptionsError(
      "summarizer",
      `expected \`kind\` "llm" (tiers 2 and 3) or "extractive" (tier 4), got ${JSON.stringify(String(summarizer.kind))}`,
    );
  }

  const cooldownUntil = options.cooldownUntil;
  if (
    cooldownUntil !== undefined &&
    (typeof cooldownUntil !== "number" || !Number.isFinite(cooldownUntil))
  ) {
    throw new InvalidOptionsError("cooldownUntil", "expected milliseconds since the epoch");
  }

  return {
    contextWindow,
    policy,
    floor,
    pricing,
    cacheState: resolveCacheState(options.cacheState),
    cacheLastReadAt:
      options.cacheLastReadAt === undefined
        ? undefined
        : resolveTime("cacheLastReadAt", options.cacheLastReadAt),
    summarizerCostTokens: nonNegativeNumber("summarizerCostTokens", options.summarizerCostTokens),
    threshold,
    reserveTokens,
    budget,
    limit,
    target,
    minSummarizableTokens: Math.min(DEFAULTS.minSummarizableTokens, Math.floor(contextWindow / 32)),
    headMessages: nonNegativeInteger("headMessages", options.headMessages, DEFAULTS.headMessages),
    tailTokens,
    keepRecentReads: options.tailTokens === undefined,
    recentReadTokens: recentReadBudget(policy, floor, contextWindow, limit, target, tailTokens),
    recentTurnTokens: limitIsFloor(policy, floor, contextWindow, limit)
      ? Math.floor(tailTokens * DEFAULTS.recentTurnTailShare)
      : undefined,
    minTailMessages: nonNegativeInteger(
      "minTailMessages",
      options.minTailMessages,
      limitIsFloor(policy, floor, contextWindow, limit)
        ? DEFAULTS.smallWindowTailMessages
        : DEFAULTS.minTailMessages,
    ),
    summarizer,
    identifierPolicy,
    identifierInstructions,
    instructions: optionalString("instructions", options.instructions),
    focus: optionalString("focus", options.focus),
    force: options.force === true,
    signal: resolveSignal(options.signal),
    now: resolveNow(options.now),
    cooldownUntil,
    cooldownSeconds: nonNegativeInteger(
      "cooldownSeconds",
      options.cooldownSeconds,
      DEFAULTS.cooldownSeconds,
    ),
    summaryMinTokens,
    summaryMaxTokens,
    ledger: resolveLedger(options.ledger),
    summaryAnchor: resolveSummaryAnchor(options.ledger),
    toolOutputReference: resolveToolOutputReference(options.toolOutputReference),
    cutOutputReference: resolveToolOutputReference(
      options.cutOutputReference,
      "cutOutputReference",
    ),
    recallTool: resolveRecallTool(options.recallTool),
    pruneLargestOutputs: resolvePruneLargest(options.pruneLargestOutputs),
  };
}

/**
 * The least the reserve may be: 20,000 tokens, except where the caller set the cost policy's
 * `floor` and no `reserveTokens`: the default reserve then gives way so that the limit reaches
 * the floor (at most the threshold). At 32k the default reserve leaves a 16,000 limit, and a floor
 * of 0.6 (19,200) was clamped to it: the setting changed nothing. An explicit reserve wins.
 */
function reserveFloor(
  policy: CompactionPolicy,
  floor: number,
  threshold: number,
  contextWindow: number,
  options: CompactOptions,
): number {
  if (policy !== "cost" || options.floor === undefined || options.reserveTokens !== undefined) {
    return DEFAULTS.reserveFloor;
  }
  const floorTokens = Math.floor(Math.min(floor, threshold) * contextWindow);
  return Math.max(0, Math.min(DEFAULTS.reserveFloor, contextWindow - floorTokens));
}

/**
 * What the recent reads may keep (`compact/recent-reads`). Where the limit leaves the cost policy
 * no room above its floor (windows up to 40k under the default reserve: 16,000 of 32k is both),
 * every compaction fires at the limit, so the turns to the next one, and with them the busts, are
 * set by what a compaction keeps: there a kept token costs 5–20% of a turn's bill per thousand,
 * against 1–3% at 64k and 128k, where the floor binds and the interval is long anyway
 * (docs/notes/small-windows.md). So there the last turns' outputs stay whole only within the
 * tail, and elsewhere within half the aim; and there the tail's least count of messages is the
 * last turn's (`DEFAULTS.smallWindowTailMessages`). The turns that do not fit whole are kept cut
 * (`recentTurnTokens`), not summarized: a summary keeps none of an output's lines.
 */
function recentReadBudget(
  policy: CompactionPolicy,
  floor: number,
  contextWindow: number,
  limit: number,
  target: number,
  tailTokens: number,
): number {
  const share = Math.floor(target * RECENT_READ_SHARE);
  return limitIsFloor(policy, floor, contextWindow, limit) ? Math.min(share, tailTokens) : share;
}

/** Whether the cost policy's limit leaves it no room above its floor (windows up to 40k by default). */
function limitIsFloor(
  policy: CompactionPolicy,
  floor: number,
  contextWindow: number,
  limit: number,
): boolean {
  return policy === "cost" && limit <= Math.floor(floor * contextWindow);
}

/**
 * The cost policy's floor. A caller that sets `threshold` says when to compact (Hermes asks at
 * 50,000 of 100,000 with 0.85 and expects nothing): the cost policy then never compacts below it,
 * so its floor is at least the threshold; an explicit floor under an explicit threshold says
 * both, and is refused.
 */
function costFloor(policy: CompactionPolicy, floor: number, options: CompactOptions): number {
  if (policy !== "cost" || options.threshold === undefined) return floor;
  if (options.floor !== undefined && options.floor < options.threshold) {
    throw new InvalidOptionsError(
      "floor",
      `floor ${options.floor} is under threshold ${options.threshold}: with an explicit threshold the cost policy never compacts below it; leave floor out (the threshold is then the floor), raise it to at least ${options.threshold}, or leave threshold out to let the cost policy compact from the floor`,
    );
  }
  return Math.max(floor, options.threshold);
}

function resolvePruneLargest(value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== "boolean") {
    throw new InvalidOptionsError("pruneLargestOutputs", "expected true or false");
  }
  return value;
}

function nonNegativeNumber(name: string, value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new InvalidOptionsError(
      name,
      `expected a number ≥ 0 of tokens, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function resolvePricing(value: unknown): CompactOptions["pricing"] {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidOptionsError(
      "pricing",
      "expected an object such as { cacheWrite: 1.25, cacheRead: 0.1 } (multiples of the input price), or nothing",
    );
  }
  return value as CompactOptions["pricing"];
}

/** The state a previous decision or compaction handed back (`TriggerDecision.cacheState`). */
function resolveCacheState(value: unknown): CacheState | undefined {
  if (value === undefined || value === null) return undefined;
  const state = value as Partial<Record<keyof CacheState, unknown>>;
  const fields = ["excessTokens", "compactedTokens", "stableTokens"] as const;
  if (
    typeof value !== "object" ||
    fields.some((field) => {
      const tokens = state[field];
      return typeof tokens !== "number" || !Number.isFinite(tokens) || tokens < 0;
    })
  ) {
    throw new InvalidOptionsError(
      "cacheState",
      "expected { excessTokens, compactedTokens, stableTokens } (numbers ≥ 0) as the last decision or compaction returned it in `cacheState`, or nothing",
    );
  }
  return {
    excessTokens: state.excessTokens as number,
    compactedTokens: state.compactedTokens as number,
    stableTokens: state.stableTokens as number,
  };
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

function resolveRecallTool(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !TOOL_NAME.test(value)) {
    throw new InvalidOptionsError(
      "recallTool",
      "expected the recall tool's name (letters, digits, _, - and ., at most 64), e.g. `recall`, or nothing",
    );
  }
  return value;
}

function resolveToolOutputReference(
  value: unknown,
  name = "toolOutputReference",
): ResolvedOptions["toolOutputReference"] {
  if (value === undefined) return undefined;
  if (typeof value !== "function") {
    throw new InvalidOptionsError(
      name,
      "expected a function ({ toolCallId, occurrence }) => string naming an output, or nothing",
    );
  }
  return value as (output: ToolOutputKey) => string;
}
