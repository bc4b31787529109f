/**
 * @module test/memory/memory
 * The user's memory through the API: create, read, change, delete; the limits
 * on count and size with their codes; secrets refused; full-text search
 * (relevance order, FTS5 syntax that can never break out or fail with a 500);
 * and isolation: another user can neither read, change, delete nor find an
 * entry. Also the RPC the other tracks use (`applyMemoryOperations`,
 * `relevantMemories`).
 */

import { env, runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type {
  ErrorResponseBody,
  MemoryDeleteResponseBody,
  MemoryEntryBody,
  MemoryListResponseBody,
  MemorySearchResponseBody,
} from "../../src/api/schemas";
import { MEMORY_LIMITS, addMemory as storeMemory } from "../../src/user/memory-store";
import { migrateUser } from "../../src/user/schema";
import { userStub } from "../../src/user/user-stub";
import { call } from "../support/helpers";
import { addMemory, freshUser, userIdOf } from "../support/user-helpers";

const AWS_KEY = "AKIAIOSFODNN7EXAMPLE";
const OPENAI_KEY = "sk-proj-Abc123Def456Ghi789Jkl012Mno345Pqr678";

describe("memory CRUD", () => {
  it("creates, lists, reads, changes and deletes an entry", async () => {
    const as = await freshUser();
    const created = await call<MemoryEntryBody>("POST", "/v1/memory", {
      as,
      body: {
        text: "  Prefers TypeScript over Python  ",
        kind: "preference",
        sourceSession: "s-1",
        sourceSeq: 4,
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      text: "Prefers TypeScript over Python",
      kind: "preference",
      sourceSession: "s-1",
      sourceSeq: 4,
    });
    expect(created.body.id).toMatch(/^mem_/);
    expect(created.body.createdAt).toBe(created.body.updatedAt);
    const id = created.body.id;

    const list = await call<MemoryListResponseBody>("GET", "/v1/memory", { as });
    expect(list.body).toEqual({ memories: [created.body], nextCursor: null });
    expect((await call("GET", `/v1/memory/${id}`, { as })).body).toEqual(created.body);

    const changed = await call<MemoryEntryBody>("PATCH", `/v1/memory/${id}`, {
      as,
      body: { text: "Prefers TypeScript", kind: "constraint" },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      id,
      text: "Prefers TypeScript",
      kind: "constraint",
      sourceSeq: 4,
    });
    expect(changed.body.createdAt).toBe(created.body.createdAt);

    const deleted = await call<MemoryDeleteResponseBody>("DELETE", `/v1/memory/${id}`, { as });
    expect(deleted.body).toEqual({ deleted: true, id });
    for (const [method, body] of [["GET"], ["PATCH", { text: "x" }], ["DELETE"]] as const) {
      const gone = await call<ErrorResponseBody>(method, `/v1/memory/${id}`, { as, body });
      expect(gone.status, method).toBe(404);
      expect(gone.body.error.code).toBe("memory_not_found");
    }
    expect((await call<MemoryListResponseBody>("GET", "/v1/memory", { as })).body.memories).toEqual(
      [],
    );
  });

  it("pages the list newest first with a cursor that holds while entries are added", async () => {
    const as = await freshUser();
    const texts = ["one", "two", "three", "four", "five"].map((word) => `memory number ${word}`);
    for (const text of texts) await addMemory(as, text);
    const first = await call<MemoryListResponseBody>("GET", "/v1/memory?limit=2", { as });
    expect(first.body.memories.map((m) => m.text)).toEqual([texts[4], texts[3]]);
    expect(first.body.nextCursor).not.toBeNull();
    // An entry added between pages goes before the cursor: later pages neither repeat nor skip.
    await addMemory(as, "memory number six");
    const seen = [...first.body.memories.map((m) => m.text)];
    let cursor = first.body.nextCursor;
    while (cursor !== null) {
      const page = await call<MemoryListResponseBody>(
        "GET",
        `/v1/memory?limit=2&cursor=${encodeURIComponent(cursor)}`,
        { as },
      );
      seen.push(...page.body.memories.map((m) => m.text));
      cursor = page.body.nextCursor;
    }
    expect(seen).toEqual([...texts].reverse());
    const bad = await call<ErrorResponseBody>("GET", "/v1/memory?cursor=not-a-cursor", { as });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_cursor");
  });
});

describe("memory limits and secrets", () => {
  it("refuses text over 2,000 characters, empty text and unknown kinds, storing nothing", async () => {
    const as = await freshUser();
    const long = await call<ErrorResponseBody>("POST", "/v1/memory", {
      as,
      body: { text: "x".repeat(MEMORY_LIMITS.maxChars + 1), kind: "fact" },
    });
    expect(long.status).toBe(400);
    expect(long.body.error.code).toBe("memory_too_long");
    expect(long.body.error.message).toContain("2000");
    const atLimit = await call("POST", "/v1/memory", {
      as,
      body: { text: "x".repeat(MEMORY_LIMITS.maxChars), kind: "fact" },
    });
    expect(atLimit.status).toBe(201);
    for (const body of [
      { text: "   ", kind: "fact" },
      { text: "a", kind: "rumour" },
      { text: "a" },
    ]) {
      const refused = await call<ErrorResponseBody>("POST", "/v1/memory", { as, body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error.code).toBe("invalid_request");
      // As every invalid_request: the field named in `details.issues`.
      const field = "kind" in body && body.kind === "fact" ? "text" : "kind";
      expect(refused.body.error.details, JSON.stringify(body)).toMatchObject({
        in: "body",
        issues: [{ path: field }],
      });
    }
    const [kept] = (await call<MemoryListResponseBody>("GET", "/v1/memory", { as })).body.memories;
    const emptied = await call<ErrorResponseBody>("PATCH", `/v1/memory/${kept?.id}`, {
      as,
      body: { text: "", kind: "fact" },
    });
    expect(emptied.status).toBe(400);
    expect(emptied.body.error).toMatchObject({
      code: "invalid_request",
      details: { in: "body", issues: [{ path: "text" }] },
    });
    const list = await call<MemoryListResponseBody>("GET", "/v1/memory", { as });
    expect(list.body.memories).toHaveLength(1);
  });

  it("refuses the entry after the 500th with memory_full", async () => {
    const as = await freshUser();
    await addMemory(as, "the first entry");
    // The other 499 go straight into the user's storage: 499 requests would only slow the test.
    const [entry] = (await call<MemoryListResponseBody>("GET", "/v1/memory", { as })).body.memories;
    expect(entry).toBeDefined();
    const userId = userIdOf(as);
    await runInDurableObject(userStub(env, userId), (_instance, state) => {
      migrateUser(state.storage);
      for (let i = 1; i < MEMORY_LIMITS.maxEntries; i++) {
        storeMemory(state.storage.sql, { text: `filler ${i}`, kind: "fact" }, Date.now());
      }
    });
    const full = await call<ErrorResponseBody>("POST", "/v1/memory", {
      as,
      body: { text: "one too many", kind: "fact" },
    });
    expect(full.status).toBe(409);
    expect(full.body.error.code).toBe("memory_full");
    // Deleting one makes room again.
    await call("DELETE", `/v1/memory/${entry?.id}`, { as });
    expect(
      (await call("POST", "/v1/memory", { as, body: { text: "now it fits", kind: "fact" } }))
        .status,
    ).toBe(201);
  });

  it("refuses text holding a secret, on create and on change", async () => {
    const as = await freshUser();
    for (const text of [`my AWS key is ${AWS_KEY}`, `use ${OPENAI_KEY} for the API`]) {
      const refused = await call<ErrorResponseBody>("POST", "/v1/memory", {
        as,
        body: { text, kind: "fact" },
      });
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe("memory_secret");
    }
    const entry = await addMemory(as, "deploys with wrangler");
    const patched = await call<ErrorResponseBody>("PATCH", `/v1/memory/${entry.id}`, {
      as,
      body: { text: `deploys with token ${OPENAI_KEY}` },
    });
    expect(patched.status).toBe(422);
    expect(patched.body.error.code).toBe("memory_secret");
    const list = await call<MemoryListResponseBody>("GET", "/v1/memory", { as });
    expect(list.body.memories.map((m) => m.text)).toEqual(["deploys with wrangler"]);
  });
});

describe("memory search", () => {
  it("finds entries by their words, best match first, with the match marked", async () => {
    const as = await freshUser();
    await addMemory(as, "The user's database is PostgreSQL 16 on Neon", "fact");
    await addMemory(as, "Prefers dark mode in every editor", "preference");
    await addMemory(
      as,
      "PostgreSQL migrations run with drizzle; PostgreSQL backups nightly",
      "decision",
    );
    const reply = await call<MemorySearchResponseBody>("GET", "/v1/memory/search?q=postgresql", {
      as,
    });
    expect(reply.status).toBe(200);
    expect(reply.body.query).toBe("postgresql");
    expect(reply.body.results.map((r) => r.memory.kind)).toEqual(["decision", "fact"]);
    expect(reply.body.results[0]?.snippet).toContain("«PostgreSQL»");
    const [best, next] = reply.body.results;
    expect((best?.score ?? 0) > (next?.score ?? 0)).toBe(true);
    // Every word is required.
    const both = await call<MemorySearchResponseBody>("GET", "/v1/memory/search?q=dark%20editor", {
      as,
    });
    expect(both.body.results.map((r) => r.memory.kind)).toEqual(["preference"]);
    const none = await call<MemorySearchResponseBody>("GET", "/v1/memory/search?q=dark%20neon", {
      as,
    });
    expect(none.body.results).toEqual([]);
    const limited = await call<MemorySearchResponseBody>(
      "GET",
      "/v1/memory/search?q=postgresql&limit=1",
      { as },
    );
    expect(limited.body.results).toHaveLength(1);
  });

  it("keeps the index in step with changes and deletions", async () => {
    const as = await freshUser();
    const entry = await addMemory(as, "works on the billing service");
    await call("PATCH", `/v1/memory/${entry.id}`, {
      as,
      body: { text: "works on the search service" },
    });
    const search = (q: string) =>
      call<MemorySearchResponseBody>("GET", `/v1/memory/search?q=${q}`, { as });
    expect((await search("billing")).body.results).toEqual([]);
    expect((await search("search")).body.results.map((r) => r.memory.id)).toEqual([entry.id]);
    await call("DELETE", `/v1/memory/${entry.id}`, { as });
    expect((await search("search")).body.results).toEqual([]);
  });

  it("treats FTS5 operators as words: a query can't widen the search or fail", async () => {
    const as = await freshUser();
    await addMemory(as, "likes tea");
    await addMemory(as, "NOT a morning person");
    const results = async (q: string) => {
      const reply = await call<MemorySearchResponseBody>(
        "GET",
        `/v1/memory/search?q=${encodeURIComponent(q)}`,
        { as },
      );
      expect(reply.status, q).toBe(200);
      return reply.body.results.map((r) => r.memory.text);
    };
    // As an operator, `tea OR morning` would match both entries, `text:tea` a column, `*` a prefix.
    expect(await results("tea OR morning")).toEqual([]);
    expect(await results("NOT morning")).toEqual(["NOT a morning person"]);
    expect(await results('te* "tea')).toEqual([]);
    expect(await results("text:tea")).toEqual([]);
    expect(await results('"')).toEqual([]);
    // NUL and other control characters separate words, as whitespace does.
    expect(await results("tea\u0000x likes")).toEqual([]);
    expect(await results("likes\u0000tea")).toEqual(["likes tea"]);
    const empty = await call<ErrorResponseBody>("GET", "/v1/memory/search?q=%20%20", { as });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe("invalid_query");
  });

  it("answers a query with a word 200, and any query 200 or 400, never a 500", async () => {
    const as = await freshUser();
    await addMemory(as, 'a memory with some words: alpha beta gamma NEAR(x y) "quoted"');
    const fts5ish = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc
        .array(
          fc.constantFrom(
            "AND",
            "OR",
            "NOT",
            "NEAR",
            "(",
            ")",
            '"',
            "*",
            "^",
            ":",
            "text:",
            "{",
            "}",
            "-",
            "+",
            "alpha",
            "beta",
            "\u0000",
            "é",
            "🙂",
          ),
          { maxLength: 12 },
        )
        .map((parts) => parts.join(" ")),
      fc
        .array(fc.constantFrom('"', "*", "(", ")", "alpha", ":", "^"), { maxLength: 10 })
        .map((parts) => parts.join("")),
    );
    await fc.assert(
      fc.asyncProperty(fts5ish, async (q) => {
        const reply = await call("GET", `/v1/memory/search?q=${encodeURIComponent(q)}`, { as });
        // A query with a word is searched: NUL and control characters separate words.
        if (/[\p{L}\p{N}]/u.test(q)) expect(reply.status, JSON.stringify(q)).toBe(200);
        else expect([200, 400], JSON.stringify(q)).toContain(reply.status);
      }),
      { numRuns: 150 },
    );
  });
});

describe("memory isolation between users", () => {
  it("never lets one user read, change, delete or find another's memory", async () => {
    const alice = await freshUser("alice");
    const bob = await freshUser("bob");
    const entry = await addMemory(alice, "alice's secret project is codenamed bluebird");
    for (const [method, body] of [
      ["GET"],
      ["PATCH", { text: "changed by bob" }],
      ["DELETE"],
    ] as const) {
      const reply = await call<ErrorResponseBody>(method, `/v1/memory/${entry.id}`, {
        as: bob,
        body,
      });
      expect(reply.status, method).toBe(404);
      expect(reply.body.error.code).toBe("memory_not_found");
    }
    expect(
      (await call<MemoryListResponseBody>("GET", "/v1/memory", { as: bob })).body.memories,
    ).toEqual([]);
    const found = await call<MemorySearchResponseBody>("GET", "/v1/memory/search?q=bluebird", {
      as: bob,
    });
    expect(found.body.results).toEqual([]);
    // Alice's entry is untouched, and hers to find.
    expect((await call("GET", `/v1/memory/${entry.id}`, { as: alice })).body).toEqual(entry);
    const own = await call<MemorySearchResponseBody>("GET", "/v1/memory/search?q=bluebird", {
      as: alice,
    });
    expect(own.body.results.map((r) => r.memory.id)).toEqual([entry.id]);
  });
});

describe("the user object's RPC for the other tracks", () => {
  it("applies a flush's operations one by one, skipping secrets and unknown ids", async () => {
    const stub = userStub(env, `rpc-${crypto.randomUUID()}`);
    const first = await stub.applyMemoryOperations(
      [
        { op: "add", text: "always answers in French", kind: "preference", sourceSeq: 3 },
        { op: "add", text: `the key is ${AWS_KEY}`, kind: "fact" },
        { op: "remove", id: "mem_missing" },
        { op: "add", text: "x".repeat(MEMORY_LIMITS.maxChars + 1), kind: "fact" },
      ],
      { sessionId: "sess-1" },
    );
    expect(first.applied).toBe(1);
    expect(first.skipped).toEqual([
      { index: 1, reason: "memory_secret" },
      { index: 2, reason: "memory_not_found" },
      { index: 3, reason: "memory_too_long" },
    ]);
    const [added] = first.entries;
    expect(added).toMatchObject({
      text: "always answers in French",
      kind: "preference",
      sourceSession: "sess-1",
      sourceSeq: 3,
    });
    const id = added?.id ?? "";
    const second = await stub.applyMemoryOperations(
      [
        { op: "replace", id, text: `answers in French, token ${OPENAI_KEY}` },
        { op: "replace", id, text: "answers in German now", kind: "constraint" },
      ],
      { sessionId: "sess-2" },
    );
    expect(second.skipped).toEqual([{ index: 0, reason: "memory_secret" }]);
    expect(await stub.memories()).toEqual([
      expect.objectContaining({
        id,
        text: "answers in German now",
        kind: "constraint",
        sourceSession: "sess-1",
      }),
    ]);
    const third = await stub.applyMemoryOperations([{ op: "remove", id }], { sessionId: "sess-2" });
    expect(third).toEqual({ applied: 1, skipped: [], entries: [] });
    expect(await stub.memories()).toEqual([]);
  });

  it("ranks memories by relevance to the query, then recency, within the budget", async () => {
    const stub = userStub(env, `rpc-${crypto.randomUUID()}`);
    await stub.applyMemoryOperations(
      [
        { op: "add", text: "deploys the worker with wrangler", kind: "fact" },
        { op: "add", text: "likes concise answers", kind: "preference" },
        { op: "add", text: "the worker uses Durable Objects with SQLite", kind: "fact" },
        { op: "add", text: "never uses semicolons in JavaScript", kind: "constraint" },
      ],
      { sessionId: "s" },
    );
    const ranked = await stub.relevantMemories("how do I deploy the worker with wrangler?", 10_000);
    expect(ranked.map((m) => m.text)).toEqual([
      "deploys the worker with wrangler",
      "the worker uses Durable Objects with SQLite",
      // No word in common: newest first.
      "never uses semicolons in JavaScript",
      "likes concise answers",
    ]);
    const small = await stub.relevantMemories("how do I deploy the worker with wrangler?", 90);
    expect(small.length).toBeGreaterThan(0);
    expect(small.length).toBeLessThan(4);
    expect(small[0]?.text).toBe("deploys the worker with wrangler");
    expect(await stub.relevantMemories("anything", 0)).toEqual([]);
  });
});
