/**
 * @module session/session-object
 * One Durable Object per (user, session): the session's SQLite storage and
 * the only place its compactions run.
 *
 * Compaction is a view over the transcript, which is never rewritten: the
 * context is the view (the messages the last compaction produced, covering
 * transcript seq ≤ N) followed by every transcript message with seq > N, with
 * the pinned messages re-injected after the leading system messages. A
 * compaction snapshots the context up to the latest seq N, awaits `compact()`
 * (other requests run meanwhile: the input gate does not hold across a
 * fetch), then commits the view, the event, the pruned-output index and the
 * cooldown in one `transactionSync`, or nothing. Appends that arrived during
 * the wait have seq > N and follow the compacted range. Compactions run one at
 * a time through `CompactionQueue`; the background ones are started by an
 * alarm, which the runtime retries if the object is evicted mid-way.
 *
 * Every RPC method returns an `Outcome`: API errors cross the RPC boundary as
 * data, because class instances do not.
 */

import { DurableObject } from "cloudflare:workers";
import {
  type ChatMessage,
  type CompactResult,
  compact,
  contextWindowFor,
  fromCanonical,
  isContextOverflowError,
  type MessageFormat,
  messageTokens,
  parseOverflowTokens,
  shouldCompact,
  toCanonical,
} from "@condense/core";
import type {
  AppendResponseBody,
  CompactionEventBody,
  DeleteResponseBody,
  ManualCompactResponseBody,
  SessionSettingsBody,
  SessionStatusBody,
  ToolOutputResponseBody,
  TranscriptResponseBody,
} from "../api/schemas";
import type { Env } from "../env";
import { ApiError, type Outcome, outcome } from "../http/errors";
import { logCompaction } from "../http/log";
import {
  callResponsesCompact,
  keyFingerprint,
  openAIKey,
  responsesCompactEndpoint,
} from "../openai/responses-compact";
import { type Calibration, calibrate, isExactlyCounted } from "./calibration";
import { CompactionQueue } from "./compaction-queue";
import { MessageStore, type StoredMessage } from "./message-store";
import { migrate } from "./schema";
import { summarizerFor } from "./summarizer-config";

export interface SessionKey {
  userId: string;
  sessionId: string;
  /** The Worker's request id, carried into compaction log lines. */
  requestId?: string;
}

export interface IdempotencyInput {
  key: string;
  /** SHA-256 of the request body as sent. */
  bodyHash: string;
}

export interface AppendInput {
  /** Canonical (Chat Completions) messages, already validated by the Worker. */
  messages: ChatMessage[];
  model?: string;
  usage?: { inputTokens: number };
  idempotency?: IdempotencyInput;
}

/** Settings as stored; `null` means the default applies. */
export type SessionSettings = Omit<SessionSettingsBody, "pinned"> & { pinned: ChatMessage[] };

export type TranscriptPage = Omit<TranscriptResponseBody, "sessionId">;

export type SettingsUpdate = Partial<SessionSettings>;

export interface ContextData {
  sessionId: string;
  /** Used when the request names no format: `responses` for `strategy: "openai"` sessions. */
  defaultFormat: MessageFormat;
  /** The whole context in canonical form (pinned messages included). */
  messages: ChatMessage[];
  /** When the view holds OpenAI compaction items: those items, then `rest` converted. */
  responsesItems?: unknown[];
  rest?: ChatMessage[];
  tokens: number;
  contextWindow: number;
  budget: number;
  warningLevel: "none" | "warning" | "critical";
  summary: string | null;
  coveredSeq: number;
  lastSeq: number;
  compaction: { status: "none" | "scheduled" | "running"; waited: boolean };
}

export interface OverflowData extends ContextData {
  passes: number;
  reportedTokens: number | null;
}

type SessionRow = {
  user_id: string;
  session_id: string;
  epoch: string;
  created_at: number;
  updated_at: number;
  last_model: string | null;
  message_count: number;
  transcript_tokens: number;
  cooldown_until: number | null;
  calibration_ratio: number;
  calibration_samples: number;
  pending_trigger: string | null;
  exhausted_seq: number | null;
};

type ViewStateRow = {
  covered_seq: number;
  compaction_id: number;
  tokens: number;
  summary: string | null;
  strategy: string;
  openai_endpoint: string | null;
  openai_key_fingerprint: string | null;
};

type CompactionRow = {
  id: number;
  at: number;
  trigger: string;
  strategy: string;
  tier: number;
  tokens_before: number;
  tokens_after: number;
  from_seq: number;
  to_seq: number;
  summary: string | null;
  summarizer: string | null;
  failure_kind: string | null;
  failure_message: string | null;
  pruned_count: number;
  passes: number;
};

interface Snapshot {
  epoch: string;
  view: ViewStateRow | undefined;
  coveredSeq: number;
  lastSeq: number;
  /** Canonical context without pinned messages. */
  messages: ChatMessage[];
  /** When the view holds OpenAI items: those items (raw) and the canonical tail. */
  openaiItems?: unknown[];
  tail: ChatMessage[];
  /** Estimated tokens of `messages`, from the stored counts. */
  tokens: number;
}

interface Limits {
  model: string;
  ratio: number;
  pinned: ChatMessage[];
  pinnedTokens: number;
  /** The window handed to the engine, in its own (uncalibrated) units, pinned messages excluded. */
  engineWindow: number;
  /** Engine-unit context size above which a compaction triggers: min(budget, threshold × window). */
  engineTrigger: number;
  compact: boolean;
  /** Reported figures, in calibrated tokens. */
  tokens: number;
  contextWindow: number;
  triggerTokens: number;
  budget: number;
  warningLevel: "none" | "warning" | "critical";
}

type RunStatus = "committed" | "not_needed" | "unchanged" | "discarded" | "gone";

interface RunResult {
  status: RunStatus;
  reason?: string;
  event?: CompactionEventBody;
}

interface CompactionOptions {
  requestId?: string;
  force?: boolean;
  instructions?: string;
  focus?: string;
}

const DEFAULT_SETTINGS: SessionSettings = {
  model: null,
  contextWindow: null,
  threshold: null,
  reserveTokens: null,
  tailTokens: null,
  identifierPolicy: null,
  identifierInstructions: null,
  pinned: [],
  summarizerModel: null,
  strategy: "local",
};

const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const TRANSCRIPT_PAGE_BYTES = 8 * 1024 * 1024;
const MAX_OVERFLOW_PASSES = 3;

function notFound(sessionId: string): ApiError {
  return new ApiError(
    404,
    "not_found",
    `session ${JSON.stringify(sessionId)} not found; a session exists once a message has been appended to it`,
  );
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function eventFromRow(row: CompactionRow): CompactionEventBody {
  return {
    id: row.id,
    at: iso(row.at),
    trigger: row.trigger,
    strategy: row.strategy === "openai" ? "openai" : "local",
    tier: row.tier,
    tokensBefore: row.tokens_before,
    tokensAfter: row.tokens_after,
    range: { fromSeq: row.from_seq, toSeq: row.to_seq },
    summary: row.summary,
    summarizer: row.summarizer,
    summarizerFailure:
      row.failure_kind === null
        ? null
        : { kind: row.failure_kind, message: row.failure_message ?? "" },
    prunedToolOutputs: row.pruned_count,
    passes: row.passes,
  };
}

/** Inserts `pinned` after the leading system/developer messages of `messages`. */
export function withPinned(messages: ChatMessage[], pinned: ChatMessage[]): ChatMessage[] {
  if (pinned.length === 0) return messages;
  let head = 0;
  while (
    head < messages.length &&
    (messages[head]?.role === "system" || messages[head]?.role === "developer")
  ) {
    head++;
  }
  return [...messages.slice(0, head), ...pinned, ...messages.slice(head)];
}

export class SessionObject extends DurableObject<Env> {
  readonly #queue = new CompactionQueue();
  readonly #store: MessageStore;
  #migrated = false;
  /** Manual compactions in flight by idempotency key, so a retry joins the first attempt. */
  readonly #inflight = new Map<string, Promise<ManualCompactResponseBody>>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new MessageStore(ctx.storage.sql);
  }

  // ------------------------------------------------------------ storage helpers

  #sql(): SqlStorage {
    if (!this.#migrated) {
      migrate(this.ctx.storage);
      this.#migrated = true;
    }
    return this.ctx.storage.sql;
  }

  #sessionRow(): SessionRow | undefined {
    return this.#sql().exec<SessionRow>("SELECT * FROM condense_session WHERE id = 1").toArray()[0];
  }

  #requireSession(key: SessionKey): SessionRow {
    const row = this.#sessionRow();
    // The object's name already encodes the user; the stored owner is checked as defence in depth.
    if (row === undefined || row.user_id !== key.userId || row.session_id !== key.sessionId) {
      throw notFound(key.sessionId);
    }
    return row;
  }

  #settings(): SessionSettings {
    const settings: SessionSettings = { ...DEFAULT_SETTINGS };
    const rows = this.#sql().exec<{ key: string; value: string }>(
      "SELECT key, value FROM condense_settings",
    );
    for (const row of rows) {
      if (row.key in settings)
        (settings as Record<string, unknown>)[row.key] = JSON.parse(row.value);
    }
    return settings;
  }

  #viewState(): ViewStateRow | undefined {
    return this.#sql()
      .exec<ViewStateRow>("SELECT * FROM condense_view_state WHERE id = 1")
      .toArray()[0];
  }

  #model(session: SessionRow, settings: SessionSettings): string {
    return settings.model ?? session.last_model ?? this.env.DEFAULT_MODEL ?? "gpt-4o";
  }

  #cooldownSeconds(): number {
    const value = Number(this.env.COOLDOWN_SECONDS ?? "600");
    return Number.isFinite(value) && value >= 0 ? Math.floor(value) : 600;
  }

  #snapshot(session: SessionRow): Snapshot {
    const view = this.#viewState();
    const coveredSeq = view?.covered_seq ?? 0;
    const viewRows: StoredMessage[] = view === undefined ? [] : this.#store.readView();
    const tailRows = this.#store.readTranscript(coveredSeq);
    const tail = tailRows.map((row) => row.message);
    const viewTokens = viewRows.reduce((sum, row) => sum + row.tokens, 0);
    const tokens = viewTokens + tailRows.reduce((sum, row) => sum + row.tokens, 0);
    if (view?.strategy === "openai") {
      // The view rows are OpenAI Responses items (with encrypted compaction content).
      const items = viewRows.map((row) => row.message as unknown);
      const canonical = toCanonical({ format: "responses", messages: items });
      return {
        epoch: session.epoch,
        view,
        coveredSeq,
        lastSeq: session.message_count,
        messages: [...canonical, ...tail],
        openaiItems: items,
        tail,
        tokens,
      };
    }
    return {
      epoch: session.epoch,
      view,
      coveredSeq,
      lastSeq: session.message_count,
      messages: [...viewRows.map((row) => row.message), ...tail],
      tail,
      tokens,
    };
  }

  /** Context tokens without loading messages: the view's total plus the transcript after it. */
  #contextEstimate(): number {
    const view = this.#viewState();
    return (view?.tokens ?? 0) + this.#store.tokensAfter(view?.covered_seq ?? 0).tokens;
  }

  #limits(session: SessionRow, settings: SessionSettings, estimate: number): Limits {
    const model = this.#model(session, settings);
    const ratio = isExactlyCounted(model) ? 1 : session.calibration_ratio;
    const pinned = settings.pinned;
    const pinnedTokens = pinned.reduce((sum, message) => sum + messageTokens(message, model), 0);
    const contextWindow = settings.contextWindow ?? contextWindowFor(model);
    // The engine counts in its own units: a calibrated window is the real one divided by the ratio,
    // and the pinned messages take their share before the engine sees it.
    const engineWindow = Math.max(1, Math.floor(contextWindow / ratio) - pinnedTokens);
    const decision = shouldCompact(
      { model, tokens: estimate },
      {
        contextWindow: engineWindow,
        ...(settings.threshold !== null ? { threshold: settings.threshold } : {}),
        ...(settings.reserveTokens !== null ? { reserveTokens: settings.reserveTokens } : {}),
      },
    );
    const real = (engineTokens: number) => Math.round((engineTokens + pinnedTokens) * ratio);
    return {
      model,
      ratio,
      pinned,
      pinnedTokens,
      engineWindow,
      engineTrigger: Math.min(decision.budget, decision.triggerTokens),
      compact: decision.compact,
      tokens: real(estimate),
      contextWindow,
      triggerTokens: real(decision.triggerTokens),
      budget: real(decision.budget),
      warningLevel: decision.warningLevel,
    };
  }

  #compactionStatus(session: SessionRow): "none" | "scheduled" | "running" {
    if (this.#queue.size > 0) return "running";
    return session.pending_trigger !== null ? "scheduled" : "none";
  }

  /** Schedules a background compaction (an alarm) when the context is over the trigger and none is pending. */
  async #scheduleIfNeeded(trigger: string): Promise<boolean> {
    const session = this.#sessionRow();
    if (session === undefined) return false;
    if (session.pending_trigger !== null) {
      // Self-healing: a pending compaction whose alarm is gone (and that is not running) gets a new alarm.
      if (this.#queue.size === 0 && (await this.ctx.storage.getAlarm()) === null) {
        await this.ctx.storage.setAlarm(Date.now() + this.#compactionDelayMs());
      }
      return true;
    }
    if (session.exhausted_seq !== null && session.exhausted_seq >= session.message_count)
      return false;
    const limits = this.#limits(session, this.#settings(), this.#contextEstimate());
    if (!limits.compact) return false;
    this.#sql().exec("UPDATE condense_session SET pending_trigger = ? WHERE id = 1", trigger);
    await this.ctx.storage.setAlarm(Date.now() + this.#compactionDelayMs());
    return true;
  }

  /** `COMPACTION_DELAY_MS` postpones background compactions, so a burst of appends is compacted once. */
  #compactionDelayMs(): number {
    const value = Number(this.env.COMPACTION_DELAY_MS ?? "0");
    return Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
  }

  // ------------------------------------------------------------ idempotency

  #replay<T>(route: string, idempotency: IdempotencyInput | undefined): T | undefined {
    if (idempotency === undefined) return undefined;
    const row = this.#sql()
      .exec<{ body_hash: string; response: string; created_at: number }>(
        "SELECT body_hash, response, created_at FROM condense_idempotency WHERE route = ? AND key = ?",
        route,
        idempotency.key,
      )
      .toArray()[0];
    if (row === undefined || row.created_at < Date.now() - IDEMPOTENCY_TTL_MS) return undefined;
    if (row.body_hash !== idempotency.bodyHash) {
      throw new ApiError(
        409,
        "idempotency_conflict",
        "this Idempotency-Key was already used with a different request body; use a new key for a new request",
        { key: idempotency.key },
      );
    }
    return JSON.parse(row.response) as T;
  }

  #remember(route: string, idempotency: IdempotencyInput | undefined, response: unknown): void {
    if (idempotency === undefined) return;
    const now = Date.now();
    const sql = this.#sql();
    sql.exec("DELETE FROM condense_idempotency WHERE created_at < ?", now - IDEMPOTENCY_TTL_MS);
    sql.exec(
      `INSERT OR REPLACE INTO condense_idempotency (key, route, body_hash, status, response, created_at)
       VALUES (?, ?, ?, 200, ?, ?)`,
      idempotency.key,
      route,
      idempotency.bodyHash,
      JSON.stringify(response),
      now,
    );
  }

  // ------------------------------------------------------------ append

  async append(key: SessionKey, input: AppendInput): Promise<Outcome<AppendResponseBody>> {
    return outcome(async () => {
      const replay = this.#replay<AppendResponseBody>("append", input.idempotency);
      if (replay !== undefined) return replay;

      const now = Date.now();
      const sql = this.#sql();
      let session = this.#sessionRow();
      if (session === undefined) {
        sql.exec(
          `INSERT INTO condense_session (id, user_id, session_id, epoch, created_at, updated_at)
           VALUES (1, ?, ?, ?, ?, ?)`,
          key.userId,
          key.sessionId,
          crypto.randomUUID(),
          now,
          now,
        );
        session = this.#requireSession(key);
      } else {
        session = this.#requireSession(key);
      }

      const settings = this.#settings();
      if (input.model !== undefined && input.model !== session.last_model) {
        sql.exec("UPDATE condense_session SET last_model = ? WHERE id = 1", input.model);
        session = { ...session, last_model: input.model };
      }
      const model = this.#model(session, settings);

      // `usage.inputTokens` is what the provider counted for the prompt the client sent: the context
      // as it was before this append.
      if (input.usage !== undefined && !isExactlyCounted(model)) {
        const estimate = this.#contextEstimate() + this.#limits(session, settings, 0).pinnedTokens;
        const next: Calibration = calibrate(
          { ratio: session.calibration_ratio, samples: session.calibration_samples },
          estimate,
          input.usage.inputTokens,
        );
        sql.exec(
          "UPDATE condense_session SET calibration_ratio = ?, calibration_samples = ? WHERE id = 1",
          next.ratio,
          next.samples,
        );
        session = { ...session, calibration_ratio: next.ratio, calibration_samples: next.samples };
      }

      const firstSeq = session.message_count + 1;
      let seq = session.message_count;
      let addedTokens = 0;
      this.ctx.storage.transactionSync(() => {
        for (const message of input.messages) {
          seq++;
          const tokens = messageTokens(message, model);
          addedTokens += tokens;
          this.#store.appendTranscript(seq, message, tokens, now);
          this.#indexToolCalls(message, seq);
        }
        sql.exec(
          `UPDATE condense_session SET message_count = ?, transcript_tokens = transcript_tokens + ?, updated_at = ?
           WHERE id = 1`,
          seq,
          addedTokens,
          now,
        );
      });

      const scheduled = await this.#scheduleIfNeeded("append");
      const after = this.#requireSession(key);
      const limits = this.#limits(after, settings, this.#contextEstimate());
      const response: AppendResponseBody = {
        sessionId: key.sessionId,
        appended: input.messages.length,
        firstSeq,
        lastSeq: seq,
        messageCount: after.message_count,
        tokens: limits.tokens,
        contextWindow: limits.contextWindow,
        threshold: limits.triggerTokens,
        warningLevel: limits.warningLevel,
        compaction: { status: scheduled ? "scheduled" : this.#compactionStatus(after) },
      };
      this.#remember("append", input.idempotency, response);
      return response;
    });
  }

  #indexToolCalls(message: ChatMessage, seq: number): void {
    const sql = this.ctx.storage.sql;
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) {
        sql.exec(
          `INSERT INTO condense_tool_outputs (tool_call_id, tool_name) VALUES (?, ?)
           ON CONFLICT (tool_call_id) DO UPDATE SET tool_name = excluded.tool_name`,
          call.id,
          call.function.name,
        );
      }
    } else if (message.role === "tool" && message.tool_call_id !== undefined) {
      sql.exec(
        `INSERT INTO condense_tool_outputs (tool_call_id, seq) VALUES (?, ?)
         ON CONFLICT (tool_call_id) DO UPDATE SET seq = excluded.seq, pruned_by = NULL`,
        message.tool_call_id,
        seq,
      );
    }
  }

  // ------------------------------------------------------------ compaction

  /** The alarm runs the background compaction an append scheduled. */
  override async alarm(): Promise<void> {
    const session = this.#sessionRow();
    if (session === undefined) return;
    await this.#queue.run(() => this.#runCompaction(session.pending_trigger ?? "alarm", {}));
  }

  async #runCompaction(trigger: string, options: CompactionOptions): Promise<RunResult> {
    const started = Date.now();
    const session = this.#sessionRow();
    if (session === undefined) return { status: "gone" };
    const settings = this.#settings();
    const snapshot = this.#snapshot(session);
    const limits = this.#limits(session, settings, snapshot.tokens);
    const log = {
      ...(options.requestId !== undefined ? { requestId: options.requestId } : {}),
      user: session.user_id,
      session: session.session_id,
      trigger,
    };

    if (options.force !== true) {
      const exhausted = session.exhausted_seq !== null && session.exhausted_seq >= snapshot.lastSeq;
      if (!limits.compact || exhausted) {
        this.#sql().exec("UPDATE condense_session SET pending_trigger = NULL WHERE id = 1");
        logCompaction({ ...log, outcome: "not_needed", durationMs: Date.now() - started });
        return {
          status: "not_needed",
          reason: exhausted
            ? "the context was already compacted as far as it goes; append more messages first"
            : "the context is within its limits",
        };
      }
    }
    if (snapshot.messages.length === 0)
      return { status: "not_needed", reason: "the context is empty" };

    if (settings.strategy === "openai") {
      const viaOpenAI = await this.#compactThroughOpenAI(
        trigger,
        session,
        snapshot,
        limits,
        started,
      );
      if (viaOpenAI !== undefined) return viaOpenAI;
    }

    let result: CompactResult<ChatMessage>;
    try {
      result = await compact(
        { model: limits.model, messages: snapshot.messages },
        {
          contextWindow: limits.engineWindow,
          ...(settings.threshold !== null ? { threshold: settings.threshold } : {}),
          ...(settings.reserveTokens !== null ? { reserveTokens: settings.reserveTokens } : {}),
          ...(settings.tailTokens !== null ? { tailTokens: settings.tailTokens } : {}),
          ...(settings.identifierPolicy !== null
            ? { identifierPolicy: settings.identifierPolicy }
            : {}),
          ...(settings.identifierInstructions !== null
            ? { identifierInstructions: settings.identifierInstructions }
            : {}),
          summarizer: summarizerFor(this.env, settings.summarizerModel),
          ...(session.cooldown_until !== null ? { cooldownUntil: session.cooldown_until } : {}),
          cooldownSeconds: this.#cooldownSeconds(),
          ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
          ...(options.focus !== undefined ? { focus: options.focus } : {}),
          force: options.force === true,
        },
      );
    } catch (error) {
      logCompaction({ ...log, outcome: "failed", durationMs: Date.now() - started });
      throw error;
    }

    const committed = this.#commitLocal(trigger, snapshot, limits, result);
    logCompaction({
      ...log,
      outcome:
        committed.status === "committed"
          ? "committed"
          : committed.status === "unchanged"
            ? "not_needed"
            : "discarded",
      tier: result.tier,
      tokensBefore: result.originalTokens,
      tokensAfter: result.finalTokens,
      durationMs: Date.now() - started,
      ...(result.summarizerFailure ? { summarizerFailure: result.summarizerFailure.kind } : {}),
      coveredSeq: snapshot.lastSeq,
    });
    await this.#scheduleIfNeeded("append");
    return committed;
  }

  /** Commits a local compaction result in one transaction, or nothing if the session changed identity. */
  #commitLocal(
    trigger: string,
    snapshot: Snapshot,
    limits: Limits,
    result: CompactResult<ChatMessage>,
  ): RunResult {
    const sql = this.#sql();
    return this.ctx.storage.transactionSync((): RunResult => {
      const current = this.#sessionRow();
      if (current === undefined || current.epoch !== snapshot.epoch) return { status: "discarded" };
      if (result.cooldownUntil !== undefined) {
        sql.exec(
          "UPDATE condense_session SET cooldown_until = ? WHERE id = 1",
          result.cooldownUntil,
        );
      }
      if (!result.compacted || result.finalTokens >= result.originalTokens) {
        sql.exec(
          "UPDATE condense_session SET exhausted_seq = ?, pending_trigger = NULL WHERE id = 1",
          snapshot.lastSeq,
        );
        return {
          status: "unchanged",
          reason: result.reason ?? "compaction could not make the context smaller",
        };
      }
      const entries = result.messages.map((message) => ({
        message,
        tokens: messageTokens(message, limits.model),
      }));
      const tokensAfter = entries.reduce((sum, entry) => sum + entry.tokens, 0);
      const now = Date.now();
      const row = sql
        .exec<{ id: number }>(
          `INSERT INTO condense_compactions (at, trigger, strategy, tier, tokens_before, tokens_after, from_seq,
             to_seq, summary, summarizer, failure_kind, failure_message, pruned_count, passes)
           VALUES (?, ?, 'local', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
          now,
          trigger,
          result.tier,
          snapshot.tokens,
          tokensAfter,
          snapshot.coveredSeq + 1,
          snapshot.lastSeq,
          result.summary,
          result.summary === null ? null : result.summarizerCalls > 0 ? "llm" : "extractive",
          result.summarizerFailure?.kind ?? null,
          result.summarizerFailure?.message ?? null,
          result.prunedToolOutputs.length,
          result.passes,
        )
        .one();
      this.#store.replaceView(entries);
      sql.exec(
        `INSERT OR REPLACE INTO condense_view_state (id, covered_seq, compaction_id, tokens, summary, strategy)
         VALUES (1, ?, ?, ?, ?, 'local')`,
        snapshot.lastSeq,
        row.id,
        tokensAfter,
        result.summary,
      );
      for (const pruned of result.prunedToolOutputs) {
        sql.exec(
          `UPDATE condense_tool_outputs SET pruned_by = ?, tool_name = COALESCE(tool_name, ?)
           WHERE tool_call_id = ? AND pruned_by IS NULL AND seq IS NOT NULL`,
          row.id,
          pruned.toolName,
          pruned.toolCallId,
        );
      }
      // A result that would still trigger cannot be improved until more messages arrive.
      const exhausted = tokensAfter > limits.engineTrigger ? snapshot.lastSeq : null;
      sql.exec(
        "UPDATE condense_session SET exhausted_seq = ?, pending_trigger = NULL, updated_at = ? WHERE id = 1",
        exhausted,
        now,
      );
      const event = sql
        .exec<CompactionRow>("SELECT * FROM condense_compactions WHERE id = ?", row.id)
        .one();
      return { status: "committed", event: eventFromRow(event) };
    });
  }

  /**
   * `strategy: "openai"`: compacts through OpenAI's `/responses/compact` and stores the returned items.
   * Returns undefined when the endpoint is not configured or fails, so the local tiers take over.
   */
  async #compactThroughOpenAI(
    trigger: string,
    session: SessionRow,
    snapshot: Snapshot,
    limits: Limits,
    started: number,
  ): Promise<RunResult | undefined> {
    const key = openAIKey(this.env);
    if (key === undefined) return undefined;
    const input = [
      ...(snapshot.openaiItems ?? []),
      ...renderItems(snapshot.openaiItems === undefined ? snapshot.messages : snapshot.tail),
    ];
    const upstream = await callResponsesCompact(this.env, key, { model: limits.model, input });
    const output = upstream.ok ? (upstream.body as { output?: unknown }).output : undefined;
    if (!upstream.ok || !Array.isArray(output) || output.length === 0) {
      logCompaction({
        user: session.user_id,
        session: session.session_id,
        trigger,
        outcome: "failed",
        durationMs: Date.now() - started,
        summarizer: "openai-responses-compact",
        summarizerFailure: upstream.ok ? "malformed" : `http_${upstream.status}`,
      });
      return undefined;
    }
    const fingerprint = await keyFingerprint(key);
    const endpoint = responsesCompactEndpoint(this.env);
    const canonical = toCanonical({ format: "responses", messages: output });
    const tokensAfter = canonical.reduce(
      (sum, message) => sum + messageTokens(message, limits.model),
      0,
    );
    const perItem = output.length > 0 ? Math.ceil(tokensAfter / output.length) : 0;
    const sql = this.#sql();
    const committed = this.ctx.storage.transactionSync((): RunResult => {
      const current = this.#sessionRow();
      if (current === undefined || current.epoch !== snapshot.epoch) return { status: "discarded" };
      const now = Date.now();
      const row = sql
        .exec<{ id: number }>(
          `INSERT INTO condense_compactions (at, trigger, strategy, tier, tokens_before, tokens_after, from_seq,
             to_seq, summary, summarizer, failure_kind, failure_message, pruned_count, passes)
           VALUES (?, ?, 'openai', 2, ?, ?, ?, ?, NULL, 'openai-responses-compact', NULL, NULL, 0, 1) RETURNING id`,
          now,
          trigger,
          snapshot.tokens,
          tokensAfter,
          snapshot.coveredSeq + 1,
          snapshot.lastSeq,
        )
        .one();
      // The view rows hold the Responses items as OpenAI returned them (encrypted content included).
      this.#store.replaceView(
        output.map((item) => ({ message: item as ChatMessage, tokens: perItem })),
      );
      sql.exec(
        `INSERT OR REPLACE INTO condense_view_state (id, covered_seq, compaction_id, tokens, summary, strategy,
           openai_endpoint, openai_key_fingerprint)
         VALUES (1, ?, ?, ?, NULL, 'openai', ?, ?)`,
        snapshot.lastSeq,
        row.id,
        perItem * output.length,
        endpoint,
        fingerprint,
      );
      sql.exec(
        "UPDATE condense_session SET exhausted_seq = NULL, pending_trigger = NULL, updated_at = ? WHERE id = 1",
        now,
      );
      const event = sql
        .exec<CompactionRow>("SELECT * FROM condense_compactions WHERE id = ?", row.id)
        .one();
      return { status: "committed", event: eventFromRow(event) };
    });
    logCompaction({
      user: session.user_id,
      session: session.session_id,
      trigger,
      outcome: committed.status === "committed" ? "committed" : "discarded",
      tier: 2,
      tokensBefore: snapshot.tokens,
      tokensAfter,
      durationMs: Date.now() - started,
      summarizer: "openai-responses-compact",
      coveredSeq: snapshot.lastSeq,
    });
    await this.#scheduleIfNeeded("append");
    return committed;
  }

  // ------------------------------------------------------------ reads

  #contextData(key: SessionKey, waited: boolean): ContextData {
    const session = this.#requireSession(key);
    const settings = this.#settings();
    const snapshot = this.#snapshot(session);
    const limits = this.#limits(session, settings, snapshot.tokens);
    const messages = withPinned(snapshot.messages, limits.pinned);
    return {
      sessionId: key.sessionId,
      defaultFormat: settings.strategy === "openai" ? "responses" : "openai",
      messages,
      ...(snapshot.openaiItems !== undefined
        ? { responsesItems: snapshot.openaiItems, rest: [...limits.pinned, ...snapshot.tail] }
        : {}),
      tokens: limits.tokens,
      contextWindow: limits.contextWindow,
      budget: limits.budget,
      warningLevel: limits.warningLevel,
      summary: snapshot.view?.summary ?? null,
      coveredSeq: snapshot.coveredSeq,
      lastSeq: snapshot.lastSeq,
      compaction: { status: this.#compactionStatus(this.#requireSession(key)), waited },
    };
  }

  /** Whether the committed context is over window − reserve and a compaction could still help. */
  #needsCompactionNow(): boolean {
    const session = this.#sessionRow();
    if (session === undefined) return false;
    if (session.exhausted_seq !== null && session.exhausted_seq >= session.message_count)
      return false;
    const limits = this.#limits(session, this.#settings(), this.#contextEstimate());
    return limits.tokens > limits.budget;
  }

  async context(key: SessionKey): Promise<Outcome<ContextData>> {
    return outcome(async () => {
      this.#requireSession(key);
      let waited = false;
      if (this.#needsCompactionNow()) {
        // Only a context that does not fit waits; it joins the queue behind any compaction in flight.
        waited = true;
        try {
          await this.#queue.run(() =>
            this.#needsCompactionNow()
              ? this.#runCompaction(
                  "context",
                  key.requestId !== undefined ? { requestId: key.requestId } : {},
                )
              : Promise.resolve({ status: "not_needed" } as RunResult),
          );
        } catch {
          // The committed view is still whole; serve it (its warningLevel tells the client it is over).
          // The failure itself was logged by the compaction.
        }
      }
      return this.#contextData(key, waited);
    });
  }

  async compactNow(
    key: SessionKey,
    input: { instructions?: string; focus?: string; idempotency?: IdempotencyInput },
  ): Promise<Outcome<ManualCompactResponseBody>> {
    return outcome(async () => {
      this.#requireSession(key);
      const replay = this.#replay<ManualCompactResponseBody>("compact", input.idempotency);
      if (replay !== undefined) return replay;
      const inflightKey = input.idempotency
        ? `${input.idempotency.key}\u0000${input.idempotency.bodyHash}`
        : undefined;
      const joined = inflightKey !== undefined ? this.#inflight.get(inflightKey) : undefined;
      if (joined !== undefined) return joined;

      const run = (async (): Promise<ManualCompactResponseBody> => {
        const result = await this.#queue.run(() =>
          this.#runCompaction("manual", {
            ...(key.requestId !== undefined ? { requestId: key.requestId } : {}),
            force: true,
            ...(input.instructions !== undefined ? { instructions: input.instructions } : {}),
            ...(input.focus !== undefined ? { focus: input.focus } : {}),
          }),
        );
        if (result.status === "gone" || result.status === "discarded")
          throw notFound(key.sessionId);
        const session = this.#requireSession(key);
        const limits = this.#limits(session, this.#settings(), this.#contextEstimate());
        const response: ManualCompactResponseBody = {
          sessionId: key.sessionId,
          compacted: result.status === "committed",
          ...(result.reason !== undefined ? { reason: result.reason } : {}),
          event: result.event ?? null,
          tokens: limits.tokens,
          warningLevel: limits.warningLevel,
        };
        this.#remember("compact", input.idempotency, response);
        return response;
      })();
      if (inflightKey === undefined) return run;
      this.#inflight.set(inflightKey, run);
      try {
        return await run;
      } finally {
        this.#inflight.delete(inflightKey);
      }
    });
  }

  async overflow(
    key: SessionKey,
    input: { error: { status?: number; message: string; body?: unknown } },
  ): Promise<Outcome<OverflowData>> {
    return outcome(async () => {
      const session = this.#requireSession(key);
      if (!isContextOverflowError(input.error)) {
        throw new ApiError(
          422,
          "not_an_overflow",
          "the reported error is not a context-window overflow (rate limits, quota and other errors are not compacted away); handle it as it is",
        );
      }
      const parsed = parseOverflowTokens(input.error);
      const reportedTokens = parsed?.requested ?? null;
      if (reportedTokens !== null) {
        const settings = this.#settings();
        const model = this.#model(session, settings);
        if (!isExactlyCounted(model)) {
          const estimate =
            this.#contextEstimate() + this.#limits(session, settings, 0).pinnedTokens;
          const next = calibrate(
            { ratio: session.calibration_ratio, samples: session.calibration_samples },
            estimate,
            reportedTokens,
          );
          this.#sql().exec(
            "UPDATE condense_session SET calibration_ratio = ?, calibration_samples = ? WHERE id = 1",
            next.ratio,
            next.samples,
          );
        }
      }
      // The provider refused the context, so the stored "as far as it goes" mark no longer holds.
      this.#sql().exec("UPDATE condense_session SET exhausted_seq = NULL WHERE id = 1");
      let passes = 0;
      while (passes < MAX_OVERFLOW_PASSES) {
        passes++;
        const result = await this.#queue.run(() =>
          this.#runCompaction("overflow", {
            ...(key.requestId !== undefined ? { requestId: key.requestId } : {}),
            force: true,
          }),
        );
        if (result.status !== "committed") break;
        const current = this.#requireSession(key);
        const limits = this.#limits(current, this.#settings(), this.#contextEstimate());
        if (limits.tokens <= limits.budget) break;
      }
      return { ...this.#contextData(key, true), passes, reportedTokens };
    });
  }

  async status(key: SessionKey): Promise<Outcome<SessionStatusBody>> {
    return outcome(() => {
      const session = this.#requireSession(key);
      const settings = this.#settings();
      const estimate = this.#contextEstimate();
      const limits = this.#limits(session, settings, estimate);
      const view = this.#viewState();
      const contextCount =
        (view === undefined
          ? 0
          : this.#sql().exec<{ n: number }>("SELECT COUNT(*) AS n FROM condense_view").one().n) +
        this.#store.tokensAfter(view?.covered_seq ?? 0).count +
        limits.pinned.length;
      const count = this.#sql()
        .exec<{ n: number }>("SELECT COUNT(*) AS n FROM condense_compactions")
        .one().n;
      const last = this.#sql()
        .exec<CompactionRow>("SELECT * FROM condense_compactions ORDER BY id DESC LIMIT 1")
        .toArray()[0];
      const cooldown =
        session.cooldown_until !== null && session.cooldown_until > Date.now()
          ? session.cooldown_until
          : null;
      return {
        sessionId: key.sessionId,
        createdAt: iso(session.created_at),
        updatedAt: iso(session.updated_at),
        model: limits.model,
        messageCount: session.message_count,
        transcriptTokens: session.transcript_tokens,
        contextTokens: limits.tokens,
        contextMessageCount: contextCount,
        contextWindow: limits.contextWindow,
        budget: limits.budget,
        warningLevel: limits.warningLevel,
        coveredSeq: view?.covered_seq ?? 0,
        lastSeq: session.message_count,
        compactions: count,
        lastCompaction: last === undefined ? null : eventFromRow(last),
        compaction: { status: this.#compactionStatus(session) },
        cooldownUntil: cooldown === null ? null : iso(cooldown),
        calibration: { ratio: session.calibration_ratio, samples: session.calibration_samples },
        settings: settings as unknown as SessionStatusBody["settings"],
      };
    });
  }

  async updateSettings(
    key: SessionKey,
    update: SettingsUpdate,
  ): Promise<Outcome<SessionStatusBody>> {
    const result = await outcome(() => {
      this.#requireSession(key);
      const sql = this.#sql();
      this.ctx.storage.transactionSync(() => {
        for (const [name, value] of Object.entries(update)) {
          if (!(name in DEFAULT_SETTINGS) || value === undefined) continue;
          if (value === null) sql.exec("DELETE FROM condense_settings WHERE key = ?", name);
          else
            sql.exec(
              "INSERT OR REPLACE INTO condense_settings (key, value) VALUES (?, ?)",
              name,
              JSON.stringify(value),
            );
        }
        // New limits or a new strategy may compact further than before.
        sql.exec(
          "UPDATE condense_session SET exhausted_seq = NULL, updated_at = ? WHERE id = 1",
          Date.now(),
        );
      });
    });
    if (!result.ok) return result;
    await this.#scheduleIfNeeded("settings");
    return this.status(key);
  }

  async remove(key: SessionKey): Promise<Outcome<DeleteResponseBody>> {
    return outcome(async () => {
      const session = this.#requireSession(key);
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.deleteAll();
      // deleteAll drops the tables too; they are created again on the next use.
      this.#migrated = false;
      return {
        sessionId: key.sessionId,
        deleted: true as const,
        messageCount: session.message_count,
      };
    });
  }

  async compactions(key: SessionKey): Promise<Outcome<CompactionEventBody[]>> {
    return outcome(() => {
      this.#requireSession(key);
      return this.#sql()
        .exec<CompactionRow>("SELECT * FROM condense_compactions ORDER BY id")
        .toArray()
        .map(eventFromRow);
    });
  }

  async toolOutput(key: SessionKey, toolCallId: string): Promise<Outcome<ToolOutputResponseBody>> {
    return outcome(() => {
      this.#requireSession(key);
      const row = this.#sql()
        .exec<{ tool_name: string | null; seq: number | null; pruned_by: number | null }>(
          "SELECT tool_name, seq, pruned_by FROM condense_tool_outputs WHERE tool_call_id = ?",
          toolCallId,
        )
        .toArray()[0];
      const stored =
        row?.seq === null || row === undefined ? undefined : this.#store.transcriptAt(row.seq);
      if (row === undefined || stored === undefined) {
        throw new ApiError(
          404,
          "not_found",
          `no tool output with tool_call_id ${JSON.stringify(toolCallId)} in this session`,
        );
      }
      return {
        toolCallId,
        toolName: row.tool_name,
        content: stored.message.content,
        seq: stored.key,
        tokens: stored.tokens,
        pruned: row.pruned_by !== null,
      };
    });
  }

  async transcript(
    key: SessionKey,
    after: number,
    limit: number,
  ): Promise<Outcome<TranscriptPage>> {
    return outcome(() => {
      const session = this.#requireSession(key);
      const rows = this.#store.readTranscript(after, limit, TRANSCRIPT_PAGE_BYTES);
      const last = rows.at(-1);
      return {
        messages: rows.map((row) => ({
          seq: row.key,
          role: row.role,
          tokens: row.tokens,
          createdAt: iso(row.createdAt),
          message: row.message as TranscriptResponseBody["messages"][number]["message"],
        })),
        nextAfter: last !== undefined && last.key < session.message_count ? last.key : null,
      };
    });
  }
}

/** Canonical messages as Responses input items. */
function renderItems(messages: ChatMessage[]): unknown[] {
  return fromCanonical(messages, "responses").messages;
}
