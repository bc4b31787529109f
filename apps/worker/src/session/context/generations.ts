/**
 * @module session/context/generations
 * A session's generations. The transcript is append-only; when a gateway
 * request sends a history that does not extend the session's (the agent
 * rewound, edited or compacted it itself), its messages are appended as a new
 * generation, and the context is built from the current generation only.
 * Earlier generations stay in the transcript (`/transcript?generation=`).
 *
 * Starting a generation is a commit of an empty view that covers every seq
 * before it (so the context is the new generation's messages), with a new
 * epoch (a compaction of the previous generation still in flight is
 * discarded at its commit), no ledger, nothing pending, and the previous
 * generation's unanswered tool calls closed.
 */

import { type SessionRow, writeSession } from "../store/session-record";
import type { SessionScope } from "../store/session-scope";
import { commitView } from "../store/view-state";

export interface Generation {
  generation: number;
  /** Its first transcript seq. */
  firstSeq: number;
}

/** A generation with where it ends: `lastSeq` is null for the current one. */
export interface GenerationRange extends Generation {
  lastSeq: number | null;
  createdAt: number | null;
}

/** The current generation; a session without a row has one, from seq 1. */
export function currentGeneration(sql: SqlStorage): Generation {
  const row = sql
    .exec<{ generation: number; first_seq: number }>(
      "SELECT generation, first_seq FROM condense_generations ORDER BY generation DESC LIMIT 1",
    )
    .toArray()[0];
  return row === undefined
    ? { generation: 1, firstSeq: 1 }
    : { generation: row.generation, firstSeq: row.first_seq };
}

/** Generation `generation` and its seq range, or undefined when the session has none by that number. */
export function generationRange(sql: SqlStorage, generation: number): GenerationRange | undefined {
  const rows = sql
    .exec<{ generation: number; first_seq: number; created_at: number }>(
      "SELECT generation, first_seq, created_at FROM condense_generations WHERE generation IN (?, ?)",
      generation,
      generation + 1,
    )
    .toArray();
  const row = rows.find((candidate) => candidate.generation === generation);
  const next = rows.find((candidate) => candidate.generation === generation + 1);
  const lastSeq = next === undefined ? null : next.first_seq - 1;
  if (row === undefined) {
    // Generation 1 has no row until a second one starts.
    return generation === 1 ? { generation, firstSeq: 1, lastSeq, createdAt: null } : undefined;
  }
  return { generation, firstSeq: row.first_seq, lastSeq, createdAt: row.created_at };
}

/**
 * Starts a new generation after the last seq of `session`; run it inside the caller's transaction,
 * before the generation's messages are appended.
 */
export function startGeneration(scope: SessionScope, session: SessionRow, now: number): Generation {
  const { sql } = scope;
  const current = currentGeneration(sql);
  const next: Generation = {
    generation: current.generation + 1,
    firstSeq: session.messageCount + 1,
  };
  sql.exec(
    "INSERT OR IGNORE INTO condense_generations (generation, first_seq, created_at) VALUES (?, ?, ?)",
    current.generation,
    current.firstSeq,
    session.createdAt,
  );
  sql.exec(
    "INSERT INTO condense_generations (generation, first_seq, created_at) VALUES (?, ?, ?)",
    next.generation,
    next.firstSeq,
    now,
  );
  // Calls the previous generation left open are answered by nothing any more.
  sql.exec(
    "UPDATE condense_tool_outputs SET closed_by_generation = ? WHERE seq IS NULL AND closed_by_generation IS NULL",
    next.generation,
  );
  commitView(scope, {
    coveredSeq: session.messageCount,
    compactionId: 0,
    tokens: 0,
    summary: null,
    strategy: "local",
    entries: [],
  });
  writeSession(
    sql,
    `UPDATE condense_session SET epoch = ?, ledger = NULL, pending_trigger = NULL, exhausted_seq = NULL,
       served_tokens = NULL, served_seq = NULL, cache_excess_tokens = NULL,
       cache_compacted_tokens = NULL, cache_stable_tokens = NULL, memory_block = NULL,
       memory_block_compaction = NULL, updated_at = ? WHERE id = 1`,
    crypto.randomUUID(),
    now,
  );
  return next;
}
