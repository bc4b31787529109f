/**
 * @module session/compaction/memory-flush
 * The flush before compaction: when the session's `memory` setting is on, the
 * range a compaction folds in (the transcript after the committed view, up to
 * the folded seq: each message is flushed once) is read for what should
 * outlive the session, and the resulting operations go to the user's memory
 * through a `MemorySink`. With an LLM summarizer configured, one call to its
 * model with the `memory` tool (`@condense/core/openai`); without, or when
 * that call fails, the deterministic pass over the user's explicit statements.
 * Nothing here reaches the session's context; a flush that fails is logged
 * and reported, never thrown, so it cannot block or fail the compaction.
 */

import {
  deterministicFlush,
  type FlushRequest,
  type FlushResult,
  type MemoryEntry,
  type MemoryOperation,
  SummarizerError,
} from "@condense/core";
import { type CompactionLogBase, logLine } from "../../log/log-lines";
import { userStub } from "../../user/user-stub";
import type { SessionSettings } from "../store/settings";
import { memoryFlusherFor } from "../store/summarizer-config";
import type { CompactionSnapshot } from "./open-calls";

/**
 * Where a flush writes: the user's memory. The per-user Durable Object's RPC (`memories()`,
 * `applyMemoryOperations(ops, source)`) is the real one; tests use a fake.
 */
export interface MemorySink {
  memories(): Promise<MemoryEntry[]>;
  apply(ops: MemoryOperation[], source: { sessionId: string }): Promise<unknown>;
}

/** The sink of a user's memory, or undefined when the deployment has none. */
export type MemorySinkFactory = (env: Env, userId: string) => MemorySink | undefined;

/** No memory store wired: flushes are skipped. */
export const noMemorySink: MemorySinkFactory = () => undefined;

/**
 * Where a compaction's memory flush writes: the user's object, by RPC. The session object reaches
 * it with the user id stored in its own row, never with one a request names.
 */
export function userMemorySink(env: Env, userId: string): MemorySink {
  const stub = userStub(env, userId);
  return {
    memories: async () => stub.memories(),
    apply: async (ops, source) => stub.applyMemoryOperations(ops, source),
  };
}

/** What a flush did, for the compaction's log line and tests. */
export type FlushOutcome =
  | { status: "off" | "no_sink" | "empty" }
  | {
      status: "applied";
      mode: "llm" | "deterministic";
      operations: number;
      skipped: number;
      /** Set when the LLM flush failed and the deterministic pass ran instead. */
      llmFailure?: string;
    }
  | { status: "failed"; error: string };

export interface MemoryFlush {
  env: Env;
  settings: SessionSettings;
  snapshot: CompactionSnapshot;
  sessionId: string;
  userId: string;
  sinkFor: MemorySinkFactory;
  log: CompactionLogBase;
}

/** The range a compaction folds in that no earlier flush read: the transcript after the view. */
function flushRange(snapshot: CompactionSnapshot): Pick<FlushRequest, "messages" | "seqs"> {
  const messages = snapshot.messages.filter((_, index) => (snapshot.seqs[index] ?? null) !== null);
  const seqs = snapshot.seqs.filter((seq) => seq !== null);
  return { messages, seqs };
}

/** A failure as a log line may carry it: the summarizer failure's kind, else the error's class name. */
function describe(error: unknown): string {
  if (SummarizerError.isInstance(error)) return `summarizer_${error.kind}`;
  return error instanceof Error ? error.name : typeof error;
}

/** The LLM flush's operations, or the deterministic pass's with the reason the LLM could not be used. */
async function proposeOperations(
  flush: MemoryFlush,
  request: FlushRequest,
): Promise<{ result: FlushResult; mode: "llm" | "deterministic"; llmFailure?: string }> {
  const { env, settings } = flush;
  try {
    const flusher = memoryFlusherFor(env, settings.summarizerModel);
    if (flusher === undefined)
      return { result: deterministicFlush(request), mode: "deterministic" };
    return { result: await flusher.flush(request), mode: "llm" };
  } catch (error) {
    return {
      result: deterministicFlush(request),
      mode: "deterministic",
      llmFailure: describe(error),
    };
  }
}

/**
 * Runs the flush for one compaction, when `memory` is on and a sink exists. Never throws: the
 * outcome says what happened, and a `memory_flush` log line records it (counts only, no text).
 */
export async function flushMemory(flush: MemoryFlush): Promise<FlushOutcome> {
  // Strictly true: anything else stored under the name leaves the flush off.
  if (flush.settings.memory !== true) return { status: "off" };
  let outcome: FlushOutcome;
  try {
    const sink = flush.sinkFor(flush.env, flush.userId);
    if (sink === undefined) return { status: "no_sink" };
    const range = flushRange(flush.snapshot);
    if (range.messages.length === 0) return { status: "empty" };
    const memories = await sink.memories();
    const { result, mode, llmFailure } = await proposeOperations(flush, { ...range, memories });
    if (result.operations.length > 0)
      await sink.apply(result.operations, { sessionId: flush.sessionId });
    outcome = {
      status: "applied",
      mode,
      operations: result.operations.length,
      skipped: result.skipped.length,
      ...(llmFailure !== undefined ? { llmFailure } : {}),
    };
  } catch (error) {
    outcome = { status: "failed", error: describe(error) };
  }
  logLine({ type: "memory_flush", ...flush.log, ...outcome });
  return outcome;
}
