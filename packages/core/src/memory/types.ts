/**
 * @module memory/types
 * The vocabulary of a user's long-term memory, shared by the engine (the
 * flush that proposes changes before a compaction), the service (the per-user
 * store that applies them) and the client: what an entry is, its kinds, and
 * the operations a flush may ask for. Memory text comes from model output or
 * from what a user said, so whoever renders it fences it as data.
 */

/** What an entry records: a fact about the user or their work, a preference, a constraint, a decision. */
export type MemoryKind = "fact" | "preference" | "constraint" | "decision";

export const MEMORY_KINDS: readonly MemoryKind[] = ["fact", "preference", "constraint", "decision"];

/** One entry of a user's memory, as stored and served. */
export interface MemoryEntry {
  /** Stable id assigned by the store (`mem_…`). */
  id: string;
  text: string;
  kind: MemoryKind;
  /** The session the entry came from; null when written through the API without one. */
  sourceSession: string | null;
  /** The transcript seq in that session the entry came from, when known. */
  sourceSeq: number | null;
  /** ISO 8601 times, as every time the service serves. */
  createdAt: string;
  updatedAt: string;
}

/**
 * A change a flush asks for. `replace` and `remove` name an existing entry by id; an id the store
 * does not hold makes that operation a no-op (reported, never an error for the others).
 */
export type MemoryOperation =
  | { op: "add"; text: string; kind: MemoryKind; sourceSeq?: number }
  | { op: "replace"; id: string; text: string; kind?: MemoryKind; sourceSeq?: number }
  | { op: "remove"; id: string };
