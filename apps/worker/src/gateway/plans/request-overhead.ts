/**
 * @module gateway/plans/request-overhead
 * A request's fixed overhead: the tokens of what it sends beside its history
 * that the provider counts as input (`GatewayProtocol.overheadFields`: tool
 * definitions, Responses' `instructions`). Agents send it on every request
 * (Claude Code ~12k tokens of tools), so the session keeps room for it in the
 * window and leaves it out of its calibration (`session/context/context-measure`,
 * `session/context/provider-counts`). Counted with the engine's tokenizer for the
 * request's model, as the JSON (or the text) the client sent; agents resend
 * the same tools every turn, so the counts are kept per isolate.
 */

import { countTokens } from "@condense/core";
import { TextKeyedCache } from "../../cache/text-keyed-cache";
import type { GatewayProtocol, RequestBody } from "../protocols/protocol";

/** Counts by model and field text (about 2 MB of one-byte text: a few agents' tool sets). */
const countCache = new TextKeyedCache<number>(2_000_000);

function fieldTokens(text: string, model: string): number {
  const key = `${model}\n${text}`;
  const cached = countCache.get(key);
  if (cached !== undefined) return cached;
  const tokens = countTokens(text, model);
  countCache.set(key, tokens);
  return tokens;
}

/** Engine tokens of the request's fields that the provider counts as input beside its history. */
export function requestOverhead(protocol: GatewayProtocol, body: RequestBody): number {
  const model = String(body.model);
  let tokens = 0;
  for (const field of protocol.overheadFields) {
    const value = body[field];
    if (value === undefined || value === null) continue;
    const text = typeof value === "string" ? value : JSON.stringify(value);
    if (text === "" || text === "[]") continue;
    tokens += fieldTokens(text, model);
  }
  return tokens;
}
