/**
 * @module session/session-object
 * One Durable Object per (user, session): the session's SQLite storage and
 * the only place its compactions run. The class holds what lives in memory
 * (the compaction scheduler and its queue, manual compactions in flight, the
 * search backfill, the list reporter, whether the schema is migrated) and the
 * alarm; its RPC methods delegate to the modules that own the work and the
 * data: `append` (the append transaction), `compaction/scheduler` (when
 * compactions run: the queue, the alarm, retries), `session-alarm` (what the
 * alarm does: retention, background compaction), `compaction/manual`,
 * `overflow`, `served-context` (the context served whole), `gateway-turn` and
 * `gateway-context` (a gateway request's history and its context by
 * reference), `status`, `settings-update`, `tombstone` (what a deleted
 * session leaves), `transcript-page`, `compaction/history`, `tool-outputs`,
 * `search-index` (recall, whose backfill of older transcripts runs here in
 * bounded steps) and `semantic-recall`.
 *
 * Every RPC method returns an `RpcResult`: API errors cross the RPC boundary
 * as data, because class instances do not.
 */

import { DurableObject } from "cloudflare:workers";
import type { ChatMessage, MessageFormat } from "@condense/core";
import { type RpcResult, rpcResult } from "../api/rpc-result";
import type {
  AppendResponseBody,
  CompactionsResponseBody,
  DeleteResponseBody,
  EventsResponseBody,
  ManualCompactResponseBody,
  SearchResponseBody,
  SessionStatusBody,
  ToolOutputResponseBody,
} from "../api/schemas";
import { workerConfig } from "../config/worker-config";
import { logLine } from "../log/log-lines";
import { userStub } from "../user/user-stub";
import { deliverDueEvents, eventsPage, nextDeliveryAt } from "./compaction/compaction-events";
import { compactionCountAndLast, listCompactions } from "./compaction/history";
import type { CachedSummaryChannel } from "./compaction/local";
import { type ManualCompactInput, ManualCompactions } from "./compaction/manual";
import { type MemorySinkFactory, userMemorySink } from "./compaction/memory-flush";
import type { PendingMark } from "./compaction/pending";
import { CompactionScheduler } from "./compaction/scheduler";
import type { ContextData, OverflowData } from "./context/context-data";
import { checkFormatAvailable, checkPartsAvailableNow } from "./context/context-formats";
import { type ContextMeasure, measureCommitted } from "./context/context-measure";
import { currentGeneration } from "./context/generations";
import { type MemoryInsert, memoryFor } from "./context/memory-context";
import { takeServedCompaction } from "./context/served-compaction";
import { serveContext } from "./context/served-context";
import { billWithSeries, previousAnswerId } from "./context/served-turns";
import { readToolOutput } from "./context/tool-outputs";
import { type DeletionOptions, deleteSession } from "./deletion";
import { ListReporter } from "./list-reporter";
import { compactOverflow, learnFromOverflow, type OverflowInput } from "./overflow";
import {
  matchExpressions,
  type SearchInput,
  searchSession,
  VECTOR_CANDIDATES_PER_RESULT,
} from "./recall/search";
import { BackfillChain, backfillStep, isBackfillComplete } from "./recall/search-index";
import { type SessionVectors, sessionVectorsFor } from "./recall/semantic-recall";
import { type TranscriptPage, transcriptPage } from "./recall/transcript-page";
import { type AlarmTarget, armAlarm, runAlarm } from "./session-alarm";
import { updateSettings } from "./settings-update";
import { listReport, sessionStatus } from "./status";
import { MessageStore } from "./store/message-store";
import { migrate } from "./store/schema";
import {
  notFound,
  openSession,
  readSession,
  requireSession,
  type SessionCall,
  type SessionKey,
  type SessionRow,
} from "./store/session-record";
import { inTransaction, type SessionScope, sessionScope } from "./store/session-scope";
import { modelFor, readSettings, type SettingsUpdate } from "./store/settings";
import { tombstoneAnswer } from "./store/tombstone";
import { type AppendInput, type AppendTarget, appendMessages } from "./turns/append";
import { type GatewayContext, gatewayContextAt } from "./turns/gateway-context";
import {
  appendAnswer,
  extendedGeneration,
  type GatewayAnswerInput,
  type GatewayAnswerResult,
  type GatewayMatch,
  type GatewayOverflowResult,
  type GatewayTurnInput,
  type GatewayTurnResult,
  matchAndAppend,
} from "./turns/gateway-turn";
import { type PackedHashes, unpackHashes } from "./turns/packed-hashes";
import {
  listSideRequests,
  readSideRequest,
  type SideReason,
  type SideRequestRecord,
  type SideRequestSummary,
  saveSideAnswer,
  saveSideRequest,
} from "./turns/side-requests";

export class SessionObject extends DurableObject<Env> {
  readonly #store: MessageStore;
  /** The storage, the message store and the default model, as the modules take them. */
  readonly #scope: SessionScope;
  #migrated = false;
  readonly #backfill: BackfillChain;
  /** Keeps the session's row in the user's session list (`list-reporter`). */
  readonly #reporter: ListReporter;
  readonly #scheduler: CompactionScheduler;
  readonly #manual: ManualCompactions;
  /**
   * Where a compaction's memory flush writes, per user: the user's object (tests set a fake).
   */
  memorySinks: MemorySinkFactory = userMemorySink;
  /** The session's clock (`SessionScope.now`): tests may set a fixed one. */
  clock: () => number = Date.now;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new MessageStore(ctx.storage.sql);
    this.#scope = sessionScope(
      () => this.#migratedStorage(),
      this.#store,
      env.DEFAULT_MODEL,
      () => this.clock(),
    );
    this.#backfill = new BackfillChain(this.#scope, () => this.#migrated);
    this.#reporter = new ListReporter({
      // A deleted session's tables are gone; reading would create them again.
      read: () => (this.#migrated ? listReport(this.#scope) : undefined),
      send: (userId, report) => userStub(env, userId).reportSession(report),
      forget: (userId, sessionId) => userStub(env, userId).forgetSession(sessionId),
      waitUntil: (promise) => ctx.waitUntil(promise),
      intervalMs: workerConfig(env).sessionListReportMs,
    });
    this.#scheduler = new CompactionScheduler({
      scope: this.#scope,
      env,
      memorySinks: () => this.memorySinks,
      committed: () => this.#reporter.changed(),
      eventsRecorded: () => this.#deliverEvents(),
    });
    this.#manual = new ManualCompactions(this.#scope, this.#scheduler);
  }

  // ------------------------------------------------------------ state

  /** The object's storage, its schema migrated on first use. */
  #migratedStorage(): DurableObjectStorage {
    if (!this.#migrated) {
      migrate(this.ctx.storage);
      this.#migrated = true;
      if (!isBackfillComplete(this.ctx.storage.sql)) this.#backfill.continue();
    }
    return this.ctx.storage;
  }

  #sql(): SqlStorage {
    return this.#migratedStorage().sql;
  }

  /** Deliveries of compaction events, one run at a time (`compaction-events`). */
  #delivery: Promise<void> = Promise.resolve();

  /**
   * Delivers the compaction events that are due to the session's webhook, off every request's path,
   * then sets the alarm for the next retry; runs after the deliveries already queued.
   */
  #deliverEvents(): void {
    const open = () => (this.#migrated ? this.ctx.storage.sql : undefined);
    this.#delivery = this.#delivery
      .then(async () => {
        // A batch at a time; the alarm takes over from a webhook that keeps failing.
        for (
          let batch = 0;
          batch < 4 && (await deliverDueEvents(open, this.#scope.now)) > 0;
          batch++
        ) {}
        // Only the delivery's own retry: the alarm's other work arms it where it is decided.
        const sql = open();
        const next = sql === undefined ? undefined : nextDeliveryAt(sql);
        if (next === undefined) return;
        const current = await this.ctx.storage.getAlarm();
        if (current === null || current > next) await this.ctx.storage.setAlarm(next);
      })
      .catch((error: unknown) => {
        logLine({ type: "event_delivery_error", level: "warn", error: String(error) });
      });
    this.ctx.waitUntil(this.#delivery);
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

  /** Where an append writes (`append`). */
  #appendTarget(): AppendTarget {
    return { scope: this.#scope, env: this.env, compactionRunning: this.#scheduler.running };
  }

  /**
   * What follows a committed append: its messages embedded (`appended`, none for a replay), the alarm
   * of the background compaction it marked pending, and the user's list told.
   */
  async #afterAppend(
    appended: { firstSeq: number; lastSeq: number } | undefined,
    pending: PendingMark | undefined,
    created: boolean,
    /** The committed context's measure the append's answer took, nothing written since. */
    measured?: ContextMeasure,
  ): Promise<void> {
    if (appended !== undefined) this.#embedAppended(appended.firstSeq, appended.lastSeq);
    if (pending !== undefined) await this.#scheduler.arm(pending);
    // Arming the compaction's alarm writes nothing the measure read: it still holds.
    await armAlarm(this.#alarmTarget(), measured);
    await this.#reportWrite(created);
  }

  /** What the alarm and the alarm's setting work on (`session-alarm`). */
  #alarmTarget(): AlarmTarget {
    return {
      storage: this.ctx.storage,
      env: this.env,
      scope: this.#scope,
      scheduler: this.#scheduler,
      erase: (key, options) => this.#erase(key, options),
      tablesDropped: () => {
        this.#migrated = false;
      },
      deliverEvents: () =>
        deliverDueEvents(
          () => (this.#migrated ? this.ctx.storage.sql : undefined),
          this.#scope.now,
        ),
    };
  }

  /** Deletes the session (`deletion`): by DELETE with its `answer`, by retention without. */
  async #erase(key: SessionKey, options: DeletionOptions): Promise<void> {
    // Migrated before: the rowids of its vectors are read from its tables.
    this.#sql();
    const target = { ctx: this.ctx, vectors: this.#vectors(), reporter: this.#reporter };
    await deleteSession(target, key, options);
    this.#migrated = false;
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

  // ------------------------------------------------------------ context

  /** The context served whole (`served-context`); `peek`: only looked at, no model request. */
  #serve(
    key: SessionKey,
    waited: boolean,
    format?: MessageFormat,
    memory?: MemoryInsert,
    peek = false,
  ) {
    return serveContext(this.#scope, key, {
      waited,
      format,
      memory,
      compactionRunning: this.#scheduler.running,
      peek,
    });
  }

  /** A gateway turn's context served whole, when it can no longer be by reference to its history. */
  #wholeContext(key: SessionKey, waited: boolean, memory: MemoryInsert | undefined) {
    const whole = this.#serve(key, waited, undefined, memory);
    return { tokens: whole.tokens, lastSeq: whole.lastSeq, context: { whole } };
  }

  /** With the `memory` setting on, the user's memories for this context (never a failure). */
  #memoryFor(key: SessionKey): Promise<MemoryInsert | undefined> {
    const source = userStub(this.env, key.userId);
    return memoryFor(this.#scope, key, source);
  }

  /** The session's one alarm: retention, background compaction, tombstone (`session-alarm`). */
  override async alarm(): Promise<void> {
    await runAlarm(this.#alarmTarget());
  }

  // ------------------------------------------------------------ RPC

  /** An RPC that reads the session of `key`: what `read` returns, or the 404 when there is none. */
  #read<T>(
    key: SessionKey,
    read: (sql: SqlStorage, session: SessionRow) => T,
  ): Promise<RpcResult<T>> {
    return rpcResult(() => {
      const sql = this.#sql();
      return read(sql, requireSession(sql, key));
    });
  }

  async append(key: SessionKey, input: AppendInput): Promise<RpcResult<AppendResponseBody>> {
    return rpcResult(async () => {
      const appended = appendMessages(this.#appendTarget(), key, input, {
        billUnservedAnswers: true,
      });
      const { answer, pending, replayed, measure, created } = appended;
      await this.#afterAppend(replayed ? undefined : answer, pending, created, measure);
      return answer;
    });
  }

  /**
   * The context to send now. `peek`: only looked at (the inspector): no compaction waited for, and
   * no model request recorded (the bill, the cost policy's reads, the served compaction's tier).
   */
  async context(
    call: SessionCall,
    format?: MessageFormat,
    peek = false,
  ): Promise<RpcResult<ContextData>> {
    return rpcResult(async () => {
      const session = requireSession(this.#sql(), call);
      checkFormatAvailable(this.#sql(), format);
      if (peek) return this.#serve(call, false, format, await this.#memoryFor(call), true);
      // Only a context that does not fit waits; it joins the queue behind any compaction in flight.
      // When the compaction fails, the committed view is still whole: it is served, its
      // warningLevel telling the client it is over.
      const waited = this.#scheduler.isOverBudget();
      if (waited) {
        checkPartsAvailableNow(this.#scope, session, format);
        await this.#scheduler.compactIfOverBudget("context", call.requestId);
      }
      const memory = await this.#memoryFor(call);
      const data = this.#serve(call, waited, format, memory);
      takeServedCompaction(this.#sql());
      return data;
    });
  }

  async compactNow(
    call: SessionCall,
    input: ManualCompactInput,
  ): Promise<RpcResult<ManualCompactResponseBody>> {
    return rpcResult(() => this.#manual.compact(call, input));
  }

  async overflow(call: SessionCall, input: OverflowInput): Promise<RpcResult<OverflowData>> {
    return rpcResult(async () => {
      const reportedTokens = learnFromOverflow(this.#scope, call, input);
      const passes = await compactOverflow(this.#scope, this.#scheduler, call);
      const data = this.#serve(call, true, input.format);
      return { ...data, passes, reportedTokens, compactionTier: takeServedCompaction(this.#sql()) };
    });
  }

  async status(key: SessionKey): Promise<RpcResult<SessionStatusBody>> {
    return rpcResult(() =>
      sessionStatus(
        this.#scope,
        key,
        this.#scheduler.running,
        workerConfig(this.env).cooldownSeconds,
      ),
    );
  }

  async updateSettings(
    key: SessionKey,
    update: SettingsUpdate,
  ): Promise<RpcResult<SessionStatusBody>> {
    const created = this.#isNew();
    const result = await rpcResult(() => updateSettings(this.#scope, key, update, this.env));
    if (!result.ok) return result;
    await this.#scheduler.scheduleIfNeeded("settings");
    await armAlarm(this.#alarmTarget());
    await this.#reportWrite(created);
    return this.status(key);
  }

  /** Deletes the session; with `tombstone` (a DELETE's), a retry within a day gets the same answer. */
  async remove(key: SessionKey, tombstone = true): Promise<RpcResult<DeleteResponseBody>> {
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
        messageCount: session.messageCount,
      };
      await this.#erase(key, tombstone ? { answer } : {});
      return answer;
    });
  }

  async compactions(
    key: SessionKey,
  ): Promise<RpcResult<Omit<CompactionsResponseBody, "sessionId">>> {
    return this.#read(key, (sql, session) => ({
      compactions: listCompactions(sql),
      ...billWithSeries(
        sql,
        modelFor(readSettings(sql), session.lastModel, this.#scope.defaultModel),
      ),
    }));
  }

  async toolOutput(
    key: SessionKey,
    toolCallId: string,
    seq?: number,
  ): Promise<RpcResult<ToolOutputResponseBody>> {
    return this.#read(key, (_sql) => readToolOutput(this.#scope, toolCallId, seq));
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
      if (!isBackfillComplete(sql) && !backfillStep(this.#scope)) {
        this.#backfill.continue();
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
    const page = { after, limit, generation };
    return this.#read(key, (_sql, session) => transcriptPage(this.#scope, key, session, page));
  }

  // ------------------------------------------------------------ gateway (/v1/gateway)

  /**
   * A gateway request's history matched with the session (`gateway-turn`): what is new is appended
   * (or a new generation started), then the context is served as `/context` serves it, compacted
   * first when it does not fit: by reference to the request's history (`gateway-context`), which
   * the transcript after the view is while nothing was appended since the match, else whole.
   *
   * When no compaction is due and no memories are to be fetched, nothing needs an await between the
   * append and the context: both are written in one transaction (one commit per turn, and no request
   * can come between them), and what follows a committed append (the alarm, the user's list) runs
   * after it.
   */
  async gatewayTurn(
    call: SessionCall,
    input: GatewayTurnInput,
  ): Promise<RpcResult<GatewayTurnResult>> {
    return rpcResult(async (): Promise<GatewayTurnResult> => {
      const created = this.#isNew();
      const turn = inTransaction(this.#scope, (sql) => {
        const match = matchAndAppend(this.#appendTarget(), call, input);
        if (
          match.kind !== "matched" ||
          readSettings(sql).memory ||
          this.#scheduler.isOverBudget(match.measure)
        ) {
          return { match };
        }
        try {
          // A savepoint: a context that fails to be served records nothing, and the append still
          // commits; the turn then serves it as when a compaction is due.
          const served = inTransaction(this.#scope, () =>
            this.#servedTurn(call, match, false, undefined),
          );
          return { match, served };
        } catch {
          return { match };
        }
      });
      const { match } = turn;
      if (match.kind !== "matched") return match;
      const firstSeq = match.lastSeq - match.appended + 1;
      await this.#afterAppend({ firstSeq, lastSeq: match.lastSeq }, match.pending, created);
      if (turn.served !== undefined) return turn.served;
      // A compaction that fails leaves the committed view, still whole, to be served.
      const compaction = await this.#scheduler.compactIfOverBudget("gateway", call.requestId);
      // With `memory` on, the user's memories go upstream as they go in `/context`.
      const memory = await this.#memoryFor(call);
      // Its record commits whole or not at all, as in the transaction above.
      const waited = compaction?.event !== undefined;
      return inTransaction(this.#scope, () => this.#servedTurn(call, match, waited, memory));
    });
  }

  /**
   * The context of a gateway turn whose history `match` appended, recorded as served: by reference
   * while the session is still that history, else whole (messages came in while a compaction ran).
   */
  #servedTurn(
    call: SessionCall,
    match: Extract<GatewayMatch, { kind: "matched" }>,
    waited: boolean,
    memory: MemoryInsert | undefined,
  ): GatewayTurnResult {
    const sql = this.#sql();
    const session = requireSession(sql, call);
    const generation = match.generation.generation;
    const byReference =
      session.messageCount === match.lastSeq
        ? gatewayContextAt(this.#scope, session, { generation, lastSeq: match.lastSeq }, memory)
        : undefined;
    const served = byReference ?? this.#wholeContext(call, waited, memory);
    const settings = readSettings(sql);
    return {
      kind: "context",
      generation,
      newGeneration: match.newGeneration,
      appended: match.appended,
      compactionTier: takeServedCompaction(sql),
      ...served,
      recall: settings.recall,
      cachedSummaries: settings.cachedSummaries,
      cacheDiagnostics: settings.cacheDiagnostics
        ? { previousMessageId: previousAnswerId(sql) }
        : null,
    };
  }

  /**
   * After a gateway turn's answer was stored: with the setting `cachedSummaries` on, a compaction
   * that is due runs now, its summary written through `channel` (the turn's request extended by
   * the summary instruction, sent by the Worker that holds it: `gateway/plans/cached-summary`). The
   * channel is a stub valid during this call only; nothing of it is kept. When the run fails, the
   * compaction stays pending for the alarm, with the deployment's summarizer.
   */
  async gatewayCachedSummary(
    call: SessionCall,
    channel: CachedSummaryChannel,
  ): Promise<RpcResult<{ status: string }>> {
    return rpcResult(async () => {
      const sql = this.#sql();
      const session = requireSession(sql, call);
      const trigger = session.pendingTrigger;
      if (!readSettings(sql).cachedSummaries || trigger === null) return { status: "not_needed" };
      try {
        const result = await this.#scheduler.run(trigger, {
          ...(call.requestId !== undefined ? { requestId: call.requestId } : {}),
          cachedSummary: channel,
        });
        return { status: result.status };
      } catch {
        // Recorded on the session by the run; the alarm retries it.
        return { status: "failed" };
      }
    });
  }

  /**
   * An overflow the upstream reported for a gateway turn: compacted as `/overflow` compacts it, then
   * the turn's context again, by reference to its own history (`gateway-context`), even when other
   * messages were appended after it meanwhile (an answer another request left behind), which are not
   * its own. When the session's view covers more than its history, or another generation started,
   * `moved-on`: the Worker then fits the history itself, as without a session.
   */
  async gatewayOverflow(
    call: SessionCall,
    input: OverflowInput & { generation: number; lastSeq: number },
  ): Promise<RpcResult<GatewayOverflowResult>> {
    const before = compactionCountAndLast(this.#sql()).count;
    const reported = await this.overflow(call, input);
    if (!reported.ok) return reported;
    return rpcResult(async (): Promise<GatewayOverflowResult> => {
      const sql = this.#sql();
      const history = compactionCountAndLast(sql);
      const compactionTier = history.count > before ? (history.last?.tier ?? null) : null;
      const memory = await this.#memoryFor(call);
      const session = requireSession(sql, call);
      const request = { generation: input.generation, lastSeq: input.lastSeq };
      const served = gatewayContextAt(this.#scope, session, request, memory);
      if (served !== undefined) return { kind: "context", compactionTier, ...served };
      const settings = readSettings(sql);
      const { contextWindow } = measureCommitted(this.#scope, session, settings);
      return { kind: "moved-on", compactionTier, contextWindow };
    });
  }

  /**
   * The context a gateway turn of this history would be served now, read only (`count_tokens` and
   * `/responses/compact` ask): by reference to the history when it extends the session's current
   * generation, else nothing (a turn would start a generation, or keep it as a side request). Nothing
   * is appended, compacted or recorded as served; a compaction the turn would trigger is not run.
   */
  async gatewayPreview(
    call: SessionCall,
    input: { hashes: PackedHashes },
  ): Promise<RpcResult<{ served?: GatewayContext }>> {
    return rpcResult(async () => {
      requireSession(this.#sql(), call);
      const memory = await this.#memoryFor(call);
      const sql = this.#sql();
      const session = requireSession(sql, call);
      const at = extendedGeneration(this.#scope, session, unpackHashes(input.hashes));
      if (at === undefined) return {};
      const served = gatewayContextAt(this.#scope, session, at, memory, false);
      return served === undefined ? {} : { served };
    });
  }

  /**
   * Keeps a gateway request the session answers without taking it into its transcript
   * (`side-requests`), creating the session on its first request; returns its id and the session's
   * current generation.
   */
  async gatewaySideRequest(
    call: SessionCall,
    input: { messages: ChatMessage[]; reason: SideReason; model?: string },
  ): Promise<RpcResult<{ id: number; generation: number }>> {
    return rpcResult(async () => {
      const created = this.#isNew();
      const kept = inTransaction(this.#scope, (sql) => {
        openSession(sql, call, this.#scope.now());
        return saveSideRequest(sql, input, this.#scope.now());
      });
      await this.#reportWrite(created);
      return kept;
    });
  }

  /** The answer of side request `id`, kept with it. */
  async gatewaySideAnswer(
    key: SessionKey,
    input: { id: number; messages: ChatMessage[] },
  ): Promise<RpcResult<{ kept: boolean }>> {
    return this.#read(key, (sql) => ({
      kept: saveSideAnswer(sql, input.id, input.messages, this.#scope.now()),
    }));
  }

  /**
   * The session's current generation, for a response that names it without touching the session
   * (a request forwarded unchanged); 1 for a session not created yet.
   */
  async gatewayGeneration(key: SessionKey): Promise<RpcResult<{ generation: number }>> {
    return rpcResult(() => {
      const sql = this.#sql();
      if (readSession(sql) !== undefined) requireSession(sql, key);
      return { generation: currentGeneration(sql).generation };
    });
  }

  async events(
    key: SessionKey,
    after: number,
    limit: number,
  ): Promise<RpcResult<Omit<EventsResponseBody, "sessionId">>> {
    return this.#read(key, (sql) => eventsPage(sql, after, limit));
  }

  async sideRequests(
    key: SessionKey,
    after: number,
    limit: number,
  ): Promise<RpcResult<{ sideRequests: SideRequestSummary[]; nextAfter: number | null }>> {
    return this.#read(key, (sql) => listSideRequests(sql, after, limit));
  }

  async sideRequest(key: SessionKey, id: number): Promise<RpcResult<SideRequestRecord>> {
    return this.#read(key, (sql) => readSideRequest(sql, key.sessionId, id));
  }

  /** The model's answer to a gateway turn, appended after it unless the session moved on. */
  async gatewayAnswer(
    key: SessionKey,
    input: GatewayAnswerInput,
  ): Promise<RpcResult<GatewayAnswerResult>> {
    return rpcResult(async () => {
      const result = appendAnswer(this.#appendTarget(), key, input);
      if (result.appended) await this.#afterAppend(result, result.pending, false);
      return result;
    });
  }
}
