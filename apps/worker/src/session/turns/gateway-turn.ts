/**
 * @module session/turns/gateway-turn
 * The session's side of a gateway request. An agent sends its whole history
 * every turn; the Worker hashes each message (`messages/history-hash`) and sends
 * the hashes with only the messages it expects to be new. Here the hashes are
 * compared with those of the current generation:
 * - the history extends the generation: its new messages are appended;
 * - it does not (the agent rewound, edited or compacted it): a new generation
 *   starts with the request's messages;
 * - the messages needed were not sent: the answer says from where to send them.
 * Messages the append path would refuse (a result answering no call, an id
 * reused while its call is open) start a new generation instead; a history
 * refused even as a generation of its own is left unstored, and the Worker
 * forwards it statelessly. So is a side request: another thread sent with the
 * same session header (titles, command summaries, sub-agents), not a rewind
 * of the conversation the session follows (`session/turns/threads` chooses). Then
 * the model's answer is appended once its response is complete, unless the
 * session moved on meanwhile.
 */

import type { ChatMessage, ProviderUsage } from "@condense/core";
import { ApiError } from "../../api/errors";
import type { PendingMark } from "../compaction/pending";
import type { ContextData } from "../context/context-data";
import type { ContextMeasure } from "../context/context-measure";
import { currentGeneration, type Generation, startGeneration } from "../context/generations";
import { recordTurnUsage } from "../context/served-turns";
import { checkToolTraffic, type ToolTrafficProblem } from "../context/tool-outputs";
import {
  openSession,
  readSession,
  requireSession,
  type SessionKey,
  type SessionRow,
  saveOverhead,
  setExhaustedSeq,
} from "../store/session-record";
import { inTransaction, type SessionScope } from "../store/session-scope";
import { readSettings, writeSettings } from "../store/settings";
import { type Appended, type AppendInput, type AppendTarget, appendMessages } from "./append";
import type { GatewayContext, GatewayContextByReference } from "./gateway-context";
import { hashMissing, saveHashes, storedHashes } from "./message-hashes";
import { type PackedHashes, unpackHashes } from "./packed-hashes";
import { chooseThread } from "./threads";

export interface GatewayTurnInput {
  /** The canonical-content hash of every message of the request's history, in order (`packed-hashes`). */
  hashes: PackedHashes;
  /** The index in the history of `messages[0]`. */
  from: number;
  /** The history from `from` on, canonical. */
  messages: ChatMessage[];
  /** The request's model: the session's model from now on. */
  model?: string;
  /** A window the caller stated (`X-Condense-Context-Window`): the session's from now on. */
  contextWindow?: number;
  /**
   * Engine tokens the request sends beside its history that the provider counts as input (its tool
   * definitions: `gateway/plans/request-overhead`): the session keeps room for them from now on.
   */
  overheadTokens: number;
  /** How many system/developer messages open the history (`session/turns/threads`). */
  promptMessages: number;
  /** Whether the request may lead the session (`session/turns/threads`): it declares tools or holds an answer. */
  mayLead: boolean;
  /** Whether its prompt asks for a title (`session/turns/threads`): it never takes a session's conversation. */
  asksForTitle: boolean;
}

export type GatewayMatch =
  /** Send the history again from this index: the messages to append start before `from`. */
  | { kind: "need"; from: number }
  /**
   * Not stored: even as a generation of its own the history breaks the tool-call rules, or it is
   * another conversation than the one the session follows (a side request, `session/turns/threads`).
   */
  | {
      kind: "refused";
      reason: "tool-call-rules" | "other-conversation";
      problems: ToolTrafficProblem[];
    }
  | {
      kind: "matched";
      generation: Generation;
      newGeneration: boolean;
      /** Messages appended from the request. */
      appended: number;
      /** The session's last seq once they were: the generation is then the request's history. */
      lastSeq: number;
      pending: PendingMark | undefined;
      /** The committed context's measure the append took (none when nothing was appended). */
      measure?: ContextMeasure;
    };

/** Thrown inside the transaction to roll a new generation back. */
class Refused extends Error {
  constructor(readonly problems: ToolTrafficProblem[]) {
    super("refused");
  }
}

/** Appends `input` with the hashes of its messages (nothing when it holds none). */
function appendWithHashes(
  target: AppendTarget,
  key: SessionKey,
  input: AppendInput,
  hashes: readonly string[],
): Appended | undefined {
  if (input.messages.length === 0) return undefined;
  const appended = appendMessages(target, key, input);
  saveHashes(target.scope.open().sql, appended.answer.firstSeq, hashes);
  return appended;
}

/**
 * Matches the request's history with the session of `key` (created by its first request) and appends
 * what is new, in one transaction; messages of the generation without a hash yet (appended through
 * `/messages`, or before hashes were kept) are hashed first.
 */
export function matchAndAppend(
  target: AppendTarget,
  key: SessionKey,
  input: GatewayTurnInput,
): GatewayMatch {
  const { scope } = target;
  try {
    const hashes = unpackHashes(input.hashes);
    return inTransaction(scope, (sql): GatewayMatch => {
      const session = readSession(sql);
      if (session !== undefined) requireSession(sql, key);
      const lastSeq = session?.messageCount ?? 0;
      let generation = currentGeneration(sql);
      const stored = generationHashes(scope, generation.firstSeq, lastSeq);
      const extendsSession = extendsHashes(stored, hashes);
      const side =
        !extendsSession &&
        stored.length > 0 &&
        chooseThread(
          sql,
          { firstSeq: generation.firstSeq, lastSeq, hashes: stored },
          { ...input, hashes },
        ) === "side-request";
      if (side) return { kind: "refused", reason: "other-conversation", problems: [] };
      let start = extendsSession ? stored.length : 0;
      if (start < input.from) return { kind: "need", from: start };
      const model = input.model !== undefined ? { model: input.model } : {};
      let fresh = input.messages.slice(start - input.from);
      let newGeneration = false;
      if (extendsSession) {
        const problems = checkToolTraffic(sql, fresh, lastSeq);
        // Refused after an empty generation: the history itself breaks the rules.
        if (problems.length > 0 && stored.length === 0) {
          return { kind: "refused", reason: "tool-call-rules", problems };
        }
        if (problems.length > 0) {
          // Refused after what is stored: the history starts a generation of its own.
          if (input.from > 0) return { kind: "need", from: 0 };
          start = 0;
          fresh = input.messages;
        }
      }
      if (start === 0 && session !== undefined && stored.length > 0) {
        generation = startGeneration(scope, session, scope.now());
        newGeneration = true;
        const problems = checkToolTraffic(sql, fresh, lastSeq);
        if (problems.length > 0) throw new Refused(problems);
      }
      if (
        input.contextWindow !== undefined &&
        readSettings(sql).contextWindow !== input.contextWindow
      ) {
        writeSettings(sql, { contextWindow: input.contextWindow });
        setExhaustedSeq(sql, null);
      }
      // The room the context has changes with the overhead as with the window. Written before the
      // append (which opens the session just the same), whose trigger then counts with it.
      if (fresh.length > 0 || session !== undefined) {
        const opened = openSession(sql, key, scope.now());
        if (opened.overheadTokens !== input.overheadTokens) {
          saveOverhead(sql, input.overheadTokens);
          setExhaustedSeq(sql, null);
        }
      }
      const appended = appendWithHashes(
        target,
        key,
        { messages: fresh, ...model },
        hashes.slice(start),
      );
      return {
        kind: "matched",
        generation,
        newGeneration,
        appended: fresh.length,
        lastSeq: appended?.answer.lastSeq ?? lastSeq,
        pending: appended?.pending,
        // Nothing the measure read is written after the append (its hashes are not).
        ...(appended?.measure !== undefined ? { measure: appended.measure } : {}),
      };
    });
  } catch (error) {
    if (error instanceof Refused) {
      return { kind: "refused", reason: "tool-call-rules", problems: error.problems };
    }
    throw error;
  }
}

/**
 * Where the request's history stands against the session, read only (a preview: `count_tokens`,
 * `/responses/compact`): the current generation and its last seq when the history extends it (its
 * messages after that are what a turn would append), else undefined (a turn would start a
 * generation, or keep it as a side request). Messages of the generation without a hash yet are
 * hashed first, as a turn hashes them.
 */
export function extendedGeneration(
  scope: SessionScope,
  session: SessionRow,
  hashes: readonly string[],
): { generation: number; lastSeq: number } | undefined {
  const { sql } = scope;
  const lastSeq = session.messageCount;
  const generation = currentGeneration(sql);
  const stored = generationHashes(scope, generation.firstSeq, lastSeq);
  return extendsHashes(stored, hashes) ? { generation: generation.generation, lastSeq } : undefined;
}

/** The hashes of the generation's messages from `firstSeq` to `lastSeq`, those missing hashed first. */
function generationHashes(scope: SessionScope, firstSeq: number, lastSeq: number): string[] {
  const stored = storedHashes(scope.sql, firstSeq, lastSeq);
  if (stored.length >= lastSeq - firstSeq + 1) return stored;
  hashMissing(scope, firstSeq);
  return storedHashes(scope.sql, firstSeq, lastSeq);
}

/** Whether a request's history (its messages' hashes) starts with every stored message. */
function extendsHashes(stored: readonly string[], hashes: readonly string[]): boolean {
  return hashes.length >= stored.length && stored.every((hash, index) => hash === hashes[index]);
}

/**
 * What the object answers a gateway turn's overflow: the turn's context once compacted, or
 * `moved-on` (the session is no longer the request's history) with the window to fit it in.
 */
export type GatewayOverflowResult =
  | ({ kind: "context"; compactionTier: number | null } & GatewayContext)
  | { kind: "moved-on"; compactionTier: number | null; contextWindow: number };

/** What the object answers a gateway turn: the context to forward, or what the Worker must do instead. */
export type GatewayTurnResult =
  | Exclude<GatewayMatch, { kind: "matched" }>
  | {
      kind: "context";
      generation: number;
      newGeneration: boolean;
      appended: number;
      /**
       * The tier of the compaction this context comes from, when no context served before came from
       * it (one ran in this turn, or in the background since the last), else null.
       */
      compactionTier: number | null;
      /** Context tokens (calibrated, pinned included) and the session's last seq. */
      tokens: number;
      lastSeq: number;
      /** By reference to the request's history, or whole when the session moved on meanwhile. */
      context: { byReference: GatewayContextByReference } | { whole: ContextData };
      /** The session's setting `recall`: the gateway adds the recall tool and answers its calls. */
      recall: boolean;
      /**
       * The session's setting `cachedSummaries`: after the answer, the gateway offers a compaction
       * that is due its channel to the upstream (`gateway/plans/cached-summary`).
       */
      cachedSummaries: boolean;
      /**
       * With the session's setting `cacheDiagnostics` on, the id the request names as Anthropic's
       * `diagnostics.previous_message_id` (null: the first opted-in turn); null when off.
       */
      cacheDiagnostics: { previousMessageId: string | null } | null;
    };

export interface GatewayAnswerInput {
  /** The generation and last seq the turn left: the answer follows them, or is not stored. */
  generation: number;
  afterSeq: number;
  /** The answer, canonical (one message, or a few for a Responses output), and their hashes. */
  messages: ChatMessage[];
  hashes: string[];
  model?: string;
  /** The provider's count of the prompt it answered, with its cached tokens. */
  usage?: ProviderUsage;
  /** The provider's id of the answer, when its request opted in to cache diagnostics. */
  answerId?: string;
}

export type GatewayAnswerResult =
  | { appended: true; firstSeq: number; lastSeq: number; pending: PendingMark | undefined }
  | { appended: false; reason: string };

/**
 * Appends the model's answer after the turn that asked for it, unless the session moved on (a later
 * request already carried the answer in its history, or another generation started): then nothing.
 * Never throws an API error: an answer the append path refuses is not stored and says why.
 */
export function appendAnswer(
  target: AppendTarget,
  key: SessionKey,
  input: GatewayAnswerInput,
): GatewayAnswerResult {
  try {
    return inTransaction(target.scope, (sql): GatewayAnswerResult => {
      const session = readSession(sql);
      if (session === undefined) return { appended: false, reason: "the session is gone" };
      requireSession(sql, key);
      // The bill counts the answer's usage whether the answer is stored or not.
      if (input.usage !== undefined) {
        recordTurnUsage(
          sql,
          { generation: input.generation, lastSeq: input.afterSeq },
          input.usage,
          input.answerId,
        );
      }
      if (currentGeneration(sql).generation !== input.generation) {
        return { appended: false, reason: "another generation started" };
      }
      if (session.messageCount !== input.afterSeq) {
        return { appended: false, reason: "the session moved on" };
      }
      const appended = appendWithHashes(
        target,
        key,
        {
          messages: input.messages,
          ...(input.model !== undefined ? { model: input.model } : {}),
          ...(input.usage !== undefined ? { usage: input.usage } : {}),
        },
        input.hashes,
      );
      if (appended === undefined) return { appended: false, reason: "the answer is empty" };
      return {
        appended: true,
        firstSeq: appended.answer.firstSeq,
        lastSeq: appended.answer.lastSeq,
        pending: appended.pending,
      };
    });
  } catch (error) {
    if (error instanceof ApiError) return { appended: false, reason: error.message };
    throw error;
  }
}
