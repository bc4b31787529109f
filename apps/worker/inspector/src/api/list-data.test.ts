import { describe, expect, it } from "vitest";
import type { Api, Query } from "./client.ts";
import { readMemories, readSessionPage, SESSION_PAGE, searchSession } from "./list-data.ts";
import type { MemoryEntry, MemoryListPage, SearchResponse, SessionListPage } from "./types.ts";

/** An `Api` answering GETs from `answer`, recording each path and query. */
function fakeApi(answer: (path: string, query: Query) => unknown) {
  const calls: Array<{ path: string; query: Query }> = [];
  const api: Api = {
    get: async <T>(path: string, query: Query = {}) => {
      calls.push({ path, query });
      return answer(path, query) as T;
    },
    send: () => Promise.reject(new Error("the list reads never write")),
  };
  return { api, calls };
}

function memory(id: string): MemoryEntry {
  return {
    id,
    text: `memory ${id}`,
    kind: "fact",
    sourceSession: null,
    sourceSeq: null,
    createdAt: "2026-11-20T10:00:00.000Z",
    updatedAt: "2026-11-20T10:00:00.000Z",
  };
}

describe("readSessionPage", () => {
  const page: SessionListPage = {
    sessions: [
      {
        id: "run-2",
        model: "gpt-4o",
        createdAt: "2026-11-20T10:00:00.000Z",
        lastActiveAt: "2026-11-22T10:00:00.000Z",
        messageCount: 278,
        tokens: 15_988,
        compactions: 15,
      },
    ],
    nextCursor: "abc",
  };

  it("asks for the first page without a cursor, and returns the answer as the API gave it", async () => {
    const { api, calls } = fakeApi(() => page);
    expect(await readSessionPage(api)).toEqual(page);
    expect(calls).toEqual([{ path: "/v1/sessions", query: { limit: SESSION_PAGE } }]);
  });

  it("passes the previous page's nextCursor as cursor", async () => {
    const { api, calls } = fakeApi(() => ({ sessions: [], nextCursor: null }));
    await readSessionPage(api, "abc");
    expect(calls).toEqual([
      { path: "/v1/sessions", query: { limit: SESSION_PAGE, cursor: "abc" } },
    ]);
  });
});

describe("readMemories", () => {
  it("follows nextCursor to the last page, in order", async () => {
    const pages: Record<string, MemoryListPage> = {
      "": { memories: [memory("m1"), memory("m2")], nextCursor: "c1" },
      c1: { memories: [memory("m3")], nextCursor: "c2" },
      c2: { memories: [memory("m4")], nextCursor: null },
    };
    const { api, calls } = fakeApi((_, query) => pages[String(query.cursor ?? "")]);
    expect(await readMemories(api)).toEqual({
      memories: ["m1", "m2", "m3", "m4"].map(memory),
      complete: true,
    });
    expect(calls.map((call) => call.path)).toEqual(["/v1/memory", "/v1/memory", "/v1/memory"]);
    expect(calls.map((call) => call.query.cursor)).toEqual([undefined, "c1", "c2"]);
    expect(calls.every((call) => call.query.limit === 100)).toBe(true);
  });

  it("stops, incomplete, at maxEntries", async () => {
    let n = 0;
    const { api, calls } = fakeApi(() => ({
      memories: [memory(`m${++n}`), memory(`m${++n}`)],
      nextCursor: `c${n}`,
    }));
    const read = await readMemories(api, 3);
    expect(read.complete).toBe(false);
    expect(read.memories.map((m) => m.id)).toEqual(["m1", "m2", "m3", "m4"]);
    expect(calls).toHaveLength(2);
  });

  it("stops, incomplete, when a cursor comes back again instead of looping", async () => {
    const { api, calls } = fakeApi(() => ({ memories: [memory("m1")], nextCursor: "same" }));
    const read = await readMemories(api);
    expect(read.complete).toBe(false);
    expect(calls.map((call) => call.query.cursor)).toEqual([undefined, "same"]);
  });
});

describe("searchSession", () => {
  it("asks the session's search route, with the id as one path segment", async () => {
    const answer: SearchResponse = {
      query: "ModelState",
      results: [
        {
          seq: 12,
          role: "tool",
          toolCallId: "call_1",
          toolName: "bash",
          snippet: "«ModelState» is",
          score: 3.2,
          inContext: false,
          pruned: true,
        },
      ],
      indexing: { complete: true },
    };
    const { api, calls } = fakeApi(() => answer);
    expect(await searchSession(api, "a/b c", "ModelState")).toEqual(answer);
    expect(calls).toEqual([
      { path: "/v1/sessions/a%2Fb%20c/search", query: { q: "ModelState", limit: 20 } },
    ]);
  });
});
