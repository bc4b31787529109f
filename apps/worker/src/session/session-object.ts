/**
 * @module session/session-object
 * One Durable Object per (user, session): the session's SQLite storage and
 * the only place its compactions run. The class holds what lives in memory
 * (the compaction queue, manual compactions in flight, whether the schema is
 * migrated) and the alarm; its RPC methods delegate to the modules that own
 * the work and the data: `append` (the append transaction), `tombstone` (what
 * a deleted session leaves), `compaction/run` (a compaction and its atomic
 * commit), `session-record` (the session row), `settings`, `idempotency`,
 * `message-store` (transcript and view), `context-view` (the context and its
 * limits), `compaction/history`, `tool-outputs` and `search-index` (recall,
 * whose backfill of older transcripts runs here in bounded steps).
 *
 * Compactions run one at a time through `CompactionQueue`; the background
 * ones are started by an alarm, which the runtime retries if the object is
 * evicted mid-way. A background compaction that throws is tried again with
 * backoff, and its last attempt falls back to the deterministic tier; manual,
 * context and overflow compactions fall back at once. Every RPC method returns
 * an `RpcResult`: API errors cross the RPC boundary as data, because class
 * instances do not.
 */

import { DurableObject } from "cloudflare:workers";
import { isContextOverflowError, type MessageFormat, parseOverflowTokens } from "@condense/core";
import { ApiError } from "../api/errors";
import type { IdempotencyInput } from "../api/idempotency-key";
import { type RpcResult, rpcResult } from "../api/rpc-result";
import type {
  AppendResponseBody,
  CompactionEventBody,
  DeleteResponseBody,
  ManualCompactResponseBody,
  SearchResponseBody,
  SessionStatusBody,
  ToolOutputResponseBody,
  TranscriptResponseBody,
} from "../api/schemas";
import { logLine } from "../log/log-lines";
import { userStub } from "../user/user-stub";
import { type AppendInput, appendMessages } from "./append";
import { isCompactionExhausted } from "./compaction/exhaustion";
import { compactionSummary, listCompactions } from "./compaction/history";
import { type MemorySinkFactory, userMemorySink } from "./compaction/memory-flush";
import { markPending, type PendingMark } from "./compaction/pending";
import { CompactionQueue } from "./compaction/queue";
import {
  type CompactionOptions,
  describeFailure,
  type RunResult,
  runCompaction,
} from "./compaction/run";
import {
  type CompactionStatus,
  type ContextData,
  type ContextMeasure,
  checkContextParts,
  checkFormatAvailable,
  checkPartsAvailableNow,
  compactionStatus,
  contextData,
  contextSize,
  measureCommitted,
  measureContext,
  type OverflowData,
  readSnapshot,
  readViewState,
} from "./context-view";
import { type GatewayContext, gatewayContextAt } from "./gateway-context";
import {
  appendAnswer,
  type GatewayAnswerInput,
  type GatewayAnswerResult,
  type GatewayOverflowResult,
  type GatewayTurnInput,
  type GatewayTurnResult,
  matchAndAppend,
} from "./gateway-turn";
import { currentGeneration, generationRange } from "./generations";
import { inflightKey, remember, replay } from "./idempotency";
import { ListReporter } from "./list-reporter";
import { type MemoryInsert, memoryInsert, recentText } from "./memory-context";
import { MessageStore } from "./message-store";
import { calibrateWithProviderCount } from "./provider-counts";
import { recountIfModelChanged } from "./recount";
import { migrate } from "./schema";
import {
  backfillStep,
  isBackfillComplete,
  matchExpressions,
  type SearchInput,
  searchSession,
  VECTOR_CANDIDATES_PER_RESULT,
} from "./search-index";
import { indexedRowids, type SessionVectors, sessionVectorsFor } from "./semantic-recall";
import { takeServedCompaction } from "./served-compaction";
import {
  calibrationOf,
  clearFailure,
  clearPendingTrigger,
  learnedWindowOf,
  notFound,
  openSession,
  readSession,
  recordFailure,
  requireSession,
  type SessionCall,
  type SessionKey,
  type SessionRow,
  saveLearnedWindow,
  saveServed,
  servedTokens,
  setExhaustedSeq,
  setRetryAt,
} from "./session-record";
import type { SessionStorage } from "./session-storage";
import {
  checkSettings,
  mergeSettings,
  modelFor,
  readSettings,
  type SessionSettings,
  type SettingsUpdate,
  writeSettings,
} from "./settings";
import {
  deleteLeavingTombstone,
  dropTombstone,
  expireTombstone,
  tombstoneAnswer,
} from "./tombstone";
import { readToolOutput } from "./tool-outputs";

export type TranscriptPage = Omit<TranscriptResponseBody, "sessionId">;

/** A reported provider error, and the format the context is asked for in. */
export interface OverflowInput {
  error: { status?: number; message: string; body?: unknown };
  format?: MessageFormat;
}

const TRANSCRIPT_PAGE_BYTES = 8 * 1024 * 1024;

const MAX_OVERFLOW_PASSES = 3;
/**
 * A background compaction that throws is tried again after these waits; the attempt after the last
 * one falls back to the deterministic tier when the configured compaction throws again.
 */
const RETRY_BACKOFF_MS = [30_000, 120_000];
const MAX_CONFIGURED_ATTEMPTS = RETRY_BACKOFF_MS.length + 1;

/** The compaction options that carry a request's id into the compaction's log line. */
function requestOf(key: SessionCall): CompactionOptions {
  return key.requestId !== undefined ? { requestId: key.requestId } : {};
}

export class SessionObject extends DurableObject<Env> {
  readonly #queue = new CompactionQueue();
  readonly #store: MessageStore;
  /** The storage and the message store, as the compaction modules take them. */
  readonly #sessionStorage: SessionStorage;
  #migrated = false;
  /** Whether a chain of backfill steps is under way (`#continueBackfill`). */
  #backfilling = false;
  /** Manual compactions in flight by idempotency key, so a retry joins the first attempt. */
  readonly #inflight = new Map<string, Promise<ManualCompactResponseBody>>();
  /**
   * Where a compaction's memory flush writes, per user: the user's object (tests set a fake).
   */
  memorySinks: MemorySinkFactory = userMemorySink;
  /** Keeps the session's row in the user's session list (`list-reporter`). */
  readonly #reporter: ListReporter;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new MessageStore(ctx.storage.sql);
    this.#sessionStorage = { open: () => this.#migratedStorage(), store: this.#store };
    const interval = Number(env.SESSION_LIST_REPORT_MS ?? "5000");
    this.#reporter = new ListReporter({
      read: () => this.#listReport(),
      send: (userId, report) => userStub(this.env, userId).reportSession(report),
      forget: (userId, sessionId) => userStub(this.env, userId).forgetSession(sessionId),
      waitUntil: (promise) => this.ctx.waitUntil(promise),
      intervalMs: Number.isFinite(interval) && interval >= 0 ? interval : 5000,
    });
  }

  /** The session's row of the user's list, or undefined when there is no session (or it was deleted). */
  #listReport() {
    // A deleted session's tables are gone; reading would create them again.
    if (!this.#migrated) return undefined;
    const sql = this.ctx.storage.sql;
    const session = readSession(sql);
    if (session === undefined) return undefined;
    const measure = this.#committedMeasure(session);
    return {
      userId: session.user_id,
      report: {
        sessionId: session.session_id,
        model: measure.model,
        createdAt: session.created_at,
        lastActiveAt: session.updated_at,
        messageCount: session.message_count,
        tokens: measure.tokens,
        compactions: compactionSummary(sql).count,
      },
    };
  }

  /** Whether no session exists yet (the next write creates it, and the list must learn of it at once). */
  #isNew(): boolean {
    return readSession(this.#sql()) === undefined;
  }

  /** Reports a write to the user's list: awaited for a new session, coalesced otherwise. */
  async #reportWrite(created: boolean): Promise<void> {
    if (created && readSession(this.#sql()) !== undefined) await this.#reporter.created();
    else this.#reporter.changed();
  }

  // ------------------------------------------------------------ state

  /** The object's storage, its schema migrated on first use. */
  #migratedStorage(): DurableObjectStorage {
    if (!this.#migrated) {
      migrate(this.ctx.storage);
      this.#migrated = true;
      if (!isBackfillComplete(this.ctx.storage.sql)) this.#continueBackfill();
    }
    return this.ctx.storage;
  }

  /**
   * Indexes the messages appended before search existed, one bounded step per turn of the event
   * loop, so requests (appends) run between steps. The cursor is stored: an eviction mid-way resumes
   * at the next use. Stops when the session is deleted (its tables went with it).
   */
  #continueBackfill(): void {
    if (this.#backfilling) return;
    this.#backfilling = true;
    const step = () => {
      let done = true;
      try {
        done = !this.#migrated || backfillStep(this.ctx.storage, this.#store);
      } catch (error) {
        // The next use of the object starts again from the stored cursor.
        logLine({
          type: "search_backfill",
          outcome: "failed",
          error: error instanceof Error ? error.name : "unknown",
        });
      }
      if (done) this.#backfilling = false;
      else setTimeout(step, 0);
    };
    setTimeout(step, 0);
  }

  #sql(): SqlStorage {
    return this.#migratedStorage().sql;
  }

  // ------------------------------------------------------------ semantic recall (optional)

  /** The session's vectors, when the `AI` and `VECTORIZE` bindings are configured. */
  #vectors(): SessionVectors | undefined {
    return sessionVectorsFor(this.env, this.ctx.id.toString());
  }

  /** Embeds appended messages after their commit, in the background (the append has its answer). */
  #embedAppended(firstSeq: number, lastSeq: number): void {
    const vectors = this.#vectors();
    if (vectors === undefined || lastSeq < firstSeq) return;
    this.ctx.waitUntil(vectors.embedAppended(this.#sql(), firstSeq, lastSeq));
  }

  /** The measure of the committed context, from the stored token counts. */
  #committedMeasure(
    session: SessionRow,
    settings: SessionSettings = readSettings(this.#sql()),
  ): ContextMeasure {
    return measureCommitted(this.#sql(), this.#store, session, settings, this.env.DEFAULT_MODEL);
  }

  #compactionStatus(session: SessionRow): CompactionStatus {
    return compactionStatus(session, this.#queue.size > 0);
  }

  // ------------------------------------------------------------ compaction

  /** The alarm of a pending compaction: set for a new one, and again for an older one whose alarm is gone. */
  async #armAlarm(mark: PendingMark): Promise<void> {
    // Self-healing: a pending compaction whose alarm is gone (and that is not running) gets a new alarm.
    if (mark === "pending") {
      if (this.#queue.size > 0 || (await this.ctx.storage.getAlarm()) !== null) return;
    }
    await this.ctx.storage.setAlarm(Date.now() + this.#compactionDelayMs());
  }

  /** Schedules a background compaction (an alarm) when the context is over the trigger and none is pending. */
  async #scheduleIfNeeded(trigger: string): Promise<boolean> {
    const mark = markPending(this.#sql(), this.#store, this.env.DEFAULT_MODEL, trigger);
    if (mark === undefined) return false;
    await this.#armAlarm(mark);
    return true;
  }

  /** `COMPACTION_DELAY_MS` postpones background compactions, so a burst of appends is compacted once. */
  #compactionDelayMs(): number {
    const value = Number(this.env.COMPACTION_DELAY_MS ?? "0");
    return Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
  }

  /** Runs one compaction (the caller holds the queue), then schedules the next if one is due. */
  async #compact(trigger: string, options: CompactionOptions): Promise<RunResult> {
    const result = await runCompaction(
      this.#sessionStorage,
      this.env,
      trigger,
      options,
      this.memorySinks,
    );
    if (result.status !== "not_needed" && result.status !== "gone") {
      await this.#scheduleIfNeeded("append");
    }
    if (result.status === "committed") this.#reporter.changed();
    return result;
  }

  /** Whether the committed context is over window − reserve and a compaction could still help. */
  #needsCompactionNow(): boolean {
    const session = readSession(this.#sql());
    if (session === undefined) return false;
    const measure = this.#committedMeasure(session);
    return measure.tokens > measure.budget && !isCompactionExhausted(this.#store, session, measure);
  }

  /**
   * The alarm runs the background compaction an append scheduled, or expires a deleted session's
   * tombstone. A compaction that throws is retried with backoff, then falls back to the deterministic
   * tier; the alarm itself never throws (the runtime's own retries would repeat the same failure).
   */
  override async alarm(): Promise<void> {
    const sql = this.#sql();
    const session = readSession(sql);
    if (session === undefined) {
      // The object is empty, its tables gone: they are created again on the next use.
      if (await expireTombstone(this.ctx.storage)) this.#migrated = false;
      return;
    }
    await dropTombstone(this.ctx.storage);
    const lastAttempt = session.failed_attempts + 1 >= MAX_CONFIGURED_ATTEMPTS;
    try {
      await this.#queue.run(() =>
        this.#compact(session.pending_trigger ?? "alarm", {
          onFailure: lastAttempt ? "fallback" : "throw",
        }),
      );
    } catch (error) {
      const now = Date.now();
      // A failure outside the configured compaction (its commit) is recorded here.
      const recorded = readSession(sql)?.failed_attempts ?? 0;
      const failed =
        recorded > session.failed_attempts
          ? recorded
          : recordFailure(sql, describeFailure(error), now);
      if (!lastAttempt) {
        const wait = RETRY_BACKOFF_MS[Math.min(failed, RETRY_BACKOFF_MS.length) - 1] ?? 0;
        const retryAt = now + wait;
        setRetryAt(sql, retryAt);
        await this.ctx.storage.setAlarm(retryAt);
        return;
      }
      // Even the deterministic tier failed: nothing more to try until new messages arrive (the
      // failure stays in the status).
      this.ctx.storage.transactionSync(() => {
        setRetryAt(sql, null);
        clearPendingTrigger(sql);
        setExhaustedSeq(sql, readSession(sql)?.message_count ?? session.message_count);
      });
    }
  }

  // ------------------------------------------------------------ RPC

  async append(key: SessionKey, input: AppendInput): Promise<RpcResult<AppendResponseBody>> {
    return rpcResult(async () => {
      const created = this.#isNew();
      const appended = appendMessages(
        this.#sessionStorage,
        this.env,
        key,
        input,
        this.#queue.size > 0,
      );
      if (!appended.replayed) {
        this.#embedAppended(appended.answer.firstSeq, appended.answer.lastSeq);
      }
      if (appended.pending !== undefined) await this.#armAlarm(appended.pending);
      await this.#reportWrite(created);
      return appended.answer;
    });
  }

  #contextData(
    key: SessionKey,
    waited: boolean,
    format?: MessageFormat,
    memory?: MemoryInsert,
  ): ContextData {
    const sql = this.#sql();
    const session = requireSession(sql, key);
    const stored = readSettings(sql);
    // The memory block is placed and counted as one more pinned message, in place of the room kept for it.
    const settings =
      memory?.message === undefined
        ? stored
        : { ...stored, memory: false, pinned: [...stored.pinned, memory.message] };
    const snapshot = readSnapshot(sql, this.#store, session);
    checkContextParts(settings, snapshot.messages, format);
    const measure = measureContext(session, settings, snapshot.tokens, this.env.DEFAULT_MODEL);
    // What the client sends next; a provider's count in a later overflow report refers to it.
    saveServed(sql, snapshot.tokens + measure.pinnedTokens, snapshot.lastSeq);
    const data = contextData(key.sessionId, settings, snapshot, measure, {
      status: this.#compactionStatus(session),
      waited,
    });
    if (memory === undefined) return data;
    const { message: _message, ...figures } = memory;
    return { ...data, memory: figures };
  }

  /** With the `memory` setting on, the user's memories for this context (never a failure). */
  async #memoryFor(key: SessionKey): Promise<MemoryInsert | undefined> {
    const sql = this.#sql();
    const settings = readSettings(sql);
    if (!settings.memory) return undefined;
    const session = requireSession(sql, key);
    const model = modelFor(settings, session.last_model, this.env.DEFAULT_MODEL);
    return memoryInsert(
      userStub(this.env, key.userId),
      recentText(this.#store, session.message_count),
      settings.memoryTokens,
      model,
    );
  }

  async context(key: SessionCall, format?: MessageFormat): Promise<RpcResult<ContextData>> {
    return rpcResult(async () => {
      const session = requireSession(this.#sql(), key);
      checkFormatAvailable(this.#sql(), format);
      let waited = false;
      if (this.#needsCompactionNow()) {
        checkPartsAvailableNow(this.#sql(), this.#store, session, format);
        // Only a context that does not fit waits; it joins the queue behind any compaction in flight.
        waited = true;
        try {
          await this.#queue.run(() =>
            this.#needsCompactionNow()
              ? this.#compact("context", { ...requestOf(key), onFailure: "fallback" })
              : Promise.resolve<RunResult>({ status: "not_needed" }),
          );
        } catch {
          // The committed view is still whole; serve it (its warningLevel tells the client it is over).
          // The failure itself was logged by the compaction.
        }
      }
      const memory = await this.#memoryFor(key);
      const data = this.#contextData(key, waited, format, memory);
      takeServedCompaction(this.#sql());
      return data;
    });
  }

  async compactNow(
    key: SessionCall,
    input: { instructions?: string; focus?: string; idempotency?: IdempotencyInput },
  ): Promise<RpcResult<ManualCompactResponseBody>> {
    return rpcResult(async () => {
      const sql = this.#sql();
      requireSession(sql, key);
      const replayed = replay<ManualCompactResponseBody>(
        sql,
        "compact",
        input.idempotency,
        Date.now(),
      );
      if (replayed !== undefined) return replayed;
      const joinKey = input.idempotency ? inflightKey(input.idempotency) : undefined;
      const joined = joinKey !== undefined ? this.#inflight.get(joinKey) : undefined;
      if (joined !== undefined) return joined;

      const answer = (result: RunResult): ManualCompactResponseBody => {
        const measure = this.#committedMeasure(requireSession(sql, key));
        const response: ManualCompactResponseBody = {
          sessionId: key.sessionId,
          compacted: result.status === "committed",
          ...(result.reason !== undefined ? { reason: result.reason } : {}),
          event: result.event ?? null,
          tokens: measure.tokens,
          warningLevel: measure.warningLevel,
        };
        remember(sql, "compact", input.idempotency, response, Date.now());
        return response;
      };
      const run = (async (): Promise<ManualCompactResponseBody> => {
        let committed: ManualCompactResponseBody | undefined;
        const result = await this.#queue.run(() =>
          this.#compact("manual", {
            ...requestOf(key),
            force: true,
            // The caller waits for an answer: a configured compaction that throws falls back at once.
            onFailure: "fallback",
            ...(input.instructions !== undefined ? { instructions: input.instructions } : {}),
            ...(input.focus !== undefined ? { focus: input.focus } : {}),
            // The answer is kept in the commit's transaction: a retry after an eviction right after the
            // commit replays it instead of compacting again.
            onCommit: (settled) => {
              committed = answer(settled);
            },
          }),
        );
        if (result.status === "gone" || result.status === "discarded")
          throw notFound(key.sessionId);
        // Nothing was committed (an empty context): there is nothing a retry could do twice.
        return committed ?? answer(result);
      })();
      if (joinKey === undefined) return run;
      this.#inflight.set(joinKey, run);
      try {
        return await run;
      } finally {
        this.#inflight.delete(joinKey);
      }
    });
  }

  async overflow(key: SessionCall, input: OverflowInput): Promise<RpcResult<OverflowData>> {
    return rpcResult(async () => {
      const sql = this.#sql();
      const session = requireSession(sql, key);
      checkFormatAvailable(sql, input.format);
      if (!isContextOverflowError(input.error)) {
        throw new ApiError(
          422,
          "not_an_overflow",
          "the reported error is not a context-window overflow (rate measure, quota and other errors are not compacted away); handle it as it is",
        );
      }
      checkPartsAvailableNow(sql, this.#store, session, input.format);
      const stated = parseOverflowTokens(input.error);
      const settings = readSettings(sql);
      const measure = this.#committedMeasure(session, settings);
      this.ctx.storage.transactionSync(() => {
        // A window below the one we use is the provider's real one for this model: keep to it from now on.
        const limit = stated?.limit;
        if (limit !== undefined && Number.isInteger(limit) && limit > 0) {
          if (limit < measure.contextWindow) saveLearnedWindow(sql, limit, measure.model);
        }
        // The provider's count of what it was sent: the context the client last fetched, if it is still
        // the one it holds (a compaction since does not change it), else the current one. Only the
        // input's count: a wording that adds the output allowance (`N + max_tokens > L`) states it apart.
        if (stated?.inputTokens !== undefined) {
          calibrateWithProviderCount(sql, this.#store, session, settings, this.env.DEFAULT_MODEL, {
            reportedTokens: stated.inputTokens,
            estimate: servedTokens(session),
          });
        }
        // The provider refused the context, so the stored "as far as it goes" mark no longer holds.
        setExhaustedSeq(sql, null);
      });
      const reportedTokens = stated?.inputTokens ?? null;
      let passes = 0;
      while (passes < MAX_OVERFLOW_PASSES) {
        passes++;
        const result = await this.#queue.run(() =>
          this.#compact("overflow", { ...requestOf(key), force: true, onFailure: "fallback" }),
        );
        if (result.status !== "committed") break;
        const measure = this.#committedMeasure(requireSession(sql, key));
        if (measure.tokens <= measure.budget) break;
      }
      const data = this.#contextData(key, true, input.format);
      return { ...data, passes, reportedTokens, compactionTier: takeServedCompaction(sql) };
    });
  }

  async status(key: SessionKey): Promise<RpcResult<SessionStatusBody>> {
    return rpcResult(() => {
      const sql = this.#sql();
      const session = requireSession(sql, key);
      const settings = readSettings(sql);
      const size = contextSize(sql, this.#store);
      const measure = measureContext(session, settings, size.tokens, this.env.DEFAULT_MODEL);
      const history = compactionSummary(sql);
      const cooldown =
        session.cooldown_until !== null && session.cooldown_until > Date.now()
          ? session.cooldown_until
          : null;
      return {
        sessionId: key.sessionId,
        createdAt: new Date(session.created_at).toISOString(),
        updatedAt: new Date(session.updated_at).toISOString(),
        model: measure.model,
        messageCount: session.message_count,
        transcriptTokens: session.transcript_tokens,
        contextTokens: measure.tokens,
        contextMessageCount: size.count + measure.pinned.length,
        contextWindow: measure.contextWindow,
        budget: measure.budget,
        warningLevel: measure.warningLevel,
        coveredSeq: readViewState(sql)?.covered_seq ?? 0,
        lastSeq: session.message_count,
        compactions: history.count,
        lastCompaction: history.last,
        compaction: {
          status: this.#compactionStatus(session),
          failure:
            session.failed_attempts > 0
              ? {
                  at: new Date(session.last_failure_at ?? session.updated_at).toISOString(),
                  message: session.last_failure ?? "",
                  failedAttempts: session.failed_attempts,
                  nextAttemptAt:
                    session.retry_at === null ? null : new Date(session.retry_at).toISOString(),
                }
              : null,
        },
        overheadTokens: measure.overheadTokens,
        learnedContextWindow: learnedWindowOf(session, measure.model) ?? null,
        generation: currentGeneration(sql).generation,
        cooldownUntil: cooldown === null ? null : new Date(cooldown).toISOString(),
        calibration: calibrationOf(session),
        // Copies, because the API's loose message type wants the index signature a core interface lacks.
        settings: { ...settings, pinned: settings.pinned.map((message) => ({ ...message })) },
      };
    });
  }

  async updateSettings(
    key: SessionKey,
    update: SettingsUpdate,
  ): Promise<RpcResult<SessionStatusBody>> {
    const created = this.#isNew();
    const result = await rpcResult(() => {
      const sql = this.#sql();
      this.ctx.storage.transactionSync(() => {
        const now = Date.now();
        // Settings the engine would refuse would make every compaction fail: the whole effective
        // settings are checked before anything is written (or the session created).
        const current = readSettings(sql);
        const lastModel = readSession(sql)?.last_model ?? null;
        const merged = mergeSettings(current, update);
        checkSettings(merged, modelFor(merged, lastModel, this.env.DEFAULT_MODEL), this.env);
        // Settings may come first, so an app can configure a session (a window the model table does not
        // know) before its first append: PATCH creates the session, like an append does.
        const session = openSession(sql, key, now);
        const before = modelFor(current, session.last_model, this.env.DEFAULT_MODEL);
        writeSettings(sql, update);
        const after = modelFor(readSettings(sql), session.last_model, this.env.DEFAULT_MODEL);
        recountIfModelChanged(sql, this.#store, before, after);
        // New limits or a new strategy may compact further than before, and may work where the old
        // settings failed.
        setExhaustedSeq(sql, null, now);
        clearFailure(sql);
      });
    });
    if (!result.ok) return result;
    await this.#scheduleIfNeeded("settings");
    await this.#reportWrite(created);
    return this.status(key);
  }

  async remove(key: SessionKey): Promise<RpcResult<DeleteResponseBody>> {
    return rpcResult(async () => {
      const session = readSession(this.#sql());
      if (session === undefined) {
        // A retry whose first answer was lost gets that answer again, while the tombstone lasts.
        const answer = await tombstoneAnswer(this.ctx.storage);
        if (answer !== undefined) return answer;
        throw notFound(key.sessionId);
      }
      requireSession(this.#sql(), key);
      const answer: DeleteResponseBody = {
        sessionId: key.sessionId,
        deleted: true as const,
        messageCount: session.message_count,
      };
      const vectors = this.#vectors();
      const rowids = vectors === undefined ? [] : indexedRowids(this.#sql());
      await deleteLeavingTombstone(this.ctx.storage, answer);
      // The tables went with everything else; they are created again on the next use.
      this.#migrated = false;
      // The session's vectors go too, in the background (a failure leaves ids nothing serves).
      if (vectors !== undefined && rowids.length > 0) this.ctx.waitUntil(vectors.forget(rowids));
      await this.#reporter.deleted(key.userId, key.sessionId);
      return answer;
    });
  }

  async compactions(key: SessionKey): Promise<RpcResult<CompactionEventBody[]>> {
    return rpcResult(() => {
      const sql = this.#sql();
      requireSession(sql, key);
      return listCompactions(sql);
    });
  }

  async toolOutput(
    key: SessionKey,
    toolCallId: string,
    seq?: number,
  ): Promise<RpcResult<ToolOutputResponseBody>> {
    return rpcResult(() => {
      const sql = this.#sql();
      requireSession(sql, key);
      return readToolOutput(sql, this.#store, toolCallId, seq);
    });
  }

  /**
   * The best matches of `query` in the session's whole transcript (`search-index`), also ranked by
   * embeddings when semantic recall is configured (`semantic-recall`). While messages from before
   * the index are still being indexed, one bounded step runs first and the answer says
   * `indexing.complete: false`.
   */
  async search(key: SessionKey, query: SearchInput): Promise<RpcResult<SearchResponseBody>> {
    return rpcResult(async () => {
      const sql = this.#sql();
      requireSession(sql, key);
      if (!isBackfillComplete(sql) && !backfillStep(this.ctx.storage, this.#store)) {
        this.#continueBackfill();
      }
      const vectors = this.#vectors();
      if (vectors === undefined) return searchSession(sql, query);
      // A query with no word is a 400 before any embedding is paid for.
      matchExpressions(query.q);
      const nearest = await vectors.nearest(
        query.q,
        Math.min(100, query.limit * VECTOR_CANDIDATES_PER_RESULT),
      );
      // The session may have been deleted while the index answered.
      const after = this.#sql();
      requireSession(after, key);
      return searchSession(after, query, nearest);
    });
  }

  async transcript(
    key: SessionKey,
    after: number,
    limit: number,
    generation?: number,
  ): Promise<RpcResult<TranscriptPage>> {
    return rpcResult(() => {
      const session = requireSession(this.#sql(), key);
      // A generation (gateway) is a range of seqs: its page starts at its first and ends at its last.
      const range = generation === undefined ? undefined : generationRange(this.#sql(), generation);
      if (generation !== undefined && range === undefined) {
        throw new ApiError(
          404,
          "not_found",
          `session ${JSON.stringify(key.sessionId)} has no generation ${generation}; its current one is ${currentGeneration(this.#sql()).generation}`,
        );
      }
      const lastSeq = range?.lastSeq ?? session.message_count;
      const rows = this.#store
        .readTranscript(Math.max(after, (range?.firstSeq ?? 1) - 1), limit, TRANSCRIPT_PAGE_BYTES)
        .filter((row) => row.key <= lastSeq);
      const last = rows.at(-1);
      return {
        ...(generation !== undefined ? { generation } : {}),
        messages: rows.map((row) => ({
          seq: row.key,
          role: row.role,
          tokens: row.tokens,
          createdAt: new Date(row.createdAt).toISOString(),
          message: { ...row.message },
        })),
        nextAfter: last !== undefined && last.key < lastSeq ? last.key : null,
      };
    });
  }

  // ------------------------------------------------------------ gateway (/v1/gateway)

  /**
   * A gateway request's history matched with the session (`gateway-turn`): what is new is appended
   * (or a new generation started), then the context is served as `/context` serves it, compacted
   * first when it does not fit.
   */
  async gatewayTurn(
    key: SessionCall,
    input: GatewayTurnInput,
  ): Promise<RpcResult<GatewayTurnResult>> {
    return rpcResult(async (): Promise<GatewayTurnResult> => {
      const created = this.#isNew();
      const match = matchAndAppend(
        this.#sessionStorage,
        this.env,
        key,
        input,
        this.#queue.size > 0,
      );
      if (match.kind !== "matched") return match;
      this.#embedAppended(match.lastSeq - match.appended + 1, match.lastSeq);
      if (match.pending !== undefined) await this.#armAlarm(match.pending);
      await this.#reportWrite(created);
      let compacted = false;
      if (this.#needsCompactionNow()) {
        try {
          const result = await this.#queue.run(() =>
            this.#needsCompactionNow()
              ? this.#compact("gateway", { ...requestOf(key), onFailure: "fallback" })
              : Promise.resolve<RunResult>({ status: "not_needed" }),
          );
          compacted = result.event !== undefined;
        } catch {
          // The committed view is still whole; it is served (the failure was logged).
        }
      }
      // With `memory` on, the user's memories go upstream as they go in `/context`.
      const memory = await this.#memoryFor(key);
      const served = this.#gatewayContext(key, match.generation.generation, match.lastSeq, memory);
      const { recall } = readSettings(this.#sql());
      if (served !== undefined) {
        return {
          kind: "context",
          generation: match.generation.generation,
          newGeneration: match.newGeneration,
          appended: match.appended,
          compactionTier: takeServedCompaction(this.#sql()),
          ...served,
          recall,
        };
      }
      // Messages came in while a compaction ran: the context is no longer the request's history.
      const whole = this.#contextData(key, compacted, undefined, memory);
      return {
        kind: "context",
        generation: match.generation.generation,
        newGeneration: match.newGeneration,
        appended: match.appended,
        compactionTier: takeServedCompaction(this.#sql()),
        tokens: whole.tokens,
        lastSeq: whole.lastSeq,
        context: { whole },
        recall,
      };
    });
  }

  /**
   * The context after a gateway turn by reference to the request's history, which the transcript
   * after the view is while nothing was appended since the turn's match (else undefined).
   */
  #gatewayContext(
    key: SessionKey,
    generation: number,
    lastSeq: number,
    memory: MemoryInsert | undefined,
  ): GatewayContext | undefined {
    const sql = this.#sql();
    const session = requireSession(sql, key);
    if (session.message_count !== lastSeq) return undefined;
    const request = { generation, lastSeq };
    return gatewayContextAt(sql, this.#store, session, request, memory, this.env.DEFAULT_MODEL);
  }

  /**
   * An overflow the upstream reported for a gateway turn: compacted as `/overflow` compacts it, then
   * the turn's context again, by reference to its own history (`gateway-context`), even when other
   * messages were appended after it meanwhile (an answer another request left behind), which are not
   * its own. When the session's view covers more than its history, or another generation started,
   * `moved-on`: the Worker then fits the history itself, as without a session.
   */
  async gatewayOverflow(
    key: SessionCall,
    input: OverflowInput & { generation: number; lastSeq: number },
  ): Promise<RpcResult<GatewayOverflowResult>> {
    const before = compactionSummary(this.#sql()).count;
    const reported = await this.overflow(key, input);
    if (!reported.ok) return reported;
    return rpcResult(async (): Promise<GatewayOverflowResult> => {
      const sql = this.#sql();
      const history = compactionSummary(sql);
      const compactionTier = history.count > before ? (history.last?.tier ?? null) : null;
      const memory = await this.#memoryFor(key);
      const session = requireSession(sql, key);
      const request = { generation: input.generation, lastSeq: input.lastSeq };
      const served = gatewayContextAt(
        sql,
        this.#store,
        session,
        request,
        memory,
        this.env.DEFAULT_MODEL,
      );
      if (served !== undefined) return { kind: "context", compactionTier, ...served };
      const { contextWindow } = this.#committedMeasure(session);
      return { kind: "moved-on", compactionTier, contextWindow };
    });
  }

  /** The model's answer to a gateway turn, appended after it unless the session moved on. */
  async gatewayAnswer(
    key: SessionKey,
    input: GatewayAnswerInput,
  ): Promise<RpcResult<GatewayAnswerResult>> {
    return rpcResult(async () => {
      const result = appendAnswer(this.#sessionStorage, this.env, key, input, this.#queue.size > 0);
      if (result.appended) this.#embedAppended(result.firstSeq, result.lastSeq);
      if (result.appended && result.pending !== undefined) await this.#armAlarm(result.pending);
      if (result.appended) this.#reporter.changed();
      return result;
    });
  }
}
