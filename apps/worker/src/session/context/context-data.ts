/**
 * @module session/context/context-data
 * The context as the object hands it to the Worker (`GET /context`, the
 * gateway, an overflow's retry): the messages with the pinned ones inserted,
 * the prefix that stays the same until the next compaction, and its figures.
 */

import {
  type ChatMessage,
  extractSummary,
  type MessageFormat,
  sendableMessages,
  type WarningLevel,
} from "@condense/core";
import type { SessionRow } from "../store/session-record";
import type { SessionSettings } from "../store/settings";
import { defaultFormatOf } from "./context-formats";
import type { ContextMeasure } from "./context-measure";
import type { Snapshot } from "./snapshot";

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

/** The session's background compaction: running (`running`: the object's queue holds one), scheduled, or none. */
export function compactionStatus(session: SessionRow, running: boolean): CompactionStatus {
  if (running) return "running";
  return session.pendingTrigger !== null ? "scheduled" : "none";
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

/**
 * The index of the message holding the view's summary (`summary`, the text the session stored)
 * among the first `within` of `messages`, or -1: the first non-tool message whose summary block
 * holds exactly that text, as the engine recognises its summary by its anchor
 * (core `compact/summary-anchor`). The block's opening proves nothing: any text can start with it.
 */
export function summaryIndex(
  messages: readonly ChatMessage[],
  summary: string | null,
  within = messages.length,
): number {
  if (summary === null) return -1;
  const end = Math.min(within, messages.length);
  for (let index = 0; index < end; index++) {
    const message = messages[index];
    if (message === undefined || message.role === "tool") continue;
    if (extractSummary(message)?.summary === summary) return index;
  }
  return -1;
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
