/**
 * Replays of real agent traffic through the gateway: requests the unmodified
 * CLIs sent (captured by the `agents` e2e run, trimmed: see
 * `fixtures/README.md`), each answered with what the next captured request
 * carries as the model's turn, so the session extends turn after turn.
 * Claude Code's default model sends a system turn in `messages`; Claude Code
 * with Opus 4.6 moves three cache markers every turn; Codex's `apply_patch`
 * is a custom tool. Each run died at the gateway before these fixes.
 */

import { SELF } from "cloudflare:test";
import { countAnthropicCacheMarkers } from "@condense/core";
import { scenarioHeaders } from "@condense/test-servers";
import { describe, expect, it } from "vitest";
import { freshTag, queueAnswers, upstreamCalls } from "../support/gateway-helpers";
import { BASE, freshSession, TOKENS, transcript, waitFor } from "../support/helpers";
import claudeDefault from "./fixtures/claude-code-default-model.json";
import claudeOpus from "./fixtures/claude-code-opus-4-6.json";
import codex from "./fixtures/codex-apply-patch.json";

interface Capture {
  requests: Array<{ headers: Record<string, string>; body: Record<string, unknown> }>;
}

type Block = Record<string, unknown>;

/** Sends a captured request through the gateway, as raw bytes, and reads the answer whole. */
async function send(
  path: string,
  request: Capture["requests"][number],
  options: { tag: string; session: string; headers?: Record<string, string> },
): Promise<Response> {
  const response = await SELF.fetch(`${BASE}/v1/gateway/${path}`, {
    method: "POST",
    headers: {
      ...request.headers,
      "content-type": "application/json",
      "x-api-key": "sk-ant-caller",
      authorization: "Bearer sk-caller",
      "X-Condense-Key": TOKENS.alice ?? "",
      "X-Condense-Session": options.session,
      ...scenarioHeaders({ name: options.tag }),
      ...options.headers,
    },
    body: JSON.stringify(request.body),
  });
  await response.text();
  return response;
}

/** The model's turn request `k` was answered with: the assistant message the next request adds. */
function anthropicAnswer(capture: Capture, k: number): unknown | undefined {
  const sent = capture.requests[k]?.body.messages as unknown[];
  const next = capture.requests[k + 1]?.body.messages as Array<{ content: unknown }> | undefined;
  const turn = next?.[sent.length];
  return turn === undefined
    ? undefined
    : { role: "assistant", content: "", provider_data: { anthropic: { blocks: turn.content } } };
}

describe("Claude Code, default model (a system turn in `messages`)", () => {
  it("goes through turn after turn, forwarded byte for byte, one generation", async () => {
    const capture = claudeDefault as unknown as Capture;
    const tag = freshTag();
    const session = freshSession("gw-capture");
    for (let k = 0; k < capture.requests.length; k++) {
      const answer = anthropicAnswer(capture, k);
      if (answer !== undefined) await queueAnswers(tag, [answer]);
      const request = capture.requests[k];
      if (request === undefined) continue;
      const response = await send("anthropic/v1/messages", request, { tag, session });
      expect(response.status).toBe(200);
      expect(response.headers.get("X-Condense-Generation")).toBe("1");
      const calls = await upstreamCalls(tag);
      expect(calls[k]?.text).toBe(JSON.stringify(request.body));
      await waitFor(
        async () => (await transcript(session)).at(-1)?.role === "assistant",
        "the answer",
      );
    }
    const stored = await transcript(session);
    expect(stored[2]?.message).toMatchObject({
      role: "system",
      provider_data: { anthropic: { in_messages: true } },
    });
  });
});

describe("Claude Code with Opus 4.6 (three moving cache markers)", () => {
  it("never sends more than 4 marked blocks across compactions, the newest message's kept", async () => {
    const capture = claudeOpus as unknown as Capture;
    const tag = freshTag();
    const session = freshSession("gw-capture");
    const tiers: string[] = [];
    for (let k = 0; k < capture.requests.length; k++) {
      const answer = anthropicAnswer(capture, k);
      if (answer !== undefined) await queueAnswers(tag, [answer]);
      const request = capture.requests[k];
      if (request === undefined) continue;
      const response = await send("anthropic/v1/messages", request, {
        tag,
        session,
        // Small enough that its turns compact, large enough for what is never cut (issue 33).
        headers: { "X-Condense-Context-Window": "1800" },
      });
      // The test upstream refuses a 5th marker, as Anthropic does.
      expect(response.status).toBe(200);
      tiers.push(response.headers.get("X-Condense-Compaction") ?? "");
      await waitFor(
        async () => (await transcript(session)).at(-1)?.role === "assistant",
        "the answer",
      );
    }
    expect(tiers.some((tier) => tier !== "none")).toBe(true);
    for (const call of await upstreamCalls(tag)) {
      const body = call.body ?? {};
      expect(countAnthropicCacheMarkers(body)).toBeLessThanOrEqual(4);
      const newest = (body.messages as Array<{ content: Block[] }>).at(-1)?.content.at(-1);
      expect(newest?.cache_control).toEqual({ type: "ephemeral" });
    }
  });
});

describe("Codex's apply_patch (a custom tool)", () => {
  it("stores the answer holding the custom call and takes the next request carrying its output", async () => {
    const capture = codex as unknown as Capture;
    const [before, after] = capture.requests;
    if (before === undefined || after === undefined) throw new Error("two requests");
    const tag = freshTag();
    const session = freshSession("gw-capture");
    const sent = before.body.input as unknown[];
    const added = (after.body.input as Array<{ type?: string }>).slice(sent.length);
    // The model's turn: what the next request adds but the tool's output.
    const items = added.filter((item) => item.type !== "custom_tool_call_output");
    await queueAnswers(tag, [
      { role: "assistant", content: "", provider_data: { responses: { items } } },
    ]);
    const first = await send("up/responses", before, { tag, session });
    expect(first.status).toBe(200);
    await waitFor(
      async () =>
        (await transcript(session)).some((entry) =>
          JSON.stringify(entry.message).includes('"type":"custom"'),
        ),
      "the answer with the custom call",
    );
    const second = await send("up/responses", after, { tag, session });
    expect(second.status).toBe(200);
    expect(second.headers.get("X-Condense-Generation")).toBe("1");
    expect((await upstreamCalls(tag))[1]?.text).toBe(JSON.stringify(after.body));
  });

  it("keeps every call with its output when it compacts that history", async () => {
    const capture = codex as unknown as Capture;
    const request = capture.requests[1];
    if (request === undefined) throw new Error("no request");
    const tag = freshTag();
    const response = await send("up/responses", request, {
      tag,
      session: freshSession("gw-capture"),
      // Small enough to compact it, large enough for what is never cut (issue 33).
      headers: { "X-Condense-Context-Window": "1400" },
    });
    // The test upstream refuses an output without its call (and a call without its output).
    expect(response.status).toBe(200);
    expect(response.headers.get("X-Condense-Compaction")).not.toBe("none");
    const [sent] = await upstreamCalls(tag);
    const items = sent?.body?.input as Array<{ type?: string }>;
    expect(items.length).toBeLessThan((request.body.input as unknown[]).length);
  });
});
