import { describe, expect, it } from "vitest";
import { ApiFailure, createApi, isRouteMissing, sessionPath } from "./client.ts";

function answering(status: number, body: string, headers: Record<string, string> = {}) {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const fetchImpl = (async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return new Response(body, { status, headers });
  }) as unknown as typeof fetch;
  return { calls, fetchImpl };
}

async function failure(promise: Promise<unknown>): Promise<ApiFailure> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiFailure) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}

describe("createApi", () => {
  it("sends the key as a bearer token to this origin only, and the query without empty values", async () => {
    const { calls, fetchImpl } = answering(200, '{"ok":true}');
    const api = createApi("secret-key", fetchImpl);
    expect(await api.get("/v1/sessions", { limit: 50, cursor: undefined, q: "" })).toEqual({
      ok: true,
    });
    expect(calls[0]?.url).toBe("/v1/sessions?limit=50");
    expect(calls[0]?.init.headers).toEqual({ Authorization: "Bearer secret-key" });
    expect(calls[0]?.init.credentials).toBe("omit");
    await api.send("PATCH", "/v1/sessions/x", { threshold: 0.5 });
    expect(calls[1]?.init).toMatchObject({ method: "PATCH", body: '{"threshold":0.5}' });
  });

  it("turns the API's error body into an ApiFailure with its code, details and request id", async () => {
    const body = JSON.stringify({
      error: {
        code: "invalid_request",
        message: "bad threshold",
        details: { issues: [{ path: "threshold" }] },
      },
    });
    const { fetchImpl } = answering(400, body, { "X-Request-Id": "req-1" });
    const error = await failure(createApi("k", fetchImpl).get("/v1/x"));
    expect(error).toMatchObject({
      status: 400,
      code: "invalid_request",
      message: "bad threshold",
      details: { issues: [{ path: "threshold" }] },
      requestId: "req-1",
    });
  });

  it("says plainly when the service cannot be reached or does not answer JSON", async () => {
    const offline = (async () => {
      throw new TypeError("Failed to fetch");
    }) as unknown as typeof fetch;
    expect(await failure(createApi("k", offline).get("/v1/x"))).toMatchObject({
      status: 0,
      code: "network_error",
    });
    expect(
      await failure(
        createApi("k", answering(502, "<html>bad gateway</html>").fetchImpl).get("/v1/x"),
      ),
    ).toMatchObject({
      status: 502,
      code: "bad_response",
    });
  });

  it("tells a missing route (404 not_found) from other failures", async () => {
    const missing = await failure(
      createApi(
        "k",
        answering(
          404,
          '{"error":{"code":"not_found","message":"no route GET /v1/memory","details":null}}',
        ).fetchImpl,
      ).get("/v1/memory"),
    );
    expect(isRouteMissing(missing)).toBe(true);
    expect(isRouteMissing(new ApiFailure(401, "unauthorized", "no"))).toBe(false);
    expect(isRouteMissing(new Error("x"))).toBe(false);
  });
});

describe("sessionPath", () => {
  it("keeps a session id one path segment", () => {
    expect(sessionPath("a/b?c", "/context")).toBe("/v1/sessions/a%2Fb%3Fc/context");
  });
});
