import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { unwrap } from "../api/rpc-result";
import type { SessionObject } from "./session-object";
import { sessionStub } from "./session-stub";
import { saveCooldown } from "./store/session-record";

describe("the session's clock", () => {
  it("stamps what the session stores and judges its cooldown by the clock a test sets", async () => {
    const key = { userId: "u", sessionId: `clock-${crypto.randomUUID()}` };
    const fixed = Date.UTC(2020, 0, 1);
    await runInDurableObject(sessionStub(env, key), async (instance: SessionObject, state) => {
      let now = fixed;
      instance.clock = () => now;
      unwrap(await instance.append(key, { messages: [{ role: "user", content: "hello" }] }));
      // A cooldown a minute past the clock's time, years before the machine's.
      saveCooldown(state.storage.sql, fixed + 60_000);
      const during = unwrap(await instance.status(key));
      expect(during.createdAt).toBe("2020-01-01T00:00:00.000Z");
      expect(during.cooldownUntil).toBe("2020-01-01T00:01:00.000Z");
      now = fixed + 120_000;
      expect(unwrap(await instance.status(key)).cooldownUntil).toBeNull();
    });
  });
});
