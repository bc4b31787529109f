/**
 * @module test/memory/memory-settings
 * The settings issue 11 adds (`recall`, `memory`, `memoryTokens`): their defaults, changes, resets
 * with null, and the refusal of values out of range, which changes nothing.
 */

import { describe, expect, it } from "vitest";
import type { ErrorResponseBody, SessionStatusBody } from "../../src/api/schemas";
import { call, freshSession, status } from "../support/helpers";

describe("memory and recall settings", () => {
  it("defaults to recall and memory off and a 2,000-token memory budget, and stores changes", async () => {
    const id = freshSession();
    const created = await call<SessionStatusBody>("PATCH", `/v1/sessions/${id}`, { body: {} });
    expect(created.body.settings).toMatchObject({
      recall: false,
      memory: false,
      memoryTokens: 2000,
    });
    const changed = await call<SessionStatusBody>("PATCH", `/v1/sessions/${id}`, {
      body: { recall: true, memory: true, memoryTokens: 500 },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.settings).toMatchObject({ recall: true, memory: true, memoryTokens: 500 });
    expect((await status(id)).settings).toMatchObject({ memory: true, memoryTokens: 500 });
    const reset = await call<SessionStatusBody>("PATCH", `/v1/sessions/${id}`, {
      body: { recall: null, memory: null, memoryTokens: null },
    });
    expect(reset.body.settings).toMatchObject({ recall: false, memory: false, memoryTokens: 2000 });
  });

  it("refuses a budget out of 0..32000 or a non-boolean switch, changing nothing", async () => {
    const id = freshSession();
    await call("PATCH", `/v1/sessions/${id}`, { body: { memoryTokens: 100 } });
    for (const body of [
      { memoryTokens: -1 },
      { memoryTokens: 32_001 },
      { memoryTokens: 1.5 },
      { memory: "yes" },
      { recall: 1 },
    ]) {
      const refused = await call<ErrorResponseBody>("PATCH", `/v1/sessions/${id}`, { body });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe("invalid_request");
    }
    expect((await status(id)).settings).toMatchObject({ memory: false, memoryTokens: 100 });
  });
});
