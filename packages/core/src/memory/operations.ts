/**
 * @module memory/operations
 * What a flush hands back and the checks every proposed memory operation
 * passes, whoever proposed it (the LLM flush's tool calls, the deterministic
 * pass): a known op, a known kind, text within its limit and free of secrets,
 * ids the user's memory holds, no duplicate of an entry or of an earlier
 * operation. A proposal that fails is reported as skipped, never thrown: a
 * model's bad call must not cost the good ones next to it.
 */

import type { ChatMessage } from "../messages/types.js";
import { containsSecret } from "../summary/redact.js";
import { MEMORY_KINDS, type MemoryEntry, type MemoryKind, type MemoryOperation } from "./types.js";

/** Longest memory text, in characters (the store's own limit). */
export const MEMORY_TEXT_MAX_CHARS = 2_000;
/** Most operations one flush may hand back; later proposals are skipped. */
export const MAX_FLUSH_OPERATIONS = 20;

/** A proposal that was not turned into an operation, and why (for logs and tests, never for the model's context). */
export interface SkippedOperation {
  /** Its position among the proposals (the answer's tool calls, or the statements found). */
  index: number;
  reason: string;
}

/** What a flush hands back: the operations to apply to the user's memory, and what it left out. */
export interface FlushResult {
  operations: MemoryOperation[];
  skipped: SkippedOperation[];
}

/** The range a flush reads and the memory it updates. */
export interface FlushRequest {
  /** The messages being compacted, canonical (Chat Completions), oldest first. */
  messages: readonly ChatMessage[];
  /** Per message, its transcript seq (null where it has none): an operation's `sourceSeq`. */
  seqs?: readonly (number | null)[];
  /** The user's memories as they stand. */
  memories: readonly MemoryEntry[];
  signal?: AbortSignal;
}

/** Text compared for duplicates: case, spacing and trailing punctuation do not count. */
export function normalizeMemoryText(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/[\s.!;,]+$/, "")
    .trim();
}

export function isMemoryKind(value: unknown): value is MemoryKind {
  return typeof value === "string" && (MEMORY_KINDS as readonly string[]).includes(value);
}

type Checked = { operation: MemoryOperation } | { reason: string };

/**
 * Checks proposals against the memory they change, in order, keeping track of
 * what the earlier accepted ones did (an id removed cannot be replaced after,
 * a text added cannot be added twice).
 */
export class OperationChecker {
  private readonly ids: Set<string>;
  private readonly texts: Set<string>;
  private readonly seqs: ReadonlySet<number> | undefined;
  private readonly result: FlushResult = { operations: [], skipped: [] };

  constructor(memories: readonly MemoryEntry[], rangeSeqs?: readonly (number | null)[]) {
    this.ids = new Set(memories.map((memory) => memory.id));
    this.texts = new Set(memories.map((memory) => normalizeMemoryText(memory.text)));
    const seqs = (rangeSeqs ?? []).filter((seq): seq is number => seq !== null);
    this.seqs = seqs.length > 0 ? new Set(seqs) : undefined;
  }

  /** Records the proposal at `index` as an operation or as skipped. */
  offer(index: number, proposal: unknown): void {
    if (this.result.operations.length >= MAX_FLUSH_OPERATIONS) {
      this.skip(index, `more than ${MAX_FLUSH_OPERATIONS} operations in one flush`);
      return;
    }
    const checked = this.check(proposal);
    if ("reason" in checked) {
      this.skip(index, checked.reason);
      return;
    }
    const { operation } = checked;
    if (operation.op === "remove") this.ids.delete(operation.id);
    else this.texts.add(normalizeMemoryText(operation.text));
    this.result.operations.push(operation);
  }

  skip(index: number, reason: string): void {
    this.result.skipped.push({ index, reason });
  }

  done(): FlushResult {
    return { operations: [...this.result.operations], skipped: [...this.result.skipped] };
  }

  private check(proposal: unknown): Checked {
    if (typeof proposal !== "object" || proposal === null || Array.isArray(proposal))
      return { reason: "arguments are not an object" };
    const fields = proposal as Record<string, unknown>;
    const op = fields.op;
    if (op !== "add" && op !== "replace" && op !== "remove")
      return { reason: `unknown op ${JSON.stringify(op)}; expected add, replace or remove` };
    if (op === "remove") {
      const id = this.knownId(fields.id);
      return typeof id === "string" ? { operation: { op, id } } : id;
    }
    const text = this.text(fields.text);
    if (typeof text !== "string") return text;
    if (fields.kind !== undefined && fields.kind !== null && !isMemoryKind(fields.kind))
      return { reason: `kind must be one of ${MEMORY_KINDS.join(", ")}` };
    const kind = isMemoryKind(fields.kind) ? fields.kind : undefined;
    const sourceSeq = this.sourceSeq(fields.sourceSeq);
    if (sourceSeq === null) return { reason: "sourceSeq must be a non-negative integer" };
    const source = sourceSeq === undefined ? {} : { sourceSeq };
    if (op === "add") {
      if (kind === undefined) return { reason: `add needs a kind (${MEMORY_KINDS.join(", ")})` };
      return { operation: { op, text, kind, ...source } };
    }
    const id = this.knownId(fields.id);
    if (typeof id !== "string") return id;
    return { operation: { op, id, text, ...(kind === undefined ? {} : { kind }), ...source } };
  }

  private knownId(value: unknown): string | { reason: string } {
    if (typeof value !== "string" || value === "") return { reason: "id is missing" };
    return this.ids.has(value)
      ? value
      : { reason: `no memory has id ${JSON.stringify(value.slice(0, 64))}` };
  }

  private text(value: unknown): string | { reason: string } {
    if (typeof value !== "string" || value.trim() === "") return { reason: "text is missing" };
    const text = value.trim();
    if (text.length > MEMORY_TEXT_MAX_CHARS)
      return { reason: `text is longer than ${MEMORY_TEXT_MAX_CHARS} characters` };
    if (containsSecret(text)) return { reason: "text holds a secret" };
    if (this.texts.has(normalizeMemoryText(text)))
      return { reason: "the memory already holds this text" };
    return text;
  }

  /** The seq, undefined (none, or not one of the range's: the model guessed), or null (not a seq at all). */
  private sourceSeq(value: unknown): number | undefined | null {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) return null;
    if (this.seqs !== undefined && !this.seqs.has(value)) return undefined;
    return value;
  }
}
