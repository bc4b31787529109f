/**
 * CORS: browsers on the origins of `CORS_ORIGINS` may call the API (preflights answered, responses
 * readable, Condense's own headers allowed and exposed); any other origin gets no CORS header at all.
 */

import { describe, expect, it } from "vitest";
import { call, freshSession } from "../support/helpers";

const LISTED = "https://app.example.com";
const cors = { CORS_ORIGINS: `${LISTED}, http://localhost:5173` };

function preflight(origin: string, path = "/v1/sessions", env: Partial<Env> = cors) {
  return call("OPTIONS", path, {
    as: null,
    env,
    headers: {
      Origin: origin,
      "Access-Control-Request-Method": "POST",
      "Access-Control-Request-Headers": "authorization, content-type, idempotency-key",
    },
  });
}

const corsHeaders = (headers: Headers) =>
  [...headers.keys()].filter((name) => name.startsWith("access-control-"));

describe("CORS", () => {
  it("answers a preflight from a listed origin, allowing the API's headers", async () => {
    for (const path of ["/v1/sessions", "/v1/gateway/up/chat/completions"]) {
      const reply = await preflight(LISTED, path);
      expect(reply.status, path).toBe(204);
      expect(reply.headers.get("Access-Control-Allow-Origin")).toBe(LISTED);
      const allowed = reply.headers.get("Access-Control-Allow-Headers")?.toLowerCase() ?? "";
      for (const header of [
        "authorization",
        "content-type",
        "idempotency-key",
        "x-condense-key",
        "x-condense-session",
      ]) {
        expect(
          allowed.split(",").map((h) => h.trim()),
          header,
        ).toContain(header);
      }
      expect(reply.headers.get("Access-Control-Allow-Methods")).toContain("DELETE");
    }
  });

  it("lets a listed origin read responses and Condense's headers", async () => {
    const id = freshSession();
    const reply = await call("POST", `/v1/sessions/${id}/messages`, {
      env: cors,
      headers: { Origin: "http://localhost:5173" },
      body: { messages: [{ role: "user", content: "hi" }] },
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("Access-Control-Allow-Origin")).toBe("http://localhost:5173");
    const exposed = reply.headers.get("Access-Control-Expose-Headers")?.toLowerCase() ?? "";
    for (const header of ["x-request-id", "x-condense-tokens", "retry-after"]) {
      expect(exposed, header).toContain(header);
    }
  });

  it("gives an unlisted origin no CORS header, on preflights and responses", async () => {
    const refused = await preflight("https://evil.example");
    expect(corsHeaders(refused.headers)).toEqual([]);
    expect(refused.status).not.toBe(204);
    const response = await call("GET", "/healthz", {
      env: cors,
      headers: { Origin: "https://evil.example" },
    });
    expect(response.status).toBe(200);
    expect(corsHeaders(response.headers)).toEqual([]);
    // A listed origin's prefix or a different scheme is another origin.
    expect(corsHeaders((await preflight("https://app.example.com.evil.example")).headers)).toEqual(
      [],
    );
    expect(corsHeaders((await preflight("http://app.example.com")).headers)).toEqual([]);
  });

  it("gives no origin CORS headers when CORS_ORIGINS is unset", async () => {
    const reply = await preflight(LISTED, "/v1/sessions", {});
    expect(corsHeaders(reply.headers)).toEqual([]);
  });
});
