import { env, runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CHUNK_BYTES, MessageStore } from "./message-store";
import { migrate } from "./schema";

/** A fresh, never-used session object to borrow storage from. */
function freshObject() {
  return env.SESSIONS.get(env.SESSIONS.idFromName(`store-test-${crypto.randomUUID()}`));
}

describe("MessageStore", () => {
  it("stores messages at and around the chunk size byte for byte", async () => {
    await runInDurableObject(freshObject(), (_instance, state) => {
      migrate(state.storage);
      const store = new MessageStore(state.storage.sql);
      // JSON of {"role":"tool","tool_call_id":"cN","content":"a…🚀é"} is content + 54 bytes: sizes that end
      // one byte under, exactly at and (with 🚀 cut in two by the chunk boundary) just over one chunk.
      const sizes = [10, CHUNK_BYTES - 55, CHUNK_BYTES - 54, CHUNK_BYTES - 48, 2 * CHUNK_BYTES + 7];
      sizes.forEach((size, i) => {
        const message = {
          role: "tool" as const,
          tool_call_id: `c${i}`,
          content: `${"a".repeat(size)}🚀é`,
        };
        const bytes = store.appendTranscript(i + 1, message, i, 1000 + i);
        expect(bytes).toBe(size + 54);
      });
      const rows = store.readTranscript(0);
      expect(rows.map((row) => row.key)).toEqual([1, 2, 3, 4, 5]);
      rows.forEach((row, i) => {
        expect(row.message.content).toBe(`${"a".repeat(sizes[i] ?? 0)}🚀é`);
        expect(row.tokens).toBe(i);
        expect(row.createdAt).toBe(1000 + i);
      });
      const chunkCounts = state.storage.sql
        .exec<{ chunk_count: number }>("SELECT chunk_count FROM condense_transcript ORDER BY seq")
        .toArray()
        .map((row) => row.chunk_count);
      expect(chunkCounts).toEqual([1, 1, 1, 2, 3]);
      expect(store.tokensAfter(2)).toEqual({ tokens: 2 + 3 + 4, count: 3 });
      expect(store.transcriptAt(4)?.key).toBe(4);
      expect(store.transcriptAt(9)).toBeUndefined();
    });
  });

  it("sums the tokens after any seq the same from the transcript's totals as row by row", async () => {
    await runInDurableObject(freshObject(), (_instance, state) => {
      migrate(state.storage);
      const store = new MessageStore(state.storage.sql);
      let stored = 0;
      fc.assert(
        fc.property(
          fc.array(fc.nat({ max: 5_000 }), { minLength: 0, maxLength: 40 }),
          fc.integer({ min: -2, max: 90 }),
          (more, after) => {
            more.forEach((tokens) => {
              stored++;
              store.appendTranscript(stored, { role: "user", content: "x" }, tokens, 0);
            });
            const rows = state.storage.sql
              .exec<{ tokens: number }>("SELECT tokens FROM condense_transcript ORDER BY seq")
              .toArray();
            const totals = { count: rows.length, tokens: rows.reduce((a, r) => a + r.tokens, 0) };
            const tail = rows.slice(Math.max(0, after));
            const expected = { tokens: tail.reduce((a, r) => a + r.tokens, 0), count: tail.length };
            expect(store.tokensAfter(after, totals)).toEqual(expected);
            expect(store.tokensAfter(after)).toEqual(expected);
          },
        ),
        { numRuns: 60 },
      );
    });
  });

  it("pages by count and by bytes, always making progress", async () => {
    await runInDurableObject(freshObject(), (_instance, state) => {
      migrate(state.storage);
      const store = new MessageStore(state.storage.sql);
      for (let seq = 1; seq <= 5; seq++) {
        store.appendTranscript(seq, { role: "user", content: "x".repeat(1000) }, 1, 0);
      }
      expect(store.readTranscript(1, 2).map((row) => row.key)).toEqual([2, 3]);
      expect(store.readTranscript(0, 100, 2500).map((row) => row.key)).toEqual([1, 2]);
      expect(store.readTranscript(0, 100, 10).map((row) => row.key)).toEqual([1]);
    });
  });

  it("replaces the view whole, chunks included", async () => {
    await runInDurableObject(freshObject(), (_instance, state) => {
      migrate(state.storage);
      const store = new MessageStore(state.storage.sql);
      const big = "b".repeat(CHUNK_BYTES * 2);
      store.replaceView([
        { message: { role: "system", content: "s" }, tokens: 1 },
        { message: { role: "user", content: big }, tokens: 2 },
      ]);
      expect(store.readView().map((row) => row.message.content)).toEqual(["s", big]);
      store.replaceView([{ message: { role: "user", content: "small" }, tokens: 3 }]);
      expect(store.readView()).toEqual([
        { key: 0, role: "user", tokens: 3, message: { role: "user", content: "small" } },
      ]);
      const leftover = state.storage.sql
        .exec<{ n: number }>("SELECT COUNT(*) AS n FROM condense_chunks WHERE owner = 'v'")
        .one().n;
      expect(leftover).toBe(0);
    });
  });
});
