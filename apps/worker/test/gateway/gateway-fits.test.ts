/**
 * What the gateway sends upstream always fits (issue 33, finding 1): a replay
 * of a short Claude Code sub-agent session at a 32k window, whose newest six
 * Read results alone are about 35k tokens, reached the client as the
 * upstream's overflow at its fourth turn. Each turn now reaches the upstream
 * within the window, the newest results cut to their head and tail, never
 * dropped.
 */

import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { SessionObject } from "../../src/session/session-object";
import { freshTag, queueAnswers, upstreamCalls } from "../support/gateway-helpers";
import { freshSession, stubFor } from "../support/helpers";
import { sendAgentRequest } from "./agent-requests";

type Block = Record<string, unknown>;
type Turn = { role: "user" | "assistant"; content: string | Block[] };

/** `lines` numbered lines of a source file, about 22 tokens each. */
function fileText(lines: number, name: string): string {
  return Array.from(
    { length: lines },
    (_, i) => `${name} ${i}: export function step_${i}(value) { return value * ${i} + offset; }`,
  ).join("\n");
}

/** The sub-agent's three answers: two Globs, two Greps, then six Reads (canonical, as queued). */
function answers(): Record<string, unknown>[] {
  const calls = (prefix: string, name: string, count: number) =>
    Array.from({ length: count }, (_, i) => ({
      id: `toolu_${prefix}_${i}`,
      type: "function",
      function: { name, arguments: JSON.stringify({ pattern: `src/${prefix}_${i}` }) },
    }));
  return [
    { role: "assistant", content: "Finding the importer.", tool_calls: calls("glob", "Glob", 2) },
    {
      role: "assistant",
      content: "Searching for the parser.",
      tool_calls: calls("grep", "Grep", 2),
    },
    { role: "assistant", content: "Reading the six parts.", tool_calls: calls("read", "Read", 6) },
  ];
}

/** An answer as the agent's next history carries it (Anthropic blocks). */
function asBlocks(answer: Record<string, unknown>): Turn {
  const calls = answer.tool_calls as Array<{
    id: string;
    function: { name: string; arguments: string };
  }>;
  return {
    role: "assistant",
    content: [
      { type: "text", text: String(answer.content) },
      ...calls.map((call) => ({
        type: "tool_use",
        id: call.id,
        name: call.function.name,
        input: JSON.parse(call.function.arguments) as unknown,
      })),
    ],
  };
}

/** The results of an answer's calls, `lines` each. */
function resultsFor(answer: Record<string, unknown>, lines: number): Turn {
  const calls = answer.tool_calls as Array<{ id: string }>;
  return {
    role: "user",
    content: calls.map((call) => ({
      type: "tool_result",
      tool_use_id: call.id,
      content: fileText(lines, call.id),
    })),
  };
}

function request(messages: Turn[]): Record<string, unknown> {
  return {
    model: "claude-sonnet-4-5",
    max_tokens: 8_000,
    system: [{ type: "text", text: "You are an agent for Claude Code. Report back concisely." }],
    messages,
    tools: ["Glob", "Grep", "Read"].map((name) => ({ name, input_schema: { type: "object" } })),
    stream: true,
  };
}

describe("a sub-agent's replay at a 32k window (issue 33)", () => {
  for (const withSession of [true, false]) {
    it(`never reaches the upstream over the window, the six newest Reads cut, never dropped (${withSession ? "with a session" : "stateless"})`, async () => {
      const tag = freshTag();
      const queued = answers();
      await queueAnswers(tag, queued);
      const session = withSession ? { session: freshSession("gw-fits") } : {};
      const headers = { "X-Condense-Context-Window": "32000" };
      const scenario = { limit: 32_000 };
      const [globs, greps, reads] = queued as [
        Record<string, unknown>,
        Record<string, unknown>,
        Record<string, unknown>,
      ];
      const history: Turn[] = [
        { role: "user", content: "Survey the importer and report how it parses rows." },
      ];
      const turns = [
        [],
        [asBlocks(globs), resultsFor(globs, 20)],
        [asBlocks(greps), resultsFor(greps, 40)],
        // Six Reads of about 5,800 tokens each: about 35k together, over the window by themselves.
        [asBlocks(reads), resultsFor(reads, 265)],
      ];
      for (const [index, turn] of turns.entries()) {
        history.push(...turn);
        const reply = await sendAgentRequest("anthropic", request(history), {
          tag,
          ...session,
          headers,
          scenario,
        });
        expect(reply.status, `turn ${index + 1}: ${reply.text.slice(0, 300)}`).toBe(200);
      }
      const calls = await upstreamCalls(tag);
      expect(calls).toHaveLength(4);
      for (const received of calls) expect(received.tokens ?? 0).toBeLessThanOrEqual(32_000);
      // The fourth turn carried every Read result, each its head, a marker and its tail.
      const last = calls.at(-1)?.body?.messages as Turn[];
      const newest = (last.at(-1)?.content ?? []) as Block[];
      const results = newest.filter((block) => block.type === "tool_result");
      expect(results.map((block) => block.tool_use_id)).toEqual(
        Array.from({ length: 6 }, (_, i) => `toolu_read_${i}`),
      );
      for (const block of results) {
        const text =
          typeof block.content === "string" ? block.content : JSON.stringify(block.content);
        expect(text).toContain(`${String(block.tool_use_id)} 0: export function`);
        expect(text).toContain(`${String(block.tool_use_id)} 264: export function`);
        expect(text).toMatch(/\[Condense cut \d+ tokens \(lines \d+–\d+ of 265\)/);
      }
    });
  }
});

describe("a session whose newest messages cannot fit even cut (issue 33)", () => {
  it("is refused (context_over_window) in the protocol's shape, the upstream never called", async () => {
    const tag = freshTag();
    const pasted = fileText(2_000, "pasted");
    const reply = await sendAgentRequest(
      "anthropic",
      request([{ role: "user", content: `Review this file:\n${pasted}` }]),
      {
        tag,
        session: freshSession("gw-fits"),
        headers: { "X-Condense-Context-Window": "32000" },
      },
    );
    expect(reply.status).toBe(422);
    const body = JSON.parse(reply.text) as {
      type: string;
      error: { type: string; message: string };
    };
    // Anthropic's shape has no code: its type, and the message that says what to do.
    expect(body.type).toBe("error");
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toMatch(/cannot fit the window of 32000 tokens/);
    expect(body.error.message).toMatch(/larger window/);
    expect(await upstreamCalls(tag)).toHaveLength(0);
  });
});

describe("a session's context fitted when it is served (issue 33)", () => {
  it("is cut by reference to the request's history when no compaction can run", async () => {
    const tag = freshTag();
    const session = freshSession("gw-fits");
    const reads = answers()[2] as Record<string, unknown>;
    // The model's first answer: the six Reads.
    await queueAnswers(tag, [reads]);
    const headers = { "X-Condense-Context-Window": "32000" };
    const scenario = { limit: 32_000 };
    const history: Turn[] = [{ role: "user", content: "Read the six parts." }];
    const first = await sendAgentRequest("anthropic", request(history), {
      tag,
      session,
      headers,
      scenario,
    });
    expect(first.status).toBe(200);
    // Compaction went as far as it goes, as far as the session knows: none runs at the next turn.
    await runInDurableObject(stubFor("alice", session), (_object: SessionObject, state) => {
      state.storage.sql.exec("UPDATE condense_session SET exhausted_seq = 1000000 WHERE id = 1");
    });
    history.push(asBlocks(reads), resultsFor(reads, 265));
    const second = await sendAgentRequest("anthropic", request(history), {
      tag,
      session,
      headers,
      scenario,
    });
    expect(second.status, second.text.slice(0, 300)).toBe(200);
    expect(second.headers.get("X-Condense-Generation")).toBe("1");
    expect(second.headers.get("X-Condense-Compaction")).toBe("none");
    const calls = await upstreamCalls(tag);
    expect(calls).toHaveLength(2);
    expect(calls[1]?.tokens ?? 0).toBeLessThanOrEqual(32_000);
    const sent = calls[1]?.body?.messages as Turn[];
    const results = ((sent.at(-1)?.content ?? []) as Block[]).filter(
      (block) => block.type === "tool_result",
    );
    expect(results).toHaveLength(6);
    for (const block of results) {
      const text = String(block.content);
      expect(text).toMatch(/\[Condense cut \d+ tokens \(lines \d+–\d+ of 265\)/);
      expect(text).toContain(
        `/v1/sessions/${session}/tool-outputs/${String(block.tool_use_id)}?seq=`,
      );
    }
  });
});
