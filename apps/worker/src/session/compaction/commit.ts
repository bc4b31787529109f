/**
 * @module session/compaction/commit
 * The one way a compaction ends: whatever strategy made the new view (the
 * engine's tiers, their deterministic fallback, OpenAI's `/responses/compact`),
 * it is committed here in one `transactionSync`, or nothing is. The commit
 * checks that the session is still the one snapshotted (`isCurrent`: a session
 * deleted meanwhile discards it), records the event, replaces the view, marks
 * the pruned outputs, keeps the ledger and the cooldown, clears the pending
 * trigger, records how far compaction went, runs the caller's `onCommit` in the
 * same transaction, and writes the compaction's log line.
 */

import type { ChatMessage, Ledger, PrunedToolOutput } from "@condense/core";
import type { CompactionStrategy } from "../../api/compaction-strategy";
import type { CompactionEventBody } from "../../api/schemas";
import { type CompactionLogBase, type CompactionLogLine, logCompaction } from "../../log/log-lines";
import type { ContextMeasure } from "../context/context-measure";
import { sessionBillBody } from "../context/served-turns";
import { isCurrent } from "../context/snapshot";
import { markPruned, type OutputSeqs } from "../context/tool-outputs";
import { saveCacheState } from "../store/cache-state";
import {
  clearFailure,
  clearPendingTrigger,
  saveCooldown,
  saveLedger,
  setExhaustedSeq,
  setRetryAt,
} from "../store/session-record";
import { inTransaction, type SessionScope } from "../store/session-scope";
import { commitView } from "../store/view-state";
import { recordCompactionEvent } from "./compaction-events";
import { compactionReach } from "./exhaustion";
import { type CompactionFallback, recordCompaction, type SummaryUsage } from "./history";
import type { CompactionSnapshot } from "./open-calls";
import type { Thrashing } from "./thrashing";

/** What a strategy made of a snapshot: the view it proposes, and what the event records of it. */
export interface NewView {
  strategy: CompactionStrategy;
  tier: number;
  /** The view's messages (for the OpenAI strategy, its items) with their token counts. */
  entries: readonly { message: ChatMessage; tokens: number }[];
  summary: string | null;
  /** What wrote `summary` in this compaction (`llm`, `extractive`, `openai-responses-compact`); null when nothing did. */
  summarizer: string | null;
  /** Why the configured LLM summarizer failed, when a later tier wrote the summary instead. */
  summarizerFailure: { kind: string; message: string } | null;
  /** The tool outputs it pruned, marked as pruned by their seqs. */
  prunedOutputs: readonly PrunedToolOutput[];
  passes: number;
  /** The ledger the next compaction carries; left out, the stored one stays. */
  ledger?: Ledger;
  /** Until when the LLM summarizer is skipped, after it failed. */
  cooldownUntil?: number;
  /** For OpenAI items: which endpoint and key produced them. */
  openai?: { endpoint: string; keyFingerprint: string };
  /** Tokens of the view's start the compaction kept from the context (system prompt, head): what it did not rewrite. */
  stableTokens?: number;
  /** Set when the strategy could not make the context smaller: then only the cooldown is kept. */
  unchangedReason?: string;
  /** What its summary's requests through the cache cost (`gateway/plans/cached-summary`). */
  summaryUsage?: SummaryUsage;
}

/**
 * - `committed`: a new view; `unchanged`: the strategy could not make it smaller (nothing written
 *   but the cooldown and how far compaction went); `discarded`: the session was deleted meanwhile.
 */
export interface CommitResult {
  status: "committed" | "unchanged" | "discarded";
  reason?: string;
  event?: CompactionEventBody;
}

export interface CompactionCommit {
  scope: SessionScope;
  /** What the strategy compacted. */
  snapshot: CompactionSnapshot;
  /** The measure of the whole context at the snapshot (its trigger says whether to try again). */
  measure: ContextMeasure;
  view: NewView;
  /** Where the snapshot's tool outputs are in the transcript, to mark the pruned ones. */
  outputSeqs: OutputSeqs;
  /** Set when the view is the deterministic fallback of a configured compaction that threw. */
  fallback: CompactionFallback | undefined;
  log: CompactionLogBase;
  /** When the compaction started (its snapshot): the event's duration runs from here to the commit. */
  started: number;
  /** Runs in the commit's transaction after its writes, so what it writes commits with them or not at all. */
  onCommit: ((result: CommitResult) => void) | undefined;
  /** Set when the session was thrashing as the compaction ran (`compaction/thrashing`): its log line warns. */
  thrashing?: Thrashing | undefined;
  /** The run's id, which its events carry (`compaction-events`). */
  run: string;
}

function logOutcome(status: CommitResult["status"]): CompactionLogLine["outcome"] {
  if (status === "committed") return "committed";
  return status === "unchanged" ? "not_needed" : "discarded";
}

/** Commits `commit.view` in one transaction, or nothing if the session changed identity; then logs it. */
export function commitCompaction(commit: CompactionCommit): CommitResult {
  const { snapshot, view, fallback } = commit;
  const viewTokens = view.entries.reduce((sum, entry) => sum + entry.tokens, 0);
  // Context tokens, as the status reports them: the open calls after the view included.
  const tokensBefore = snapshot.tokens + snapshot.openCallTokens;
  const tokensAfter = viewTokens + snapshot.openCallTokens;
  const reach = compactionReach(commit.measure, tokensAfter);
  const result = inTransaction(commit.scope, (sql): CommitResult => {
    if (!isCurrent(sql, snapshot)) {
      recordCompactionEvent(
        sql,
        "compaction.unchanged",
        commit.run,
        {
          trigger: commit.log.trigger,
          reason: "the session changed identity meanwhile (deleted, or a new generation started)",
        },
        commit.scope.now(),
      );
      return { status: "discarded" };
    }
    const done = (outcome: CommitResult): CommitResult => {
      commit.onCommit?.(outcome);
      return outcome;
    };
    if (view.cooldownUntil !== undefined) saveCooldown(sql, view.cooldownUntil);
    // The configured compaction worked: nothing is failing any more. After a fallback the failure
    // stays visible, and the alarm has nothing left to retry.
    if (fallback === undefined) clearFailure(sql);
    else setRetryAt(sql, null);
    clearPendingTrigger(sql);
    if (view.unchangedReason !== undefined) {
      // As far as it goes until more messages arrive.
      setExhaustedSeq(sql, snapshot.lastSeq);
      recordCompactionEvent(
        sql,
        "compaction.unchanged",
        commit.run,
        {
          trigger: commit.log.trigger,
          reason: view.unchangedReason,
        },
        commit.scope.now(),
      );
      return done({ status: "unchanged", reason: view.unchangedReason });
    }
    const now = commit.scope.now();
    const event = recordCompaction(sql, {
      at: now,
      trigger: commit.log.trigger,
      strategy: view.strategy,
      tier: view.tier,
      tokensBefore,
      tokensAfter,
      fromSeq: snapshot.coveredSeq + 1,
      toSeq: snapshot.foldedSeq,
      summary: view.summary,
      summarizer: view.summarizer,
      failure: view.summarizerFailure,
      prunedCount: view.prunedOutputs.length,
      passes: view.passes,
      durationMs: Date.now() - commit.started,
      fallback: fallback ?? null,
      summaryUsage: view.summaryUsage ?? null,
    });
    commitView(commit.scope, {
      coveredSeq: snapshot.foldedSeq,
      compactionId: event.id,
      tokens: viewTokens,
      summary: view.summary,
      strategy: view.strategy,
      ...(view.openai !== undefined ? { openai: view.openai } : {}),
      entries: view.entries,
    });
    markPruned(sql, event.id, view.prunedOutputs, commit.outputSeqs);
    if (view.ledger !== undefined) saveLedger(sql, view.ledger);
    // The cost policy counts from here: nothing read yet over what this compaction left.
    saveCacheState(sql, {
      excessTokens: 0,
      compactedTokens: tokensAfter,
      stableTokens: view.stableTokens ?? 0,
    });
    // A view that would still trigger cannot be improved until more messages arrive; one the
    // request's overhead kept from its target, until the context has grown (`compaction/exhaustion`).
    setExhaustedSeq(sql, reach === "within" ? null : snapshot.lastSeq, now);
    // In the commit's transaction: the event is never lost, nor told of a compaction that was not.
    recordCompactionEvent(
      sql,
      "compaction.committed",
      commit.run,
      {
        trigger: event.trigger,
        compactionId: event.id,
        tier: event.tier,
        tokensBefore,
        tokensAfter,
        summarizer: view.summarizer,
        summarizerFailure: view.summarizerFailure?.kind ?? null,
        fallback: fallback !== undefined,
        durationMs: event.durationMs,
        bill: sessionBillBody(sql, commit.measure.model),
      },
      commit.scope.now(),
    );
    return done({ status: "committed", event });
  });
  logCompaction({
    ...commit.log,
    outcome: logOutcome(result.status),
    tier: view.tier,
    tokensBefore,
    tokensAfter,
    durationMs: result.event?.durationMs ?? Date.now() - commit.started,
    ...(view.summarizer !== null ? { summarizer: view.summarizer } : {}),
    ...(view.summarizerFailure !== null ? { summarizerFailure: view.summarizerFailure.kind } : {}),
    ...(fallback !== undefined ? { fallback: true } : {}),
    coveredSeq: snapshot.foldedSeq,
    ...(commit.measure.overheadTokens > 0 ? { overheadTokens: commit.measure.overheadTokens } : {}),
    ...(result.status === "committed" && reach === "crowded-by-overhead"
      ? { warning: "crowded_by_overhead" as const }
      : commit.thrashing !== undefined
        ? { warning: "thrashing" as const, thrashTurnsApart: commit.thrashing.turnsApart }
        : {}),
  });
  return result;
}
