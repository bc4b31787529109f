import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compact } from "../compact/compact.js";
import { InvalidMessagesError } from "../errors/condense-error.js";
import { fromCanonical, toCanonical } from "../formats/convert.js";
import {
  jsonTextNestsTooDeep,
  MAX_ITEM_NESTING,
  MAX_NESTING,
  valueNestsTooDeep,
} from "./limits.js";
import type { ChatMessage, MessageFormat } from "./types.js";

describe("nesting limits", () => {
  const nested = (depth: number) =>
    `${"[".repeat(depth - 1)}{"k":"[{\\"}"}${"]".repeat(depth - 1)}`;

  it("measures JSON text depth, ignoring brackets inside strings", () => {
    expect(jsonTextNestsTooDeep(nested(MAX_NESTING))).toBe(false);
    expect(jsonTextNestsTooDeep(nested(MAX_NESTING + 1))).toBe(true);
    expect(jsonTextNestsTooDeep('"[[[[[["', 2)).toBe(false);
    expect(jsonTextNestsTooDeep("[[1],[2]]", 2)).toBe(false);
    expect(jsonTextNestsTooDeep("[[[1]]]", 2)).toBe(true);
  });

  it("agrees with the parsed value's depth (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 1, max: 6 }), (value, limit) => {
        const text = JSON.stringify(value);
        expect(jsonTextNestsTooDeep(text, limit)).toBe(valueNestsTooDeep(value, limit));
      }),
    );
  });

  it("agrees with the text's depth for values with shared parts, small and large (property)", () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 4 }),
        fc.integer({ min: 0, max: 14 }),
        fc.integer({ min: 1, max: 20 }),
        (leaf, levels, limit) => {
          // Each level refers to the one below twice: 2^levels paths, past the plain walk's budget.
          let value: unknown = leaf;
          for (let level = 0; level < levels; level++) value = [value, { again: value }];
          const depth = jsonTextNestsTooDeep(JSON.stringify(nestedLeaf(leaf, levels)), limit);
          expect(valueNestsTooDeep(value, limit)).toBe(depth);
        },
      ),
    );
  });

  it("measures values without recursion, flags cycles, and measures shared parts once", () => {
    expect(valueNestsTooDeep(JSON.parse(nested(MAX_NESTING)))).toBe(false);
    expect(valueNestsTooDeep(JSON.parse(nested(100_000)))).toBe(true);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { back: cyclic };
    expect(valueNestsTooDeep(cyclic)).toBe(true);
    // 2^60 paths if shared parts were walked again.
    let shared: unknown = { leaf: true };
    for (let i = 0; i < 60; i++) shared = [shared, shared];
    expect(valueNestsTooDeep(shared, 61)).toBe(false);
    expect(valueNestsTooDeep(shared, 60)).toBe(true);
    expect(valueNestsTooDeep("text")).toBe(false);
  });
});

/** As deep as `levels` levels of `[value, { again: value }]` over `leaf`, without the sharing. */
function nestedLeaf(leaf: unknown, levels: number): unknown {
  let value = leaf;
  for (let level = 0; level < levels; level++) value = { again: [value] };
  return value;
}

/** A JSON value nesting `depth` levels of arrays and objects (the value itself is level 1). */
function nested(depth: number): unknown {
  let value: unknown = { leaf: "x" };
  for (let level = 1; level < depth; level++) value = [value];
  return value;
}

/** Messages of one format carrying a payload nested `depth` levels, in each place one can ride. */
const payloads: Record<string, (depth: number) => { format: MessageFormat; messages: unknown[] }> =
  {
    "a Responses reasoning item's summary": (depth) => ({
      format: "responses",
      messages: [
        { role: "user", content: "hi" },
        {
          type: "reasoning",
          id: "rs_1",
          summary: [{ type: "summary_text", text: "thought", extra: nested(depth) }],
        },
        { role: "assistant", content: "ok" },
      ],
    }),
    "a Responses function call's arguments": (depth) => ({
      format: "responses",
      messages: [
        { role: "user", content: "hi" },
        {
          type: "function_call",
          call_id: "call_1",
          name: "bash",
          arguments: JSON.stringify({ a: nested(depth - 1) }),
        },
        { type: "function_call_output", call_id: "call_1", output: "done" },
      ],
    }),
    "an Anthropic tool_use input": (depth) => ({
      format: "anthropic",
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: [
            { type: "tool_use", id: "toolu_1", name: "bash", input: { a: nested(depth - 1) } },
          ],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }] },
      ],
    }),
    "an Anthropic thinking block": (depth) => ({
      format: "anthropic",
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "hmm", signature: "sig", extra: nested(depth) },
            { type: "text", text: "ok" },
          ],
        },
      ],
    }),
    "an Anthropic text block's citations": (depth) => ({
      format: "anthropic",
      messages: [
        {
          role: "user",
          content: [{ type: "text", text: "see", citations: [nested(depth)] }],
        },
      ],
    }),
    "Chat Completions tool-call arguments": (depth) => ({
      format: "openai",
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "bash", arguments: JSON.stringify({ a: nested(depth - 1) }) },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: "done" },
      ],
    }),
  };

function accepted(read: () => unknown): boolean {
  try {
    read();
    return true;
  } catch (error) {
    if (InvalidMessagesError.isInstance(error)) return false;
    throw error;
  }
}

const FORMATS: MessageFormat[] = ["openai", "anthropic", "responses"];

describe("limits are counted the same way at every stage", () => {
  it("what a format accepts, reading its canonical form back and converting it accept too (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(payloads)),
        fc.oneof(fc.integer({ min: 248, max: 266 }), fc.integer({ min: 1, max: 400 })),
        (where, depth) => {
          const input = payloads[where]?.(depth);
          if (input === undefined) return;
          let canonical: ChatMessage[] = [];
          if (!accepted(() => (canonical = toCanonical(input)))) return;
          // The session stores the canonical messages; compaction and the gateway read them back.
          expect(accepted(() => toCanonical({ format: "openai", messages: canonical }))).toBe(true);
          for (const format of FORMATS) {
            let rendered: { messages: unknown[]; system?: unknown } = { messages: [] };
            if (!accepted(() => (rendered = fromCanonical(canonical, format)))) continue;
            expect(accepted(() => toCanonical({ format, ...rendered }))).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("compacts what any format accepted at the deepest it accepts", async () => {
    for (const [where, build] of Object.entries(payloads)) {
      let deepest = 0;
      for (let depth = 240; depth <= 270; depth++) {
        if (accepted(() => toCanonical(build(depth)))) deepest = depth;
      }
      expect(deepest, where).toBeGreaterThan(0);
      const canonical = toCanonical(build(deepest));
      const result = await compact(
        { model: "gpt-4o", messages: canonical },
        { contextWindow: 100_000, force: true },
      );
      expect(result.messages.length, where).toBeGreaterThan(0);
    }
  });
});

describe("a payload nested too deep", () => {
  function problemsOf(read: () => unknown) {
    try {
      read();
    } catch (error) {
      if (InvalidMessagesError.isInstance(error)) return error.problems;
      throw error;
    }
    return [];
  }

  it("is named where it is, in every format", () => {
    const tooDeep = MAX_ITEM_NESTING + 1;
    const anthropic = payloads["an Anthropic thinking block"]?.(tooDeep);
    const responses = payloads["a Responses reasoning item's summary"]?.(tooDeep);
    expect(problemsOf(() => toCanonical(anthropic ?? { messages: [] }))).toMatchObject([
      { index: 1, path: "content[0]", kind: "too_deep" },
    ]);
    expect(problemsOf(() => toCanonical(responses ?? { messages: [] }))).toMatchObject([
      { index: 1, path: "", kind: "too_deep" },
    ]);
    const canonical = [
      {
        role: "assistant",
        content: "ok",
        provider_data: { anthropic: { thinking: [{ type: "thinking", x: nested(tooDeep) }] } },
      },
    ];
    expect(problemsOf(() => toCanonical({ messages: canonical }))).toMatchObject([
      { index: 0, path: "provider_data.anthropic.thinking[0]", kind: "invalid_provider_data" },
    ]);
  });
});
