/**
 * @module bench/cost/baselines
 * The policies Condense's bill is compared with, replayed on the same turns as the gateway:
 * - whole history: every request carries everything (the agent without any compaction);
 * - truncate-oldest: over 0.75 × W, drop the oldest messages (a call with its results) until
 *   under 0.5 × W;
 * - compact-at-95 (Claude Code, OpenClaw): at 0.95 × W keep the system prompt, one 2,000-token
 *   summary and the newest 0.2 × W.
 * Each holds the context it forwards and gets it back each turn with the turn's new messages
 * appended. Breakpoints are where a client and these policies mark the prompt for Anthropic:
 * the end of the system prompt, the end of the summary, and the newest message.
 */

/** A message as the biller sees it. */
export interface BenchMessage {
  /** Equal content, equal key. */
  key: string;
  tokens: number;
  role: string;
}

export interface PolicyStep {
  context: BenchMessage[];
  compacted: boolean;
}

export interface BaselinePolicy {
  readonly name: string;
  step(context: BenchMessage[]): PolicyStep;
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

export class CompactAt95 implements BaselinePolicy {
  readonly name = "compact-at-95";
  readonly #at: number;
  readonly #keep: number;
  readonly #summaryTokens = 2_000;
  #count = 0;
  #summaryKey: string | undefined;
  constructor(window: number) {
    this.#at = 0.95 * window;
    this.#keep = 0.2 * window;
  }
  step(context: BenchMessage[]): PolicyStep {
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
    this.#summaryKey = `compact-at-95 summary ${this.#count}`;
    const summary = { key: this.#summaryKey, tokens: this.#summaryTokens, role: "user" };
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
