/**
 * A request's fixed overhead: what it sends beside its messages that the
 * provider counts as input (Claude Code's 48 KB of tool definitions, ~12k
 * tokens, on every request). The session keeps room for it in the window,
 * as it does for pinned messages, and calibrates its counts without it: an
 * agent with large tools compacts no more often than one without, its prompt
 * stays within the window, and its prefix changes only at compactions.
 * Claude Code at a 32k window compacted on every turn (66 compactions in 64
 * turns, the prefix changing on 61).
 */

import { describe, expect, it, vi } from "vitest";
import { freshTag, queueAnswers, upstreamCalls } from "../support/gateway-helpers";
import {
  compactions,
  freshSession,
  runAlarmWithoutDelay,
  status,
  stubFor,
} from "../support/helpers";
import { sendAgentRequest } from "./agent-requests";
import claudeCodeTools from "./fixtures/agents/claude-code-tools.json";

const WINDOW = 32_000;
const TURNS = 24;

/** A note of about 1,300 tokens, as the notes task's Read returns them. */
function note(index: number): string {
  return Array.from(
    { length: 60 },
    (_, line) => `note ${index} line ${line}: the importer keeps row ${line * 7 + index} as sent.`,
  ).join("\n");
}

const readCall = (index: number) => ({
  id: `toolu_read_${index}`,
  type: "function",
  function: { name: "Read", arguments: JSON.stringify({ file_path: `notes/${index}.md` }) },
});

/** The assistant turn asking for note `index`: canonical (the upstream's answer) and as Claude Code resends it. */
const answerAt = (index: number) => ({
  role: "assistant",
  content: `Reading note ${index}.`,
  tool_calls: [readCall(index)],
});
const resentAt = (index: number) => ({
  role: "assistant",
  content: [
    { type: "text", text: `Reading note ${index}.` },
    {
      type: "tool_use",
      id: `toolu_read_${index}`,
      name: "Read",
      input: { file_path: `notes/${index}.md` },
    },
  ],
});
const resultAt = (index: number) => ({
  role: "user",
  content: [{ type: "tool_result", tool_use_id: `toolu_read_${index}`, content: note(index) }],
});

/** What reached the upstream, as it bears on the prompt cache: the parts ahead of the messages, and the messages. */
function cacheKeys(body: Record<string, unknown> | null): { head: string; messages: string[] } {
  const strip = (value: unknown): unknown =>
    JSON.parse(JSON.stringify(value ?? null), (key, item) =>
      key === "cache_control" ? undefined : item,
    );
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  return {
    head: JSON.stringify(strip({ system: body?.system, tools: body?.tools })),
    messages: messages.map((message) => JSON.stringify(strip(message))),
  };
}

/** Turns whose prompt does not start with the previous prompt (system, tools and messages). */
function prefixChanges(bodies: (Record<string, unknown> | null)[]): number {
  let changes = 0;
  for (let index = 1; index < bodies.length; index++) {
    const before = cacheKeys(bodies[index - 1] ?? null);
    const after = cacheKeys(bodies[index] ?? null);
    const kept =
      before.head === after.head &&
      before.messages.length <= after.messages.length &&
      before.messages.every((message, at) => message === after.messages[at]);
    if (!kept) changes++;
  }
  return changes;
}

/**
 * Claude Code's notes task for `TURNS` turns under one session at a 32k window: each turn reads a
 * note; background compactions run between turns, as they do with `COMPACTION_DELAY_MS=0`.
 */
async function runNotesTask(tools: unknown[]) {
  const session = freshSession("gw-overhead");
  const tag = freshTag();
  await queueAnswers(
    tag,
    Array.from({ length: TURNS }, (_, index) => answerAt(index)),
  );
  const messages: unknown[] = [
    { role: "user", content: "Read every note in ./notes, then write report.md." },
  ];
  for (let turn = 0; turn < TURNS; turn++) {
    const reply = await sendAgentRequest(
      "anthropic",
      {
        model: "claude-opus-4-6",
        max_tokens: 64_000,
        system: claudeCodeTools.system,
        messages,
        tools,
        stream: true,
      },
      { tag, session, headers: { "X-Condense-Context-Window": String(WINDOW) } },
    );
    expect(reply.status, reply.text.slice(0, 400)).toBe(200);
    expect(reply.headers.get("X-Condense-Generation")).toBe("1");
    await runAlarmWithoutDelay(stubFor("alice", session));
    messages.push(resentAt(turn), resultAt(turn));
  }
  const calls = await upstreamCalls(tag);
  expect(calls).toHaveLength(TURNS);
  const after = await status(session);
  return {
    compactions: (await compactions(session)).length,
    prefixChanges: prefixChanges(calls.map((call) => call.body)),
    /** The largest prompt the upstream counted (messages and tools). */
    largest: Math.max(...calls.map((call) => call.tokens ?? 0)),
    warningLevel: after.warningLevel,
    calibration: after.calibration.ratio,
    overheadTokens: after.overheadTokens,
  };
}

/** Claude Code's tools, `copies` times over (each copy's names suffixed): more than any window holds. */
function manyTools(copies: number): unknown[] {
  return Array.from({ length: copies }, (_, copy) =>
    claudeCodeTools.tools.map((tool) => ({ ...tool, name: `${tool.name}_${copy}` })),
  ).flat();
}

describe("a request's fixed overhead (Claude Code's tool definitions)", () => {
  it("keeps room in the window, and the session compacts no more often than without tools", async () => {
    const without = await runNotesTask([]);
    const withTools = await runNotesTask(claudeCodeTools.tools);
    const figures = JSON.stringify({ without, withTools });
    // Both compact (the notes outgrow the window), and the tools fit beside the context.
    expect(without.compactions, figures).toBeGreaterThan(0);
    expect(withTools.compactions, figures).toBeGreaterThan(0);
    expect(withTools.largest, figures).toBeLessThanOrEqual(WINDOW);
    // Not on every turn: the prefix changes only where a compaction rewrote the context.
    expect(withTools.compactions, figures).toBeLessThanOrEqual(without.compactions);
    expect(withTools.compactions, figures).toBeLessThanOrEqual(TURNS / 4);
    expect(withTools.prefixChanges, figures).toBeLessThanOrEqual(withTools.compactions);
    // The provider's count (tools included) does not pass for more tokens per message.
    expect(withTools.calibration, figures).toBeLessThan(1.1);
    expect(withTools.overheadTokens).toBeGreaterThan(10_000);
  });

  it("bigger than the window: compacts as far as it goes every few turns, not on every turn, and warns", async () => {
    const lines: string[] = [];
    const spy = vi.spyOn(console, "log").mockImplementation((line: unknown) => {
      lines.push(JSON.stringify(line));
    });
    let figures: Awaited<ReturnType<typeof runNotesTask>>;
    try {
      figures = await runNotesTask(manyTools(3));
    } finally {
      spy.mockRestore();
    }
    expect(figures.compactions, JSON.stringify(figures)).toBeGreaterThan(0);
    expect(figures.compactions, JSON.stringify(figures)).toBeLessThanOrEqual(TURNS / 4);
    expect(figures.prefixChanges).toBeLessThanOrEqual(figures.compactions);
    expect(figures.overheadTokens).toBeGreaterThan(WINDOW);
    expect(figures.warningLevel).toBe("critical");
    const warned = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.type === "compaction" && line.warning === "crowded_by_overhead");
    expect(warned.length).toBe(figures.compactions);
  });

  it("without a session, the history is compacted in place into the window less the overhead", async () => {
    const tag = freshTag();
    const messages: unknown[] = [{ role: "user", content: "Read the notes." }];
    for (let index = 0; index < 8; index++) messages.push(resentAt(index), resultAt(index));
    // The history alone is well within a 32k window's budget; beside two sets of tools it is not.
    const reply = await sendAgentRequest(
      "anthropic",
      {
        model: "claude-opus-4-6",
        max_tokens: 64_000,
        system: [
          { type: "text", text: "You are Claude Code, Anthropic's official CLI for Claude." },
        ],
        messages,
        tools: manyTools(2),
        stream: true,
      },
      { tag, headers: { "X-Condense-Context-Window": String(WINDOW) } },
    );
    expect(reply.status, reply.text.slice(0, 400)).toBe(200);
    expect(reply.headers.get("X-Condense-Compaction")).not.toBe("none");
    const [received] = await upstreamCalls(tag);
    expect(received?.tokens ?? 0).toBeLessThanOrEqual(WINDOW);
    // The newest Read output reaches the model as it was sent.
    const forwarded = (received?.body?.messages ?? []) as unknown[];
    expect(forwarded.at(-1)).toEqual(messages.at(-1));
  });
});
