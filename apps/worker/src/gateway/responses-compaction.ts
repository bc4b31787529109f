/**
 * @module gateway/responses-compaction
 * `POST …/responses/compact` answered by the gateway, for an upstream that has
 * no such endpoint: the context the gateway would send for the request
 * (`gateway/preview`: the session's compacted context with the request's new
 * messages, or the history itself) compacted now by the engine's deterministic
 * tiers, in the shape OpenAI documents for a compacted response (the SDK's
 * `CompactedResponse`): the input's user messages, then one `compaction` item
 * standing for the rest of the compacted context
 * (`gateway/protocols/condense-compaction`), which a later request through
 * the gateway carries back.
 */

import { type ChatMessage, countMessageTokens, toCanonical } from "@condense/core";
import type { CompactedResponse } from "openai/resources/responses/responses";
import { renderMessages } from "../api/formats";
import { fitStateless } from "./plans/plan-stateless";
import type { Preview } from "./preview";
import { condenseCompactionItem } from "./protocols/condense-compaction";
import { isRecord, type RequestBody } from "./protocols/protocol";

/** The request's user message items, as it sent them (OpenAI's compacted output keeps them). */
function userItems(body: RequestBody): unknown[] {
  if (typeof body.input === "string") return [{ role: "user", content: body.input }];
  if (!Array.isArray(body.input)) return [];
  return body.input.filter(
    (item) =>
      isRecord(item) &&
      (item.type === undefined || item.type === "message") &&
      item.role === "user",
  );
}

/** One canonical message's identity, to leave out of the compaction item what the output repeats. */
function identity(message: ChatMessage): string {
  return JSON.stringify(message);
}

/**
 * The compacted response for a request the engine reads (`preview.messages` defined): its context
 * compacted however small it already is (`force`), the user messages it keeps in the output leading.
 */
export async function emulatedCompaction(
  preview: Preview & { messages: ChatMessage[]; tokens: number },
  body: RequestBody,
  contextWindow: number | undefined,
): Promise<CompactedResponse> {
  const model = String(body.model);
  const fit = await fitStateless(preview.messages, model, {
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    force: true,
  });
  const users = userItems(body);
  const given = new Set(
    toCanonical({ format: "responses", messages: users }).map((message) => identity(message)),
  );
  // The summary and the turns the compaction kept; the user messages the output carries are not
  // repeated in it.
  const rest = fit.messages.filter(
    (message) => !(message.role === "user" && given.has(identity(message))),
  );
  const outputTokens = countMessageTokens(rest, model);
  const items = renderMessages(rest, "responses").messages;
  return {
    id: `resp_compact_${crypto.randomUUID().replaceAll("-", "")}`,
    object: "response.compaction",
    created_at: Math.floor(Date.now() / 1000),
    output: [...users, condenseCompactionItem(items)] as CompactedResponse["output"],
    usage: {
      input_tokens: preview.tokens,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: preview.tokens + outputTokens,
    },
  };
}
