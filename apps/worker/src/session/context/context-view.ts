/**
 * @module session/context/context-view
 * What the model is sent now, and how it stands against its limits.
 *
 * Compaction is a view over the transcript, which is never rewritten: the
 * context is the view (the messages the last compaction produced, covering
 * transcript seq ≤ N) followed by every transcript message with seq > N, with
 * the pinned messages re-injected after the leading system messages. Its
 * measure (`ContextMeasure`) translates between the engine's token estimate
 * and the calibrated figures the API reports.
 */

import {
  type ChatMessage,
  contextWindowFor,
  type MarkerPlacement,
  type MessageFormat,
  messageTokens,
  resolveOptions,
  sendableMessages,
  shouldCompact,
  toCanonical,
  type WarningLevel,
} from "@condense/core";
import type { CompactionStrategy } from "../../api/compaction-strategy";
import { ApiError } from "../../api/errors";
import { checkPartsAvailable, renderMessages } from "../../api/formats";
import { insertRow } from "../../sqlite/insert-row";
import { cacheStateOf } from "../store/cache-state";
import { isExactlyCounted } from "../store/calibration";
import { lastReadAt } from "../store/cold-cache";
import { learnedWindowOf, readSession, type SessionRow } from "../store/session-record";
import type { SessionScope } from "../store/session-scope";
import { modelFor, readSettings, type SessionSettings } from "../store/settings";

export type ViewState = {
  coveredSeq: number;
  compactionId: number;
  tokens: number;
  summary: string | null;
  strategy: CompactionStrategy;
  openaiEndpoint: string | null;
  openaiKeyFingerprint: string | null;
};

/** The committed context at one moment; a compaction works on one and commits against its epoch. */
export interface Snapshot {
  epoch: string;
  view: ViewState | undefined;
  coveredSeq: number;
  lastSeq: number;
  /** Canonical context without pinned messages: the view's messages, then the transcript after it. */
  messages: ChatMessage[];
  /** Per message of `messages`: its transcript seq, or null for a message of the view. */
  seqs: (number | null)[];
  /**
   * Per message of `messages`: its stored count, `messageTokens(message, model)` for the session's
   * model (stored ones are recounted when it changes); null where no count of that message is stored
   * (a view of OpenAI items stores counts of the items, not of their canonical messages).
   */
  tokenCounts: (number | null)[];
  /** When the view holds OpenAI items: those items (raw) and the canonical tail. */
  openaiItems?: unknown[];
  /** The transcript messages after the view. */
  tail: ChatMessage[];
  /** Estimated tokens of `messages`, from the stored counts. */
  tokens: number;
}

/**
 * A context measured against the session's window: the model and pinned messages it is counted for,
 * the window and trigger in the engine's units, and the figures the API reports, calibrated.
 */
export interface ContextMeasure {
  model: string;
  /** The session's calibration ratio, or 1 for a model the engine counts exactly. */
  calibrationRatio: number;
  pinned: ChatMessage[];
  pinnedTokens: number;
  /** The latest gateway request's fixed overhead (its tool definitions), in engine tokens. */
  overheadTokens: number;
  /**
   * With an overhead: the target a compaction would aim at without it, in engine units
   * (`compaction/exhaustion` tells by it whether the overhead is why a compaction fell short of its
   * own), and the growth a compaction that did waits for: a quarter of the window without it.
   */
  overhead?: { targetWithout: number; regrowthTokens: number };
  /**
   * The window handed to the engine, in its own (uncalibrated) units, less the pinned messages, the
   * memory block's budget and the request's fixed overhead.
   */
  engineWindow: number;
  /** The context's size in engine units, pinned messages excluded. */
  engineTokens: number;
  /** Engine-unit context size above which a compaction triggers: min(budget, threshold × window). */
  engineTrigger: number;
  /** Engine-unit size a compaction aims at (under the trigger, so the next turns do not trigger it). */
  engineTarget: number;
  /** Engine-unit size the context may hold and keep the reserve free: what a served context fits. */
  engineBudget: number;
  /**
   * The request's fixed overhead (its tool definitions) takes the whole window by itself: no
   * message fits beside it, whatever is compacted or cut.
   */
  overheadFillsWindow: boolean;
  /** Whether the context is over the trigger (the engine's `shouldCompact`). */
  compactionDue: boolean;
  /** When the provider's cache was last read, as the decision took it (`cold-cache`). */
  cacheLastReadAt?: number;
  /** Reported figures, in calibrated tokens. */
  tokens: number;
  /** The configured (or the model's) window, or the one a provider stated if that is smaller. */
  contextWindow: number;
  triggerTokens: number;
  budget: number;
  warningLevel: WarningLevel;
}

export type CompactionStatus = "none" | "scheduled" | "running";

/** What the object hands the Worker for `GET /context`; the Worker renders it in the asked format. */
export interface ContextData {
  sessionId: string;
  /** Used when the request names no format: `responses` for `strategy: "openai"` sessions. */
  defaultFormat: MessageFormat;
  /** The whole context in canonical form (pinned messages included). */
  messages: ChatMessage[];
  /**
   * How many leading messages of `messages` are the compacted view with the pinned messages: the
   * prefix that stays the same until the next compaction (0 before the first).
   */
  stablePrefix: number;
  /** When the view holds OpenAI compaction items: those items, then `rest` converted. */
  responsesItems?: unknown[];
  rest?: ChatMessage[];
  tokens: number;
  contextWindow: number;
  budget: number;
  warningLevel: WarningLevel;
  summary: string | null;
  coveredSeq: number;
  lastSeq: number;
  compaction: { status: CompactionStatus; waited: boolean };
  /** With the `memory` setting on: the memory block's figures (`session/context/memory-context`). */
  memory?: { status: "included" | "unavailable"; entries: number; tokens: number };
}

export interface OverflowData extends ContextData {
  passes: number;
  reportedTokens: number | null;
  /** The tier of the compaction this context comes from, when no context served before did (`session/context/served-compaction`). */
  compactionTier: number | null;
}

export function readViewState(sql: SqlStorage): ViewState | undefined {
  // The columns as the type's fields: snake_case stays in the SQL.
  return sql
    .exec<ViewState>(
      `SELECT covered_seq AS coveredSeq, compaction_id AS compactionId, tokens, summary, strategy,
         openai_endpoint AS openaiEndpoint, openai_key_fingerprint AS openaiKeyFingerprint
       FROM condense_view_state WHERE id = 1`,
    )
    .toArray()[0];
}

/**
 * The 409 for a context of OpenAI compaction items asked for in a format that cannot carry them;
 * `askFor` says how the caller asks for the Responses format where it is.
 */
export function formatNotAvailable(askFor = "ask for format=responses"): ApiError {
  return new ApiError(
    409,
    "format_not_available",
    `this session's context holds OpenAI compaction items (strategy: openai), which only the Responses format can carry; ${askFor} or set the session's strategy to local`,
  );
}

/** How a context is rendered: `renderMessages`'s options, and how to ask for the Responses format. */
export interface RenderContextOptions {
  providerData?: boolean;
  markers?: MarkerPlacement | undefined;
  askFor?: string;
}

/**
 * The messages of a context in `format`, as the Worker sends them (`GET /context`, the gateway): a
 * view of OpenAI compaction items as they are, then the messages after them (`rest`), which only the
 * Responses format carries; else its messages rendered with `options`.
 */
export function renderContext(
  context: { messages: ChatMessage[]; responsesItems?: unknown[]; rest?: ChatMessage[] },
  format: MessageFormat,
  { askFor, ...options }: RenderContextOptions = {},
): { messages: unknown[]; system?: unknown } {
  if (context.responsesItems === undefined)
    return renderMessages(context.messages, format, options);
  if (format !== "responses") throw formatNotAvailable(askFor);
  const rest = renderMessages(context.rest ?? [], "responses").messages;
  return { messages: [...context.responsesItems, ...rest] };
}

/**
 * Refuses `format` up front when the committed view holds OpenAI items it cannot carry, so that a
 * refused request runs no compaction and records nothing.
 */
export function checkFormatAvailable(sql: SqlStorage, format: MessageFormat | undefined): void {
  if (format !== undefined && format !== "responses" && readViewState(sql)?.strategy === "openai") {
    throw formatNotAvailable();
  }
}

/** The format a context is served in when the request names none. */
export function defaultFormatOf(settings: SessionSettings): MessageFormat {
  return settings.strategy === "openai" ? "responses" : "openai";
}

/**
 * Refuses `format` (the session's default when undefined) when the context's messages hold parts
 * it cannot carry (audio for anthropic and responses, files other than PDF, text and images for
 * anthropic). Run before anything is recorded, so that a refused request changes nothing.
 */
export function checkContextParts(
  settings: SessionSettings,
  messages: readonly ChatMessage[],
  format: MessageFormat | undefined,
): void {
  const resolved = format ?? defaultFormatOf(settings);
  if (resolved !== "openai") checkPartsAvailable([...settings.pinned, ...messages], resolved);
}

/** {@link checkContextParts} on the committed context, before a compaction changes it. */
export function checkPartsAvailableNow(
  scope: SessionScope,
  session: SessionRow,
  format: MessageFormat | undefined,
): void {
  const { sql } = scope;
  checkContextParts(readSettings(sql), readSnapshot(scope, session).messages, format);
}

export function readSnapshot(scope: SessionScope, session: SessionRow): Snapshot {
  const { sql, store } = scope;
  const view = readViewState(sql);
  const coveredSeq = view?.coveredSeq ?? 0;
  const viewRows = view === undefined ? [] : store.readView();
  const tailRows = store.readTranscript(coveredSeq);
  const tail = tailRows.map((row) => row.message);
  const tokens = [...viewRows, ...tailRows].reduce((sum, row) => sum + row.tokens, 0);
  const common = {
    epoch: session.epoch,
    view,
    coveredSeq,
    lastSeq: session.messageCount,
    tail,
    tokens,
  };
  const tailSeqs = tailRows.map((row) => row.key);
  const tailCounts = tailRows.map((row) => row.tokens);
  if (view?.strategy === "openai") {
    // The view rows are OpenAI Responses items (with encrypted compaction content).
    const items = viewRows.map((row) => row.message as unknown);
    const canonical = toCanonical({ format: "responses", messages: items });
    const none = canonical.map(() => null);
    return {
      ...common,
      messages: [...canonical, ...tail],
      seqs: [...none, ...tailSeqs],
      tokenCounts: [...none, ...tailCounts],
      openaiItems: items,
    };
  }
  return {
    ...common,
    messages: [...viewRows.map((row) => row.message), ...tail],
    seqs: [...viewRows.map(() => null), ...tailSeqs],
    tokenCounts: [...viewRows.map((row) => row.tokens), ...tailCounts],
  };
}

/** Whether the session `snapshot` was taken of still exists (it was not deleted, or created again). */
export function isCurrent(sql: SqlStorage, snapshot: Snapshot): boolean {
  return readSession(sql)?.epoch === snapshot.epoch;
}

/** What a commit writes as the new view: the state row and the messages with their token counts. */
export interface ViewCommit {
  coveredSeq: number;
  compactionId: number;
  tokens: number;
  summary: string | null;
  strategy: CompactionStrategy;
  /** For OpenAI items: which endpoint and key produced them. */
  openai?: { endpoint: string; keyFingerprint: string };
  entries: readonly { message: ChatMessage; tokens: number }[];
}

/** Replaces the view whole; run it inside the commit's transaction. */
export function commitView(scope: SessionScope, commit: ViewCommit): void {
  const { sql, store } = scope;
  store.replaceView(commit.entries);
  insertRow(
    sql,
    "condense_view_state",
    {
      id: 1,
      covered_seq: commit.coveredSeq,
      compaction_id: commit.compactionId,
      tokens: commit.tokens,
      summary: commit.summary,
      strategy: commit.strategy,
      openai_endpoint: commit.openai?.endpoint ?? null,
      openai_key_fingerprint: commit.openai?.keyFingerprint ?? null,
    },
    { replace: true },
  );
}

/**
 * Context tokens and messages without loading any: the view's totals plus the transcript after it
 * (`view`: its state, when the caller read it already).
 */
export function contextSize(
  scope: SessionScope,
  view: ViewState | undefined = readViewState(scope.sql),
): { tokens: number; count: number } {
  const { store } = scope;
  const after = store.tokensAfter(view?.coveredSeq ?? 0);
  return {
    tokens: (view?.tokens ?? 0) + after.tokens,
    count: (view === undefined ? 0 : store.viewCount()) + after.count,
  };
}

/** The committed context measured from its stored counts, without loading any message. */
export function measureCommitted(
  scope: SessionScope,
  session: SessionRow,
  settings: SessionSettings,
): ContextMeasure {
  const { defaultModel } = scope;
  return measureContext(
    session,
    settings,
    contextSize(scope).tokens,
    defaultModel,
    lastReadAt(scope.sql),
  );
}

/** The session's background compaction: running (`running`: the object's queue holds one), scheduled, or none. */
export function compactionStatus(session: SessionRow, running: boolean): CompactionStatus {
  if (running) return "running";
  return session.pendingTrigger !== null ? "scheduled" : "none";
}

export function messagesTokens(messages: readonly ChatMessage[], model: string): number {
  return messages.reduce((sum, message) => sum + messageTokens(message, model), 0);
}

/** A context estimated at `estimate` engine tokens (pinned messages excluded), measured against the session's window. */
export function measureContext(
  session: SessionRow,
  settings: SessionSettings,
  estimate: number,
  defaultModel: string | undefined,
  /** When the provider's cache was last read (`cold-cache`): past its lifetime the policy compacts. */
  cacheLastReadAt?: number,
): ContextMeasure {
  const model = modelFor(settings, session.lastModel, defaultModel);
  const ratio = isExactlyCounted(model) ? 1 : session.calibrationRatio;
  const pinned = settings.pinned;
  const pinnedTokens = messagesTokens(pinned, model);
  // With `memory` on, the memory block's budget is kept free in the window, as pinned messages are:
  // the block joins the context when it is served, after any compaction the trigger ran. A caller
  // that has the block already (in `pinned`) passes `memory: false`, so it is not counted twice.
  const memoryReserve = settings.memory ? settings.memoryTokens : 0;
  // What a gateway request sends beside its messages and the provider counts with them (its tool
  // definitions) takes its room in the window too, on every request.
  const overheadTokens = session.overheadTokens;
  // A window a provider stated in an overflow error for this model wins when it is the smaller one.
  const configured = settings.contextWindow ?? contextWindowFor(model);
  const contextWindow = Math.min(configured, learnedWindowOf(session, model) ?? configured);
  // The engine counts in its own units: a calibrated window is the real one divided by the ratio,
  // and the pinned messages and the overhead take their share before the engine sees it.
  const room = Math.floor(contextWindow / ratio) - pinnedTokens - Math.ceil(memoryReserve / ratio);
  const engineWindow = Math.max(1, room - overheadTokens);
  const options = (window: number) => ({
    contextWindow: window,
    ...(settings.threshold !== null ? { threshold: settings.threshold } : {}),
    ...(settings.reserveTokens !== null ? { reserveTokens: settings.reserveTokens } : {}),
    ...(settings.policy !== null ? { policy: settings.policy } : {}),
    ...(settings.floor !== null ? { floor: settings.floor } : {}),
  });
  // The cost policy decides with what the session carried since its last compaction (`cache-state`).
  const cacheState = cacheStateOf(session);
  const decision = shouldCompact(
    { model, tokens: estimate },
    {
      ...options(engineWindow),
      ...(cacheState !== undefined ? { cacheState } : {}),
      ...(cacheLastReadAt !== undefined ? { cacheLastReadAt } : {}),
    },
  );
  const withoutOverhead = Math.max(1, room);
  const real = (engineTokens: number) => Math.round((engineTokens + pinnedTokens) * ratio);
  return {
    model,
    calibrationRatio: ratio,
    pinned,
    pinnedTokens,
    overheadTokens,
    ...(overheadTokens > 0
      ? {
          overhead: {
            targetWithout: resolveOptions(model, options(withoutOverhead)).target,
            regrowthTokens: Math.floor(withoutOverhead / 4),
          },
        }
      : {}),
    engineWindow,
    engineTokens: estimate,
    engineTrigger: Math.min(decision.budget, decision.triggerTokens),
    engineTarget: resolveOptions(model, options(engineWindow)).target,
    engineBudget: decision.budget,
    overheadFillsWindow: overheadTokens > 0 && room - overheadTokens <= 0,
    compactionDue: decision.compact,
    ...(cacheLastReadAt !== undefined ? { cacheLastReadAt } : {}),
    tokens: real(estimate),
    contextWindow,
    triggerTokens: real(decision.triggerTokens),
    budget: real(decision.budget),
    warningLevel: decision.warningLevel,
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

/** How many of `messages`, from the first on, are in `stable`. */
export function stableCount(
  messages: readonly ChatMessage[],
  stable: ReadonlySet<ChatMessage>,
): number {
  const first = messages.findIndex((message) => !stable.has(message));
  return first === -1 ? messages.length : first;
}

/** The context of `snapshot` as the Worker renders it. */
export function contextData(
  sessionId: string,
  settings: SessionSettings,
  snapshot: Snapshot,
  measure: ContextMeasure,
  compaction: ContextData["compaction"],
): ContextData {
  const viewMessages = snapshot.seqs.filter((seq) => seq === null).length;
  const messages = sendableMessages(withPinned(snapshot.messages, measure.pinned)).messages;
  // The view's and the pinned messages: the prefix that stays the same until the next compaction
  // (`sendableMessages` passes unchanged messages through as the same objects).
  const stable = new Set<ChatMessage>([
    ...measure.pinned,
    ...snapshot.messages.filter((_, index) => snapshot.seqs[index] === null),
  ]);
  return {
    sessionId,
    defaultFormat: defaultFormatOf(settings),
    // As the provider takes it (core `sendableMessages`): the transcript keeps every message as
    // appended, but empty turns are left out and interrupted tool calls answered (a late result
    // placed with its call), so the context is valid whatever the agent appended meanwhile.
    messages,
    stablePrefix: viewMessages > 0 ? stableCount(messages, stable) : 0,
    ...(snapshot.openaiItems !== undefined
      ? {
          responsesItems: snapshot.openaiItems,
          rest: sendableMessages([...measure.pinned, ...snapshot.tail]).messages,
        }
      : {}),
    tokens: measure.tokens,
    contextWindow: measure.contextWindow,
    budget: measure.budget,
    warningLevel: measure.warningLevel,
    summary: snapshot.view?.summary ?? null,
    coveredSeq: snapshot.coveredSeq,
    lastSeq: snapshot.lastSeq,
    compaction,
  };
}
