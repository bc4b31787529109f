import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../api/errors";
import { IDEMPOTENCY_TTL_MS, remember, replay } from "./idempotency";
import { migrate } from "./schema";

function freshObject() {
  return env.SESSIONS.get(env.SESSIONS.idFromName(`idempotency-test-${crypto.randomUUID()}`));
}

describe("idempotency records", () => {
  it("replays the first answer, refuses another body, keeps routes apart and forgets after 24 h", async () => {
    const outcome = await runInDurableObject(freshObject(), (_instance, state) => {
      migrate(state.storage);
      const sql = state.storage.sql;
      const t0 = 1_000_000;
      const first = { key: "k", bodyHash: "h1" };
      const none = replay(sql, "append", first, t0);
      remember(sql, "append", first, { answer: 1 }, t0);
      const again = replay(sql, "append", first, t0 + 1);
      let conflict: unknown;
      try {
        replay(sql, "append", { key: "k", bodyHash: "h2" }, t0 + 1);
      } catch (error) {
        conflict = error;
      }
      const otherRoute = replay(sql, "compact", first, t0 + 1);
      const expired = replay(sql, "append", first, t0 + IDEMPOTENCY_TTL_MS + 1);
      // Remembering anything later also drops the expired record.
      remember(sql, "compact", { key: "other", bodyHash: "h" }, {}, t0 + IDEMPOTENCY_TTL_MS + 1);
      const rows = sql.exec("SELECT key FROM condense_idempotency").toArray();
      return {
        none,
        again,
        conflict: conflict instanceof ApiError ? conflict.serialize() : conflict,
        otherRoute,
        expired,
        rows,
      };
    });
    expect(outcome.none).toBeUndefined();
    expect(outcome.again).toEqual({ answer: 1 });
    expect(outcome.conflict).toMatchObject({ status: 409, code: "idempotency_conflict" });
    expect(outcome.otherRoute).toBeUndefined();
    expect(outcome.expired).toBeUndefined();
    expect(outcome.rows).toEqual([{ key: "other" }]);
  });
});
