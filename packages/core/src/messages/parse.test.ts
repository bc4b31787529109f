import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidMessagesError, type MessageProblem } from "../errors/condense-error.js";
import { arbValidConversation } from "../test-support/message-arbitraries.js";
import { parseMessages } from "./parse.js";

function problemsOf(input: unknown): MessageProblem[] {
  try {
    parseMessages(input);
  } catch (error) {
    if (InvalidMessagesError.isInstance(error)) return error.problems;
    throw error;
  }
  throw new Error("expected parseMessages to throw");
}

describe("parseMessages: valid input", () => {
  it("returns canonical messages for every role", () => {
    const input = [
      { role: "system", content: "be brief" },
      { role: "developer", content: "use tools" },
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image_url", image_url: { url: "https://x/y.png", detail: "low" } },
        ],
        name: "ann",
      },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "c1", type: "function", function: { name: "bash", arguments: '{"cmd":"ls"}' } },
        ],
      },
      { role: "tool", content: "a.txt", tool_call_id: "c1" },
      { role: "assistant", content: "done" },
    ];
    expect(parseMessages(input)).toEqual(input);
  });

  it("keeps Chat Completions' custom tool calls (free-form input), answered like function calls", () => {
    const input = [
      { role: "user", content: "patch it" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_p",
            type: "custom",
            custom: { name: "apply_patch", input: "*** Begin Patch\n*** End Patch" },
          },
          { id: "call_f", type: "function", function: { name: "ls", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "call_p", content: "Done!" },
      { role: "tool", tool_call_id: "call_f", content: "a.ts" },
    ];
    expect(parseMessages(input)).toEqual(input);
    let caught: unknown;
    try {
      parseMessages([
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c", type: "custom", custom: { name: "", input: 3 } }],
        },
      ]);
    } catch (error) {
      caught = error;
    }
    expect((caught as InvalidMessagesError).problems.map((problem) => problem.path)).toEqual([
      "tool_calls[0].custom.name",
      "tool_calls[0].custom.input",
    ]);
  });

  it("returns fresh objects, never the input's", () => {
    const input = [{ role: "user", content: [{ type: "text", text: "hi" }] }];
    const [message] = parseMessages(input);
    expect(message).not.toBe(input[0]);
    expect(message?.content).not.toBe(input[0]?.content);
  });

  it("applies the documented repairs", () => {
    const messages = parseMessages([
      { role: "user", content: "bad \uD800 surrogate \uDC00 twice, good \uD83D\uDE00" },
      {
        role: "assistant",
        tool_calls: [
          { id: "c1", function: { name: "edit", arguments: { path: "a.ts", line: 3 } } },
        ],
      },
      { role: "tool", content: "ok", tool_call_id: "c1", name: null },
      {
        role: "assistant",
        content: "x",
        tool_calls: [],
        refusal: null,
        reasoning_content: "hidden",
        provider_data: { a: 1 },
      },
      { role: "user", content: "y", tool_call_id: "stray" },
    ]);
    expect(messages).toEqual([
      { role: "user", content: "bad \uFFFD surrogate \uFFFD twice, good \uD83D\uDE00" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "c1",
            type: "function",
            function: { name: "edit", arguments: '{"path":"a.ts","line":3}' },
          },
        ],
      },
      { role: "tool", content: "ok", tool_call_id: "c1" },
      { role: "assistant", content: "x" },
      { role: "user", content: "y" },
    ]);
  });

  it("is the identity on its own output (property)", () => {
    fc.assert(
      fc.property(arbValidConversation, (conversation) => {
        const once = parseMessages(JSON.parse(JSON.stringify(conversation)));
        expect(once).toEqual(conversation);
        expect(parseMessages(once)).toEqual(once);
      }),
      { numRuns: 60 },
    );
  });
});

describe("parseMessages: problems", () => {
  it("rejects a non-array and an empty array", () => {
    expect(problemsOf({ messages: [] })).toEqual([
      expect.objectContaining({ index: -1, kind: "not_an_array" }),
    ]);
    expect(problemsOf([])).toEqual([expect.objectContaining({ index: -1, kind: "empty" })]);
  });

  it("names the tool message without tool_call_id exactly as documented", () => {
    let caught: unknown;
    try {
      parseMessages([
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }],
        },
        { role: "tool", content: "r", tool_call_id: "c" },
        { role: "assistant", content: "ok" },
        { role: "tool", content: "r" },
      ]);
    } catch (error) {
      caught = error;
    }
    expect(InvalidMessagesError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toBe(
      "message 4 (tool_call_id): a tool message must name the call it answers; add the `tool_call_id` of the assistant tool call",
    );
  });

  it("lists every problem with index, path and kind", () => {
    const problems = problemsOf([
      "hello",
      { role: "bot", content: "x" },
      { content: "no role" },
      { role: "user", content: 42 },
      { role: "user" },
      { role: "user", content: [] },
      { role: "user", content: [{ type: "input_text", text: "x" }, { type: "text", text: 3 }, 7] },
      {
        role: "assistant",
        content: [{ type: "image_url", image_url: { url: "https://a/b.png" } }],
      },
      {
        role: "user",
        content: [
          { type: "image_url", image_url: "https://a/b.png" },
          { type: "image_url", image_url: { url: "u", detail: "max" } },
        ],
      },
      { role: "user", content: "x", name: 5 },
      {
        role: "user",
        content: "x",
        tool_calls: [{ id: "z", type: "function", function: { name: "f", arguments: "{}" } }],
      },
      { role: "assistant", content: null, tool_calls: { id: "c" } },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "c1", type: "function", function: { name: "f", arguments: "{not json" } },
          { id: "c1", type: "function", function: { name: "f", arguments: "{}" } },
          { id: "", type: "retrieval", function: { name: "", arguments: 12 } },
          { id: "c3", type: "function" },
          { id: "c4", type: "function", function: { name: "f" } },
          "call",
        ],
      },
      { role: "tool", content: "x", tool_call_id: 9 },
      { role: "tool", content: null, tool_call_id: "c1" },
    ]);
    const summary = problems.map((problem) => `${problem.index}|${problem.path}|${problem.kind}`);
    expect(summary).toEqual([
      "0||not_an_object",
      "1|role|unknown_role",
      "2|role|missing_role",
      "3|content|invalid_content",
      "4|content|missing_content",
      "5|content|empty_content_parts",
      "6|content[0].type|unknown_part_type",
      "6|content[1].text|invalid_part",
      "6|content[2]|invalid_part",
      "7|content[0]|image_not_allowed",
      "8|content[0].image_url|invalid_part",
      "8|content[1].image_url.detail|invalid_part",
      "9|name|invalid_name",
      "10|tool_calls|unexpected_tool_calls",
      "11|tool_calls|invalid_tool_calls",
      "12|tool_calls[0].function.arguments|invalid_arguments",
      "12|tool_calls[1].id|duplicate_tool_call_id",
      "12|tool_calls[2].id|invalid_tool_call_id",
      "12|tool_calls[2].type|unsupported_tool_call_type",
      "12|tool_calls[2].function.name|invalid_tool_call",
      "12|tool_calls[2].function.arguments|invalid_arguments",
      "12|tool_calls[3].function|invalid_tool_call",
      "12|tool_calls[4].function.arguments|missing_arguments",
      "12|tool_calls[5]|invalid_tool_call",
      "13|tool_call_id|invalid_tool_call_id",
      "14|content|missing_content",
    ]);
    for (const problem of problems) expect(problem.message.length).toBeGreaterThan(20);
  });

  it("points at the call a reused id still waits on, and suggests the Responses format for its part types", () => {
    const problems = problemsOf([
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "dup", type: "function", function: { name: "f", arguments: "{}" } }],
      },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "dup", type: "function", function: { name: "f", arguments: "{}" } }],
      },
      { role: "tool", content: "r", tool_call_id: "dup" },
      { role: "user", content: [{ type: "output_text", text: "x" }] },
    ]);
    expect(problems[0]?.message).toContain("the call of message 0 still awaits its result");
    expect(problems[1]?.message).toContain('format "responses"');
  });

  it("accepts a call id used again after its earlier call was answered (ids numbered per turn)", () => {
    const turn = (text: string) => [
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_0", type: "function", function: { name: "f", arguments: "{}" } }],
      },
      { role: "tool", content: text, tool_call_id: "call_0" },
    ];
    const messages = parseMessages([{ role: "user", content: "go" }, ...turn("a"), ...turn("b")]);
    expect(messages.map((message) => message.tool_calls?.[0]?.id ?? message.tool_call_id)).toEqual([
      undefined,
      "call_0",
      "call_0",
      "call_0",
      "call_0",
    ]);
  });

  it("reports unserializable argument objects instead of throwing", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const problems = problemsOf([
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "a", function: { name: "f", arguments: cyclic } }],
      },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "b", function: { name: "f", arguments: { n: 1n } } }],
      },
    ]);
    // A cycle nests without end: it is reported by the nesting check before JSON.stringify could throw.
    expect(problems.map((problem) => problem.kind)).toEqual([
      "arguments_too_deep",
      "invalid_arguments",
    ]);
  });

  it("ignores inherited properties", () => {
    const message = Object.create({ role: "user", content: "inherited" }) as object;
    expect(problemsOf([message]).map((problem) => problem.kind)).toEqual(["missing_role"]);
  });

  it("either returns messages or throws InvalidMessagesError, for anything (property)", () => {
    const arbMessageLike = fc.record(
      {
        role: fc.oneof(
          fc.constantFrom("system", "developer", "user", "assistant", "tool"),
          fc.anything(),
        ),
        content: fc.oneof(fc.string(), fc.constant(null), fc.anything(), fc.array(fc.anything())),
        name: fc.anything(),
        tool_calls: fc.oneof(
          fc.anything(),
          fc.array(
            fc.record(
              { id: fc.anything(), type: fc.anything(), function: fc.anything() },
              { requiredKeys: [] },
            ),
          ),
        ),
        tool_call_id: fc.anything(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.anything(), fc.array(fc.oneof(fc.anything(), arbMessageLike))),
        (input) => {
          try {
            const messages = parseMessages(input);
            expect(Array.isArray(messages)).toBe(true);
            expect(messages.length).toBeGreaterThan(0);
            for (const message of messages) {
              expect(["system", "developer", "user", "assistant", "tool"]).toContain(message.role);
            }
          } catch (error) {
            if (!InvalidMessagesError.isInstance(error)) throw error;
            expect(error.problems.length).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
