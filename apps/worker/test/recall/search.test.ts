/**
 * Recall (`GET /v1/sessions/{id}/search`): every message of the transcript is
 * searchable, compacted or pruned away or not, best matches first; FTS5
 * syntax in a query is searched as text and never a 500; one user never
 * reaches another's session; sessions from before the index are backfilled;
 * retries index nothing twice.
 */

import { runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ContextResponseBody, SearchResponseBody } from "../../src/api/schemas";
import { indexToolCalls } from "../../src/session/context/tool-outputs";
import { matchExpressions, searchSession } from "../../src/session/recall/search";
import {
  backfillStep,
  indexMessage,
  isBackfillComplete,
  PIECES_PER_SEQ,
} from "../../src/session/recall/search-index";
import { MessageStore } from "../../src/session/store/message-store";
import { migrate } from "../../src/session/store/schema";
import { sessionScope } from "../../src/session/store/session-scope";
import {
  append,
  call,
  conversation,
  createSmallSession,
  freshSession,
  llmSession,
  type Message,
  runAlarmWhenDue,
  status,
  stubFor,
} from "../support/helpers";

const search = (id: string, query: string, as = "alice") =>
  call<SearchResponseBody>("GET", `/v1/sessions/${id}/search?${query}`, { as });

const q = (text: string, extra = "") => `q=${encodeURIComponent(text)}${extra}`;

/** An agent step whose call and output carry words found nowhere else. */
function uniqueStep(i: number, outputChars = 2_000): Message[] {
  const id = `call_${i}`;
  return [
    {
      role: "assistant",
      content: `Step ${i}: reading the notes of station${i}`,
      tool_calls: [
        {
          id,
          type: "function",
          function: {
            name: "read_file",
            arguments: JSON.stringify({ path: `docs/lighthouse${i}.md` }),
          },
        },
      ],
    },
    {
      role: "tool",
      tool_call_id: id,
      content: `keeper${i} logbook: ${"the lamp was trimmed at dusk and the fog horn tested; ".repeat(Math.ceil(outputChars / 55))}`,
    },
  ];
}

describe("search", () => {
  it("finds user and assistant text, tool outputs, call arguments, names and ids, marked in snippets", async () => {
    const id = freshSession();
    await append(id, {
      messages: [
        { role: "system", content: "You are a careful agent." },
        { role: "user", content: "Migrate the Kubernetes cluster before Friday, ticket OPS-4242." },
        ...uniqueStep(1),
        { role: "assistant", content: "The café on the corner serves espresso." },
      ],
    });
    const user = await search(id, q("kubernetes"));
    expect(user.status).toBe(200);
    expect(user.body.query).toBe("kubernetes");
    expect(user.body.indexing).toEqual({ complete: true });
    expect(user.body.results).toHaveLength(1);
    expect(user.body.results[0]).toMatchObject({
      seq: 2,
      role: "user",
      toolCallId: null,
      toolName: null,
      inContext: true,
      pruned: false,
    });
    expect(user.body.results[0]?.snippet).toContain("«Kubernetes»");
    expect(user.body.results[0]?.score).toBeGreaterThan(0);

    const output = (await search(id, q("keeper1"))).body.results;
    expect(output.map((r) => [r.seq, r.role, r.toolCallId, r.toolName])).toEqual([
      [4, "tool", "call_1", "read_file"],
    ]);
    const argument = (await search(id, q("lighthouse1"))).body.results;
    expect(argument.map((r) => [r.seq, r.toolCallId, r.toolName])).toEqual([
      [3, "call_1", "read_file"],
    ]);
    // The call id finds the call and its output.
    const byId = (await search(id, q("call_1"))).body.results.map((r) => r.seq).sort();
    expect(byId).toEqual([3, 4]);
    const byName = (await search(id, q("read_file"))).body.results.map((r) => r.seq).sort();
    expect(byName).toEqual([3, 4]);
    // Stems and diacritics: "migrating" finds "Migrate", "cafe" finds "café".
    expect((await search(id, q("migrating"))).body.results.map((r) => r.seq)).toEqual([2]);
    expect((await search(id, q("cafe"))).body.results.map((r) => r.seq)).toEqual([5]);
    expect((await search(id, q("nothing-like-this"))).body.results).toEqual([]);
  });

  it("indexes a huge tool output whole, in pieces, and answers it once", async () => {
    const id = freshSession();
    const filler = "the quick brown fox jumps over the lazy dog; ".repeat(2_000); // 90,000 characters
    const appended = await append(id, {
      messages: [
        { role: "user", content: "read the big log" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_big", type: "function", function: { name: "cat", arguments: "{}" } },
          ],
        },
        { role: "tool", tool_call_id: "call_big", content: `${filler}narwhal ${filler}quokka end` },
      ],
    });
    expect(appended.status, JSON.stringify(appended.body)).toBe(200);
    for (const word of ["narwhal", "quokka", "fox"]) {
      const found = (await search(id, q(word))).body.results;
      expect(
        found.map((r) => [r.seq, r.toolCallId, r.toolName]),
        word,
      ).toEqual([[3, "call_big", "cat"]]);
    }
    expect((await search(id, q("narwhal"))).body.results[0]?.snippet).toContain("«narwhal»");
    expect((await search(id, q("quokka", "&after=2"))).body.results).toHaveLength(1);
    expect((await search(id, q("quokka", "&after=3"))).body.results).toHaveLength(0);
    expect((await search(id, q("call_big"))).body.results.map((r) => r.seq).sort()).toEqual([2, 3]);
  });

  it("ranks by relevance, and falls back to any word when no message has them all", async () => {
    const id = freshSession();
    await append(id, {
      messages: [
        {
          role: "user",
          content: "One mention of zeppelin among many other words in a long sentence here.",
        },
        { role: "assistant", content: "zeppelin zeppelin zeppelin" },
        { role: "user", content: "zeppelin hangar" },
        { role: "user", content: "just a hangar" },
      ],
    });
    const ranked = (await search(id, q("zeppelin"))).body.results;
    expect(ranked.map((r) => r.seq)).toEqual([2, 3, 1]);
    const scores = ranked.map((r) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    // Both words: only the message with both.
    expect((await search(id, q("zeppelin hangar"))).body.results.map((r) => r.seq)).toEqual([3]);
    // No message has both: either word counts.
    const either = (await search(id, q("hangar blimp"))).body.results.map((r) => r.seq).sort();
    expect(either).toEqual([3, 4]);
  });

  it("filters by role and seq, and limits the results", async () => {
    const id = freshSession();
    const messages: Message[] = [];
    for (let i = 0; i < 12; i++) {
      messages.push({ role: i % 2 === 0 ? "user" : "assistant", content: `walrus note ${i}` });
    }
    await append(id, { messages });
    const all = (await search(id, q("walrus", "&limit=50"))).body.results;
    expect(all).toHaveLength(12);
    expect((await search(id, q("walrus"))).body.results).toHaveLength(10);
    expect((await search(id, q("walrus", "&limit=3"))).body.results).toHaveLength(3);
    const users = (await search(id, q("walrus", "&role=user&limit=50"))).body.results;
    expect(users.map((r) => r.seq).sort((a, b) => a - b)).toEqual([1, 3, 5, 7, 9, 11]);
    expect(users.every((r) => r.role === "user")).toBe(true);
    const after = (await search(id, q("walrus", "&after=9&limit=50"))).body.results;
    expect(after.map((r) => r.seq).sort((a, b) => a - b)).toEqual([10, 11, 12]);
    const both = (await search(id, q("walrus", "&after=9&role=assistant"))).body.results;
    expect(both.map((r) => r.seq).sort((a, b) => a - b)).toEqual([10, 12]);

    for (const bad of ["&limit=0", "&limit=51", "&limit=x", "&role=robot", "&after=-1"]) {
      const reply = await search(id, q("walrus", bad));
      expect(reply.status, bad).toBe(400);
      expect((reply.body as unknown as { error: { code: string } }).error.code).toBe(
        "invalid_request",
      );
    }
  });

  it("finds what compaction pruned and summarized away, and says it is no longer in the context", async () => {
    const id = freshSession();
    await createSmallSession(id);
    const steps: Message[] = [];
    for (let i = 1; i <= 14; i++) steps.push(...uniqueStep(i, 3_000));
    const crossing = await append(id, { messages: steps });
    expect(crossing.body.compaction.status).toBe("scheduled");
    expect(await runAlarmWhenDue(stubFor("alice", id))).toBe(true);
    const coveredSeq = (await status(id)).coveredSeq;
    expect(coveredSeq).toBeGreaterThan(0);
    const context = JSON.stringify(
      (await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context`)).body.messages,
    );

    let prunedFound = 0;
    let compactedFound = 0;
    for (let i = 1; i <= 14; i++) {
      const found = (await search(id, q(`keeper${i}`))).body.results;
      expect(found, `keeper${i}`).toHaveLength(1);
      const [result] = found;
      if (result === undefined) continue;
      const stored = await call<{ pruned: boolean }>(
        "GET",
        `/v1/sessions/${id}/tool-outputs/call_${i}`,
      );
      expect(result.pruned, `keeper${i}`).toBe(stored.body.pruned);
      // In the context exactly when the output is there as appended.
      expect(result.inContext, `keeper${i}`).toBe(context.includes(`keeper${i} logbook`));
      if (result.pruned) {
        prunedFound++;
        // Out of the context, yet found.
        expect(context).not.toContain(`keeper${i} logbook`);
      }
      if (result.seq <= coveredSeq) compactedFound++;
    }
    expect(prunedFound).toBeGreaterThan(0);
    expect(compactedFound).toBeGreaterThan(0);
    // Covered by the view but kept in it as appended: still in the context.
    const latest = (await search(id, q("station14"))).body.results;
    expect(latest[0]).toMatchObject({ role: "assistant", inContext: true, pruned: false });
    expect(context).toContain("reading the notes of station14");
  });

  it("finds what an LLM summary replaced, and says it is no longer in the context", async () => {
    const id = await llmSession("search-summary-model");
    const compacted = await call<{ compacted: boolean }>("POST", `/v1/sessions/${id}/compact`, {
      body: {},
    });
    expect(compacted.body.compacted).toBe(true);
    const context = JSON.stringify(
      (await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context`)).body.messages,
    );
    const asked = "Continue with part 4, keeping ticket OPS-1003 in mind.";
    expect(context).not.toContain(asked);
    const found = (await search(id, q("OPS-1003"))).body.results;
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ role: "user", inContext: false, pruned: false });
    expect(found[0]?.snippet).toContain("«OPS-1003»");
    // The latest turn is still there as appended.
    const last = (await search(id, q("OPS-1019"))).body.results;
    expect(last[0]).toMatchObject({ inContext: true });
    expect(context).toContain("keeping ticket OPS-1019 in mind");
  });

  it("searches FTS5 syntax as text: quotes, operators, NEAR, prefixes, columns, parentheses", async () => {
    const id = freshSession();
    await append(id, {
      messages: [
        {
          role: "user",
          content: 'He said "hello world" and NEAR the role: admin (root) AND more*',
        },
        { role: "assistant", content: "Привет мир, 東京 and naïve façade" },
      ],
    });
    const ok = [
      '"hello world"',
      '"hello',
      'hello"world',
      "NEAR(hello world)",
      "hello AND",
      "OR hello",
      "NOT hello",
      "more*",
      "role:admin",
      "body:hello",
      "(root)",
      "^hello",
      "hello -world",
      "+root",
      "{body names}: hello",
      "Привет",
      "東京",
      "naive facade",
    ];
    for (const text of ok) {
      const reply = await search(id, q(text));
      expect(reply.status, text).toBe(200);
    }
    // Searched as the words they hold.
    const finds = ['"hello world"', "NEAR(hello world)", "more*", "role:admin", "(root)", "Привет"];
    for (const text of [...finds, "東京", "naive facade", "hello -world"]) {
      expect((await search(id, q(text))).body.results.length, text).toBeGreaterThan(0);
    }
    // A lone operator is a word like any other.
    const and = (await search(id, q("AND"))).body.results.map((r) => r.seq).sort();
    expect(and).toEqual([1, 2]);
    for (const text of ["", "   ", '"', '""', "* ( ) : ^", "-- ++ ::"]) {
      const reply = await search(id, q(text));
      expect(reply.status, JSON.stringify(text)).toBe(400);
      const error = (reply.body as unknown as { error: { code: string; message: string } }).error;
      expect(error.code).toBe("invalid_query");
      expect(error.message).toContain("`q`");
    }
    const missing = await search(id, "limit=5");
    expect(missing.status).toBe(400);
    expect((missing.body as unknown as { error: { code: string } }).error.code).toBe(
      "invalid_query",
    );
  });

  it("searches the words of a query whatever else it holds: NUL and control characters separate words", async () => {
    const id = freshSession();
    await append(id, { messages: [{ role: "user", content: "move the cursor a bit" }] });
    for (const text of [
      "cursor a\u0000b",
      "\u0000cursor",
      "cursor\u0001\u0007bit",
      "cursor\u007f",
    ]) {
      const reply = await search(id, q(text));
      expect(reply.status, JSON.stringify(text)).toBe(200);
      expect(
        reply.body.results.map((r) => r.seq),
        JSON.stringify(text),
      ).toEqual([1]);
    }
  });

  it("answers a query with a word 200 and one without 400, never a 500", async () => {
    const id = freshSession();
    await append(id, { messages: conversation(2, 200) });
    const fragments = fc.constantFrom(
      '"',
      "'",
      "*",
      "(",
      ")",
      ":",
      "^",
      "-",
      "+",
      "AND",
      "OR",
      "NOT",
      "NEAR",
      "NEAR(",
      ",",
      "{",
      "}",
      "role:",
      "body:",
      " ",
      "module",
      "é",
      "\u0301",
      "\u0000",
      "💥",
    );
    const queries = fc.oneof(
      fc.string({ unit: "grapheme", maxLength: 40 }),
      fc.array(fragments, { maxLength: 12 }).map((parts) => parts.join("")),
    );
    await fc.assert(
      fc.asyncProperty(queries, async (text) => {
        const reply = await search(id, q(text));
        // The promise of the docs: `q` never breaks the query; only a query without a word is refused.
        const hasWord = /[\p{L}\p{N}]/u.test(text);
        expect(reply.status, JSON.stringify(text)).toBe(hasWord ? 200 : 400);
      }),
      { numRuns: 80 },
    );
  });

  it("keeps one user out of another's session: 404 and nothing found", async () => {
    const id = freshSession();
    await append(id, { messages: [{ role: "user", content: "alice's secret plan: the orchid" }] });
    expect((await search(id, q("orchid"))).body.results).toHaveLength(1);
    const bob = await search(id, q("orchid"), "bob");
    expect(bob.status).toBe(404);
    expect((bob.body as unknown as { error: { code: string } }).error.code).toBe("not_found");
    expect(JSON.stringify(bob.body)).not.toContain("orchid");
    expect(JSON.stringify(bob.body)).not.toContain("results");
    const none = await search(freshSession(), q("orchid"));
    expect(none.status).toBe(404);
    // Bob's 404 created nothing: Alice's session is unchanged.
    expect((await search(id, q("orchid"))).body.results).toHaveLength(1);
  });

  it("answers as one ranked statement with its snippets would: each result its best piece's snippet", async () => {
    const id = freshSession();
    // Messages of several pieces each (8 Ki characters a piece), the words spread over them, so
    // that a message's pieces rank side by side and the limit cuts among them.
    const words = ["otter", "heron", "kelp", "tide", "reef"];
    const messages: Message[] = [];
    for (let i = 0; i < 16; i++) {
      const parts = Array.from({ length: 1 + (i % 4) }, (_, piece) => {
        const word = words[(i + piece) % words.length] ?? "otter";
        const shore = Array.from({ length: 300 }, (_, k) => `sand${i} and stone${k} on the shore;`);
        return `marker${i}p${piece} ${word} ${shore.join(" ")}`;
      });
      messages.push({ role: i % 3 === 0 ? "assistant" : "user", content: parts.join(" ") });
    }
    await append(id, { messages });
    const reference = (sql: SqlStorage, input: { q: string; limit: number; role?: string }) => {
      const { all, any } = matchExpressions(input.q);
      const run = (match: string) =>
        sql
          .exec<{ seq: number; role: string; snippet: string; rank: number }>(
            `SELECT rowid / ${PIECES_PER_SEQ} AS seq, role,
               snippet(condense_search, -1, '«', '»', '…', 16) AS snippet, rank
             FROM condense_search WHERE condense_search MATCH ? AND rank MATCH 'bm25(1.0, 2.0)'
               ${input.role === undefined ? "" : "AND role = ?"}
             ORDER BY rank LIMIT ?`,
            ...(input.role === undefined ? [match] : [match, input.role]),
            input.limit * 2,
          )
          .toArray()
          .filter((row, index, rows) => rows.findIndex((other) => other.seq === row.seq) === index)
          .slice(0, input.limit)
          .map((row) => ({ seq: row.seq, role: row.role, snippet: row.snippet, score: -row.rank }));
      const rows = run(all);
      return rows.length === 0 && any !== all ? run(any) : rows;
    };
    const inputs = fc.record({
      q: fc
        .array(fc.constantFrom(...words, "marker3p1", "shore", "nowhere"), {
          minLength: 1,
          maxLength: 3,
        })
        .map((picked) => picked.join(" ")),
      limit: fc.integer({ min: 1, max: 12 }),
      role: fc.option(fc.constantFrom("user" as const, "assistant" as const), {
        nil: undefined,
      }),
    });
    const samples = [
      { q: "shore", limit: 12, role: undefined },
      { q: "otter", limit: 3, role: undefined },
      ...fc.sample(inputs, { numRuns: 60, seed: 29 }),
    ];
    const compared = await runInDurableObject(stubFor("alice", id), (_instance, state) =>
      samples.map((input) => {
        const asked = input.role === undefined ? { q: input.q, limit: input.limit } : input;
        const answer = searchSession(state.storage.sql, asked).results;
        return {
          input,
          got: answer.map((r) => ({
            seq: r.seq,
            role: r.role,
            snippet: r.snippet,
            score: r.score,
          })),
          want: reference(state.storage.sql, input),
        };
      }),
    );
    for (const { input, got, want } of compared) expect(got, JSON.stringify(input)).toEqual(want);
    // Not vacuous: pieces of one message compete, and the snippets differ from one message to another.
    const shore = compared[0]?.got ?? [];
    // Twice the limit in pieces, fewer messages: pieces of one message took some of the 24 rows.
    expect(shore.length).toBeGreaterThan(6);
    expect(shore.length).toBeLessThan(12);
    expect(new Set(shore.map((r) => r.snippet)).size).toBe(shore.length);
    expect(compared.filter((c) => c.want.length > 0).length).toBeGreaterThan(30);
  });

  it("takes the answered pieces' snippets over the match alone, never handing FTS5 their rowids", async () => {
    // FTS5 given a rowid (`rowid = ?`, or `IN`, which SQLite runs as one `=` per value) beside a
    // MATCH positions the match on that row, and snippet() there cost milliseconds a row on a word
    // of many rows (issue 29: search's CPU over the previous round's). Scanning the match and
    // keeping the answered rowids takes the same snippets.
    const id = freshSession();
    const messages: Message[] = Array.from({ length: 8 }, (_, i) => ({
      role: "user" as const,
      content: `entry${i}: the lamp was trimmed at dusk and the fog horn tested at station${i}`,
    }));
    await append(id, { messages });
    const plans = await runInDurableObject(stubFor("alice", id), (_instance, state) => {
      const sql = state.storage.sql;
      const statements: { query: string; bindings: SqlStorageValue[] }[] = [];
      const recording = new Proxy(sql, {
        get(target, property) {
          if (property === "exec") {
            return (query: string, ...bindings: SqlStorageValue[]) => {
              statements.push({ query, bindings });
              return target.exec(query, ...bindings);
            };
          }
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      // One result (one rowid: `=`), and several (`IN`).
      for (const limit of [1, 4]) {
        expect(searchSession(recording, { q: "lamp", limit }).results).toHaveLength(limit);
      }
      return statements
        .filter((statement) => statement.query.includes("snippet("))
        .map((statement) =>
          sql
            .exec<{ detail: string }>(
              `EXPLAIN QUERY PLAN ${statement.query}`,
              ...statement.bindings,
            )
            .toArray()
            .map((row) => row.detail)
            .join("; "),
        );
    });
    expect(plans).toHaveLength(2);
    // FTS5's plan string: `M` a MATCH, `=` a rowid it was given (`<`, `>` a range).
    for (const plan of plans) expect(plan).toMatch(/VIRTUAL TABLE INDEX \d+:M\d+$/);
  });

  it("indexes nothing twice when an append is retried with its Idempotency-Key", async () => {
    const id = freshSession();
    const body = { messages: [{ role: "user", content: "the pelican report" }] };
    const headers = { "Idempotency-Key": "search-retry-1" };
    expect((await append(id, body, "alice", headers)).status).toBe(200);
    expect((await append(id, body, "alice", headers)).status).toBe(200);
    expect((await search(id, q("pelican"))).body.results).toHaveLength(1);
    const rows = await runInDurableObject(stubFor("alice", id), (_instance, state) => ({
      indexed: state.storage.sql
        .exec<{ n: number }>("SELECT COUNT(*) AS n FROM condense_search")
        .one().n,
      messages: state.storage.sql
        .exec<{ n: number }>("SELECT message_count AS n FROM condense_session")
        .one().n,
    }));
    expect(rows).toEqual({ indexed: 1, messages: 1 });
  });
});

describe("backfill of sessions from before the index (schema v7)", () => {
  /** Writes a v7 session of `count` messages into the object's storage, as the code before v9 did. */
  function writeV7Session(storage: DurableObjectStorage, sessionId: string, count: number): void {
    const sql = storage.sql;
    migrate(storage, 7);
    sql.exec(
      `INSERT INTO condense_session (id, user_id, session_id, epoch, created_at, updated_at, message_count)
       VALUES (1, 'alice', ?, 'e', 1, 2, ?)`,
      sessionId,
      count,
    );
    const store = new MessageStore(sql);
    const messages: Message[] = [{ role: "user", content: "the old heron survey" }];
    for (let i = 1; messages.length < count; i++) messages.push(...uniqueStep(i, 200));
    messages.slice(0, count).forEach((message, i) => {
      indexToolCalls(sql, message as never, i + 1);
      store.appendTranscript(i + 1, message as never, 5, 1);
    });
  }

  it("indexes an old session on first use: its search finds what was appended before", async () => {
    const id = freshSession();
    await runInDurableObject(stubFor("alice", id), (_instance, state) => {
      writeV7Session(state.storage, id, 21);
    });
    const old = await search(id, q("heron"));
    expect(old.status).toBe(200);
    expect(old.body.indexing).toEqual({ complete: true });
    expect(old.body.results.map((r) => r.seq)).toEqual([1]);
    const output = (await search(id, q("keeper10"))).body.results;
    expect(output.map((r) => [r.seq, r.toolCallId, r.toolName])).toEqual([
      [21, "call_10", "read_file"],
    ]);
    // The session goes on: new messages are indexed at append, nothing twice.
    await append(id, { messages: [{ role: "user", content: "a new heron sighting" }] });
    const both = (await search(id, q("heron"))).body.results.map((r) => r.seq).sort();
    expect(both).toEqual([1, 22]);
    const indexed = await runInDurableObject(stubFor("alice", id), (_instance, state) =>
      state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM condense_search").one(),
    );
    expect(indexed.n).toBe(22);
  });

  it("indexes in bounded steps behind a cursor; appends in between are searchable at once", async () => {
    const id = freshSession();
    const steps = await runInDurableObject(stubFor("alice", id), (_instance, state) => {
      const sql = state.storage.sql;
      writeV7Session(state.storage, id, 31);
      migrate(state.storage);
      const store = new MessageStore(sql);
      const scope = sessionScope(() => state.storage, store, undefined);
      const input = { q: "logbook", limit: 50 };
      const before = searchSession(sql, input);
      const first = backfillStep(scope, 10);
      const partial = searchSession(sql, input);
      // An append while the backfill is under way (as the append transaction indexes it).
      const late: Message = { role: "user", content: "a logbook arrives late" };
      store.appendTranscript(32, late as never, 5, 1);
      indexMessage(sql, late as never, 32);
      const withLate = searchSession(sql, input);
      let rounds = 1;
      while (!backfillStep(scope, 10)) rounds++;
      const again = backfillStep(scope, 10);
      return {
        before: before.results.length,
        beforeComplete: before.indexing.complete,
        first,
        partialSeqs: partial.results.map((r) => r.seq).sort((a, b) => a - b),
        partialComplete: partial.indexing.complete,
        withLate: withLate.results.map((r) => r.seq).sort((a, b) => a - b),
        rounds,
        again,
        complete: isBackfillComplete(sql),
        final: searchSession(sql, input)
          .results.map((r) => r.seq)
          .sort((a, b) => a - b),
        indexed: sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM condense_search").one().n,
      };
    });
    expect(steps.before).toBe(0);
    expect(steps.beforeComplete).toBe(false);
    expect(steps.first).toBe(false);
    expect(steps.partialComplete).toBe(false);
    // Steps 1-10 hold the outputs of calls 1-4 (seqs 3, 5, 7, 9).
    expect(steps.partialSeqs).toEqual([3, 5, 7, 9]);
    expect(steps.withLate).toEqual([3, 5, 7, 9, 32]);
    expect(steps.rounds).toBe(3);
    expect(steps.again).toBe(true);
    expect(steps.complete).toBe(true);
    expect(steps.final).toEqual([3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31, 32]);
    expect(steps.indexed).toBe(32);
  });
});
