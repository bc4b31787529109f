/**
 * @module session/compaction/openai
 * The `strategy: "openai"` tier: the context goes to OpenAI's
 * `/responses/compact` and the returned items (encrypted compaction content
 * included) become the view, stored with the endpoint and the fingerprint of
 * the key that produced them. Any failure leaves the local tiers to run.
 */

import { type ChatMessage, InvalidMessagesError, toCanonical } from "@condense/core";
import { renderMessages } from "../../api/formats";
import { type CompactionLogLine, logCompaction } from "../../log/log-lines";
import {
  callResponsesCompact,
  keyFingerprint,
  openAIKey,
  responsesCompactEndpoint,
} from "../../openai/responses-compact";
import { type ContextMeasure, commitView, isCurrent, messagesTokens } from "../context-view";
import { clearFailure, settleCompaction } from "../session-record";
import { recordCompaction } from "./history";
import type { CompactionSnapshot } from "./open-calls";
import type { CompactionContext, CompactionOptions, RunResult } from "./run";

const SUMMARIZER = "openai-responses-compact";

type LogBase = Pick<CompactionLogLine, "requestId" | "user" | "session" | "trigger">;

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
 * Compacts `snapshot` through `/responses/compact` and commits the items in one transaction.
 * Returns undefined when no key is configured or the endpoint fails, so the local tiers take over.
 */
export async function compactThroughOpenAI(
  ctx: CompactionContext,
  log: LogBase,
  snapshot: CompactionSnapshot,
  measure: ContextMeasure,
  started: number,
  options: Pick<CompactionOptions, "onCommit">,
): Promise<RunResult | undefined> {
  const key = openAIKey(ctx.env);
  if (key === undefined) return undefined;
  const input = [
    ...(snapshot.openaiItems ?? []),
    ...renderMessages(
      snapshot.openaiItems === undefined ? snapshot.messages : snapshot.tail,
      "responses",
    ).messages,
  ];
  const upstream = await callResponsesCompact(ctx.env, key, { model: measure.model, input });
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
  const fingerprint = await keyFingerprint(key);
  const endpoint = responsesCompactEndpoint(ctx.env);
  const itemTokens = messagesTokens(output.canonical, measure.model);
  // Items have no count of their own: the canonical total is spread evenly over them.
  const perItem = Math.ceil(itemTokens / output.items.length);
  // Context tokens, as the status reports them: the open calls after the view included.
  const tokensAfter = perItem * output.items.length + snapshot.openCallTokens;
  const tokensBefore = snapshot.tokens + snapshot.openCallTokens;
  const storage = ctx.open();
  const sql = storage.sql;
  const committed = storage.transactionSync((): RunResult => {
    if (!isCurrent(sql, snapshot)) return { status: "discarded" };
    const now = Date.now();
    const event = recordCompaction(sql, {
      at: now,
      trigger: log.trigger,
      strategy: "openai",
      tier: 2,
      tokensBefore,
      tokensAfter,
      fromSeq: snapshot.coveredSeq + 1,
      toSeq: snapshot.foldedSeq,
      summary: null,
      summarizer: SUMMARIZER,
      failure: null,
      prunedCount: 0,
      passes: 1,
      durationMs: now - started,
      fallback: null,
    });
    commitView(sql, ctx.store, {
      coveredSeq: snapshot.foldedSeq,
      compactionId: event.id,
      tokens: perItem * output.items.length,
      summary: null,
      strategy: "openai",
      openai: { endpoint, keyFingerprint: fingerprint },
      // The view rows hold the Responses items as OpenAI returned them (encrypted content included).
      entries: output.items.map((item) => ({ message: item as ChatMessage, tokens: perItem })),
    });
    settleCompaction(sql, null, now);
    clearFailure(sql);
    const settled: RunResult = { status: "committed", event };
    options.onCommit?.(settled);
    return settled;
  });
  logCompaction({
    ...log,
    outcome: committed.status === "committed" ? "committed" : "discarded",
    tier: 2,
    tokensBefore,
    tokensAfter,
    durationMs: committed.event?.durationMs ?? Date.now() - started,
    summarizer: SUMMARIZER,
    coveredSeq: snapshot.foldedSeq,
  });
  return committed;
}
