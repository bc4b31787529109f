/**
 * Gemini's `generateContent` through the gateway, as Gemini CLI sends it
 * (`x-goog-api-key`, calls answered with the agent's own ids, thoughts and
 * signatures sent back): sessions matched turn after turn, streams, the bill
 * from `usageMetadata`, overflow recovery from Gemini's wording, and errors
 * in Google's shape. The test upstream enforces Gemini's documented rules
 * (roles, call and response turns, thought signatures).
 */

import { SELF } from "cloudflare:test";
import { fromCanonical, toCanonical } from "@condense/core";
import { type ScenarioFields, scenarioHeaders } from "@condense/test-servers";
import { describe, expect, it } from "vitest";
import { freshTag, upstreamCalls } from "../support/gateway-helpers";
import {
  BASE,
  conversation,
  freshSession,
  status,
  TOKENS,
  transcript,
  waitFor,
} from "../support/helpers";

type Content = { role: string; parts: Array<Record<string, unknown>> };

interface GeminiCall {
  tag: string;
  model?: string;
  method?: string;
  session?: string;
  /** How the test upstream treats the request; its name is the tag. */
  scenario?: ScenarioFields;
  /** Where the key goes: Gemini's header (default) or `?key=`. */
  keyIn?: "header" | "query" | "none";
  headers?: Record<string, string>;
}

/** A Gemini request to the gateway, as Gemini CLI makes it (the Condense key in X-Condense-Key). */
async function gemini(body: unknown, options: GeminiCall): Promise<Response> {
  const method = options.method ?? "generateContent";
  const query = new URLSearchParams();
  if (method === "streamGenerateContent") query.set("alt", "sse");
  if (options.keyIn === "query") query.set("key", "gm-callers-own");
  const search = query.toString() === "" ? "" : `?${query}`;
  const url = `${BASE}/v1/gateway/up/v1beta/models/${options.model ?? "gemini-2.5-pro"}:${method}${search}`;
  return SELF.fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...scenarioHeaders({ ...options.scenario, name: options.tag }),
      "X-Condense-Key": TOKENS.alice ?? "",
      ...(options.keyIn === undefined || options.keyIn === "header"
        ? { "x-goog-api-key": "gm-callers-own" }
        : {}),
      ...(options.session !== undefined ? { "X-Condense-Session": options.session } : {}),
      ...options.headers,
    },
    body: JSON.stringify(body),
  });
}

const systemInstruction = { parts: [{ text: "You are a careful coding agent." }] };

describe("Gemini generateContent through the gateway", () => {
  it("matches the history turn after turn, thought signatures sent back as they came", async () => {
    const tag = freshTag();
    const session = freshSession("gw-gemini");
    const contents: Content[] = [{ role: "user", parts: [{ text: "Read the entry point." }] }];
    const first = await gemini(
      { systemInstruction, contents },
      { tag, session, scenario: { tool: "read_file" } },
    );
    expect(first.status).toBe(200);
    expect(first.headers.get("X-Condense-Generation")).toBe("1");
    const answer = (await first.json()) as { candidates: Array<{ content: Content }> };
    const model = answer.candidates[0]?.content;
    if (model === undefined) throw new Error("no candidate");
    const call = model.parts.find((part) => part.functionCall !== undefined);
    expect(call?.thoughtSignature).toEqual(expect.any(String));
    // Gemini CLI answers the call with an id of its own (Gemini gave none).
    contents.push(model, {
      role: "user",
      parts: [
        {
          functionResponse: {
            id: "read_file-1732000000000-a1b2",
            name: "read_file",
            response: { output: "export {};" },
          },
        },
      ],
    });
    const second = await gemini({ systemInstruction, contents }, { tag, session });
    // The upstream checks the signature of the call: it came back unchanged.
    expect(second.status).toBe(200);
    expect(second.headers.get("X-Condense-Generation")).toBe("1");
    await waitFor(async () => (await transcript(session)).length === 5, "the second answer");
    expect((await transcript(session)).map((entry) => entry.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    const calls = await upstreamCalls(tag);
    expect(calls[1]?.body?.systemInstruction).toEqual(systemInstruction);
    expect(calls[1]?.body?.contents).toEqual(contents);
    // The model is the path's: no `model` field reaches Gemini.
    expect(calls[1]?.body?.model).toBeUndefined();
    expect(calls[1]?.path).toBe("/v1/v1beta/models/gemini-2.5-pro:generateContent");
    // The caller's key went upstream in Gemini's header, and the Condense key did not.
    expect(calls[1]?.headers["x-goog-api-key"]).toBe("gm-callers-own");
    expect(calls[1]?.headers["x-condense-key"]).toBeUndefined();
  });

  it("keeps the session when the agent writes ids of its own on the calls in its history (Gemini CLI 0.61)", async () => {
    const tag = freshTag();
    const session = freshSession("gw-gemini-ids");
    const contents: Content[] = [{ role: "user", parts: [{ text: "Read the entry point." }] }];
    const first = await gemini(
      { systemInstruction, contents },
      { tag, session, scenario: { tool: "read_file" } },
    );
    const answer = (await first.json()) as { candidates: Array<{ content: Content }> };
    const model = answer.candidates[0]?.content;
    if (model === undefined) throw new Error("no candidate");
    // Gemini CLI names the call `<name>_<ms>_<n>` in its history and answers it with that id.
    const cliId = "read_file_1795928835051_0";
    const parts = model.parts.map((part) =>
      part.functionCall === undefined
        ? part
        : { ...part, functionCall: { id: cliId, ...(part.functionCall as object) } },
    );
    contents.push(
      { role: "model", parts },
      {
        role: "user",
        parts: [
          {
            functionResponse: { id: cliId, name: "read_file", response: { output: "export {};" } },
          },
        ],
      },
    );
    const second = await gemini({ systemInstruction, contents }, { tag, session });
    expect(second.status).toBe(200);
    // The history extends the turn the session served: no new generation.
    expect(second.headers.get("X-Condense-Generation")).toBe("1");
    await waitFor(async () => (await transcript(session)).length === 5, "the second answer");
    const calls = await upstreamCalls(tag);
    // Sent on as the agent wrote it, its ids included.
    expect(calls[1]?.body?.contents).toEqual(contents);
  });

  it("streams through, appends the assembled answer and bills usageMetadata's cached tokens", async () => {
    const tag = freshTag();
    const session = freshSession("gw-gemini");
    const text = `Summarize in one line: ${"the plan has steps. ".repeat(80)}`;
    const response = await gemini(
      { contents: [{ role: "user", parts: [{ text }] }] },
      {
        tag,
        session,
        method: "streamGenerateContent",
        scenario: { cache: { read: 100, write: 0 } },
      },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const events = (await response.text()).split("\r\n\r\n").filter((event) => event !== "");
    // The text's chunk, then the finish with the usage.
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(events.at(-1)).toContain('"finishReason":"STOP"');
    await waitFor(async () => (await transcript(session)).length === 2, "the streamed answer");
    expect((await transcript(session))[1]?.message.content).toMatch(/^Answer \d+$/);
    const calls = await upstreamCalls(tag);
    expect(calls[0]?.path).toBe("/v1/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse");
    const bill = (await status(session)).bill as { reported: { cacheReadTokens: number } };
    expect(bill.reported.cacheReadTokens).toBe(100);
  });

  it("takes the key as `?key=` and sends it upstream as x-goog-api-key, not in the URL", async () => {
    const tag = freshTag();
    const response = await gemini(
      { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
      { tag, keyIn: "query" },
    );
    expect(response.status).toBe(200);
    const [received] = await upstreamCalls(tag);
    expect(received?.headers["x-goog-api-key"]).toBe("gm-callers-own");
    expect(received?.path).not.toContain("key=");
  });

  it("recovers from Gemini's overflow, read with its figures, by compacting and retrying", async () => {
    const tag = freshTag();
    const session = freshSession("gw-gemini-overflow");
    const canonical = toCanonical({
      format: "openai",
      messages: [
        ...conversation(12),
        { role: "user", content: "Go on with the next module." },
      ] as unknown[],
    });
    const written = fromCanonical(canonical, "gemini");
    const response = await gemini(
      { systemInstruction: written.system, contents: written.messages },
      { tag, session, scenario: { limit: 4000 } },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("X-Condense-Overflow-Retries")).toBe("1");
    const calls = await upstreamCalls(tag);
    expect(calls).toHaveLength(2);
    expect(calls[0]?.tokens).toBeGreaterThan(4000);
    expect(calls[1]?.tokens).toBeLessThanOrEqual(4000);
    expect((await status(session)).learnedContextWindow).toBe(4000);
  });

  it("answers its own errors in Google's shape, with a stable code", async () => {
    const tag = freshTag();
    const unknown = await gemini({ contents: [] }, { tag, method: "embedContent" });
    expect(unknown.status).toBe(404);
    const body = (await unknown.json()) as {
      error: { code: number; status: string; message: string; details: unknown[] };
    };
    expect(body.error).toMatchObject({ code: 404, status: "NOT_FOUND" });
    expect(body.error.details).toContainEqual(expect.objectContaining({ reason: "not_found" }));

    const anonymous = await SELF.fetch(
      `${BASE}/v1/gateway/up/v1beta/models/gemini-2.5-pro:generateContent`,
      { method: "POST", headers: { "content-type": "application/json" }, body: "{}" },
    );
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({
      error: { code: 401, status: "UNAUTHENTICATED" },
    });
  });

  it("forwards countTokens to the upstream, the history unchanged when it fits", async () => {
    const tag = freshTag();
    const response = await gemini(
      { contents: [{ role: "user", parts: [{ text: "count me please" }] }] },
      { tag, method: "countTokens" },
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ totalTokens: expect.any(Number) });
  });

  it("passes Google's own 404 for a model the upstream does not know through, in its words", async () => {
    const tag = freshTag();
    const response = await gemini(
      { contents: [{ role: "user", parts: [{ text: "count me please" }] }] },
      { tag, method: "countTokens", model: "gemini-missing-model" },
    );
    expect(response.status).toBe(404);
    expect(response.headers.get("X-Condense-Answered-By")).toBe("upstream");
    expect(await response.json()).toEqual({
      error: {
        code: 404,
        message: expect.stringContaining("models/gemini-missing-model is not found"),
        status: "NOT_FOUND",
      },
    });
    expect(await upstreamCalls(tag)).toHaveLength(1);
  });
});
