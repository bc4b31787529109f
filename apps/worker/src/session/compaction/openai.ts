/**
 * @module session/compaction/openai
 * The `strategy: "openai"` view: the context goes to OpenAI's
 * `/responses/compact`, and the returned items (encrypted compaction content
 * included) become the view, stored with the endpoint and the fingerprint of
 * the key that produced them. Without a key, or when the endpoint fails, there
 * is no view, and the local tiers compact instead.
 */

import { type ChatMessage, InvalidMessagesError, toCanonical } from "@condense/core";
import { renderMessages } from "../../api/formats";
import { type CompactionLogBase, logCompaction } from "../../log/log-lines";
import {
  callResponsesCompact,
  keyFingerprint,
  openAIKey,
  responsesCompactEndpoint,
} from "../../openai/responses-compact";
import { messagesTokens } from "../context/context-measure";
import type { NewView } from "./commit";
import type { CompactionSnapshot } from "./open-calls";

const SUMMARIZER = "openai-responses-compact";

/**
 * The output items and their canonical form, or undefined when they are not Responses items the
 * engine can read: stored, they would make every later read of the context fail.
 */
function readItems(output: unknown): { items: unknown[]; canonical: ChatMessage[] } | undefined {
  if (!Array.isArray(output) || output.length === 0) return undefined;
  try {
    return { items: output, canonical: toCanonical({ format: "responses", messages: output }) };
  } catch (error) {
    if (InvalidMessagesError.isInstance(error)) return undefined;
    throw error;
  }
}

/**
 * The view `/responses/compact` makes of `snapshot` for `model`, or undefined when no key is
 * configured or the endpoint fails (logged, with the time since `started`).
 */
export async function openAIView(
  env: Env,
  log: CompactionLogBase,
  snapshot: CompactionSnapshot,
  model: string,
  started: number,
): Promise<NewView | undefined> {
  const key = openAIKey(env);
  if (key === undefined) return undefined;
  const input = [
    ...(snapshot.openaiItems ?? []),
    ...renderMessages(
      snapshot.openaiItems === undefined ? snapshot.messages : snapshot.tail,
      "responses",
    ).messages,
  ];
  const upstream = await callResponsesCompact(env, key, { model, input });
  const output = upstream.ok
    ? readItems((upstream.body as { output?: unknown }).output)
    : undefined;
  if (output === undefined) {
    logCompaction({
      ...log,
      outcome: "failed",
      durationMs: Date.now() - started,
      summarizer: SUMMARIZER,
      summarizerFailure: upstream.ok ? "malformed" : `http_${upstream.status}`,
    });
    return undefined;
  }
  // Items have no count of their own: the canonical total is spread evenly over them.
  const perItem = Math.ceil(messagesTokens(output.canonical, model) / output.items.length);
  return {
    strategy: "openai",
    tier: 2,
    // The view rows hold the Responses items as OpenAI returned them (encrypted content included).
    entries: output.items.map((item) => ({ message: item as ChatMessage, tokens: perItem })),
    summary: null,
    summarizer: SUMMARIZER,
    summarizerFailure: null,
    prunedOutputs: [],
    passes: 1,
    openai: { endpoint: responsesCompactEndpoint(env), keyFingerprint: await keyFingerprint(key) },
  };
}
