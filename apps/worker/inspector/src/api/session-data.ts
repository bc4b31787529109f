/**
 * @module api/session-data
 * The reads a session's views share: the whole transcript (page by page),
 * and the context, which is read only when that has no side effect. `GET
 * /context` runs a compaction when the context is over window − reserve; the
 * inspector looks and never changes a session, so it leaves the context
 * unread then and says why; and it reads with `peek`, so its look is no
 * model request in the session's bill.
 */

import { CondenseApiError, type SessionHandle } from "@condense/client";
import type { ContextResponse, SessionStatus, TranscriptEntry } from "./types.ts";

/** The API's largest transcript page. */
const TRANSCRIPT_PAGE = 1_000;

export interface WholeTranscript {
  entries: TranscriptEntry[];
  /** False when the read stopped at `maxMessages`. */
  complete: boolean;
}

export async function readTranscript(
  session: SessionHandle,
  maxMessages = 20_000,
): Promise<WholeTranscript> {
  const entries: TranscriptEntry[] = [];
  let after = 0;
  for (;;) {
    const page = await session.transcript({ after, limit: TRANSCRIPT_PAGE });
    entries.push(...page.messages);
    if (page.nextAfter === null) return { entries, complete: true };
    if (entries.length >= maxMessages || page.nextAfter <= after)
      return { entries, complete: false };
    after = page.nextAfter;
  }
}

export type QuietContext = { context: ContextResponse } | { context: null; reason: string };

export async function readContextQuietly(
  session: SessionHandle,
  status: SessionStatus,
): Promise<QuietContext> {
  if (status.warningLevel !== "none") {
    return {
      context: null,
      reason:
        "the context is over window − reserve, and reading it would run a compaction; the inspector only looks, so it shows this once the session has compacted",
    };
  }
  try {
    return { context: await session.context({ format: "openai", peek: true }) };
  } catch (error) {
    if (CondenseApiError.isInstance(error) && error.code === "format_not_available") {
      return {
        context: null,
        reason:
          "this session's context holds OpenAI compaction items (strategy: openai), which have no readable parts",
      };
    }
    throw error;
  }
}
