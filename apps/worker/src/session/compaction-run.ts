/**
 * @module session/compaction-run
 * One compaction of a session: snapshot the committed context up to the
 * latest seq N (less a trailing tool call still awaiting its results, which
 * stays in the tail for its results to follow: `open-calls`), await the engine (other requests run meanwhile: the input gate
 * does not hold across a fetch), then commit the view, the event, the
 * pruned-output index and the cooldown in one `transactionSync`, or nothing.
 * Appends that arrived during the wait have seq > N and follow the compacted
 * range; a session deleted meanwhile makes the result `discarded`. Callers run
 * it through the object's `CompactionQueue`, one at a time.
 */

import {
  type ChatMessage,
  type CompactOptions,
  type CompactResult,
  compact,
  type Ledger,
  messageTokens,
  summaryDigest,
} from "@condense/core";
import type { CompactionEventBody } from "../api/schemas";
import type { Env } from "../env";
import { type CompactionLogLine, logCompaction } from "../http/log";
import { recordCompaction } from "./compaction-history";
import { commitView, isCurrent, type Limits, limitsFor, readSnapshot } from "./context-view";
import type { MessageStore } from "./message-store";
import { type FoldSnapshot, foldable } from "./open-calls";
import { compactThroughOpenAI } from "./openai-compaction";
import {
  clearPendingTrigger,
  isExhausted,
  ledgerOf,
  readSession,
  type SessionRow,
  saveCooldown,
  saveLedger,
  settleCompaction,
} from "./session-record";
import { readSettings, type SessionSettings } from "./settings";
import { summarizerFor } from "./summarizer-config";
import { markPruned } from "./tool-outputs";

/** What a compaction works with: the object's storage, its messages and the bindings. */
export interface CompactionContext {
  /**
   * The storage with its schema in place. Asked again at commit: a session deleted during the wait
   * took its tables with it, and the commit must find them (empty) to see that and discard.
   */
  open(): DurableObjectStorage;
  store: MessageStore;
  env: Env;
}

export interface CompactionOptions {
  requestId?: string;
  /** Compact even below the trigger (manual and overflow compactions). */
  force?: boolean;
  instructions?: string;
  focus?: string;
  /**
   * Runs inside the transaction that commits the compaction (or settles an unchanged one), after its
   * writes, so what it writes commits with them or not at all (a manual compaction's idempotency record).
   */
  onCommit?: (result: RunResult) => void;
}

/**
 * - `committed`: a new view; `unchanged`: the engine could not make it smaller (nothing written but
 *   the cooldown and the exhausted mark); `not_needed`: within limits or already exhausted;
 * - `discarded`: the session was deleted meanwhile; `gone`: there is no session.
 */
export type RunStatus = "committed" | "not_needed" | "unchanged" | "discarded" | "gone";

export interface RunResult {
  status: RunStatus;
  reason?: string;
  event?: CompactionEventBody;
}

const DEFAULT_COOLDOWN_SECONDS = 600;

function cooldownSeconds(env: Env): number {
  const value = Number(env.COOLDOWN_SECONDS ?? String(DEFAULT_COOLDOWN_SECONDS));
  return Number.isFinite(value) && value >= 0 ? Math.floor(value) : DEFAULT_COOLDOWN_SECONDS;
}

/** The log outcome of a run that got as far as a result. */
function logOutcome(status: RunStatus): CompactionLogLine["outcome"] {
  if (status === "committed") return "committed";
  return status === "unchanged" || status === "not_needed" ? "not_needed" : "discarded";
}

/** Runs one compaction of the session in `ctx` and commits it, or nothing. */
export async function runCompaction(
  ctx: CompactionContext,
  trigger: string,
  options: CompactionOptions,
): Promise<RunResult> {
  const started = Date.now();
  const sql = ctx.open().sql;
  const session = readSession(sql);
  if (session === undefined) return { status: "gone" };
  const settings = readSettings(sql);
  const whole = readSnapshot(sql, ctx.store, session);
  // Whether to compact is a question about the whole context; what is folded in leaves out open calls.
  const limits = limitsFor(session, settings, whole.tokens, ctx.env.DEFAULT_MODEL);
  const snapshot = foldable(whole);
  const log = {
    ...(options.requestId !== undefined ? { requestId: options.requestId } : {}),
    user: session.user_id,
    session: session.session_id,
    trigger,
  };

  if (options.force !== true) {
    const exhausted = isExhausted(session, snapshot.seenSeq);
    if (!limits.compact || exhausted) {
      clearPendingTrigger(sql);
      logCompaction({ ...log, outcome: "not_needed", durationMs: Date.now() - started });
      return {
        status: "not_needed",
        reason: exhausted
          ? "the context was already compacted as far as it goes; append more messages first"
          : "the context is within its limits",
      };
    }
  }
  if (snapshot.messages.length === 0) {
    clearPendingTrigger(sql);
    return {
      status: "not_needed",
      reason:
        whole.messages.length === 0
          ? "the context is empty"
          : "the context holds only tool calls awaiting their results; append the results first",
    };
  }

  if (settings.strategy === "openai") {
    const viaOpenAI = await compactThroughOpenAI(ctx, log, snapshot, limits, started, options);
    if (viaOpenAI !== undefined) return viaOpenAI;
  }

  let result: CompactResult<ChatMessage>;
  try {
    // Canonical input keeps its provider data (thinking blocks, reasoning items) through the engine.
    result = await compact(
      { model: limits.model, messages: snapshot.messages, seqs: seqsOf(snapshot) },
      engineOptions(
        ctx.env,
        settings,
        session,
        await carriedLedger(session, snapshot),
        limits,
        snapshot.heldTokens,
        options,
      ),
    );
  } catch (error) {
    logCompaction({ ...log, outcome: "failed", durationMs: Date.now() - started });
    throw error;
  }

  // The messages' own counts, as stored and reported everywhere else; the engine's totals also count
  // the tokens priming the reply, which no stored context includes.
  const entries = result.messages.map((message) => ({
    message,
    tokens: messageTokens(message, limits.model),
  }));
  const tokensAfter = entries.reduce((sum, entry) => sum + entry.tokens, 0) + snapshot.heldTokens;
  const committed = commitLocal(ctx, trigger, snapshot, limits, result, entries, started, options);
  logCompaction({
    ...log,
    outcome: logOutcome(committed.status),
    tier: result.tier,
    tokensBefore: snapshot.tokens + snapshot.heldTokens,
    tokensAfter,
    durationMs: committed.event?.durationMs ?? Date.now() - started,
    ...(result.summarizerFailure ? { summarizerFailure: result.summarizerFailure.kind } : {}),
    coveredSeq: snapshot.lastSeq,
  });
  return committed;
}

/**
 * The transcript seq of each message the engine gets: the view's messages have none, the transcript
 * messages after it are `coveredSeq + 1`, `+ 2`, ... (seqs are consecutive). A summary that withholds
 * a secret points to the seq that holds it.
 */
function seqsOf(snapshot: FoldSnapshot): (number | null)[] {
  const viewCount = snapshot.messages.length - snapshot.tail.length;
  return snapshot.messages.map((_, index) =>
    index < viewCount ? null : snapshot.coveredSeq + 1 + index - viewCount,
  );
}

/**
 * The stored ledger, anchored to the summary the committed view holds: only the message carrying
 * exactly that summary (which this object stored, never a client) is recognised as the summary.
 * Taken from the view, not the stored digest, so a view of OpenAI items (no summary) anchors nothing
 * and a view committed before anchors existed still has its summary recognised.
 */
async function carriedLedger(
  session: SessionRow,
  snapshot: FoldSnapshot,
): Promise<Ledger | undefined> {
  const stored = ledgerOf(session);
  const summary = snapshot.view?.summary ?? null;
  if (summary !== null) {
    const lists = stored ?? {
      identifiers: [],
      files: { read: [], modified: [] },
      userRequests: [],
    };
    return { ...lists, summarySha256: await summaryDigest(summary) };
  }
  if (stored === undefined) return undefined;
  const { summarySha256: _noSummaryInView, ...lists } = stored;
  return lists;
}

/** The engine's options from the session's settings, cooldown, carried ledger and the request. */
function engineOptions(
  env: Env,
  settings: SessionSettings,
  session: SessionRow,
  ledger: Ledger | undefined,
  limits: Limits,
  heldTokens: number,
  options: CompactionOptions,
): CompactOptions {
  return {
    // The open tool calls left after the folded range take their share of the window.
    contextWindow: Math.max(1, limits.engineWindow - heldTokens),
    ...(settings.threshold !== null ? { threshold: settings.threshold } : {}),
    ...(settings.reserveTokens !== null ? { reserveTokens: settings.reserveTokens } : {}),
    ...(settings.tailTokens !== null ? { tailTokens: settings.tailTokens } : {}),
    ...(settings.identifierPolicy !== null ? { identifierPolicy: settings.identifierPolicy } : {}),
    ...(settings.identifierInstructions !== null
      ? { identifierInstructions: settings.identifierInstructions }
      : {}),
    summarizer: summarizerFor(env, settings.summarizerModel),
    ...(session.cooldown_until !== null ? { cooldownUntil: session.cooldown_until } : {}),
    cooldownSeconds: cooldownSeconds(env),
    // Identifiers, files and requests of earlier compactions, carried by code rather than by the summary.
    ...(ledger !== undefined ? { ledger } : {}),
    ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
    ...(options.focus !== undefined ? { focus: options.focus } : {}),
    force: options.force === true,
  };
}

/** Commits a local compaction result in one transaction, or nothing if the session changed identity. */
function commitLocal(
  ctx: CompactionContext,
  trigger: string,
  snapshot: FoldSnapshot,
  limits: Limits,
  result: CompactResult<ChatMessage>,
  entries: readonly { message: ChatMessage; tokens: number }[],
  started: number,
  options: CompactionOptions,
): RunResult {
  const storage = ctx.open();
  const sql = storage.sql;
  return storage.transactionSync((): RunResult => {
    if (!isCurrent(sql, snapshot)) return { status: "discarded" };
    const settle = (settled: RunResult): RunResult => {
      options.onCommit?.(settled);
      return settled;
    };
    if (result.cooldownUntil !== undefined) saveCooldown(sql, result.cooldownUntil);
    if (!result.compacted || result.finalTokens >= result.originalTokens) {
      settleCompaction(sql, snapshot.seenSeq);
      return settle({
        status: "unchanged",
        reason: result.reason ?? "compaction could not make the context smaller",
      });
    }
    const viewTokens = entries.reduce((sum, entry) => sum + entry.tokens, 0);
    // Context tokens, as the status reports them: the open calls after the view included.
    const tokensAfter = viewTokens + snapshot.heldTokens;
    const now = Date.now();
    const event = recordCompaction(sql, {
      at: now,
      trigger,
      strategy: "local",
      tier: result.tier,
      tokensBefore: snapshot.tokens + snapshot.heldTokens,
      tokensAfter,
      fromSeq: snapshot.coveredSeq + 1,
      toSeq: snapshot.lastSeq,
      summary: result.summary,
      summarizer:
        result.summary === null ? null : result.summarizerCalls > 0 ? "llm" : "extractive",
      failure: result.summarizerFailure ?? null,
      prunedCount: result.prunedToolOutputs.length,
      passes: result.passes,
      durationMs: now - started,
    });
    commitView(sql, ctx.store, {
      coveredSeq: snapshot.lastSeq,
      compactionId: event.id,
      tokens: viewTokens,
      summary: result.summary,
      strategy: "local",
      entries,
    });
    markPruned(sql, event.id, result.prunedToolOutputs);
    // Only a summarizing pass (tier 2 and up) returns a ledger, the carried one included; after a
    // prune-only compaction the stored one still holds.
    if (result.tier >= 2) saveLedger(sql, result.ledger);
    // A result that would still trigger cannot be improved until more messages arrive.
    settleCompaction(sql, tokensAfter > limits.engineTrigger ? snapshot.seenSeq : null, now);
    return settle({ status: "committed", event });
  });
}
