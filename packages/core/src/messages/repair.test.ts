import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compact } from "../compact/compact.js";
import { fromResponses } from "../formats/responses/convert.js";
import { validateMessages } from "../formats/validate.js";
import { arbMessyConversation, arbValidConversation } from "../test-support/message-arbitraries.js";
import { INTERRUPTED_RESULT, isEmptyTurn, repairMessages } from "./repair.js";
import type { ChatMessage, ToolCall } from "./types.js";

const call = (id: string): ToolCall => ({
  id,
  type: "function",
  function: { name: "bash", arguments: "{}" },
});
const user = (content: string): ChatMessage => ({ role: "user", content });
const assistant = (content: string | null, ids: string[] = []): ChatMessage =>
  ids.length > 0
    ? { role: "assistant", content, tool_calls: ids.map(call) }
    : { role: "assistant", content };
const tool = (id: string, content = `out ${id}`): ChatMessage => ({
  role: "tool",
  content,
  tool_call_id: id,
});

describe("repairMessages", () => {
  it("leaves a valid conversation untouched, returning the same message objects", () => {
    const messages = [
      user("u"),
      assistant(null, ["a", "b"]),
      tool("b"),
      tool("a"),
      assistant("done"),
    ];
    const { messages: out, repairs } = repairMessages(messages);
    expect(repairs).toEqual([]);
    expect(out).toEqual(messages);
    out.forEach((message, index) => {
      expect(message).toBe(messages[index]);
    });
  });

  it("drops orphans and duplicates, keeping the first result", () => {
    const messages = [
      tool("ghost"),
      user("u"),
      assistant(null, ["a"]),
      tool("a", "first"),
      tool("a", "second"),
      { role: "tool", content: "?" } as ChatMessage,
    ];
    const { messages: out, repairs } = repairMessages(messages);
    expect(out).toEqual([user("u"), assistant(null, ["a"]), tool("a", "first")]);
    expect(repairs).toEqual([
      { kind: "dropped_orphan_result", index: 0, toolCallId: "ghost" },
      { kind: "dropped_duplicate_result", index: 4, toolCallId: "a" },
      { kind: "dropped_orphan_result", index: 5 },
    ]);
  });

  it("synthesizes a result after the call's results block for every unanswered call", () => {
    const messages = [user("u"), assistant("working", ["a", "b", "c"]), tool("b"), user("stop")];
    const { messages: out, repairs } = repairMessages(messages);
    expect(out).toEqual([
      user("u"),
      assistant("working", ["a", "b", "c"]),
      tool("b"),
      { role: "tool", content: INTERRUPTED_RESULT, tool_call_id: "a" },
      { role: "tool", content: INTERRUPTED_RESULT, tool_call_id: "c" },
      user("stop"),
    ]);
    expect(repairs).toEqual([
      { kind: "synthesized_result", index: 1, toolCallId: "a" },
      { kind: "synthesized_result", index: 1, toolCallId: "c" },
    ]);
    expect(INTERRUPTED_RESULT).toBe(
      "[no result: this tool call was interrupted before it returned]",
    );
  });

  it("moves results that come after their block next to their call", () => {
    const messages = [
      user("u"),
      assistant(null, ["a", "b"]),
      tool("a"),
      user("meanwhile"),
      assistant(null, ["c"]),
      tool("c"),
      tool("b"),
    ];
    const { messages: out, repairs } = repairMessages(messages);
    expect(out).toEqual([
      user("u"),
      assistant(null, ["a", "b"]),
      tool("a"),
      tool("b"),
      user("meanwhile"),
      assistant(null, ["c"]),
      tool("c"),
    ]);
    expect(repairs).toEqual([{ kind: "moved_result", index: 6, toolCallId: "b" }]);
  });

  it("treats a result before its call as an orphan", () => {
    const { messages: out, repairs } = repairMessages([
      user("u"),
      tool("a"),
      assistant(null, ["a"]),
    ]);
    expect(out).toEqual([
      user("u"),
      assistant(null, ["a"]),
      { role: "tool", content: INTERRUPTED_RESULT, tool_call_id: "a" },
    ]);
    expect(repairs.map((repair) => repair.kind)).toEqual([
      "dropped_orphan_result",
      "synthesized_result",
    ]);
  });

  it("keeps a call id used again once its earlier call is answered: the later call is a new one", () => {
    const messages = [
      user("u"),
      assistant(null, ["a"]),
      tool("a", "one"),
      assistant(null, ["a", "a_2"]),
      tool("a", "two"),
      tool("a_2", "three"),
    ];
    const { messages: out, repairs } = repairMessages(messages);
    expect(repairs).toEqual([]);
    expect(out).toEqual(messages);
  });

  it("renames a call id used again while its earlier call awaits its result, together with its result", () => {
    const messages = [
      user("u"),
      assistant(null, ["a"]),
      assistant(null, ["a", "a_2"]),
      tool("a", "two"),
      tool("a_2", "three"),
    ];
    const { messages: out, repairs } = repairMessages(messages);
    expect(out).toEqual([
      user("u"),
      assistant(null, ["a"]),
      { role: "tool", content: INTERRUPTED_RESULT, tool_call_id: "a" },
      assistant(null, ["a_3", "a_2"]),
      tool("a_3", "two"),
      tool("a_2", "three"),
    ]);
    expect(repairs).toEqual([
      { kind: "synthesized_result", index: 1, toolCallId: "a" },
      { kind: "renamed_duplicate_call", index: 2, toolCallId: "a", renamedTo: "a_3" },
    ]);
    expect(messages[2]?.tool_calls?.[0]?.id).toBe("a");
  });

  it("keeps an id whose earlier call got a late result before the reuse", () => {
    const messages = [
      user("u"),
      assistant(null, ["a"]),
      assistant(null, ["b"]),
      tool("b"),
      tool("a", "late"),
      assistant(null, ["a"]),
      tool("a", "again"),
    ];
    const { messages: out, repairs } = repairMessages(messages);
    expect(repairs.map((repair) => repair.kind)).toEqual(["moved_result"]);
    expect(out.flatMap((message) => message.tool_calls?.map((c) => c.id) ?? [])).toEqual([
      "a",
      "b",
      "a",
    ]);
    expect(validateMessages(out, "openai").problems).toEqual([]);
  });

  it("gives results to same-id calls of one message in order", () => {
    const messages = [
      user("u"),
      assistant(null, ["x", "x"]),
      tool("x", "first"),
      tool("x", "second"),
    ];
    const { messages: out } = repairMessages(messages);
    expect(out).toEqual([
      user("u"),
      assistant(null, ["x", "x_2"]),
      tool("x", "first"),
      tool("x_2", "second"),
    ]);
  });

  it("always yields a conversation valid for OpenAI (property)", () => {
    fc.assert(
      fc.property(arbMessyConversation, (messages) => {
        const { messages: out } = repairMessages(messages);
        expect(validateMessages(out, "openai").problems).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("is idempotent (property)", () => {
    fc.assert(
      fc.property(arbMessyConversation, (messages) => {
        const once = repairMessages(messages).messages;
        const twice = repairMessages(once);
        expect(twice.repairs).toEqual([]);
        expect(twice.messages).toEqual(once);
      }),
      { numRuns: 300 },
    );
  });

  it("keeps every non-tool message in order and loses no real result of a surviving call (property)", () => {
    fc.assert(
      fc.property(arbMessyConversation, (messages) => {
        const { messages: out, repairs } = repairMessages(messages);
        const emptyTurns = repairs.filter((repair) => repair.kind === "dropped_empty_turn").length;
        expect(out.filter((message) => message.role !== "tool").length).toBe(
          messages.filter((message) => message.role !== "tool").length - emptyTurns,
        );
        const dropped = repairs.filter(
          (repair) => repair.kind.startsWith("dropped_") && repair.kind !== "dropped_empty_turn",
        ).length;
        const synthesized = repairs.filter((repair) => repair.kind === "synthesized_result").length;
        const toolsIn = messages.filter((message) => message.role === "tool").length;
        const toolsOut = out.filter((message) => message.role === "tool").length;
        expect(toolsOut).toBe(toolsIn - dropped + synthesized);
      }),
      { numRuns: 200 },
    );
  });

  it("changes nothing in a valid conversation (property)", () => {
    fc.assert(
      fc.property(arbValidConversation, (messages) => {
        const { messages: out, repairs } = repairMessages(messages);
        expect(repairs).toEqual([]);
        expect(out).toEqual(messages);
      }),
      { numRuns: 100 },
    );
  });
});

describe("repairMessages: empty turns", () => {
  it("drops aborted turns (no text, no tool call) between tool calls, and reports each", () => {
    const messages: ChatMessage[] = [
      user("fix the build"), // 0
      assistant(null, ["a"]), // 1
      tool("a"), // 2
      assistant(null), // 3: aborted
      user("go on"), // 4
      assistant(""), // 5: aborted
      assistant("\n "), // 6: whitespace only
      { role: "user", content: [] }, // 7
      { role: "assistant", content: [{ type: "text", text: " " }] }, // 8
      user("are you there?"), // 9
      assistant("yes", ["b"]), // 10
      tool("b"), // 11
    ];
    const { messages: out, repairs } = repairMessages(messages);
    expect(out).toEqual([
      user("fix the build"),
      assistant(null, ["a"]),
      tool("a"),
      user("go on"),
      user("are you there?"),
      assistant("yes", ["b"]),
      tool("b"),
    ]);
    expect(repairs).toEqual(
      [3, 5, 6, 7, 8].map((index) => ({ kind: "dropped_empty_turn", index })),
    );
    expect(validateMessages(out, "openai").problems).toEqual([]);
    // Two user messages in a row merge into one user turn for Anthropic: alternation holds.
    expect(validateMessages(out, "anthropic").problems).toEqual([]);
  });

  it("keeps calls without text, images without text and empty tool outputs", () => {
    const messages: ChatMessage[] = [
      {
        role: "user",
        content: [{ type: "image_url", image_url: { url: "https://x.test/a.png" } }],
      },
      assistant(null, ["a"]),
      tool("a", ""),
      assistant("done"),
    ];
    const { messages: out, repairs } = repairMessages(messages);
    expect(repairs).toEqual([]);
    out.forEach((message, index) => {
      expect(message).toBe(messages[index]);
    });
  });

  it("drops the thinking of an aborted turn but keeps a turn that carries opaque Responses items", () => {
    const thinkingOnly: ChatMessage = {
      role: "assistant",
      content: null,
      provider_data: {
        anthropic: { thinking: [{ type: "thinking", thinking: "hm", signature: "s" }] },
      },
    };
    const compaction: ChatMessage = {
      role: "assistant",
      content: "",
      provider_data: {
        responses: {
          items: [
            { type: "compaction", encrypted_content: "opaque" },
            { type: "message", role: "assistant", content: "" },
          ],
        },
      },
    };
    const { messages: out, repairs } = repairMessages([user("u"), thinkingOnly, compaction]);
    expect(out).toEqual([user("u"), compaction]);
    expect(repairs).toEqual([{ kind: "dropped_empty_turn", index: 1 }]);
  });
});

describe("isEmptyTurn: reasoning alone", () => {
  it("counts a turn that holds only a reasoning item beside empty text as empty (found by the compaction property)", () => {
    const items = [
      { type: "reasoning", id: "rs_0", summary: [{ type: "summary_text", text: "" }] },
      { type: "function_call", call_id: "call_2", name: "bash", arguments: "{}" },
    ];
    const [first] = fromResponses([items[0], { role: "user", content: "" }, items[1]]);
    expect(first?.provider_data?.responses?.items).toHaveLength(2);
    expect(first !== undefined && isEmptyTurn(first)).toBe(true);
    const kept = fromResponses([
      { role: "user", content: "" },
      { type: "web_search_call", id: "ws_1", status: "completed" },
    ]);
    expect(kept.some((message) => !isEmptyTurn(message))).toBe(true);
  });
});

describe("an empty turn is one thing to repair and to the OpenAI rules", () => {
  it("keeps a turn holding a Responses compaction item and finds it valid (found by the compaction property)", async () => {
    const messages = fromResponses([
      { type: "compaction", id: "cmp_1", encrypted_content: "abc" },
      { role: "user", content: "" },
      { role: "user", content: "go on" },
    ]);
    const [first] = messages;
    expect(first !== undefined && isEmptyTurn(first)).toBe(false);
    expect(validateMessages(messages, "openai").problems).toEqual([]);
    const result = await compact(
      {
        model: "gpt-4o",
        format: "responses",
        messages: [
          { type: "compaction", id: "cmp_1", encrypted_content: "abc" },
          { role: "user", content: "" },
          { role: "user", content: "go on" },
        ],
      },
      { contextWindow: 1000, force: true },
    );
    expect(JSON.stringify(result.messages)).toContain("cmp_1");
  });
});
