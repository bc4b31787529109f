/**
 * The model always sees what it just asked for: the tool results (and user
 * input) after the last assistant turn reach the upstream as the client sent
 * them, with a session and without, whatever the request's `max_tokens`.
 * Claude Code at a 48k window asked for 64,000 output tokens and got its
 * newest Read output as a prune placeholder.
 */

import { describe, expect, it } from "vitest";
import { freshTag, upstreamCalls } from "../support/gateway-helpers";
import { freshSession } from "../support/helpers";
import { sendAgentRequest } from "./agent-requests";
import claudeCodeReads from "./fixtures/agents/claude-code-reads.json";

/** `lines` numbered lines of a source file, about 20 tokens each. */
function fileText(lines: number, name: string): string {
  return Array.from(
    { length: lines },
    (_, i) => `${name} ${i}: export function step_${i}(value) { return value * ${i} + offset; }`,
  ).join("\n");
}

/** Claude Code's request after a few small reads and one large one, in Anthropic's shape. */
function claudeCodeRequest(): Record<string, unknown> {
  const messages: unknown[] = [
    {
      role: "user",
      content: "Find why the importer drops rows with a trailing comma, and fix it.",
    },
  ];
  for (let turn = 0; turn < 6; turn++) {
    const id = `toolu_${turn}`;
    const large = turn === 5;
    messages.push(
      {
        role: "assistant",
        content: [
          { type: "text", text: `Reading part ${turn}.` },
          { type: "tool_use", id, name: "Read", input: { file_path: `/repo/src/part_${turn}.ts` } },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: id,
            content: fileText(large ? 1_150 : 30, `part_${turn}`),
          },
        ],
      },
    );
  }
  return {
    model: "claude-sonnet-4-5",
    max_tokens: 64_000,
    system: [{ type: "text", text: "You are Claude Code, Anthropic's official CLI for Claude." }],
    messages,
    tools: [{ name: "Read", input_schema: { type: "object" } }],
    stream: true,
  };
}

describe("the newest tool result reaches the model", () => {
  for (const withSession of [false, true]) {
    it(`as sent, at a 48k window with max_tokens 64,000 (${withSession ? "with a session" : "stateless"})`, async () => {
      const tag = freshTag();
      const body = claudeCodeRequest();
      const reply = await sendAgentRequest("anthropic", body, {
        tag,
        ...(withSession ? { session: freshSession("gw-newest") } : {}),
        headers: { "X-Condense-Context-Window": "48000" },
      });
      expect(reply.status).toBe(200);
      const [received] = await upstreamCalls(tag);
      const sent = body.messages as unknown[];
      const forwarded = received?.body?.messages as unknown[];
      expect(forwarded.at(-1)).toEqual(sent.at(-1));
      expect(received?.tokens ?? 0).toBeLessThanOrEqual(48_000);
    });
  }
});

describe("Claude Code's captured request (fixtures/agents/claude-code-reads.json)", () => {
  it("is compacted at a 16k window with its newest Read output sent as it came", async () => {
    const tag = freshTag();
    const body = claudeCodeReads.body as Record<string, unknown>;
    const reply = await sendAgentRequest("anthropic", body, {
      tag,
      session: freshSession("gw-newest"),
      headers: { "X-Condense-Context-Window": "16000" },
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("X-Condense-Compaction")).toMatch(/^[1-4]$/);
    const [received] = await upstreamCalls(tag);
    const sent = body.messages as Array<{ content: Array<Record<string, unknown>> }>;
    const forwarded = received?.body?.messages as Array<{ content: unknown }>;
    // A summary of the older turns made the room (the cost policy compacts deep, not by a prune).
    expect(received?.tokens ?? 0).toBeLessThanOrEqual(16_000);
    expect(JSON.stringify(forwarded.slice(0, -1))).toContain("<compacted-context>");
    // The Read result the model asked for last: its block as Claude Code sent it.
    const newest = sent.at(-1)?.content[0];
    expect(newest?.type).toBe("tool_result");
    expect(forwarded.at(-1)?.content).toEqual([expect.objectContaining({ ...newest })]);
  });
});

describe("newest messages that alone do not fit", () => {
  for (const withSession of [false, true]) {
    it(`are cut to head and tail against the window the upstream states, and retried once (issue 33, ${withSession ? "with a session" : "stateless"})`, async () => {
      const tag = freshTag();
      const body = {
        model: "claude-sonnet-4-5",
        max_tokens: 1024,
        messages: [
          { role: "user", content: "Read the log." },
          {
            role: "assistant",
            content: [
              { type: "tool_use", id: "toolu_log", name: "Read", input: { file_path: "app.log" } },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "toolu_log", content: fileText(300, "log") },
            ],
          },
        ],
        tools: [{ name: "Read", input_schema: { type: "object" } }],
      };
      const reply = await sendAgentRequest("anthropic", body, {
        tag,
        ...(withSession ? { session: freshSession("gw-newest") } : {}),
        scenario: { limit: 3000 },
      });
      expect(reply.status).toBe(200);
      const calls = await upstreamCalls(tag);
      expect(calls).toHaveLength(2);
      expect(calls[1]?.tokens ?? 0).toBeLessThanOrEqual(3_000);
      expect(reply.headers.get("X-Condense-Overflow-Retries")).toBe("1");
      // The output the model asked for is there: its head, a marker, its tail.
      const retried = calls[1]?.body?.messages as Array<{ content: unknown }>;
      const text = JSON.stringify(retried.at(-1)?.content);
      expect(text).toContain("log 0: export function");
      expect(text).toContain("log 299: export function");
      expect(text).toMatch(/\[Condense cut \d+ tokens \(lines \d+–\d+ of 300\)/);
    });
  }
});
