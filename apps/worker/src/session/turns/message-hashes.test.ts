import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { migrate } from "../store/schema";
import { saveHashes, storedHashes } from "./message-hashes";

function freshObject() {
  return env.SESSIONS.get(env.SESSIONS.idFromName(`hashes-test-${crypto.randomUUID()}`));
}

describe("storedHashes", () => {
  it("reads a whole range in order, and stops at the first seq without a hash", async () => {
    await runInDurableObject(freshObject(), (_instance, state) => {
      migrate(state.storage);
      const sql = state.storage.sql;
      saveHashes(sql, 1, ["a1", "b2", "c3", "d4"]);
      expect(storedHashes(sql, 1, 4)).toEqual(["a1", "b2", "c3", "d4"]);
      expect(storedHashes(sql, 2, 3)).toEqual(["b2", "c3"]);
      expect(storedHashes(sql, 3, 2)).toEqual([]);
      saveHashes(sql, 6, ["f6", "g7"]);
      // seq 5 has none: the range stops before it, whatever follows.
      expect(storedHashes(sql, 1, 7)).toEqual(["a1", "b2", "c3", "d4"]);
      expect(storedHashes(sql, 6, 7)).toEqual(["f6", "g7"]);
      expect(storedHashes(sql, 5, 7)).toEqual([]);
    });
  });
});
