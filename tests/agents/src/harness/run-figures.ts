/**
 * @module harness/run-figures
 * The figures of one run, from what the scripted upstream received: turns
 * (main requests answered), side requests, refusals with the provider's
 * error, the largest prompt sent against the limit, and how many turns
 * changed the prompt's prefix — a request whose system, tools and earlier
 * conversation items are not exactly the previous request's (less the
 * `cache_control` markers a client moves every turn) is a prompt the
 * provider's cache cannot reuse.
 */

import type { JsonObject, WireProtocol } from "@condense/test-servers";
import type { ModelFailure } from "../model/scripted-model.ts";
import type { RecordedCall } from "../upstream/scripted-upstream.ts";

export interface Refusal {
  /** The main request's number (1-based), or 0 for a side request. */
  turn: number;
  status: number;
  message: string;
}

export interface RunFigures {
  turns: number;
  sideRequests: number;
  refusals: Refusal[];
  largestContext: number;
  prefixChanges: number;
  failures: ModelFailure[];
}

/**
 * The value as the provider reads it: without `cache_control` keys (markers that move do not
 * change the prompt), and a string `content` as the one text block it stands for.
 */
function withoutCacheMarkers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheMarkers);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== "cache_control")
      .map(([key, item]) => [
        key,
        key === "content" && typeof item === "string"
          ? [{ type: "text", text: item }]
          : withoutCacheMarkers(item),
      ]),
  );
}

/** The part of a request ahead of its conversation: tool definitions and system prompt. */
function head(body: JsonObject): string {
  const { tools, system, instructions } = body;
  return JSON.stringify(withoutCacheMarkers({ tools, system, instructions }));
}

function keepsPrefix(protocol: WireProtocol, previous: RecordedCall, next: RecordedCall): boolean {
  if (previous.body === null || next.body === null) return false;
  if (head(previous.body) !== head(next.body)) return false;
  const said = (body: JsonObject) =>
    protocol.items(body).map((item) => JSON.stringify(withoutCacheMarkers(item)));
  const before = said(previous.body);
  const after = said(next.body);
  return before.length <= after.length && before.every((item, index) => item === after[index]);
}

export function runFigures(
  protocol: WireProtocol,
  calls: RecordedCall[],
  failures: ModelFailure[],
): RunFigures {
  const main = calls.filter((call) => call.tokens !== null && !call.side);
  const refusals: Refusal[] = [];
  let turn = 0;
  for (const call of calls) {
    if (call.tokens !== null && !call.side) turn += 1;
    if (call.refused !== undefined) {
      refusals.push({
        turn: call.side ? 0 : turn,
        status: call.status,
        message: call.refused.message,
      });
    }
  }
  let prefixChanges = 0;
  for (let index = 1; index < main.length; index++) {
    const previous = main[index - 1];
    const next = main[index];
    if (previous !== undefined && next !== undefined && !keepsPrefix(protocol, previous, next)) {
      prefixChanges += 1;
    }
  }
  return {
    turns: main.filter((call) => call.status === 200).length,
    sideRequests: calls.filter((call) => call.side).length,
    refusals,
    largestContext: Math.max(0, ...main.map((call) => call.tokens ?? 0)),
    prefixChanges,
    failures,
  };
}
