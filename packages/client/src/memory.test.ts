import { describe, expect, it } from "vitest";
import { client } from "../test/worker.js";
import type { MemoryEntry, SessionListItem } from "./api-types.js";
import type { FetchLike } from "./transport.js";

interface Seen {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
}

/** A fetch that records each request and answers from `routes` by "METHOD path". */
function fakeService(routes: (seen: Seen) => unknown): { fetch: FetchLike; seen: Seen[] } {
  const seen: Seen[] = [];
  const fetch: FetchLike = async (input, init) => {
    const url = new URL(input);
    const request: Seen = {
      method: init.method ?? "GET",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: typeof init.body === "string" ? JSON.parse(init.body) : undefined,
    };
    seen.push(request);
    return new Response(JSON.stringify(routes(request)), {
      status: request.method === "POST" ? 201 : 200,
      headers: { "Content-Type": "application/json" },
    });
  };
  return { fetch, seen };
}

function entry(id: string): MemoryEntry {
  return {
    id,
    text: `always run the linter (${id})`,
    kind: "preference",
    sourceSession: null,
    sourceSeq: null,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
  };
}

function item(id: string): SessionListItem {
  return {
    id,
    model: "gpt-5",
    createdAt: "2026-01-01T00:00:00.000Z",
    lastActiveAt: "2026-01-02T00:00:00.000Z",
    messageCount: 3,
    tokens: 120,
    compactions: 0,
  };
}

describe("Condense.search and sessions", () => {
  it("searches one session with q, limit, role and after", async () => {
    const fake = fakeService(() => ({ query: "x", results: [], indexing: { complete: true } }));
    const body = await client({ fetch: fake.fetch }).search("s/1", {
      q: "deploy key",
      limit: 3,
      role: "tool",
      after: 10,
    });
    expect(body.indexing.complete).toBe(true);
    expect(fake.seen).toEqual([
      {
        method: "GET",
        path: "/v1/sessions/s%2F1/search",
        query: { q: "deploy key", limit: "3", role: "tool", after: "10" },
        body: undefined,
      },
    ]);
  });

  it("lists sessions one page at a time, and every session across pages", async () => {
    const pages: Record<string, { sessions: SessionListItem[]; nextCursor: string | null }> = {
      "": { sessions: [item("a"), item("b")], nextCursor: "c1" },
      c1: { sessions: [item("c")], nextCursor: null },
    };
    const fake = fakeService((seen) => pages[seen.query.cursor ?? ""]);
    const condense = client({ fetch: fake.fetch });
    const first = await condense.sessions({ limit: 2 });
    expect(first.nextCursor).toBe("c1");
    expect(fake.seen[0]).toMatchObject({
      method: "GET",
      path: "/v1/sessions",
      query: { limit: "2" },
    });

    const ids: string[] = [];
    for await (const session of condense.allSessions({ limit: 2 })) ids.push(session.id);
    expect(ids).toEqual(["a", "b", "c"]);
    expect(fake.seen.slice(1).map((seen) => seen.query)).toEqual([
      { limit: "2" },
      { limit: "2", cursor: "c1" },
    ]);
  });
});

describe("client.memory", () => {
  it("calls each memory route with its method, path and body", async () => {
    const fake = fakeService((seen) => {
      if (seen.path === "/v1/memory/search") {
        return {
          query: "lint",
          results: [{ memory: entry("mem_1"), snippet: "«lint»", score: 1 }],
        };
      }
      if (seen.method === "GET") return { memories: [entry("mem_1")], nextCursor: null };
      if (seen.method === "DELETE") return { deleted: true, id: "mem_1" };
      return entry("mem_1");
    });
    const { memory } = client({ fetch: fake.fetch });

    expect((await memory.list({ limit: 10, cursor: "k" })).memories[0]?.id).toBe("mem_1");
    expect((await memory.create({ text: "always run the linter", kind: "preference" })).id).toBe(
      "mem_1",
    );
    await memory.update("mem_1", { kind: "constraint" });
    expect(await memory.remove("mem_1")).toEqual({ deleted: true, id: "mem_1" });
    expect((await memory.search("lint", { limit: 5 })).results[0]?.snippet).toBe("«lint»");
    const all: string[] = [];
    for await (const memoryEntry of memory.entries()) all.push(memoryEntry.id);
    expect(all).toEqual(["mem_1"]);

    expect(fake.seen.map(({ method, path, query, body }) => [method, path, query, body])).toEqual([
      ["GET", "/v1/memory", { limit: "10", cursor: "k" }, undefined],
      ["POST", "/v1/memory", {}, { text: "always run the linter", kind: "preference" }],
      ["PATCH", "/v1/memory/mem_1", {}, { kind: "constraint" }],
      ["DELETE", "/v1/memory/mem_1", {}, undefined],
      ["GET", "/v1/memory/search", { q: "lint", limit: "5" }, undefined],
      ["GET", "/v1/memory", {}, undefined],
    ]);
  });
});
