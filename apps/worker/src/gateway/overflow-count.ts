/**
 * @module gateway/overflow-count
 * The upstream's count of a request it refused as too long is the truth for
 * that request (issue 33). Providers' tokenizers, images and tool definitions
 * make their count and the gateway's disagree, most of all near the limit:
 * an upstream that says `your messages resulted in 20000 tokens` of a window
 * of 16,385 for what the gateway counted as 7,000 would refuse anything over
 * 5,734 of the gateway's tokens. So the window it states is scaled into the
 * gateway's count by the ratio of the two counts, and the retry aims there.
 * When nothing smaller than what was refused can be sent, the error goes back
 * as it came, and `X-Condense-Overflow` / `X-Condense-Overflow-Reason` say so
 * and why.
 */

import { parseOverflowTokens } from "@condense/core";
import { GATEWAY_HEADERS } from "./condense-headers";

/** What an overflow error states of the request it refused, beside the gateway's own count. */
export interface UpstreamCount {
  /** The window the upstream stated. */
  limit: number;
  /** Its count of the refused request's input. */
  counted: number;
  /** The gateway's count of the same request: its messages and what went beside them (tools). */
  ours: number;
  /**
   * The stated window in the gateway's count: scaled by ours/counted when the upstream counted
   * more than the gateway (else the stated window as it is).
   */
  window: number;
}

/** The figures of an overflow error against `ours`, or undefined when it states no count and window. */
export function upstreamCount(
  error: { status: number; text: string },
  ours: number,
): UpstreamCount | undefined {
  const stated = parseOverflowTokens({ status: error.status, body: error.text });
  const limit = stated?.limit;
  const counted = stated?.inputTokens ?? stated?.requested;
  if (limit === undefined || counted === undefined) return undefined;
  if (!(limit > 0 && counted > 0 && ours > 0)) return undefined;
  const window = counted > ours ? Math.floor((limit * ours) / counted) : limit;
  return { limit, counted, ours, window };
}

/**
 * Marks the response as the upstream's overflow passed through: nothing smaller than the `sent`
 * tokens could be sent (`smallest`, the least the gateway could make of the context).
 */
export function markPassedThrough(
  headers: Record<string, string>,
  count: UpstreamCount | undefined,
  sent: number,
  smallest: number,
): void {
  const figures =
    count === undefined
      ? "the upstream stated no count to scale by"
      : count.counted > count.ours
        ? `the upstream counted ${count.counted} tokens where Condense counted ${count.ours}, so its window of ${count.limit} holds ${count.window} of Condense's`
        : `the upstream's window is ${count.limit} tokens`;
  headers[GATEWAY_HEADERS.overflow] = "passed-through";
  headers[GATEWAY_HEADERS.overflowReason] =
    `${figures}; nothing smaller can be sent: the smallest context is ${smallest} tokens, and ${sent} were refused (what is never cut: system prompt, user messages, pinned messages, each newest output's marker)`;
}

/** Marks an overflow that was still refused after the gateway's retries, passed through. */
export function markRetriesSpent(headers: Record<string, string>, retries: number): void {
  headers[GATEWAY_HEADERS.overflow] = "passed-through";
  headers[GATEWAY_HEADERS.overflowReason] =
    `the upstream refused the context again after ${retries} smaller retries`;
}

/** Marks an overflow passed through because the session cannot serve any context that fits. */
export function markNoFit(headers: Record<string, string>, why: string): void {
  headers[GATEWAY_HEADERS.overflow] = "passed-through";
  // A header value is one line of visible ASCII.
  headers[GATEWAY_HEADERS.overflowReason] = why.replace(/[^\x20-\x7e]/g, "-").slice(0, 1_000);
}
