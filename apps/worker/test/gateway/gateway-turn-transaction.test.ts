/**
 * A gateway turn writes its session in one transaction: the append of the
 * request's new messages and the record of the context served for them
 * (`saveServed`, `recordServedTurn`, `takeServedCompaction`) commit together,
 * with no await between them. Split in two, a turn costs a second commit, and
 * a failure or an interleaved request between the two leaves an append whose
 * served context was never recorded.
 */

import { runInDurableObject } from "cloudflare:test";
import { type ChatMessage, toCanonical } from "@condense/core";
import { describe, expect, it } from "vitest";
import { messageHashes } from "../../src/messages/history-hash";
import type { SessionObject } from "../../src/session/session-object";
import { packHashes } from "../../src/session/turns/packed-hashes";
import { requestThread } from "../../src/session/turns/threads";
import { freshSession, stubFor } from "../support/helpers";

const WRITE = /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i;

/** What the turn did to the session's storage: writes outside any transaction, outermost transactions. */
interface Writes {
  outside: string[];
  transactions: number;
}

/**
 * Runs `turn` with the session's `sql.exec` and `transactionSync` watched (the session's own storage
 * only: other objects of the isolate, such as the user's, are not counted).
 */
async function watched<T>(
  storage: DurableObjectStorage,
  turn: () => Promise<T>,
): Promise<{ result: T; writes: Writes }> {
  const sql = storage.sql;
  const sqlProto = Object.getPrototypeOf(sql) as { exec: SqlStorage["exec"] };
  const storageProto = Object.getPrototypeOf(storage) as {
    transactionSync: DurableObjectStorage["transactionSync"];
  };
  const exec = sqlProto.exec;
  const transactionSync = storageProto.transactionSync;
  const writes: Writes = { outside: [], transactions: 0 };
  let depth = 0;
  sqlProto.exec = function (this: SqlStorage, query: string, ...bindings: unknown[]) {
    if (this === sql && depth === 0 && WRITE.test(query)) writes.outside.push(query.trim());
    return exec.call(this, query, ...bindings);
  } as SqlStorage["exec"];
  storageProto.transactionSync = function <R>(this: DurableObjectStorage, work: () => R): R {
    if (this !== storage) return transactionSync.call(this, work) as R;
    if (depth === 0) writes.transactions++;
    depth++;
    try {
      return transactionSync.call(this, work) as R;
    } finally {
      depth--;
    }
  } as DurableObjectStorage["transactionSync"];
  try {
    return { result: await turn(), writes };
  } finally {
    sqlProto.exec = exec;
    storageProto.transactionSync = transactionSync;
  }
}

function history(turns: number): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: "system", content: "You are a careful assistant." }];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: "user", content: `Question ${i}: what does step ${i} do?` });
    if (i < turns - 1)
      messages.push({ role: "assistant", content: `Step ${i} doubles its input.` });
  }
  return messages;
}

/** The session's served seq, message count and the last seqs of its recorded turns. */
function servedState(storage: DurableObjectStorage) {
  const session = storage.sql
    .exec<{ servedSeq: number | null; messageCount: number }>(
      "SELECT served_seq AS servedSeq, message_count AS messageCount FROM condense_session WHERE id = 1",
    )
    .toArray()[0];
  const turns = storage.sql
    .exec<{ lastSeq: number }>("SELECT last_seq AS lastSeq FROM condense_turns ORDER BY id")
    .toArray()
    .map((row) => row.lastSeq);
  return { ...session, turns };
}

/** Runs `turn` with every write of the session's served turns (`condense_turns`) failing. */
async function turnsFailing<T>(storage: DurableObjectStorage, turn: () => Promise<T>): Promise<T> {
  const sql = storage.sql;
  const sqlProto = Object.getPrototypeOf(sql) as { exec: SqlStorage["exec"] };
  const exec = sqlProto.exec;
  sqlProto.exec = function (this: SqlStorage, query: string, ...bindings: unknown[]) {
    if (this === sql && /^\s*(INSERT INTO|UPDATE) condense_turns\b/.test(query)) {
      throw new Error("disk full (test)");
    }
    return exec.call(this, query, ...bindings);
  } as SqlStorage["exec"];
  try {
    return await turn();
  } finally {
    sqlProto.exec = exec;
  }
}

describe("a gateway turn's writes", () => {
  it("commit in one transaction: the append and the served context's record, nothing outside it", async () => {
    const key = { userId: "alice", sessionId: freshSession("gw-one-tx") };
    const stub = stubFor("alice", key.sessionId);
    const turn = async (messages: ChatMessage[]) => {
      const canonical = toCanonical({ messages });
      const hashes = await messageHashes(canonical);
      return runInDurableObject(stub, (object: SessionObject, state) =>
        watched(state.storage, () =>
          object.gatewayTurn(key, {
            hashes: packHashes(hashes),
            from: 0,
            messages: canonical,
            ...requestThread(canonical, { model: "gpt-4o", messages }),
            overheadTokens: 0,
            model: "gpt-4o",
          }),
        ),
      );
    };
    // The first turn creates the session (its schema is migrated on the way).
    const first = await turn(history(1));
    expect(first.result.ok && first.result.value.kind).toBe("context");

    const second = await turn(history(2));
    if (!second.result.ok || second.result.value.kind !== "context") {
      throw new Error("the second turn was not served");
    }
    expect(second.result.value.appended).toBe(2);
    expect(second.writes.outside).toEqual([]);
    expect(second.writes.transactions).toBe(1);

    // The context served was recorded with the append: the session's served seq is the turn's.
    const served = await runInDurableObject(stub, (_object: SessionObject, state) =>
      state.storage.sql
        .exec<{ served_seq: number | null; message_count: number }>(
          "SELECT served_seq, message_count FROM condense_session WHERE id = 1",
        )
        .toArray(),
    );
    expect(served).toEqual([{ served_seq: 4, message_count: 4 }]);
  });

  it("keep the append and record no served context when serving it fails", async () => {
    const key = { userId: "alice", sessionId: freshSession("gw-serve-fails") };
    const stub = stubFor("alice", key.sessionId);
    const input = async (messages: ChatMessage[]) => {
      const canonical = toCanonical({ messages });
      return {
        hashes: packHashes(await messageHashes(canonical)),
        from: 0,
        messages: canonical,
        ...requestThread(canonical, { model: "gpt-4o", messages }),
        overheadTokens: 0,
        model: "gpt-4o",
      };
    };
    const first = await input(history(1));
    await runInDurableObject(stub, (object: SessionObject) => object.gatewayTurn(key, first));
    const second = await input(history(2));
    const failed = await runInDurableObject(stub, (object: SessionObject, state) =>
      turnsFailing(state.storage, () => object.gatewayTurn(key, second)).then(
        () => "served",
        (error: unknown) => String(error),
      ),
    );
    expect(failed).toContain("disk full (test)");
    const after = await runInDurableObject(stub, (_object: SessionObject, state) =>
      servedState(state.storage),
    );
    // The request's messages are kept; the context that was not served is not recorded as served.
    expect(after).toEqual({ messageCount: 4, servedSeq: 2, turns: [2] });
  });
});
