/**
 * What is served always fits (issue 33, finding 1): `GET /context` never
 * serves more than the session's window. The messages after the last
 * assistant turn are never compacted, so when they alone are over, their tool
 * outputs are cut to head and tail, with a marker naming what was cut and how
 * to fetch the whole output; when even that cannot fit, the answer is an
 * error with a stable code, never a context over the window.
 */

import { countMessageTokens, toCanonical } from "@condense/core";
import { describe, expect, it } from "vitest";
import { append, call, freshSession, type Message, status } from "../support/helpers";

const model = "gpt-4o";

/** `lines` numbered lines of a log, about 20 tokens each. */
function logText(lines: number, name: string): string {
  return Array.from(
    { length: lines },
    (_, i) => `${name} ${i}: GET /api/items/${i} 200 in ${i % 97}ms from 10.0.0.${i % 250}`,
  ).join("\n");
}

/** The task and a few small steps, answered: what comes before the newest turn. */
function start(): Message[] {
  const messages: Message[] = [
    { role: "system", content: "You are a careful operations agent." },
    { role: "user", content: "Find why the API returns 502s in the logs." },
  ];
  for (let i = 0; i < 3; i++) {
    messages.push(
      {
        role: "assistant",
        content: `Listing part ${i}.`,
        tool_calls: [
          {
            id: `ls_${i}`,
            type: "function",
            function: { name: "ls", arguments: JSON.stringify({ path: `/var/log/${i}` }) },
          },
        ],
      },
      { role: "tool", tool_call_id: `ls_${i}`, content: `app.log\napp.log.${i}` },
    );
  }
  return messages;
}

/** One assistant turn that reads `logs` logs, and their results (`lines` each). */
function readTurn(logs: number, lines: number): { call: Message; results: Message[] } {
  const ids = Array.from({ length: logs }, (_, i) => `read_${i}`);
  return {
    call: {
      role: "assistant",
      content: "Reading the logs.",
      tool_calls: ids.map((id, i) => ({
        id,
        type: "function",
        function: {
          name: "read_log",
          arguments: JSON.stringify({ path: `/var/log/app.log.${i}` }),
        },
      })),
    },
    results: ids.map((id, i) => ({
      role: "tool",
      tool_call_id: id,
      content: logText(lines, `log${i}`),
    })),
  };
}

interface Served {
  messages: Message[];
  tokens: number;
  contextWindow: number;
  budget: number;
  warningLevel: string;
}

async function context(id: string) {
  return call<Served & { error?: { code: string; message: string } }>(
    "GET",
    `/v1/sessions/${id}/context`,
  );
}

/** The served messages counted by the engine, as a provider would count them. */
function counted(messages: Message[]): number {
  return countMessageTokens(toCanonical({ messages }), model);
}

function textOf(message: Message | undefined): string {
  return typeof message?.content === "string" ? message.content : "";
}

async function createSession(id: string, settings: Record<string, unknown>): Promise<void> {
  expect((await append(id, { model, messages: start() })).status).toBe(200);
  const patch = await call("PATCH", `/v1/sessions/${id}`, { body: { model, ...settings } });
  expect(patch.status).toBe(200);
}

describe("GET /context never serves more than the window (issue 33)", () => {
  it("at a window of 12,000, after tool results that alone are over it", async () => {
    const id = freshSession("fits");
    await createSession(id, { contextWindow: 12_000 });
    const turn = readTurn(3, 260);
    expect((await append(id, { messages: [turn.call, ...turn.results] })).status).toBe(200);
    const served = await context(id);
    expect(served.status).toBe(200);
    expect(served.body.tokens).toBeLessThanOrEqual(12_000);
    expect(counted(served.body.messages)).toBeLessThanOrEqual(12_000);
    // Every result is there, cut to its head and tail, the marker saying where the whole one is.
    const results = served.body.messages.filter((message) => message.role === "tool").slice(-3);
    expect(results.map((message) => message.tool_call_id)).toEqual(["read_0", "read_1", "read_2"]);
    for (const [i, message] of results.entries()) {
      const text = textOf(message);
      expect(text.startsWith(`log${i} 0: `)).toBe(true);
      expect(text).toContain(`log${i} 259: `);
      expect(text).toMatch(/\[Condense cut \d+ tokens \(lines \d+–\d+ of 260\) from the middle/);
      expect(text).toContain(`/v1/sessions/${id}/tool-outputs/read_${i}?seq=`);
    }
    // The transcript keeps each output whole, where the marker says.
    const seq = /tool-outputs\/read_0\?seq=(\d+)/.exec(textOf(results[0]))?.[1];
    const whole = await call<{ content: string }>(
      "GET",
      `/v1/sessions/${id}/tool-outputs/read_0?seq=${seq}`,
    );
    expect(whole.body.content).toBe(turn.results[0]?.content);
  });

  it("at a window of 12,000, when the results came while their calls were awaited", async () => {
    const id = freshSession("fits");
    await createSession(id, { contextWindow: 12_000 });
    const turn = readTurn(3, 260);
    // The calls first (a compaction leaves calls awaiting results out), then their results.
    expect((await append(id, { messages: [turn.call] })).status).toBe(200);
    expect((await context(id)).status).toBe(200);
    for (const result of turn.results) {
      expect((await append(id, { messages: [result] })).status).toBe(200);
    }
    const served = await context(id);
    expect(served.status).toBe(200);
    expect(served.body.tokens).toBeLessThanOrEqual(12_000);
    expect(counted(served.body.messages)).toBeLessThanOrEqual(12_000);
    expect(served.body.messages.filter((message) => message.role === "tool")).toHaveLength(6);
  });

  it("at a window of 4,000 with two pinned messages and threshold 0.5", async () => {
    const id = freshSession("fits");
    await createSession(id, {
      contextWindow: 4_000,
      threshold: 0.5,
      pinned: [
        { role: "user", content: "Answer in English. Never restart a service without asking." },
        { role: "user", content: "The on-call runbook is at https://runbooks.example.com/api." },
      ],
    });
    const turn = readTurn(1, 220);
    expect((await append(id, { messages: [turn.call, ...turn.results] })).status).toBe(200);
    const served = await context(id);
    expect(served.status).toBe(200);
    expect(served.body.tokens).toBeLessThanOrEqual(4_000);
    expect(counted(served.body.messages)).toBeLessThanOrEqual(4_000);
    expect(JSON.stringify(served.body.messages)).toContain("runbooks.example.com");
  });

  it("refuses with context_over_window when what may not be cut is over by itself", async () => {
    const id = freshSession("fits");
    await createSession(id, { contextWindow: 4_000 });
    // A user message the engine never cuts, larger than the window.
    const pasted = { role: "user", content: logText(260, "pasted") };
    expect(
      (await append(id, { messages: [{ role: "assistant", content: "Go on." }, pasted] })).status,
    ).toBe(200);
    const before = (await status(id)).bill.turns;
    const served = await context(id);
    expect(served.status).toBe(422);
    expect(served.body.error?.code).toBe("context_over_window");
    expect(served.body.error?.message).toMatch(/window of 4000 tokens/);
    // Nothing was recorded as served: no turn was billed.
    expect((await status(id)).bill.turns).toBe(before);
  });
});
