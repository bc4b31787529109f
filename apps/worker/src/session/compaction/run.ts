/**
 * @module session/compaction/run
 * One compaction of a session: snapshot the committed context up to the
 * latest seq N (less a trailing tool call still awaiting its results, which
 * stays in the tail for its results to follow: `compaction/open-calls`), await the engine (other requests run meanwhile: the input gate
 * does not hold across a fetch), then commit the view, the event, the
 * pruned-output index and the cooldown in one `transactionSync`, or nothing.
 * Appends that arrived during the wait have seq > N and follow the compacted
 * range; a session deleted meanwhile makes the result `discarded`. Callers run
 * it through the object's `CompactionQueue`, one at a time.
 *
 * When the configured compaction (the session's settings, its summarizer, the
 * OpenAI strategy) throws, the failure is recorded on the session; with
 * `onFailure: "fallback"` the deterministic tier then compacts at once, with
 * only the settings the engine accepts, and the event says so.
 */

import {
  type ChatMessage,
  type CompactOptions,
  type CompactResult,
  CondenseError,
  compact,
  extractiveSummarizer,
  type Ledger,
  messageTokens,
  resolveOptions,
  summaryDigest,
} from "@condense/core";
import type { CompactionEventBody } from "../../api/schemas";
import { type CompactionLogLine, logCompaction } from "../../log/log-lines";
import {
  type ContextMeasure,
  commitView,
  isCurrent,
  measureContext,
  readSnapshot,
} from "../context-view";
import type { MessageStore } from "../message-store";
import {
  clearFailure,
  clearPendingTrigger,
  isExhausted,
  ledgerOf,
  readSession,
  recordFailure,
  type SessionRow,
  saveCooldown,
  saveLedger,
  setRetryAt,
  settleCompaction,
} from "../session-record";
import { readSettings, type SessionSettings, settingsOptions } from "../settings";
import { summarizerFor } from "../summarizer-config";
import { markPruned, type OutputSeqs, outputReference, outputSeqs } from "../tool-outputs";
import { recordCompaction } from "./history";
import { type CompactionSnapshot, withoutOpenCalls } from "./open-calls";
import { compactThroughOpenAI } from "./openai";

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
  /**
   * When the configured compaction throws: `throw` (the default; the alarm retries later) or
   * `fallback`, compact at once with the deterministic tier.
   */
  onFailure?: "throw" | "fallback";
}

/** A deterministic fallback: configured attempts that failed in a row, and the last error. */
type Fallback = { failedAttempts: number; error: string };

/**
 * - `committed`: a new view; `unchanged`: the engine could not make it smaller (nothing written but
 *   the cooldown and the exhausted mark); `not_needed`: within its limits or already exhausted;
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

/** What went wrong, for people: the engine's messages are written for them; anything else is named only. */
export function describeFailure(error: unknown): string {
  if (CondenseError.isInstance(error)) return error.message;
  const name = error instanceof Error ? error.name : typeof error;
  return `${name}: unexpected error (details in the compaction's log line)`;
}

/** The short code a log line carries for a failure. */
function failureCode(error: unknown): string {
  if (CondenseError.isInstance(error)) return error.code;
  return error instanceof Error ? error.name : typeof error;
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
  const measure = measureContext(session, settings, whole.tokens, ctx.env.DEFAULT_MODEL);
  const snapshot = withoutOpenCalls(whole);
  const log = {
    ...(options.requestId !== undefined ? { requestId: options.requestId } : {}),
    user: session.user_id,
    session: session.session_id,
    trigger,
  };

  if (options.force !== true) {
    const exhausted = isExhausted(session, snapshot.lastSeq);
    if (!measure.compactionDue || exhausted) {
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

  // Which transcript row each tool output of the snapshot is: the engine names outputs by call id and
  // occurrence, and an id may be reused across turns.
  const seqs = outputSeqs(sql, snapshot);
  const ledger = await carriedLedger(session, snapshot);
  let result: CompactResult<ChatMessage>;
  let fallback: Fallback | undefined;
  try {
    if (settings.strategy === "openai") {
      const viaOpenAI = await compactThroughOpenAI(ctx, log, snapshot, measure, started, options);
      if (viaOpenAI !== undefined) return viaOpenAI;
    }
    // Canonical input keeps its provider data (thinking blocks, reasoning items) through the engine.
    result = await compact(
      { model: measure.model, messages: snapshot.messages, seqs: seqsOf(snapshot) },
      engineOptions(
        ctx.env,
        settings,
        session,
        ledger,
        measure,
        snapshot.openCallTokens,
        options,
        seqs,
      ),
    );
  } catch (error) {
    const failedAttempts = recordFailure(ctx.open().sql, describeFailure(error), Date.now());
    const durationMs = Date.now() - started;
    logCompaction({ ...log, outcome: "failed", durationMs, error: failureCode(error) });
    if (options.onFailure !== "fallback") throw error;
    fallback = { failedAttempts, error: describeFailure(error) };
    try {
      result = await compact(
        { model: measure.model, messages: snapshot.messages, seqs: seqsOf(snapshot) },
        fallbackOptions(measure, settings, snapshot.openCallTokens, seqs, ledger),
      );
    } catch (fallbackError) {
      const failed = { ...log, outcome: "failed" as const, fallback: true };
      logCompaction({
        ...failed,
        durationMs: Date.now() - started,
        error: failureCode(fallbackError),
      });
      throw fallbackError;
    }
  }

  // The messages' own counts, as stored and reported everywhere else; the engine's totals also count
  // the tokens priming the reply, which no stored context includes.
  const entries = result.messages.map((message) => ({
    message,
    tokens: messageTokens(message, measure.model),
  }));
  const tokensAfter =
    entries.reduce((sum, entry) => sum + entry.tokens, 0) + snapshot.openCallTokens;
  const committed = commitLocal(ctx, trigger, snapshot, measure, result, entries, started, {
    ...options,
    seqs,
    fallback,
  });
  logCompaction({
    ...log,
    outcome: logOutcome(committed.status),
    tier: result.tier,
    tokensBefore: snapshot.tokens + snapshot.openCallTokens,
    tokensAfter,
    durationMs: committed.event?.durationMs ?? Date.now() - started,
    ...(result.summarizerFailure ? { summarizerFailure: result.summarizerFailure.kind } : {}),
    ...(fallback !== undefined ? { fallback: true } : {}),
    coveredSeq: snapshot.foldedSeq,
  });
  return committed;
}

/**
 * The transcript seq of each message the engine gets: the view's messages have none, the transcript
 * messages after it are `coveredSeq + 1`, `+ 2`, ... (seqs are consecutive). A summary that withholds
 * a secret points to the seq that holds it.
 */
function seqsOf(snapshot: CompactionSnapshot): (number | null)[] {
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
  snapshot: CompactionSnapshot,
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
  measure: ContextMeasure,
  openCallTokens: number,
  options: CompactionOptions,
  seqs: OutputSeqs,
): CompactOptions {
  return {
    // The open tool calls left after the folded range take their share of the window.
    contextWindow: Math.max(1, measure.engineWindow - openCallTokens),
    ...settingsOptions(settings),
    // Placeholders name the seq `GET /tool-outputs/{id}?seq=` takes, as ids may be reused.
    toolOutputReference: outputReference(seqs),
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

/**
 * The deterministic fallback's options: the window, and the threshold, reserve and tail when the engine
 * accepts them (else its defaults); no LLM, no identifier policy, and of the stored ledger only the
 * anchor of the view's summary, so the summary is still recognised (identifiers of earlier compactions
 * are then read from it). Forced: the service already decided to compact.
 */
function fallbackOptions(
  measure: ContextMeasure,
  settings: SessionSettings,
  openCallTokens: number,
  seqs: OutputSeqs,
  ledger: Ledger | undefined,
): CompactOptions {
  const window = { contextWindow: Math.max(1, measure.engineWindow - openCallTokens) };
  const sizes = {
    ...(settings.threshold !== null ? { threshold: settings.threshold } : {}),
    ...(settings.reserveTokens !== null ? { reserveTokens: settings.reserveTokens } : {}),
    ...(settings.tailTokens !== null ? { tailTokens: settings.tailTokens } : {}),
  };
  let accepted = true;
  try {
    resolveOptions(measure.model, { ...window, ...sizes });
  } catch {
    accepted = false;
  }
  return {
    ...window,
    ...(accepted ? sizes : {}),
    summarizer: extractiveSummarizer(),
    toolOutputReference: outputReference(seqs),
    ...(ledger?.summarySha256 !== undefined
      ? {
          ledger: {
            identifiers: [],
            files: { read: [], modified: [] },
            userRequests: [],
            summarySha256: ledger.summarySha256,
          },
        }
      : {}),
    force: true,
  };
}

/** Commits a local compaction result in one transaction, or nothing if the session changed identity. */
function commitLocal(
  ctx: CompactionContext,
  trigger: string,
  snapshot: CompactionSnapshot,
  measure: ContextMeasure,
  result: CompactResult<ChatMessage>,
  entries: readonly { message: ChatMessage; tokens: number }[],
  started: number,
  options: CompactionOptions & { seqs: OutputSeqs; fallback: Fallback | undefined },
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
    // The configured compaction worked: nothing is failing any more. After a fallback the failure
    // stays visible, and the alarm has nothing left to retry.
    if (options.fallback === undefined) clearFailure(sql);
    else setRetryAt(sql, null);
    if (!result.compacted || result.finalTokens >= result.originalTokens) {
      settleCompaction(sql, snapshot.lastSeq);
      return settle({
        status: "unchanged",
        reason: result.reason ?? "compaction could not make the context smaller",
      });
    }
    const viewTokens = entries.reduce((sum, entry) => sum + entry.tokens, 0);
    // Context tokens, as the status reports them: the open calls after the view included.
    const tokensAfter = viewTokens + snapshot.openCallTokens;
    const now = Date.now();
    const event = recordCompaction(sql, {
      at: now,
      trigger,
      strategy: "local",
      tier: result.tier,
      tokensBefore: snapshot.tokens + snapshot.openCallTokens,
      tokensAfter,
      fromSeq: snapshot.coveredSeq + 1,
      toSeq: snapshot.foldedSeq,
      summary: result.summary,
      summarizer:
        result.summary === null ? null : result.summarizerCalls > 0 ? "llm" : "extractive",
      failure: result.summarizerFailure ?? null,
      prunedCount: result.prunedToolOutputs.length,
      passes: result.passes,
      durationMs: now - started,
      fallback: options.fallback ?? null,
    });
    commitView(sql, ctx.store, {
      coveredSeq: snapshot.foldedSeq,
      compactionId: event.id,
      tokens: viewTokens,
      summary: result.summary,
      strategy: "local",
      entries,
    });
    markPruned(sql, event.id, result.prunedToolOutputs, options.seqs);
    // Only a summarizing pass (tier 2 and up) returns a ledger, the carried one included; after a
    // prune-only compaction the stored one still holds.
    if (result.tier >= 2) saveLedger(sql, result.ledger);
    // A result that would still trigger cannot be improved until more messages arrive.
    settleCompaction(sql, tokensAfter > measure.engineTrigger ? snapshot.lastSeq : null, now);
    return settle({ status: "committed", event });
  });
}
