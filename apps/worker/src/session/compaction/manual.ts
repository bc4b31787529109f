/**
 * @module session/compaction/manual
 * `POST /v1/sessions/{id}/compact`: a compaction the caller asks for, even
 * below the trigger, with optional instructions and focus for the summarizer.
 * With an `Idempotency-Key`, its answer is kept in the transaction that
 * commits the compaction, so a retry after an eviction right after the commit
 * replays it instead of compacting again; a retry that arrives while the
 * first attempt is still running joins it (the attempts in flight live in
 * memory, by key).
 */

import type { IdempotencyInput } from "../../api/idempotency-key";
import type { ManualCompactResponseBody } from "../../api/schemas";
import { measureCommitted } from "../context/context-measure";
import { inflightKey, remember, replay } from "../store/idempotency";
import { notFound, requireSession, type SessionCall } from "../store/session-record";
import type { SessionScope } from "../store/session-scope";
import { readSettings } from "../store/settings";
import type { RunResult } from "./run";
import type { CompactionScheduler } from "./scheduler";

export interface ManualCompactInput {
  instructions?: string;
  focus?: string;
  idempotency?: IdempotencyInput;
}

export class ManualCompactions {
  /** Manual compactions in flight by idempotency key, so a retry joins the first attempt. */
  readonly #inflight = new Map<string, Promise<ManualCompactResponseBody>>();

  constructor(
    private readonly scope: SessionScope,
    private readonly scheduler: CompactionScheduler,
  ) {}

  async compact(call: SessionCall, input: ManualCompactInput): Promise<ManualCompactResponseBody> {
    const sql = this.scope.open().sql;
    requireSession(sql, call);
    const replayed = replay<ManualCompactResponseBody>(
      sql,
      "compact",
      input.idempotency,
      this.scope.now(),
    );
    if (replayed !== undefined) return replayed;
    const joinKey = input.idempotency ? inflightKey(input.idempotency) : undefined;
    const joined = joinKey !== undefined ? this.#inflight.get(joinKey) : undefined;
    if (joined !== undefined) return joined;

    const run = this.#run(call, input);
    if (joinKey === undefined) return run;
    this.#inflight.set(joinKey, run);
    try {
      return await run;
    } finally {
      this.#inflight.delete(joinKey);
    }
  }

  async #run(call: SessionCall, input: ManualCompactInput): Promise<ManualCompactResponseBody> {
    let committed: ManualCompactResponseBody | undefined;
    const result = await this.scheduler.run("manual", {
      requestId: call.requestId,
      force: true,
      // The caller waits for an answer: a configured compaction that throws falls back at once.
      onFailure: "fallback",
      ...(input.instructions !== undefined ? { instructions: input.instructions } : {}),
      ...(input.focus !== undefined ? { focus: input.focus } : {}),
      // The answer is kept in the commit's transaction: a retry after an eviction right after the
      // commit replays it instead of compacting again.
      onCommit: (outcome) => {
        committed = this.#answer(call, input, outcome);
      },
    });
    if (result.status === "gone" || result.status === "discarded") throw notFound(call.sessionId);
    // Nothing was committed (an empty context): there is nothing a retry could do twice.
    return committed ?? this.#answer(call, input, result);
  }

  /** The answer to the caller, kept for a retry with the same key. */
  #answer(
    call: SessionCall,
    input: ManualCompactInput,
    result: RunResult,
  ): ManualCompactResponseBody {
    const sql = this.scope.open().sql;
    const session = requireSession(sql, call);
    const measure = measureCommitted(this.scope, session, readSettings(sql));
    const response: ManualCompactResponseBody = {
      sessionId: call.sessionId,
      compacted: result.status === "committed",
      ...(result.reason !== undefined ? { reason: result.reason } : {}),
      event: result.event ?? null,
      tokens: measure.tokens,
      warningLevel: measure.warningLevel,
    };
    remember(sql, "compact", input.idempotency, response, this.scope.now());
    return response;
  }
}
