/**
 * The Worker's configuration at the edge of the app: a bad variable makes every request answer an
 * error that names it (and the operator's log line says the same), rather than a silent default.
 */

import { describe, expect, it, vi } from "vitest";
import { call } from "../support/helpers";

describe("a bad configuration variable", () => {
  it("answers every request with an error naming the variable, and logs it", async () => {
    const errors: unknown[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((line: unknown) => {
      errors.push(line);
    });
    try {
      for (const path of ["/healthz", "/v1/sessions"]) {
        const reply = await call("GET", path, { env: { COOLDOWN_SECONDS: "ten minutes" } });
        expect(reply.status, path).toBe(500);
        expect(reply.body, path).toMatchObject({ error: { code: "invalid_configuration" } });
        expect(JSON.stringify(reply.body)).toContain("COOLDOWN_SECONDS");
      }
    } finally {
      spy.mockRestore();
    }
    expect(JSON.stringify(errors)).toContain("COOLDOWN_SECONDS");
  });

  it("leaves a good configuration alone", async () => {
    expect((await call("GET", "/healthz", { env: { COOLDOWN_SECONDS: "60" } })).status).toBe(200);
  });
});
