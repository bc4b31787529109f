import { describe, expect, it } from "vitest";
import { BASE_URL, client, freshId, KEYS, workerFetch } from "../test/worker.js";
import { Condense } from "./client.js";
import { CondenseApiError } from "./errors.js";
import type { FetchLike } from "./transport.js";

/** The rejection of `promise`, which must reject. */
async function rejection(promise: Promise<unknown>): Promise<CondenseApiError> {
  try {
    await promise;
  } catch (error) {
    if (CondenseApiError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}

function step(i: number, outputChars = 200) {
  const id = `call_${i}`;
  return [
    {
      role: "assistant",
      content: `Step ${i}: reading src/module_${i}.ts`,
      tool_calls: [
        {
          id,
          type: "function",
          function: {
            name: "read_file",
            arguments: JSON.stringify({ path: `src/module_${i}.ts` }),
          },
        },
      ],
    },
    {
      role: "tool",
      tool_call_id: id,
      content: `// module ${i}\n${"export const value = 42;\n".repeat(Math.ceil(outputChars / 24))}`,
    },
  ];
}

describe("Condense", () => {
  it("refuses a missing or malformed base URL and a missing key", () => {
    expect(() => new Condense({ baseUrl: "127.0.0.1:8787", apiKey: "k" })).toThrow(
      /baseUrl must be an http\(s\) URL/,
    );
    expect(() => new Condense({ baseUrl: "http://127.0.0.1:8787", apiKey: "" })).toThrow(
      /apiKey is required/,
    );
  });

  it("reaches every route it calls at the path and method the service's OpenAPI document declares", async () => {
    const document = await client().openapi();
    const paths = document.paths as Record<string, Record<string, unknown>>;
    const expected: Array<[string, string]> = [
      ["/v1/compact", "post"],
      ["/v1/responses/compact", "post"],
      ["/healthz", "get"],
      ["/v1/sessions/{id}/messages", "post"],
      ["/v1/sessions/{id}/context", "get"],
      ["/v1/sessions/{id}/compact", "post"],
      ["/v1/sessions/{id}/overflow", "post"],
      ["/v1/sessions/{id}", "get"],
      ["/v1/sessions/{id}", "patch"],
      ["/v1/sessions/{id}", "delete"],
      ["/v1/sessions/{id}/compactions", "get"],
      ["/v1/sessions/{id}/tool-outputs/{toolCallId}", "get"],
      ["/v1/sessions/{id}/transcript", "get"],
    ];
    for (const [path, method] of expected) {
      expect(paths[path]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined();
    }
  });

  it("says the service is healthy", async () => {
    expect(await client().health()).toBe(true);
  });

  it("compacts a message list without a session", async () => {
    const messages = [
      { role: "system", content: "You are a coding agent." },
      { role: "user", content: "Fix the build of https://github.com/example/project" },
      ...Array.from({ length: 12 }, (_, i) => step(i, 2_000)).flat(),
    ];
    const result = await client().compact({
      model: "gpt-4o",
      messages,
      options: { contextWindow: 4_000, force: true },
    });
    expect(result.compacted).toBe(true);
    expect(result.originalCount).toBe(messages.length);
    expect(result.finalTokens).toBeLessThan(result.originalTokens);
  });
});

describe("SessionHandle", () => {
  it("appends, serves the context, reports status, changes settings and lists compactions", async () => {
    const session = client().session(freshId());
    const first = await session.append([
      { role: "system", content: "You are a coding agent." },
      { role: "user", content: "Fix the failing test." },
    ]);
    expect([first.appended, first.messageCount, first.firstSeq, first.lastSeq]).toEqual([
      2, 2, 1, 2,
    ]);

    const context = await session.context();
    expect(context.messages).toEqual([
      { role: "system", content: "You are a coding agent." },
      { role: "user", content: "Fix the failing test." },
    ]);
    const anthropic = await session.context({ format: "anthropic" });
    expect(anthropic.format).toBe("anthropic");
    expect(anthropic.system).toBe("You are a coding agent.");

    const updated = await session.update({ contextWindow: "16k", model: "gpt-4o-mini" });
    expect(updated.contextWindow).toBe(16_000);
    expect(updated.settings.model).toBe("gpt-4o-mini");
    const status = await session.status();
    expect(status.messageCount).toBe(2);
    expect(status.settings.contextWindow).toBe(16_000);
    expect(await session.compactions()).toEqual([]);
  });

  it("compacts on demand, returns pruned tool outputs byte for byte and pages the original transcript", async () => {
    const session = client().session(freshId());
    const messages = [
      { role: "system", content: "You are a coding agent." },
      { role: "user", content: "Refactor the module loader." },
      ...Array.from({ length: 10 }, (_, i) => step(i, 3_000)).flat(),
      { role: "user", content: "Now summarise what you changed." },
    ];
    await session.append(messages);
    await session.update({ contextWindow: 8_000 });
    const compacted = await session.compact({ focus: "the module loader" });
    expect(compacted.compacted).toBe(true);
    expect(compacted.event?.tokensAfter).toBeLessThan(compacted.event?.tokensBefore ?? 0);
    const history = await session.compactions();
    expect(history).toHaveLength(1);
    expect(history[0]?.id).toBe(compacted.event?.id);
    const report = await session.compactionReport();
    expect(report.compactions).toEqual(history);
    expect(report.bill.cacheBusts).toBeGreaterThanOrEqual(0);
    expect(Array.isArray(report.costSeries)).toBe(true);

    const output = await session.toolOutput("call_0");
    expect(output.content).toBe(messages[3]?.content);
    expect(output.toolName).toBe("read_file");

    const entries = [];
    for await (const entry of session.transcriptEntries({ limit: 4 })) entries.push(entry);
    expect(entries.map((entry) => entry.seq)).toEqual(messages.map((_, i) => i + 1));
    expect(entries.map((entry) => entry.message.content)).toEqual(
      messages.map((message) => message.content),
    );
    const page = await session.transcript({ after: 2, limit: 3 });
    expect(page.messages.map((entry) => entry.seq)).toEqual([3, 4, 5]);
    expect(page.nextAfter).toBe(5);
  });

  it("deletes a session, after which it is not found", async () => {
    const session = client().session(freshId());
    await session.append([{ role: "user", content: "hello" }]);
    const deleted = await session.delete();
    expect(deleted).toEqual({ sessionId: session.id, deleted: true, messageCount: 1 });
    const error = await rejection(session.status());
    expect([error.status, error.code]).toEqual([404, "not_found"]);
  });
});

describe("errors", () => {
  it("turns the service's error body into a CondenseApiError with its request id", async () => {
    const error = await rejection(client().session(freshId()).context());
    expect(error.status).toBe(404);
    expect(error.code).toBe("not_found");
    expect(error.message).toMatch(/not found/);
    expect(error.requestId).toMatch(/\S+/);
  });

  it("reports a wrong key as 401 unauthorized and keeps one user's sessions from another", async () => {
    const id = freshId();
    await client()
      .session(id)
      .append([{ role: "user", content: "alice's secret plan" }]);
    const wrongKey = await rejection(client({ apiKey: "not-a-key" }).session(id).context());
    expect([wrongKey.status, wrongKey.code]).toEqual([401, "unauthorized"]);
    const bob = await rejection(client({ apiKey: KEYS.bob }).session(id).context());
    expect([bob.status, bob.code]).toEqual([404, "not_found"]);
  });

  it("rejects a malformed session id with the service's 400 and does not reach another route", async () => {
    const error = await rejection(client().session("no/slashes allowed").context());
    expect(error.status).toBe(400);
    expect(error.code).toBe("invalid_session_id");
  });

  it("refuses the ids . and .., which a URL cannot carry (they would address another route)", async () => {
    for (const id of [".", ".."]) {
      expect(() => client().session(id), id).toThrow(/cannot be used in a URL/);
    }
    // Dots inside an id are fine.
    const session = client().session(`...${freshId()}.`);
    expect((await session.append([{ role: "user", content: "dots" }])).messageCount).toBe(1);
  });

  it("reports a provider error that is not an overflow as 422 not_an_overflow", async () => {
    const session = client().session(freshId());
    await session.append([{ role: "user", content: "hi" }]);
    const error = await rejection(
      session.reportOverflow({ status: 429, message: "Rate limit reached for gpt-4o" }),
    );
    expect([error.status, error.code]).toEqual([422, "not_an_overflow"]);
  });
});

/** A fetch into the Worker that records each request and lets a test interfere. */
function recordingFetch(
  interfere: (
    attempt: number,
    request: Request,
  ) => Promise<Response | undefined> | Response | undefined,
) {
  const requests: Request[] = [];
  const fetch: FetchLike = async (input, init) => {
    const request = new Request(input, init);
    requests.push(request.clone());
    const replaced = await interfere(requests.length, request.clone());
    return replaced ?? workerFetch(input, init);
  };
  return { fetch, requests };
}

describe("retries", () => {
  it("retries an append whose answer was lost with the same Idempotency-Key, so the message is stored once", async () => {
    const { fetch, requests } = recordingFetch(async (attempt, request) => {
      if (attempt === 1) {
        // The Worker stores the message, but the answer never arrives.
        await workerFetch(request.url, {
          method: request.method,
          headers: request.headers,
          body: await request.text(),
        });
        throw new TypeError("network connection lost");
      }
      return undefined;
    });
    const session = client({ fetch }).session(freshId());
    const appended = await session.append([{ role: "user", content: "exactly once" }]);
    expect(appended.messageCount).toBe(1);
    expect(requests).toHaveLength(2);
    const keys = requests.map((request) => request.headers.get("idempotency-key"));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    const transcript = await session.transcript();
    expect(transcript.messages.map((entry) => entry.message.content)).toEqual(["exactly once"]);
  });

  it("gives each logical append its own key, so identical messages appended twice are both stored", async () => {
    const { fetch, requests } = recordingFetch(() => undefined);
    const session = client({ fetch }).session(freshId());
    await session.append([{ role: "user", content: "again" }]);
    const second = await session.append([{ role: "user", content: "again" }]);
    expect(second.messageCount).toBe(2);
    expect(requests[0]?.headers.get("idempotency-key")).not.toBe(
      requests[1]?.headers.get("idempotency-key"),
    );
  });

  it("retries 5xx and 429 answers and network failures up to maxRetries", async () => {
    const { fetch, requests } = recordingFetch((attempt) => {
      if (attempt === 1)
        return Response.json(
          { error: { code: "internal_error", message: "boom", details: null } },
          { status: 503 },
        );
      if (attempt === 2)
        return new Response("slow down", { status: 429, headers: { "retry-after": "0" } });
      if (attempt === 3) throw new TypeError("fetch failed");
      return undefined;
    });
    expect(await client({ fetch, maxRetries: 3 }).health()).toBe(true);
    expect(requests).toHaveLength(4);

    const failing = recordingFetch(() =>
      Response.json(
        { error: { code: "internal_error", message: "down", details: null } },
        { status: 500, headers: { "x-request-id": "r-500" } },
      ),
    );
    const error = await rejection(client({ fetch: failing.fetch, maxRetries: 2 }).health());
    expect([error.status, error.code, error.requestId]).toEqual([500, "internal_error", "r-500"]);
    expect(failing.requests).toHaveLength(3);
  });

  it("does not retry 4xx answers, nor a Retry-After longer than it is willing to wait", async () => {
    const notFound = recordingFetch(() => undefined);
    await rejection(client({ fetch: notFound.fetch }).session(freshId()).status());
    expect(notFound.requests).toHaveLength(1);

    const later = recordingFetch(
      () => new Response("busy", { status: 503, headers: { "retry-after": "3600" } }),
    );
    const error = await rejection(client({ fetch: later.fetch }).health());
    expect(error.status).toBe(503);
    expect(later.requests).toHaveLength(1);
  });

  it("makes one attempt with maxRetries 0", async () => {
    const { fetch, requests } = recordingFetch(() => {
      throw new TypeError("fetch failed");
    });
    const error = await rejection(client({ fetch, maxRetries: 0 }).health());
    expect([error.status, error.code]).toEqual([0, "network_error"]);
    expect(error.message).toContain(BASE_URL);
    expect(requests).toHaveLength(1);
  });

  it("reports a proxy's non-JSON error page as http_error and a non-JSON success as invalid_response", async () => {
    const proxy = recordingFetch(
      () =>
        new Response("<html>502 Bad Gateway</html>", { status: 502, statusText: "Bad Gateway" }),
    );
    const gateway = await rejection(client({ fetch: proxy.fetch, maxRetries: 1 }).health());
    expect([gateway.status, gateway.code]).toEqual([502, "http_error"]);
    expect(proxy.requests).toHaveLength(2);

    const html = recordingFetch(() => new Response("<html>login</html>", { status: 200 }));
    const invalid = await rejection(client({ fetch: html.fetch }).health());
    expect([invalid.status, invalid.code]).toEqual([200, "invalid_response"]);
    expect(html.requests).toHaveLength(1);
  });

  it("times out an attempt that never answers, and retries it", async () => {
    const { fetch, requests } = recordingFetch(
      (_attempt, request) =>
        new Promise<Response>((_resolve, reject) => {
          request.signal.addEventListener("abort", () => reject(request.signal.reason));
        }),
    );
    const error = await rejection(client({ fetch, timeoutMs: 20, maxRetries: 1 }).health());
    expect([error.status, error.code]).toEqual([0, "timeout"]);
    expect(requests).toHaveLength(2);
  });

  it("gives calls that may wait on a compaction their own, longer timeout", async () => {
    const slow = () =>
      recordingFetch(
        (_attempt, request) =>
          new Promise<Response>((resolve, reject) => {
            const timer = setTimeout(() => resolve(Response.json({ ok: true })), 100);
            request.signal.addEventListener("abort", () => {
              clearTimeout(timer);
              reject(request.signal.reason);
            });
          }),
      );
    const quick = slow();
    const timedOut = await rejection(
      client({
        fetch: quick.fetch,
        timeoutMs: 20,
        compactionTimeoutMs: 2_000,
        maxRetries: 0,
      }).health(),
    );
    expect(timedOut.code).toBe("timeout");
    const waiting = slow();
    const context = await client({
      fetch: waiting.fetch,
      timeoutMs: 20,
      compactionTimeoutMs: 2_000,
      maxRetries: 0,
    })
      .session("s")
      .context();
    expect(context).toEqual({ ok: true });
  });

  it("rejects with the caller's abort reason, before the request or while waiting to retry", async () => {
    const before = recordingFetch(() => undefined);
    const reason = new Error("user navigated away");
    await expect(
      client({ fetch: before.fetch }).health({ signal: AbortSignal.abort(reason) }),
    ).rejects.toBe(reason);
    expect(before.requests).toHaveLength(0);

    const controller = new AbortController();
    const during = recordingFetch(() => {
      setTimeout(() => controller.abort(reason), 5);
      return new Response("unavailable", { status: 503 });
    });
    const slowBackoff = client({
      fetch: during.fetch,
      backoff: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
    });
    await expect(slowBackoff.health({ signal: controller.signal })).rejects.toBe(reason);
    expect(during.requests).toHaveLength(1);
  });
});
