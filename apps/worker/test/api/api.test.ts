/**
 * The HTTP surface: meta routes, authentication, and every bad-input error
 * (each with its own code, and none of them changing anything).
 */

import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import { API_REFERENCE_PATH } from "../../src/routes/api-reference";
import { INSPECTOR_PATH } from "../../src/routes/inspector";
import { BASE, call, conversation, freshSession } from "../support/helpers";
import { signJwt } from "../support/jwt";

const now = () => Math.floor(Date.now() / 1000);

describe("meta routes", () => {
  it("answers /healthz without auth, with a request id", async () => {
    const reply = await call("GET", "/healthz", { as: null });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ ok: true });
    expect(reply.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("keeps a well-formed incoming X-Request-Id", async () => {
    const reply = await call("GET", "/healthz", {
      as: null,
      headers: { "X-Request-Id": "client-req-12345" },
    });
    expect(reply.headers.get("X-Request-Id")).toBe("client-req-12345");
  });

  it("serves an OpenAPI 3.1 document describing every route", async () => {
    const reply = await call<{
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, unknown> };
    }>("GET", "/openapi.json", { as: null });
    expect(reply.status).toBe(200);
    expect(reply.body.openapi).toBe("3.1.0");
    const routes = Object.entries(reply.body.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(routes.sort()).toEqual(
      [
        "GET /healthz",
        "GET /openapi.json",
        "POST /v1/compact",
        "POST /v1/sessions/{id}/messages",
        "GET /v1/sessions/{id}/context",
        "POST /v1/sessions/{id}/compact",
        "POST /v1/sessions/{id}/overflow",
        "GET /v1/sessions/{id}",
        "PATCH /v1/sessions/{id}",
        "DELETE /v1/sessions/{id}",
        "GET /v1/sessions/{id}/compactions",
        "GET /v1/sessions/{id}/tool-outputs/{toolCallId}",
        "GET /v1/sessions/{id}/transcript",
        "GET /v1/sessions/{id}/side-requests",
        "GET /v1/sessions/{id}/side-requests/{sideRequestId}",
        "GET /v1/sessions/{id}/events",
        "GET /v1/sessions",
        "GET /v1/memory",
        "POST /v1/memory",
        "GET /v1/memory/search",
        "GET /v1/memory/{memoryId}",
        "PATCH /v1/memory/{memoryId}",
        "DELETE /v1/memory/{memoryId}",
        "DELETE /v1/me",
        "GET /v1/sessions/{id}/search",
        "POST /v1/responses/compact",
        "POST /v1/gateway/{upstream}/chat/completions",
        "POST /v1/gateway/{upstream}/responses",
        "POST /v1/gateway/{upstream}/v1/messages",
        "POST /v1/gateway/{upstream}/v1/messages/count_tokens",
        "POST /v1/gateway/{upstream}/responses/compact",
        "POST /v1/gateway/{upstream}/v1beta/models/{model}",
        "GET /v1/gateway/{upstream}/models",
        "GET /v1/gateway/{upstream}/v1/models",
      ].sort(),
    );
    expect(Object.keys(reply.body.components.schemas)).toEqual(
      expect.arrayContaining([
        "AppendRequest",
        "AppendResponse",
        "ContextResponse",
        "Error",
        "SessionStatus",
        "SearchResponse",
      ]),
    );
    const append = reply.body.paths["/v1/sessions/{id}/messages"]?.post as {
      requestBody: { content: Record<string, unknown> };
    };
    expect(append.requestBody.content["application/json"]).toBeDefined();
  });
});

describe("the OpenAPI document", () => {
  type Operation = {
    parameters?: Array<{ in: string; name: string }>;
    requestBody?: { content: Record<string, { schema?: unknown }> };
    responses: Record<
      string,
      { headers?: Record<string, unknown>; content?: Record<string, { schema?: unknown }> }
    >;
  };

  it("declares every route the app serves, with its request and response schemas", async () => {
    const doc = await call<{ paths: Record<string, Record<string, Operation>> }>(
      "GET",
      "/openapi.json",
      { as: null },
    );
    const documented = Object.entries(doc.body.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        route: `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ":$1")}`,
        operation,
      })),
    );
    // The inspector's and the API reference's pages and files (`/inspect`, `/docs`) are HTML and
    // static files, not API routes.
    const served = createApp()
      .routes.filter(
        (route) =>
          route.method !== "ALL" &&
          !route.path.startsWith(INSPECTOR_PATH) &&
          !route.path.startsWith(API_REFERENCE_PATH),
      )
      .map((route) => `${route.method} ${route.path}`);
    expect(documented.map((entry) => entry.route).sort()).toEqual([...new Set(served)].sort());
    for (const { route, operation } of documented) {
      expect(
        // A route that creates answers 201.
        (operation.responses["200"] ?? operation.responses["201"])?.content?.["application/json"]
          ?.schema,
        route,
      ).toBeDefined();
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(response.headers?.["X-Request-Id"], `${route} ${status}`).toBeDefined();
      }
      if (route.startsWith("POST") || route.startsWith("PATCH")) {
        expect(operation.requestBody?.content["application/json"]?.schema, route).toBeDefined();
      }
    }
    // Retry-safe routes say so in their parameters, not only in prose.
    for (const path of ["/v1/sessions/{id}/messages", "/v1/sessions/{id}/compact"]) {
      expect(
        doc.body.paths[path]?.post?.parameters?.some(
          (parameter) => parameter.in === "header" && parameter.name === "Idempotency-Key",
        ),
        path,
      ).toBe(true);
    }
  });
});

describe("authentication", () => {
  const path = () => `/v1/sessions/${freshSession()}`;

  it("refuses a request without a bearer token", async () => {
    const reply = await call("GET", path(), { as: null });
    expect(reply.status).toBe(401);
    expect(reply.body).toMatchObject({ error: { code: "unauthorized" } });
    expect(reply.headers.get("WWW-Authenticate")).toContain("Bearer");
  });

  it("refuses an unknown key", async () => {
    const reply = await call("GET", path(), { headers: { Authorization: "Bearer nope" } });
    expect(reply.status).toBe(401);
  });

  it("accepts every configured key (comma and newline separated)", async () => {
    for (const user of ["alice", "bob", "carol"]) {
      const reply = await call("GET", path(), { as: user });
      expect(reply.status).toBe(404); // authenticated; the session just does not exist
    }
  });

  it("accepts an HS256 JWT and uses its sub as the user", async () => {
    const id = freshSession();
    const token = await signJwt({ sub: "dave", exp: now() + 600 });
    const created = await call("POST", `/v1/sessions/${id}/messages`, {
      headers: { Authorization: `Bearer ${token}` },
      body: { messages: conversation(0) },
    });
    expect(created.status).toBe(200);
    const asDave = await call("GET", `/v1/sessions/${id}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(asDave.status).toBe(200);
    // Another user cannot see dave's session.
    expect((await call("GET", `/v1/sessions/${id}`, { as: "alice" })).status).toBe(404);
  });

  it("rejects expired, not-yet-valid, wrongly signed and alg-none JWTs", async () => {
    const bad = [
      await signJwt({ sub: "dave", exp: now() - 3600 }),
      await signJwt({ sub: "dave", nbf: now() + 3600 }),
      await signJwt({ sub: "dave" }, "another-secret"),
      await signJwt({ sub: "dave" }, "test-jwt-secret", "none"),
      await signJwt({ exp: now() + 600 }),
    ];
    for (const token of bad) {
      const reply = await call("GET", path(), { headers: { Authorization: `Bearer ${token}` } });
      expect(reply.status).toBe(401);
    }
  });

  it("fails closed when neither API_KEYS nor JWT_SECRET is configured", async () => {
    const reply = await call("GET", path(), {
      env: { API_KEYS: undefined, JWT_SECRET: undefined },
    });
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ error: { code: "auth_not_configured" } });
    expect(reply.headers.get("X-Request-Id")).not.toBeNull();
    // Public routes still answer.
    expect(
      (await call("GET", "/healthz", { env: { API_KEYS: undefined, JWT_SECRET: undefined } }))
        .status,
    ).toBe(200);
  });
});

describe("bad input", () => {
  async function expectUnchanged(id: string, messageCount: number): Promise<void> {
    const status = await call<{ messageCount: number }>("GET", `/v1/sessions/${id}`);
    if (messageCount === 0) expect(status.status).toBe(404);
    else expect(status.body.messageCount).toBe(messageCount);
  }

  it("gives each bad request its own code and changes nothing", async () => {
    const id = freshSession();
    const url = `/v1/sessions/${id}/messages`;
    const cases: Array<{ options: Parameters<typeof call>[2]; status: number; code: string }> = [
      {
        options: { rawBody: "{not json", headers: { "Content-Type": "application/json" } },
        status: 400,
        code: "invalid_json",
      },
      {
        options: {
          rawBody: JSON.stringify({ messages: [] }),
          headers: { "Content-Type": "text/plain" },
        },
        status: 415,
        code: "unsupported_media_type",
      },
      {
        options: { rawBody: JSON.stringify({ messages: [] }) },
        status: 415,
        code: "unsupported_media_type",
      },
      { options: { body: { messages: "hello" } }, status: 400, code: "invalid_request" },
      {
        options: { body: { messages: [{ role: "user", content: "hi" }], format: "gemini" } },
        status: 400,
        code: "unknown_format",
      },
      {
        options: { body: { messages: [{ role: "wizard", content: "hi" }] } },
        status: 400,
        code: "invalid_messages",
      },
      {
        options: {
          body: { messages: [{ role: "user", content: "hi" }], usage: { inputTokens: -1 } },
        },
        status: 400,
        code: "invalid_request",
      },
    ];
    for (const { options, status, code } of cases) {
      const reply = await call("POST", url, options);
      expect({
        code: (reply.body as { error?: { code?: string } }).error?.code,
        status: reply.status,
      }).toEqual({ code, status });
      expect(reply.headers.get("X-Request-Id")).not.toBeNull();
    }
    await expectUnchanged(id, 0);
  });

  it("names the path of the bad field", async () => {
    const reply = await call<{
      error: { message: string; details: { issues: Array<{ path: string }> } };
    }>("POST", `/v1/sessions/${freshSession()}/messages`, {
      body: { messages: [{ role: "user", content: "hi" }], usage: { inputTokens: "many" } },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.details.issues[0]?.path).toBe("usage.inputTokens");
    expect(reply.body.error.message).toContain("usage.inputTokens");
  });

  it("lists the engine's problems for invalid messages", async () => {
    const reply = await call<{
      error: { details: { problems: Array<{ index: number; path: string; kind: string }> } };
    }>("POST", `/v1/sessions/${freshSession()}/messages`, {
      body: {
        messages: [
          { role: "user", content: "ok" },
          { role: "tool", content: "x" },
        ],
      },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.details.problems[0]?.index).toBe(1);
  });

  it("rejects malformed session ids", async () => {
    for (const bad of ["a".repeat(129), "has space", "semi;colon", "%00"]) {
      const reply = await call("GET", `/v1/sessions/${encodeURIComponent(bad)}`);
      expect(reply.status, bad).toBe(400);
      expect(reply.body).toMatchObject({ error: { code: "invalid_session_id" } });
    }
    expect((await call("GET", `/v1/sessions/${"a".repeat(128)}`)).status).toBe(404);

    // An empty id matches no route, but it is still a malformed id rather than an unknown path.
    for (const [method, path] of [
      ["GET", "/v1/sessions//context"],
      ["POST", "/v1/sessions//messages"],
      ["DELETE", "/v1/sessions/"],
      ["GET", "/v1/sessions//tool-outputs/call_1"],
    ] as const) {
      const reply = await call(method, path, method === "POST" ? { body: { messages: [] } } : {});
      expect(reply.status, `${method} ${path}`).toBe(400);
      expect(reply.body).toMatchObject({ error: { code: "invalid_session_id" } });
    }
    // A wrong method is still 405, and other unknown paths 404.
    expect((await call("PUT", "/v1/sessions//messages")).status).toBe(405);
    expect((await call("GET", "/v1/sessions//nothing")).status).toBe(404);
  });

  it("refuses a body over 16 MiB by its Content-Length and while reading it", async () => {
    const id = freshSession();
    const big = JSON.stringify({
      messages: [{ role: "user", content: "x".repeat(16 * 1024 * 1024 + 10) }],
    });
    const declared = await call("POST", `/v1/sessions/${id}/messages`, {
      rawBody: big,
      headers: { "Content-Type": "application/json" },
    });
    expect(declared.status).toBe(413);
    expect(declared.body).toMatchObject({ error: { code: "body_too_large" } });

    // A streamed body has no Content-Length: the limit is enforced while reading.
    const bytes = new TextEncoder().encode(big);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let offset = 0; offset < bytes.length; offset += 1 << 20)
          controller.enqueue(bytes.slice(offset, offset + (1 << 20)));
        controller.close();
      },
    });
    const { SELF } = await import("cloudflare:test");
    const response = await SELF.fetch(`${BASE}/v1/sessions/${id}/messages`, {
      method: "POST",
      headers: { Authorization: "Bearer alice-key", "Content-Type": "application/json" },
      body: stream,
    });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      "body_too_large",
    );
    await expectUnchanged(id, 0);
  });

  it("takes a body of exactly 16 MiB and refuses one byte more", async () => {
    const id = freshSession();
    const limit = 16 * 1024 * 1024;
    // Four messages just under 4 MiB of content each (prose, so counting their tokens is quick).
    const content = "lorem ipsum dolor sit amet ".repeat(Math.floor((4 * 1024 * 1024 - 4096) / 27));
    const json = JSON.stringify({
      messages: Array.from({ length: 4 }, (_, i) => ({ role: "user", content: `${i} ${content}` })),
    });
    // JSON allows trailing whitespace: pad to the exact size.
    const exact = json + " ".repeat(limit - new TextEncoder().encode(json).length);
    expect(new TextEncoder().encode(exact).length).toBe(limit);

    const over = await call("POST", `/v1/sessions/${id}/messages`, {
      rawBody: `${exact} `,
      headers: { "Content-Type": "application/json" },
    });
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ error: { code: "body_too_large" } });
    await expectUnchanged(id, 0);

    const taken = await call("POST", `/v1/sessions/${id}/messages`, {
      rawBody: exact,
      headers: { "Content-Type": "application/json" },
    });
    expect(taken.status).toBe(200);
    expect(taken.body).toMatchObject({ appended: 4, messageCount: 4 });
  });

  it("refuses a message over 4 MiB", async () => {
    const id = freshSession();
    const reply = await call("POST", `/v1/sessions/${id}/messages`, {
      body: { messages: [{ role: "user", content: "y".repeat(4 * 1024 * 1024 + 70 * 1024) }] },
    });
    expect(reply.status).toBe(413);
    expect(reply.body).toMatchObject({
      error: { code: "message_too_large", details: { index: 0 } },
    });
    await expectUnchanged(id, 0);
  });

  it("answers unknown routes with 404 and wrong methods with 405", async () => {
    const unknown = await call("GET", "/v1/nothing-here");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: { code: "not_found" } });
    const top = await call("GET", "/nope", { as: null });
    expect(top.status).toBe(404);

    const wrong = await call("PUT", `/v1/sessions/${freshSession()}/messages`, { body: {} });
    expect(wrong.status).toBe(405);
    expect(wrong.body).toMatchObject({ error: { code: "method_not_allowed" } });
    expect(wrong.headers.get("Allow")).toBe("POST");
    const session = await call("POST", `/v1/sessions/${freshSession()}`, { body: {} });
    expect(session.status).toBe(405);
    expect(session.headers.get("Allow")?.split(", ").sort()).toEqual(["DELETE", "GET", "PATCH"]);
    const slash = await call("PUT", `/v1/sessions/${freshSession()}/`, { body: {} });
    expect(slash.status).toBe(405);
    expect(slash.headers.get("Allow")?.split(", ").sort()).toEqual(["DELETE", "GET", "PATCH"]);
  });

  it("never shows a stack trace on a 500", async () => {
    // A binding that throws on use stands in for an unexpected failure.
    const broken = new Proxy(
      {},
      {
        get() {
          throw new Error("secret internal detail at foo.ts:12");
        },
      },
    );
    const records: unknown[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((record: unknown) => {
      records.push(record);
    });
    const reply = await call("GET", `/v1/sessions/${freshSession()}`, {
      env: { SESSIONS: broken as never },
    }).finally(() => spy.mockRestore());
    // The operator's log has what the client is never shown: the message and the stack, as an object.
    const logged = records.find(
      (record) => (record as { type?: unknown }).type === "unhandled_error",
    ) as Record<string, unknown> | undefined;
    expect(logged).toMatchObject({
      level: "error",
      error: "Error",
      message: "secret internal detail at foo.ts:12",
      requestId: reply.headers.get("X-Request-Id"),
    });
    expect(logged?.stack).toMatch(/^at /);
    expect(JSON.stringify(records)).not.toContain("alice-key");
    expect(reply.status).toBe(500);
    expect(reply.body).toMatchObject({ error: { code: "internal_error", details: null } });
    expect(JSON.stringify(reply.body)).not.toContain("secret internal detail");
    expect(JSON.stringify(reply.body)).not.toContain("foo.ts");
  });
});

describe("a client that hangs up mid-body", () => {
  /** A body that sends its start, then breaks off, as a client that goes away does. */
  function brokenBody(): ReadableStream<Uint8Array> {
    return new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"messages":[{"role":"user","content":"hi'));
        controller.error(new Error("the client went away"));
      },
    });
  }

  it("is logged as a closed request (499, info), never as an unhandled error, and stores nothing", async () => {
    const lines: string[] = [];
    const collect = (line: unknown) => {
      lines.push(JSON.stringify(line));
    };
    const log = vi.spyOn(console, "log").mockImplementation(collect);
    const error = vi.spyOn(console, "error").mockImplementation(collect);
    const id = freshSession();
    try {
      for (const [path, headers] of [
        [`/v1/sessions/${id}/messages`, { Authorization: "Bearer alice-key" }],
        ["/v1/gateway/up/chat/completions", { "X-Condense-Key": "alice-key" }],
      ] as const) {
        const response = await createApp().request(
          `${BASE}${path}`,
          {
            method: "POST",
            headers: { ...headers, "Content-Type": "application/json" },
            body: brokenBody(),
            duplex: "half",
          } as RequestInit,
          env,
        );
        expect(response.status, path).toBe(499);
      }
    } finally {
      log.mockRestore();
      error.mockRestore();
    }
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed.filter((line) => line.level === "error")).toEqual([]);
    expect(parsed.filter((line) => line.type === "client_closed")).toHaveLength(2);
    const requests = parsed.filter((line) => line.type === "request");
    expect(requests.map((line) => line.status)).toEqual([499, 499]);
    expect((await call("GET", `/v1/sessions/${id}`)).status).toBe(404);
  });
});
