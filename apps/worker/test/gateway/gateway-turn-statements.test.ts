/**
 * What one gateway turn asks of its session's SQLite (issue 29: the object's work per turn): every
 * statement of the turn's RPC (`gatewayTurn`, its new messages appended and its context served) and
 * of its answer's (`gatewayAnswer`). The session's row is read once per RPC, not by every module that
 * needs a field of it, and the counters are written once per batch of messages, not once a message.
 */

import { runInDurableObject } from "cloudflare:test";
import { type ChatMessage, toCanonical } from "@condense/core";
import { describe, expect, it } from "vitest";
import { messageHashes } from "../../src/messages/history-hash";
import type { SessionObject } from "../../src/session/session-object";
import { packHashes } from "../../src/session/turns/packed-hashes";
import { requestThread } from "../../src/session/turns/threads";
import { freshSession, stubFor } from "../support/helpers";

/** Runs `work` with every statement of the session's own storage recorded, whitespace collapsed. */
async function recorded<T>(
  storage: DurableObjectStorage,
  work: () => Promise<T>,
): Promise<{ result: T; statements: string[] }> {
  const sql = storage.sql;
  const proto = Object.getPrototypeOf(sql) as { exec: SqlStorage["exec"] };
  const exec = proto.exec;
  const statements: string[] = [];
  proto.exec = function (this: SqlStorage, query: string, ...bindings: unknown[]) {
    if (this === sql) statements.push(query.replace(/\s+/g, " ").trim());
    return exec.call(this, query, ...bindings);
  } as SqlStorage["exec"];
  try {
    return { result: await work(), statements };
  } finally {
    proto.exec = exec;
  }
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 150));

function history(turns: number): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: "system", content: "You are a careful assistant." }];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: "user", content: `Question ${i}: what does step ${i} do?` });
    messages.push({ role: "assistant", content: `Step ${i} doubles its input.` });
  }
  return messages;
}

/** A read of the session's whole row (`readSession`). */
const SESSION_READ = /^SELECT user_id AS userId, .* FROM condense_session WHERE id = 1$/;
const COUNTERS = /^UPDATE condense_session SET message_count/;

/**
 * How many times the user's list was told of the session meanwhile (`list-reporter`: 50 ms after a
 * write in the tests, in a step of its own that reads the row too; under load it falls inside an
 * RPC's awaits). Each counts the compactions, which neither RPC does.
 */
const listReports = (statements: string[]) =>
  statements.filter((s) => s === "SELECT COUNT(*) AS n FROM condense_compactions").length;

/** The statements of a gateway turn appending 3 messages (a tool step), then of its answer's. */
async function turnAndAnswer(): Promise<{ turn: string[]; answer: string[] }> {
  const key = { userId: "alice", sessionId: freshSession("gw-statements") };
  const stub = stubFor("alice", key.sessionId);
  const input = async (messages: ChatMessage[], from: number) => {
    const canonical = toCanonical({ messages });
    return {
      hashes: packHashes(await messageHashes(canonical)),
      from,
      messages: canonical.slice(from),
      ...requestThread(canonical, { model: "gpt-4o", messages }),
      overheadTokens: 0,
      model: "gpt-4o",
      contextWindow: 128_000,
    };
  };
  const first = await input(history(20), 0);
  await runInDurableObject(stub, (object: SessionObject) => object.gatewayTurn(key, first));
  // The user's list learns of a write a while after it (`list-reporter`: 50 ms in the tests) and
  // reads the session then: not the turn's work, so it is let through before recording.
  await settled();

  // The next turn: a tool step and a user message after what is stored.
  const next = [
    ...history(20),
    { role: "user" as const, content: "Run the tests." },
    {
      role: "assistant" as const,
      content: null,
      tool_calls: [
        { id: "c1", type: "function" as const, function: { name: "run", arguments: "{}" } },
      ],
    },
    { role: "tool" as const, tool_call_id: "c1", content: "all green" },
  ];
  const turnInput = await input(next, 41);
  const turn = await runInDurableObject(stub, (object: SessionObject, state) =>
    recorded(state.storage, () => object.gatewayTurn(key, turnInput)),
  );
  if (!turn.result.ok || turn.result.value.kind !== "context") {
    throw new Error("the turn was not served");
  }
  expect(turn.result.value.appended).toBe(3);
  const { generation, lastSeq } = turn.result.value;
  const answer = toCanonical({ messages: [{ role: "assistant", content: "Done." }] });
  const answerHashes = await messageHashes(answer);
  await settled();
  const answered = await runInDurableObject(stub, (object: SessionObject, state) =>
    recorded(state.storage, () =>
      object.gatewayAnswer(key, {
        generation,
        afterSeq: lastSeq,
        messages: answer,
        hashes: answerHashes,
        model: "gpt-4o",
        usage: { inputTokens: 900, cacheReadTokens: 0, cacheWriteTokens: 0 },
      }),
    ),
  );
  expect(answered.result.ok && answered.result.value.appended).toBe(true);
  return { turn: turn.statements, answer: answered.statements };
}

describe("a gateway turn's statements", () => {
  it("write the session's counters once per batch of messages", async () => {
    const { turn, answer } = await turnAndAnswer();
    expect(turn.filter((s) => COUNTERS.test(s))).toHaveLength(1);
    expect(answer.filter((s) => COUNTERS.test(s))).toHaveLength(1);
  });

  it("read the session's row once per RPC", async () => {
    const { turn, answer } = await turnAndAnswer();
    for (const statements of [turn, answer]) {
      const reads = statements.filter((s) => SESSION_READ.test(s)).length;
      expect(reads, statements.join("\n")).toBe(1 + listReports(statements));
    }
  });
});
