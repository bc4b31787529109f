/**
 * The HTTP API's examples (issue 30): one real request per operation of the OpenAPI document,
 * made here against the Worker with its test upstream, recorded with the answer it got. The
 * docs site's operation pages show them (`apps/docs/http-examples.json`, read by
 * `pnpm --filter @condense/docs generate`), so an example is always one the Worker really answers.
 * The recording is a file snapshot: when an answer changes, this test fails until it is
 * re-recorded with `npx vitest run test/api/http-examples.test.ts -u` and the docs regenerated.
 * What differs from run to run (ids, times, durations, the test servers' ports) is replaced by
 * fixed placeholders first, so the recording only changes when the API does.
 */

import { SELF } from "cloudflare:test";
import { scenarioHeaders } from "@condense/test-servers";
import { describe, expect, it } from "vitest";
import { queueAnswers } from "../support/gateway-helpers";
import { BASE, TOKENS } from "../support/helpers";

interface Example {
  operation: string;
  request: { method: string; path: string; headers: Record<string, string>; body?: unknown };
  response: { status: number; headers: Record<string, string>; body: unknown };
}

/** The response headers a reader acts on; the rest (dates, lengths) would only be noise. */
const SHOWN_HEADERS = /^(content-type|x-condense-.*|retry-after|location|allow)$/i;
const KEY = TOKENS.docs ?? "";
const SESSION = "docs-example";

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g;
const PORT = /127\.0\.0\.1:\d+/g;
const MEMORY_ID = /mem_[0-9a-f]{32}/g;
/** The test servers number what they answer across the whole suite: the numbers are fixed here. */
const COUNTED_ID = /\b(chatcmpl-|resp_compact_|resp_|msg_|cmp_|gAAAA-encrypted-)\d+\b/g;
/** Keys as a reader writes them: shell variables of the curl lines. */
const PLACEHOLDERS: [string, string][] = [
  ["sk-ant-your-provider-key", "$ANTHROPIC_API_KEY"],
  ["sk-your-provider-key", "$OPENAI_API_KEY"],
  [KEY, "$CONDENSE_KEY"],
];
/** Fields whose value is a clock reading or a duration: fixed in the recording. */
const VOLATILE_FIELDS = new Set([
  "durationMs",
  "waitedMs",
  "createdAt",
  "updatedAt",
  "lastActivityAt",
  "at",
  "ts",
  "time",
  "expiresAt",
  "lastUsedAt",
]);

const PLACEHOLDER_OF = new Map(PLACEHOLDERS);
const PLACEHOLDER_PATTERN = new RegExp(
  PLACEHOLDERS.map(([secret]) => secret.replace(/[-]/g, "\\-")).join("|"),
  "g",
);

function stable(value: unknown, key = ""): unknown {
  if (typeof value === "string") {
    return value
      .replace(UUID, "00000000-0000-4000-8000-000000000000")
      .replace(ISO_TIME, "2026-01-01T00:00:00.000Z")
      .replace(PORT, "127.0.0.1:8787")
      .replace(MEMORY_ID, "mem_0123456789abcdef0123456789abcdef")
      .replace(COUNTED_ID, "$11")
      .replace(PLACEHOLDER_PATTERN, (found) => PLACEHOLDER_OF.get(found) ?? found);
  }
  if (typeof value === "number" && VOLATILE_FIELDS.has(key)) {
    return value > 1e12 ? 1767225600000 : 0;
  }
  if (Array.isArray(value)) return value.map((item) => stable(item));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([name, inner]) => [name, stable(inner, name)]),
    );
  }
  return value;
}

/** A long body cut for the page: the first items of each long array, long strings shortened. */
function shortened(value: unknown): unknown {
  if (typeof value === "string") return value.length > 400 ? `${value.slice(0, 400)}…` : value;
  if (Array.isArray(value)) {
    const kept = value.slice(0, 4).map(shortened);
    return value.length > 4 ? [...kept, `… ${value.length - 4} more`] : kept;
  }
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shortened(v)]));
  }
  return value;
}

/** The OpenAPI document's head and the number of its paths, instead of all of it. */
function openApiOutline(body: unknown): unknown {
  const document = body as { openapi?: string; info?: { title?: string; version?: string } };
  const paths = Object.keys((body as { paths?: object }).paths ?? {});
  return {
    openapi: document.openapi,
    info: { title: document.info?.title, version: document.info?.version, "…": "…" },
    paths: { [paths[0] ?? ""]: "…", "…": `${paths.length - 1} more paths` },
    components: "…",
  };
}

const examples: Example[] = [];

async function record(
  operation: string,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; auth?: boolean } = {},
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const headers: Record<string, string> = {
    ...(options.auth === false ? {} : { Authorization: `Bearer ${KEY}` }),
    ...(options.body !== undefined ? { "Content-Type": "application/json" } : {}),
    ...options.headers,
  };
  const init: RequestInit = {
    method,
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  };
  const response = await SELF.fetch(`${BASE}${path}`, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === "" ? null : JSON.parse(text);
  } catch {
    // An event stream or plain text stays as it came.
  }
  const shown: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (SHOWN_HEADERS.test(name)) shown[name] = value;
  });
  // The test upstream's own control headers are not what a reader sends.
  const sent = Object.fromEntries(
    Object.entries(headers).filter(([name]) => !name.toLowerCase().startsWith("x-test-")),
  );
  // The OpenAPI document itself is the one page in the reference that needs no copy of it.
  const shownBody =
    operation === "GET /openapi.json" ? openApiOutline(body) : shortened(stable(body));
  examples.push({
    operation,
    request: {
      method,
      path: stable(path) as string,
      headers: stable(sent) as Record<string, string>,
      ...(options.body !== undefined ? { body: shortened(stable(options.body)) } : {}),
    },
    response: {
      status: response.status,
      headers: stable(shown) as Record<string, string>,
      body: shownBody,
    },
  });
  return { status: response.status, headers: response.headers, body };
}

const conversation = [
  { role: "system", content: "You are a coding agent. Use the tools to answer." },
  { role: "user", content: "Why does the CSV test fail?" },
  {
    role: "assistant",
    content: null,
    tool_calls: [
      {
        id: "call_1",
        type: "function",
        function: { name: "read_file", arguments: '{"path":"src/csv.ts"}' },
      },
    ],
  },
  {
    role: "tool",
    tool_call_id: "call_1",
    content: "export function parse(line: string) { return line.split(','); }",
  },
  { role: "assistant", content: "The parser splits on commas inside quotes." },
];

describe("the HTTP API's recorded examples", () => {
  it("answers one real request per operation, as recorded for the docs", async () => {
    const s = `/v1/sessions/${SESSION}`;
    // Each example is a success (2xx): the error shapes are on the error-code and troubleshooting pages.
    const ok = (reply: { status: number }) => expect(Math.floor(reply.status / 100)).toBe(2);

    ok(await record("GET /healthz", "GET", "/healthz", { auth: false }));
    const openapi = await record("GET /openapi.json", "GET", "/openapi.json", { auth: false });
    ok(openapi);

    ok(
      await record("POST /v1/compact", "POST", "/v1/compact", {
        body: { model: "gpt-4o", messages: conversation, options: { contextWindow: 16000 } },
      }),
    );
    ok(
      await record("POST /v1/responses/compact", "POST", "/v1/responses/compact", {
        body: { model: "gpt-5", input: [{ role: "user", content: "hello" }] },
      }),
    );

    ok(
      await record("POST /v1/sessions/{id}/messages", "POST", `${s}/messages`, {
        body: { model: "gpt-4o", messages: conversation },
      }),
    );
    ok(
      await record("PATCH /v1/sessions/{id}", "PATCH", s, {
        body: { contextWindow: 16000, threshold: 0.7 },
      }),
    );
    ok(await record("GET /v1/sessions/{id}", "GET", s));
    ok(await record("GET /v1/sessions", "GET", "/v1/sessions?limit=10"));
    ok(await record("GET /v1/sessions/{id}/context", "GET", `${s}/context?format=openai`));
    ok(await record("GET /v1/sessions/{id}/transcript", "GET", `${s}/transcript?limit=3`));
    ok(await record("GET /v1/sessions/{id}/search", "GET", `${s}/search?q=csv`));
    ok(await record("POST /v1/sessions/{id}/compact", "POST", `${s}/compact`, { body: {} }));
    ok(await record("GET /v1/sessions/{id}/compactions", "GET", `${s}/compactions`));
    ok(
      await record(
        "GET /v1/sessions/{id}/tool-outputs/{toolCallId}",
        "GET",
        `${s}/tool-outputs/call_1`,
      ),
    );
    ok(
      await record("POST /v1/sessions/{id}/overflow", "POST", `${s}/overflow`, {
        body: {
          error: { status: 400, message: "This model's maximum context length is 16000 tokens." },
        },
      }),
    );
    ok(await record("GET /v1/sessions/{id}/events", "GET", `${s}/events`));

    const memory = await record("POST /v1/memory", "POST", "/v1/memory", {
      body: { text: "Prefers TypeScript", kind: "preference" },
    });
    ok(memory);
    const memoryId = String((memory.body as { id?: unknown }).id);
    ok(await record("GET /v1/memory", "GET", "/v1/memory"));
    ok(await record("GET /v1/memory/search", "GET", "/v1/memory/search?q=typescript"));
    ok(await record("GET /v1/memory/{memoryId}", "GET", `/v1/memory/${memoryId}`));
    ok(
      await record("PATCH /v1/memory/{memoryId}", "PATCH", `/v1/memory/${memoryId}`, {
        body: { text: "Prefers TypeScript with strict mode" },
      }),
    );
    ok(await record("DELETE /v1/memory/{memoryId}", "DELETE", `/v1/memory/${memoryId}`));

    // The gateway: the caller's provider key as usual, the Condense key beside it. The test
    // upstream gives this tag's requests these answers in order.
    const tag = `docs-examples-${crypto.randomUUID()}`;
    await queueAnswers(tag, [
      { role: "assistant", content: "The parser splits on commas inside quotes." },
      { role: "assistant", content: "The parser splits on commas inside quotes." },
      { role: "assistant", content: "The parser splits on commas inside quotes." },
      { role: "assistant", content: "CSV parser fails on quoted commas" },
    ]);
    // Gemini's request has a tag of its own (it must not take the title's answer above), and its
    // answer is queued too: unqueued, the test upstream answers `Answer <n>` with n counted over
    // every request of the whole suite, so the recording depended on which files ran before.
    await queueAnswers(`${tag}-gemini`, [
      { role: "assistant", content: "The parser splits on commas inside quotes." },
    ]);
    const gateway = () => ({
      Authorization: "Bearer sk-your-provider-key",
      "X-Condense-Key": KEY,
      "X-Condense-Session": "docs-gateway",
      ...scenarioHeaders({ name: tag }),
    });
    const chat = await record(
      "POST /v1/gateway/{upstream}/chat/completions",
      "POST",
      "/v1/gateway/up/chat/completions",
      {
        headers: gateway(),
        body: {
          model: "gpt-4o",
          messages: [
            { role: "system", content: "You are a coding agent." },
            { role: "user", content: "Why does the CSV test fail?" },
          ],
        },
      },
    );
    ok(chat);
    ok(
      await record("POST /v1/gateway/{upstream}/responses", "POST", "/v1/gateway/up/responses", {
        headers: { ...gateway(), "X-Condense-Session": "docs-gateway-responses" },
        body: {
          model: "gpt-4o",
          instructions: "You are a coding agent.",
          input: [{ role: "user", content: "Why does the CSV test fail?" }],
        },
      }),
    );
    ok(
      await record(
        "POST /v1/gateway/{upstream}/v1/messages",
        "POST",
        "/v1/gateway/anthropic/v1/messages",
        {
          headers: {
            "x-api-key": "sk-ant-your-provider-key",
            "anthropic-version": "2023-06-01",
            "X-Condense-Key": KEY,
            "X-Condense-Session": "docs-gateway-anthropic",
            ...scenarioHeaders({ name: tag }),
          },
          auth: false,
          body: {
            model: "claude-sonnet-4-6",
            max_tokens: 256,
            system: "You are a coding agent.",
            messages: [{ role: "user", content: "Why does the CSV test fail?" }],
          },
        },
      ),
    );
    ok(
      await record(
        "POST /v1/gateway/{upstream}/v1beta/models/{model}",
        "POST",
        "/v1/gateway/up/v1beta/models/gemini-2.5-pro:generateContent",
        {
          headers: {
            "x-goog-api-key": "your-gemini-key",
            "X-Condense-Key": KEY,
            "X-Condense-Session": "docs-gateway-gemini",
            ...scenarioHeaders({ name: `${tag}-gemini` }),
          },
          auth: false,
          body: {
            systemInstruction: { parts: [{ text: "You are a coding agent." }] },
            contents: [{ role: "user", parts: [{ text: "Why does the CSV test fail?" }] }],
          },
        },
      ),
    );
    // The agent's context meter: the tokens of what the gateway would send for this history.
    ok(
      await record(
        "POST /v1/gateway/{upstream}/v1/messages/count_tokens",
        "POST",
        "/v1/gateway/anthropic/v1/messages/count_tokens",
        {
          headers: {
            "x-api-key": "sk-ant-your-provider-key",
            "anthropic-version": "2023-06-01",
            "X-Condense-Key": KEY,
            "X-Condense-Session": "docs-gateway-anthropic",
            ...scenarioHeaders({ name: tag }),
          },
          auth: false,
          body: {
            model: "claude-sonnet-4-6",
            system: "You are a coding agent.",
            messages: [
              { role: "user", content: "Why does the CSV test fail?" },
              { role: "assistant", content: "The parser splits on commas inside quotes." },
              { role: "user", content: "Fix it." },
            ],
          },
        },
      ),
    );
    ok(
      await record(
        "POST /v1/gateway/{upstream}/responses/compact",
        "POST",
        "/v1/gateway/up/responses/compact",
        {
          headers: { ...gateway(), "X-Condense-Session": "docs-gateway-responses" },
          body: {
            model: "gpt-5",
            input: [
              { role: "user", content: "Why does the CSV test fail?" },
              { role: "assistant", content: "The parser splits on commas inside quotes." },
              { role: "user", content: "Fix it." },
            ],
          },
        },
      ),
    );
    // A title request on the session: kept as a side request, not taken into the session.
    const title = await SELF.fetch(`${BASE}/v1/gateway/up/chat/completions`, {
      method: "POST",
      headers: { ...gateway(), "Content-Type": "application/json" },
      body: JSON.stringify({
        model: "gpt-4o",
        messages: [
          {
            role: "system",
            content: "Generate a short title for the conversation. Reply with the title only.",
          },
          { role: "user", content: "Why does the CSV test fail?" },
        ],
      }),
    });
    await title.text();
    const side = title.headers.get("X-Condense-Side-Request") ?? "";
    expect(side).toMatch(/^\d+$/);
    ok(
      await record(
        "GET /v1/sessions/{id}/side-requests",
        "GET",
        "/v1/sessions/docs-gateway/side-requests",
      ),
    );
    ok(
      await record(
        "GET /v1/sessions/{id}/side-requests/{sideRequestId}",
        "GET",
        `/v1/sessions/docs-gateway/side-requests/${side}`,
      ),
    );
    ok(
      await record("GET /v1/gateway/{upstream}/models", "GET", "/v1/gateway/up/models", {
        headers: { Authorization: "Bearer sk-your-provider-key", "X-Condense-Key": KEY },
        auth: false,
      }),
    );
    ok(
      await record(
        "GET /v1/gateway/{upstream}/v1/models",
        "GET",
        "/v1/gateway/anthropic/v1/models",
        {
          headers: {
            "x-api-key": "sk-ant-your-provider-key",
            "anthropic-version": "2023-06-01",
            "X-Condense-Key": KEY,
          },
          auth: false,
        },
      ),
    );

    ok(await record("DELETE /v1/sessions/{id}", "DELETE", s));
    // Last: it forgets everything its own user kept (no other test file calls as that user).
    ok(await record("DELETE /v1/me", "DELETE", "/v1/me"));

    // Every operation the Worker serves has its example, and no example names a gone one.
    const document = (openapi.body ?? {}) as { paths: Record<string, Record<string, unknown>> };
    const served = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => ["get", "post", "put", "patch", "delete"].includes(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(examples.map((example) => example.operation).sort()).toEqual(served.sort());

    // A stale example fails here ("Snapshot … mismatched"): re-record with -u, then regenerate the docs.
    await expect(`${JSON.stringify(examples, null, 2)}\n`).toMatchFileSnapshot(
      "../../../docs/http-examples.json",
    );
  });
});
