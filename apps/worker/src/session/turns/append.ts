/**
 * @module session/turns/append
 * The append transaction: the messages (checked against the session's tool
 * calls, counted for its model), the counters, a recount when the append names
 * another model, the calibration from the provider's count of the last prompt,
 * the search index (`search-index`), the pending background compaction and the
 * idempotency record commit together,
 * so a retry after any failure finds either all of them or none.
 */

import { type ChatMessage, messageTokens } from "@condense/core";
import { ApiError } from "../../api/errors";
import type { IdempotencyInput } from "../../api/idempotency-key";
import type { AppendResponseBody } from "../../api/schemas";
import { decidePending, type PendingMark } from "../compaction/pending";
import { compactionStatus } from "../context/context-data";
import { type ContextMeasure, measureCommitted, messagesTokens } from "../context/context-measure";
import { calibrateWithProviderCount } from "../context/provider-counts";
import { recountIfModelChanged } from "../context/recount";
import { recordTurnUsage, unservedAnswerBilling } from "../context/served-turns";
import { checkToolTraffic, indexToolCalls } from "../context/tool-outputs";
import { indexMessage } from "../recall/search-index";
import { remember, replay } from "../store/idempotency";
import {
  countAppended,
  openSession,
  readSession,
  requireSession,
  type SessionKey,
  servedTokens,
  setLastModel,
} from "../store/session-record";
import { inTransaction, type SessionScope } from "../store/session-scope";
import { modelFor, readSettings } from "../store/settings";

export interface AppendInput {
  /** Canonical (Chat Completions) messages, already validated by the Worker. */
  messages: ChatMessage[];
  model?: string;
  /** The provider's count of the last prompt: every input token, and the cached ones when it said. */
  usage?: { inputTokens: number; cacheReadTokens?: number; cacheWriteTokens?: number };
  idempotency?: IdempotencyInput;
}

/**
 * Where an append writes: the session's storage, the deployment's settings (its default model), and
 * whether the object is running a compaction (its queue is in memory), which the answer reports.
 */
export interface AppendTarget {
  scope: SessionScope;
  env: Env;
  compactionRunning: boolean;
}

export interface Appended {
  answer: AppendResponseBody;
  /** The background compaction this append marked pending (or found pending): its alarm is the caller's to set. */
  pending: PendingMark | undefined;
  /** Whether this was a retry answered from its idempotency record (nothing was appended). */
  replayed: boolean;
  /** The committed context's measure the answer reports (none for a replay). */
  measure?: ContextMeasure;
  /** Whether this append created the session (its first). */
  created: boolean;
}

/**
 * Appends `input` to the session of `key` (created by its first append) in one transaction. A retry
 * with the same `Idempotency-Key` gets the first answer and appends nothing; tool traffic that would
 * overwrite a stored output or leave the context invalid is a 400 that changes nothing.
 */
export function appendMessages(
  target: AppendTarget,
  key: SessionKey,
  input: AppendInput,
  /** Through `/messages`: bill the answers no fetched context served (`served-turns`). */
  options: { billUnservedAnswers?: boolean } = {},
): Appended {
  const { scope, env, compactionRunning } = target;
  return inTransaction(scope, (sql): Appended => {
    const now = scope.now();
    const replayed = replay<AppendResponseBody>(sql, "append", input.idempotency, now);
    if (replayed !== undefined)
      return { answer: replayed, pending: undefined, replayed: true, created: false };

    // Nothing stored is ever overwritten, and the context must stay valid: results answer calls
    // that await them, and an id comes back only once its call is answered.
    const existing = readSession(sql);
    const problems = checkToolTraffic(sql, input.messages, existing?.messageCount ?? 0);
    if (problems.length > 0) {
      throw new ApiError(
        400,
        "invalid_messages",
        `messages[${problems[0]?.index}]: ${problems[0]?.message}`,
        { problems },
      );
    }
    let session = openSession(sql, key, now, existing);
    const settings = readSettings(sql);
    if (input.model !== undefined && input.model !== session.lastModel) {
      const before = modelFor(settings, session.lastModel, scope.defaultModel);
      setLastModel(sql, input.model);
      const after = modelFor(settings, input.model, scope.defaultModel);
      recountIfModelChanged(scope, before, after);
      session = requireSession(sql, key);
    }
    // `usage.inputTokens` is what the provider counted for the prompt the client sent: the context
    // it last fetched, when nothing was appended since (a background compaction may have committed
    // a smaller one meanwhile), else the context as it is before this append.
    if (input.usage !== undefined) {
      // The bill: the turn the client last fetched, when nothing was appended since (else none).
      recordTurnUsage(
        sql,
        { lastSeq: session.messageCount },
        {
          inputTokens: input.usage.inputTokens,
          cacheReadTokens: input.usage.cacheReadTokens ?? 0,
          cacheWriteTokens: input.usage.cacheWriteTokens ?? 0,
        },
      );
      session = calibrateWithProviderCount(scope, session, settings, {
        reportedTokens: input.usage.inputTokens,
        estimate: servedTokens(session),
      });
    }
    const model = modelFor(settings, session.lastModel, scope.defaultModel);

    const firstSeq = session.messageCount + 1;
    let seq = session.messageCount;
    // The bench's seam: the same append without the search index, to measure what indexing adds.
    const indexing = env.BENCH_NO_SEARCH_INDEX !== "1";
    const billAnswer = options.billUnservedAnswers
      ? unservedAnswerBilling(scope, model, () => messagesTokens(settings.pinned, model))
      : undefined;
    // The counters are written once for the batch (one UPDATE, not one a message), and before an
    // answer is billed: the bill reads the context's size from them, which must hold every message
    // before the answer.
    let counted = seq;
    let uncountedTokens = 0;
    const count = () => {
      if (seq === counted) return;
      countAppended(sql, seq, uncountedTokens, now);
      counted = seq;
      uncountedTokens = 0;
    };
    for (const message of input.messages) {
      if (message.role === "assistant" && billAnswer !== undefined) {
        count();
        billAnswer(seq + 1, now);
      }
      seq++;
      const tokens = messageTokens(message, model);
      scope.store.appendTranscript(seq, message, tokens, now);
      uncountedTokens += tokens;
      indexToolCalls(sql, message, seq);
      if (indexing) indexMessage(sql, message, seq);
    }
    count();

    const decision = decidePending(scope, env, "append", settings);
    const pending = decision.mark;
    const after = decision.session ?? requireSession(sql, key);
    // Measured by the decision when it wrote nothing (the same session and settings, measured again,
    // give the same): every append took it twice.
    const measure = decision.measure ?? measureCommitted(scope, after, settings);
    const answer: AppendResponseBody = {
      sessionId: key.sessionId,
      appended: input.messages.length,
      firstSeq,
      lastSeq: seq,
      messageCount: after.messageCount,
      tokens: measure.tokens,
      contextWindow: measure.contextWindow,
      threshold: measure.triggerTokens,
      warningLevel: measure.warningLevel,
      compaction: {
        status: pending !== undefined ? "scheduled" : compactionStatus(after, compactionRunning),
      },
    };
    remember(sql, "append", input.idempotency, answer, now);
    return { answer, pending, replayed: false, measure, created: existing === undefined };
  });
}
