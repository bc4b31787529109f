import { describe, expect, it } from "vitest";
import { inspectorClient } from "./inspector-client.ts";
import { readMemories, readSessionPage, SESSION_PAGE } from "./list-data.ts";
import type { MemoryEntry, MemoryListPage, SessionListPage } from "./types.ts";

/** A client whose GETs `answer` answers by path and query, recording each. */
function fakeClient(answer: (path: string, query: URLSearchParams) => unknown) {
  const calls: Array<{ path: string; query: URLSearchParams }> = [];
  const fetchImpl = (async (url: string) => {
    const { pathname, searchParams } = new URL(url);
    calls.push({ path: pathname, query: searchParams });
    return Response.json(answer(pathname, searchParams));
  }) as unknown as typeof fetch;
  return {
    client: inspectorClient("k", { baseUrl: "https://condense.test", fetch: fetchImpl }),
    calls,
  };
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
    const { client, calls } = fakeClient(() => page);
    expect(await readSessionPage(client)).toEqual(page);
    expect(calls.map((call) => [call.path, call.query.toString()])).toEqual([
      ["/v1/sessions", `limit=${SESSION_PAGE}`],
    ]);
  });

  it("passes the previous page's nextCursor as cursor", async () => {
    const { client, calls } = fakeClient(() => ({ sessions: [], nextCursor: null }));
    await readSessionPage(client, "abc");
    expect(calls.map((call) => call.query.toString())).toEqual([
      `limit=${SESSION_PAGE}&cursor=abc`,
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
    const { client, calls } = fakeClient((_, query) => pages[query.get("cursor") ?? ""]);
    expect(await readMemories(client)).toEqual({
      memories: ["m1", "m2", "m3", "m4"].map(memory),
      complete: true,
    });
    expect(calls.map((call) => call.path)).toEqual(["/v1/memory", "/v1/memory", "/v1/memory"]);
    expect(calls.map((call) => call.query.get("cursor"))).toEqual([null, "c1", "c2"]);
    expect(calls.every((call) => call.query.get("limit") === "100")).toBe(true);
  });

  it("stops, incomplete, at maxEntries", async () => {
    let n = 0;
    const { client, calls } = fakeClient(() => ({
      memories: [memory(`m${++n}`), memory(`m${++n}`)],
      nextCursor: `c${n}`,
    }));
    const read = await readMemories(client, 3);
    expect(read.complete).toBe(false);
    expect(read.memories.map((m) => m.id)).toEqual(["m1", "m2", "m3", "m4"]);
    expect(calls).toHaveLength(2);
  });

  it("stops, incomplete, when a cursor comes back again instead of looping", async () => {
    const { client, calls } = fakeClient(() => ({ memories: [memory("m1")], nextCursor: "same" }));
    const read = await readMemories(client);
    expect(read.complete).toBe(false);
    expect(calls.map((call) => call.query.get("cursor"))).toEqual([null, "same"]);
  });
});
