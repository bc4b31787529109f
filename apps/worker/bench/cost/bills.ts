/**
 * @module bench/cost/bills
 * Bills one replayed transcript: the requests the gateway forwarded (Condense), with the cache
 * markers they carry, and the baselines (`bench/cost/baselines`) on the same turns, each under
 * each provider's cache rules (core `billing/prompt-cache`). Messages are told apart by their
 * canonical form (cache markers dropped, a single text part read as the string it carries, keys
 * sorted), counted with the engine's tokenizer for the model billed (`tokensModel`: each pricing's
 * own, so Claude's are o200k's count with the engine's 15% margin, as the test upstream reports
 * them; the engine has no Claude tokenizer).
 */

import {
  type CachePricing,
  type ChatMessage,
  messageTokens,
  openaiCacheMarkers,
  PromptCacheBiller,
  type SequenceBill,
  toCanonical,
} from "@condense/core";
import type { RecordedCall } from "../../test/support/gateway-upstream.ts";
import {
  type BaselinePolicy,
  type BenchMessage,
  CompactAt95,
  systemEnd,
  TruncateOldest,
  totalTokens,
  WholeHistory,
} from "./baselines.ts";

/** The tokenizer model where a bench bills every pricing with one count (the probe bench). */
export const BILLING_MODEL = "gpt-4o";

/** JSON with object keys sorted at every level: equal values, equal text. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${stableJson(record[key])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * What a provider sees of a message: a single text part is the string it carries (the client marks
 * its newest message by making its text a part; the next turn sends the string again).
 */
export function messageKey(message: ChatMessage): string {
  const content = message.content;
  const only = Array.isArray(content) && content.length === 1 ? content[0] : undefined;
  return stableJson(only?.type === "text" ? { ...message, content: only.text } : message);
}

const counted = new Map<string, number>();

/** A message as the biller sees it, counted for `model`. */
export function benchMessage(message: ChatMessage, model = BILLING_MODEL): BenchMessage {
  const key = messageKey(message);
  const countKey = `${model}\n${key}`;
  let tokens = counted.get(countKey);
  if (tokens === undefined) {
    tokens = messageTokens(message, model);
    counted.set(countKey, tokens);
  }
  return { key, tokens, role: message.role };
}

/** What one policy cost under one pricing, with the context it kept. */
export interface PolicyBill extends SequenceBill {
  compactions: number;
  /** Mean tokens per request. */
  meanTokens: number;
}

function withContext(bill: SequenceBill, compactions: number, tokens: number[]): PolicyBill {
  const mean = tokens.length === 0 ? 0 : tokens.reduce((a, b) => a + b, 0) / tokens.length;
  return { ...bill, compactions, meanTokens: mean };
}

/** The end of the system prompt and the engine's head (3 messages, with their tool results). */
export function headEnd(messages: readonly BenchMessage[], headMessages = 3): number {
  let end = Math.min(messages.length, systemEnd(messages) + headMessages);
  while (end < messages.length && messages[end]?.role === "tool") end++;
  return end;
}

/**
 * The forwarded requests, billed in order, with the breakpoints they carry; `headMark` adds one at
 * the end of the head, which no compaction rewrites (a breakpoint the gateway does not place yet).
 */
export function billForwarded(
  forwarded: readonly RecordedCall[],
  pricing: CachePricing,
  options: { headMark?: boolean; tokensModel?: string } = {},
): PolicyBill {
  const biller = new PromptCacheBiller(pricing);
  const sizes: number[] = [];
  const model = options.tokensModel ?? BILLING_MODEL;
  for (const call of forwarded) {
    const raw = Array.isArray(call.body?.messages) ? (call.body.messages as unknown[]) : [];
    const messages = toCanonical({ format: "openai", messages: raw }).map((message) =>
      benchMessage(message, model),
    );
    const breakpoints = openaiCacheMarkers(raw).map((marker) => marker.message + 1);
    if (options.headMark === true) breakpoints.push(headEnd(messages));
    sizes.push(
      biller.bill({
        keys: messages.map((m) => m.key),
        tokens: messages.map((m) => m.tokens),
        breakpoints,
      }).tokens,
    );
  }
  return withContext(biller.totals, 0, sizes);
}

/** The baselines the cost bench bills at `window`: the whole history, truncate-oldest, compact-at-95. */
export function costBaselines(window: number): BaselinePolicy[] {
  return [new WholeHistory(), new TruncateOldest(window), new CompactAt95(window)];
}

/**
 * One policy replayed on the client's histories, billed under each of `pricings` (by name);
 * `observe` sees the context it forwards at each turn. With `withContent`, each message carries
 * its content (`BenchMessage.message`).
 */
export async function replayPolicy(
  histories: readonly ChatMessage[][],
  policy: BaselinePolicy,
  pricings: readonly CachePricing[],
  options: {
    withContent?: boolean;
    /** The model whose tokenizer counts the messages (default `BILLING_MODEL`). */
    tokensModel?: string;
    observe?: (turn: number, context: readonly BenchMessage[]) => void | Promise<void>;
  } = {},
): Promise<Record<string, PolicyBill>> {
  const billers = pricings.map((pricing) => new PromptCacheBiller(pricing));
  const model = options.tokensModel ?? BILLING_MODEL;
  const read = (message: ChatMessage): BenchMessage =>
    options.withContent === true
      ? { ...benchMessage(message, model), message }
      : benchMessage(message, model);
  let context: BenchMessage[] = [];
  let sent = 0;
  let compactions = 0;
  const sizes: number[] = [];
  for (const [turn, history] of histories.entries()) {
    context = context.concat(history.slice(sent).map(read));
    sent = history.length;
    const step = await policy.step(context);
    context = step.context;
    if (step.compacted) compactions++;
    const request = {
      keys: context.map((m) => m.key),
      tokens: context.map((m) => m.tokens),
      breakpoints: policy.breakpoints(context),
    };
    for (const biller of billers) biller.bill(request);
    sizes.push(totalTokens(context));
    await options.observe?.(turn, context);
  }
  const out: Record<string, PolicyBill> = {};
  pricings.forEach((pricing, index) => {
    out[pricing.name] = withContext(
      (billers[index] as PromptCacheBiller).totals,
      compactions,
      sizes,
    );
  });
  return out;
}

/**
 * The baselines at `window` (`costBaselines`), each replayed on the client's histories and billed,
 * counted for `tokensModel`.
 */
export async function billBaselines(
  histories: readonly ChatMessage[][],
  window: number,
  pricing: CachePricing,
  tokensModel = BILLING_MODEL,
): Promise<Record<string, PolicyBill>> {
  const out: Record<string, PolicyBill> = {};
  for (const policy of costBaselines(window)) {
    const bills = await replayPolicy(histories, policy, [pricing], { tokensModel });
    out[policy.name] = bills[pricing.name] as PolicyBill;
  }
  return out;
}
