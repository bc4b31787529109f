/**
 * What is served always fits (issue 33), through the Worker: over random
 * sessions (windows from 4k to 40k, pinned messages or not, the newest tool
 * outputs up to one and a half times the window, some still awaited when the
 * context is fetched) every `GET /context` in every format fits the window
 * and is valid for its provider, or is refused with `context_over_window`
 * when what is never cut is over by itself; and a gateway request with the
 * same history never reaches the upstream over the window. Fewer runs than
 * the engine's property (`packages/core/src/compact/fits-window.test.ts`):
 * each run is a session of its own in workerd.
 */

import {
  type ChatMessage,
  countMessageTokens,
  type MessageFormat,
  toCanonical,
  validateMessages,
} from "@condense/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { freshTag, openaiClient, upstreamCalls } from "../support/gateway-helpers";
import { append, call, freshSession, type Message } from "../support/helpers";

const model = "gpt-4o";
/** Runs of the property: each is a session of its own, three formats and a gateway request. */
const RUNS = 20;

/** About 22 tokens a line. */
function lines(count: number, name: string): string {
  return Array.from(
    { length: count },
    (_, i) => `${name} ${i}: export function step_${i}(value) { return value * ${i} + offset; }`,
  ).join("\n");
}

interface Case {
  window: number;
  pinned: boolean;
  earlier: number[];
  newest: number[];
  /** How many of the newest results come after the context was fetched once (their calls awaited). */
  late: number;
  threshold: number | null;
}

const arbCase: fc.Arbitrary<Case> = fc
  .integer({ min: 4_000, max: 40_000 })
  .chain((window) =>
    fc.record({
      window: fc.constant(window),
      pinned: fc.boolean(),
      earlier: fc.array(fc.double({ min: 0.01, max: 0.5, noNaN: true }), { maxLength: 5 }),
      newest: fc.array(fc.double({ min: 0.01, max: 1.5, noNaN: true }), {
        minLength: 1,
        maxLength: 5,
      }),
      late: fc.nat({ max: 2 }),
      threshold: fc.option(fc.double({ min: 0.4, max: 0.9, noNaN: true }), { nil: null }),
    }),
  )
  .map((raw) => ({
    window: raw.window,
    pinned: raw.pinned,
    earlier: raw.earlier.map((share) => Math.max(1, Math.round((share * raw.window) / 22))),
    newest: raw.newest.map((share) => Math.max(1, Math.round((share * raw.window) / 22))),
    late: Math.min(raw.late, raw.newest.length),
    threshold: raw.threshold,
  }));

function readCall(id: string): Message {
  return {
    role: "assistant",
    content: `Reading ${id}.`,
    tool_calls: [
      { id, type: "function", function: { name: "read", arguments: JSON.stringify({ id }) } },
    ],
  };
}

function turnOf(ids: string[], sizes: number[]): { call: Message; results: Message[] } {
  return {
    call: {
      role: "assistant",
      content: "Reading them.",
      tool_calls: ids.map((id) => ({
        id,
        type: "function",
        function: { name: "read", arguments: JSON.stringify({ id }) },
      })),
    },
    results: ids.map((id, i) => ({
      role: "tool",
      tool_call_id: id,
      content: lines(sizes[i] ?? 1, id),
    })),
  };
}

/** The session's whole history: a task, earlier reads answered, then the newest reads. */
function historyOf(run: Case): { start: Message[]; newest: ReturnType<typeof turnOf> } {
  const start: Message[] = [
    { role: "system", content: "You are a careful agent." },
    { role: "user", content: "Read the parts and report." },
  ];
  run.earlier.forEach((size, i) => {
    const id = `early_${i}`;
    start.push(readCall(id), { role: "tool", tool_call_id: id, content: lines(size, id) });
  });
  const ids = run.newest.map((_, i) => `new_${i}`);
  return { start, newest: turnOf(ids, run.newest) };
}

type Served = { messages: unknown[]; system?: unknown; tokens: number; contextWindow: number };

/** The served context's messages, canonical, with Anthropic's top-level system. */
function canonicalOf(format: MessageFormat, body: Served): ChatMessage[] {
  return toCanonical({
    format,
    messages: body.messages,
    ...(format === "anthropic" && body.system !== undefined ? { system: body.system } : {}),
  });
}

describe("every served context fits its window (property through the Worker, issue 33)", () => {
  it("GET /context in every format, and the gateway's request upstream", async () => {
    await fc.assert(
      fc.asyncProperty(arbCase, async (run) => {
        const id = freshSession("fits-prop");
        const { start, newest } = historyOf(run);
        expect((await append(id, { model, messages: start })).status).toBe(200);
        const settings = {
          model,
          contextWindow: run.window,
          ...(run.threshold !== null ? { threshold: run.threshold } : {}),
          ...(run.pinned
            ? { pinned: [{ role: "user", content: "Never delete files without asking." }] }
            : {}),
        };
        expect((await call("PATCH", `/v1/sessions/${id}`, { body: settings })).status).toBe(200);
        const early = newest.results.length - run.late;
        const first = [newest.call, ...newest.results.slice(0, early)];
        expect((await append(id, { messages: first })).status).toBe(200);
        if (run.late > 0) {
          // Fetched while calls await their results: a compaction leaves those out.
          await call("GET", `/v1/sessions/${id}/context`);
          const late = newest.results.slice(early);
          expect((await append(id, { messages: late })).status).toBe(200);
        }
        for (const format of ["openai", "anthropic", "responses"] as const) {
          const served = await call<Served & { error?: { code: string } }>(
            "GET",
            `/v1/sessions/${id}/context?format=${format}`,
          );
          if (served.status === 422) {
            expect(served.body.error?.code).toBe("context_over_window");
            continue;
          }
          expect(served.status).toBe(200);
          expect(served.body.tokens).toBeLessThanOrEqual(run.window);
          const messages = canonicalOf(format, served.body);
          expect(countMessageTokens(messages, model)).toBeLessThanOrEqual(run.window);
          const provider = format === "anthropic" ? "anthropic" : "openai";
          expect(validateMessages(messages, provider).problems).toEqual([]);
        }
        // The same history through the gateway, stateless: the upstream never gets it over the window.
        const tag = freshTag();
        const client = openaiClient(tag, {
          scenario: { limit: run.window },
          headers: { "X-Condense-Context-Window": String(run.window) },
        });
        await client.chat.completions
          .create({ model, messages: [...start, newest.call, ...newest.results] as never })
          .catch(() => undefined);
        const received = await upstreamCalls(tag);
        expect(received.length).toBeGreaterThan(0);
        for (const request of received) expect(request.tokens ?? 0).toBeLessThanOrEqual(run.window);
      }),
      { numRuns: RUNS },
    );
  });
});
