/**
 * @module bench/cost/baselines
 * The policies Condense's bill is compared with, replayed on the same turns as the gateway:
 * - whole history: every request carries everything (the agent without any compaction);
 * - truncate-oldest: over 0.75 × W, drop the oldest messages (a call with its results) until
 *   under 0.5 × W;
 * - compact-at-95 (Claude Code, OpenClaw): at 0.95 × W keep the system prompt, one 2,000-token
 *   summary and the newest 0.2 × W (the summary's text, when a summarizer is given, is that
 *   summarizer's over what the compaction drops, the previous summary included);
 * - observation masking (JetBrains' study): every tool output but the newest 10 replaced by a
 *   one-line placeholder, every turn; the oldest messages dropped when it still exceeds the window.
 * Each holds the context it forwards and gets it back each turn with the turn's new messages
 * appended. Breakpoints are where a client and these policies mark the prompt for Anthropic:
 * the end of the system prompt, the end of the summary, and the newest message. A message may
 * carry its content (`message`): the probe bench reads what each policy kept.
 */

import type { ChatMessage } from "@condense/core";

/** A message as the biller sees it. */
export interface BenchMessage {
  /** Equal content, equal key. */
  key: string;
  tokens: number;
  role: string;
  /** The message itself, when the bench reads contexts and not only bills them. */
  message?: ChatMessage;
}

export interface PolicyStep {
  context: BenchMessage[];
  compacted: boolean;
}

export interface BaselinePolicy {
  readonly name: string;
  step(context: BenchMessage[]): PolicyStep | Promise<PolicyStep>;
  /** Prefix lengths marked for caching on this context (the newest message is always marked). */
  breakpoints(context: readonly BenchMessage[]): number[];
}

const isSystem = (message: BenchMessage) =>
  message.role === "system" || message.role === "developer";

/** The end of the leading system messages. */
export function systemEnd(context: readonly BenchMessage[]): number {
  let end = 0;
  while (end < context.length && isSystem(context[end] as BenchMessage)) end++;
  return end;
}

export function totalTokens(context: readonly BenchMessage[]): number {
  return context.reduce((sum, message) => sum + message.tokens, 0);
}

export class WholeHistory implements BaselinePolicy {
  readonly name = "whole history";
  step(context: BenchMessage[]): PolicyStep {
    return { context, compacted: false };
  }
  breakpoints(context: readonly BenchMessage[]): number[] {
    return [systemEnd(context)];
  }
}

export class TruncateOldest implements BaselinePolicy {
  readonly name = "truncate-oldest";
  readonly #over: number;
  readonly #under: number;
  constructor(window: number) {
    this.#over = 0.75 * window;
    this.#under = 0.5 * window;
  }
  step(context: BenchMessage[]): PolicyStep {
    let size = totalTokens(context);
    if (size <= this.#over) return { context, compacted: false };
    const system = systemEnd(context);
    let start = system;
    while (size >= this.#under && start < context.length - 1) {
      size -= context[start]?.tokens ?? 0;
      start++;
      // A call's results go with it.
      while (start < context.length - 1 && context[start]?.role === "tool") {
        size -= context[start]?.tokens ?? 0;
        start++;
      }
    }
    return { context: [...context.slice(0, system), ...context.slice(start)], compacted: true };
  }
  breakpoints(context: readonly BenchMessage[]): number[] {
    return [systemEnd(context)];
  }
}

/**
 * Writes compact-at-95's summary of `dropped` (the previous summary, when one was dropped, is among
 * them): a message as the biller sees it, with its content.
 */
export type BaselineSummarizer = (dropped: readonly BenchMessage[]) => Promise<BenchMessage>;

export class CompactAt95 implements BaselinePolicy {
  readonly name = "compact-at-95";
  readonly #at: number;
  readonly #keep: number;
  readonly #summaryTokens = 2_000;
  readonly #summarize: BaselineSummarizer | undefined;
  #count = 0;
  #summaryKey: string | undefined;
  /** Without `summarize`, the summary is a 2,000-token message of no content (the bill alone). */
  constructor(window: number, summarize?: BaselineSummarizer) {
    this.#at = 0.95 * window;
    this.#keep = 0.2 * window;
    this.#summarize = summarize;
  }
  async step(context: BenchMessage[]): Promise<PolicyStep> {
    if (totalTokens(context) <= this.#at) return { context, compacted: false };
    const system = systemEnd(context);
    let start = context.length;
    let kept = 0;
    while (start > system + 1 && kept + (context[start - 1]?.tokens ?? 0) <= this.#keep) {
      kept += context[start - 1]?.tokens ?? 0;
      start--;
    }
    if (start === context.length) start--;
    // The kept tail never starts on a tool result: its call comes with it.
    while (start > system && context[start]?.role === "tool") start--;
    this.#count++;
    const summary =
      this.#summarize === undefined
        ? { key: `compact-at-95 summary ${this.#count}`, tokens: this.#summaryTokens, role: "user" }
        : await this.#summarize(context.slice(system, start));
    this.#summaryKey = summary.key;
    return {
      context: [...context.slice(0, system), summary, ...context.slice(start)],
      compacted: true,
    };
  }
  breakpoints(context: readonly BenchMessage[]): number[] {
    const summary = context.findIndex((message) => message.key === this.#summaryKey);
    return summary < 0 ? [systemEnd(context)] : [systemEnd(context), summary + 1];
  }
}

/** The placeholder observation masking leaves of an output (JetBrains: "output omitted for brevity"). */
export const MASKED_OUTPUT = "[Old tool output omitted for brevity.]";

/**
 * Observation masking: every turn, the tool outputs but the newest `keep` are masked; when the
 * context still exceeds the window, the oldest messages after the system prompt go (a call with
 * its results), as a client must send what fits.
 */
export class ObservationMasking implements BaselinePolicy {
  readonly name = "masking";
  readonly #window: number;
  readonly #keep: number;
  readonly #mask: (message: BenchMessage) => BenchMessage;
  /** The keys of the placeholders this policy wrote. */
  readonly #masked = new Set<string>();
  /** `mask` writes a tool message's placeholder (with its call id: each stays a message of its own). */
  constructor(window: number, mask: (message: BenchMessage) => BenchMessage, keep = 10) {
    this.#window = window;
    this.#keep = keep;
    this.#mask = mask;
  }
  step(context: BenchMessage[]): PolicyStep {
    let outputs = 0;
    let changed = false;
    const masked = [...context];
    for (let i = masked.length - 1; i >= 0; i--) {
      const message = masked[i] as BenchMessage;
      if (message.role !== "tool") continue;
      outputs++;
      if (outputs <= this.#keep || this.#masked.has(message.key)) continue;
      const placeholder = this.#mask(message);
      this.#masked.add(placeholder.key);
      masked[i] = placeholder;
      changed = true;
    }
    let size = totalTokens(masked);
    if (size <= this.#window) return { context: masked, compacted: changed };
    const system = systemEnd(masked);
    let start = system;
    while (size > this.#window && start < masked.length - 1) {
      size -= masked[start]?.tokens ?? 0;
      start++;
      while (start < masked.length - 1 && masked[start]?.role === "tool") {
        size -= masked[start]?.tokens ?? 0;
        start++;
      }
    }
    return { context: [...masked.slice(0, system), ...masked.slice(start)], compacted: true };
  }
  breakpoints(context: readonly BenchMessage[]): number[] {
    return [systemEnd(context)];
  }
}
