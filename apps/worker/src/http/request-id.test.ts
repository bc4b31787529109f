/**
 * The request id as a caller sees it: on every response, a passed-through
 * upstream response included; an incoming id kept only when it is 8-128
 * characters of A-Z a-z 0-9 . _ : -, else replaced by a fresh UUID.
 */

import { describe, expect, it } from "vitest";
import { call } from "../../test/support/helpers";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function idFor(incoming: string): Promise<string | null> {
  const reply = await call("GET", "/healthz", { as: null, headers: { "X-Request-Id": incoming } });
  return reply.headers.get("X-Request-Id");
}

describe("X-Request-Id", () => {
  it("keeps an incoming id of 8-128 characters of A-Z a-z 0-9 . _ : -", async () => {
    expect(await idFor("trace.v1:span_42-x")).toBe("trace.v1:span_42-x");
    expect(await idFor("a".repeat(128))).toBe("a".repeat(128));
  });

  it("replaces an id too short, too long or with other characters by a fresh UUID", async () => {
    for (const incoming of ["abc1234", "a".repeat(129), "trace=12345678", "trace 12345678"]) {
      expect(await idFor(incoming), incoming).toMatch(UUID);
    }
  });

  it("is on a response the gateway passes through from the upstream", async () => {
    const reply = await call("GET", "/v1/gateway/up/models", {
      headers: { "X-Request-Id": "gateway-trace-1" },
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("X-Request-Id")).toBe("gateway-trace-1");
  });
});
