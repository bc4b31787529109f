import { CondenseApiError } from "@condense/client";
import { describe, expect, it } from "vitest";
import { inspectorClient, isRouteMissing } from "./inspector-client.ts";

const ORIGIN = "https://condense.test";

function answering(status: number, body: string, headers: Record<string, string> = {}) {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const fetchImpl = (async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return new Response(body, { status, headers });
  }) as unknown as typeof fetch;
  return { calls, fetchImpl };
}

async function failure(promise: Promise<unknown>): Promise<CondenseApiError> {
  try {
    await promise;
  } catch (error) {
    if (CondenseApiError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}

describe("inspectorClient", () => {
  it("sends the key as a bearer token to this origin only, never to an HTTP cache", async () => {
    const { calls, fetchImpl } = answering(200, '{"sessions":[],"nextCursor":null}');
    const client = inspectorClient("secret-key", { baseUrl: ORIGIN, fetch: fetchImpl });
    expect(await client.sessions({ limit: 50 })).toEqual({ sessions: [], nextCursor: null });
    expect(calls[0]?.url).toBe(`${ORIGIN}/v1/sessions?limit=50`);
    expect(new Headers(calls[0]?.init.headers).get("authorization")).toBe("Bearer secret-key");
    expect(calls[0]?.init).toMatchObject({ credentials: "omit", cache: "no-store" });
  });

  it("shows a failure at once: no retry, the API's code, details and request id", async () => {
    const body = JSON.stringify({
      error: {
        code: "invalid_request",
        message: "bad threshold",
        details: { issues: [{ path: "threshold" }] },
      },
    });
    const { calls, fetchImpl } = answering(503, body, { "X-Request-Id": "req-1" });
    const client = inspectorClient("k", { baseUrl: ORIGIN, fetch: fetchImpl });
    expect(await failure(client.session("s").update({ threshold: 0.5 }))).toMatchObject({
      status: 503,
      code: "invalid_request",
      message: "bad threshold",
      details: { issues: [{ path: "threshold" }] },
      requestId: "req-1",
    });
    expect(calls).toHaveLength(1);
  });

  it("says plainly when the service cannot be reached or does not answer JSON", async () => {
    const offline = (async () => {
      throw new TypeError("Failed to fetch");
    }) as unknown as typeof fetch;
    const unreachable = inspectorClient("k", { baseUrl: ORIGIN, fetch: offline });
    expect(await failure(unreachable.session("s").status())).toMatchObject({
      status: 0,
      code: "network_error",
    });
    const proxy = inspectorClient("k", {
      baseUrl: ORIGIN,
      fetch: answering(502, "<html>bad gateway</html>").fetchImpl,
    });
    expect(await failure(proxy.session("s").status())).toMatchObject({
      status: 502,
      code: "http_error",
    });
  });
});

describe("isRouteMissing", () => {
  it("tells a missing route (404 not_found) from other failures", async () => {
    const { fetchImpl } = answering(
      404,
      '{"error":{"code":"not_found","message":"no route GET /v1/memory","details":null}}',
    );
    const missing = await failure(
      inspectorClient("k", { baseUrl: ORIGIN, fetch: fetchImpl }).memory.list(),
    );
    expect(isRouteMissing(missing)).toBe(true);
    expect(
      isRouteMissing(new CondenseApiError({ status: 401, code: "unauthorized", message: "no" })),
    ).toBe(false);
    expect(isRouteMissing(new Error("x"))).toBe(false);
  });
});
