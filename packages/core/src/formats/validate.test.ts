import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ChatMessage, ToolCall } from "../messages/types.js";
import { arbMediaConversation, arbValidConversation } from "../test-support/message-arbitraries.js";
import { validateMessages } from "./validate.js";

const call = (id: string): ToolCall => ({
  id,
  type: "function",
  function: { name: "bash", arguments: "{}" },
});
const user = (content: string): ChatMessage => ({ role: "user", content });
const system = (content: string): ChatMessage => ({ role: "system", content });
const assistant = (content: string | null, ids: string[] = []): ChatMessage =>
  ids.length > 0
    ? { role: "assistant", content, tool_calls: ids.map(call) }
    : { role: "assistant", content };
const tool = (id: string, content = "out"): ChatMessage => ({
  role: "tool",
  content,
  tool_call_id: id,
});

function kinds(messages: ChatMessage[], provider: "openai" | "anthropic" | "gemini"): string[] {
  return validateMessages(messages, provider).problems.map(
    (problem) => `${problem.index}:${problem.kind}`,
  );
}

describe("validateMessages openai", () => {
  it("accepts parallel calls answered in any order, and system messages between turns", () => {
    const messages = [
      system("s"),
      user("u"),
      assistant(null, ["a", "b"]),
      tool("b"),
      tool("a"),
      { role: "developer", content: "d" } as ChatMessage,
      assistant("done"),
    ];
    expect(validateMessages(messages, "openai")).toEqual({ ok: true, problems: [] });
  });

  it("reports orphans, misplaced, duplicate and missing results", () => {
    const messages = [
      tool("x"), // 0 orphan
      user("u"), // 1
      assistant(null, ["a", "b"]), // 2: b unanswered before 5
      tool("a"), // 3
      tool("a"), // 4 duplicate
      user("again"), // 5
      tool("b"), // 6 misplaced (call of 2, after a user message)
      assistant(null, ["a"]), // 7 reuses the answered id a (fine), unanswered at end
    ];
    expect(kinds(messages, "openai")).toEqual([
      "0:orphan_result",
      "4:duplicate_result",
      "2:unanswered_call",
      "6:misplaced_result",
      "7:unanswered_call",
    ]);
    const result = validateMessages(messages, "openai");
    expect(result.ok).toBe(false);
    expect(result.problems.find((problem) => problem.index === 6)?.message).toContain("message 2");
    expect(result.problems.find((problem) => problem.kind === "unanswered_call")?.path).toBe(
      "tool_calls[1]",
    );
  });

  it("accepts a call id used again once its earlier call is answered (ids numbered per turn)", () => {
    const messages = [
      user("u"),
      assistant(null, ["call_0", "call_1"]),
      tool("call_1"),
      tool("call_0"),
      assistant(null, ["call_0"]),
      tool("call_0"),
      user("again"),
      assistant(null, ["call_0"]),
      tool("call_0"),
    ];
    expect(validateMessages(messages, "openai")).toEqual({ ok: true, problems: [] });
    expect(kinds(messages, "gemini")).toEqual([]);
  });

  it("refuses a call id used again while its earlier call awaits its result, or twice in one message", () => {
    const messages = [
      user("u"),
      assistant(null, ["a"]), // 1: unanswered when 2 reuses it
      assistant(null, ["a"]), // 2
      tool("a"),
      assistant(null, ["b", "b"]), // 4
      tool("b"),
      tool("b"),
    ];
    const problems = validateMessages(messages, "openai").problems;
    const reused = problems.filter((problem) => problem.kind === "duplicate_tool_call_id");
    expect(reused.map((problem) => `${problem.index}|${problem.path}`)).toEqual([
      "2|tool_calls[0].id",
      "4|tool_calls[1].id",
    ]);
    expect(reused[0]?.message).toContain("the call of message 1 still awaits its result");
    expect(reused[1]?.message).toContain("another call of this message");
  });

  it("reports a tool message without tool_call_id", () => {
    const messages: ChatMessage[] = [
      user("u"),
      assistant(null, ["a"]),
      tool("a"),
      { role: "tool", content: "?" },
    ];
    expect(kinds(messages, "openai")).toEqual(["3:missing_tool_call_id"]);
  });

  it("accepts every well-formed generated conversation (property)", () => {
    fc.assert(
      fc.property(arbValidConversation, (messages) => {
        expect(validateMessages(messages, "openai").problems).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });
});

describe("validateMessages anthropic", () => {
  it("accepts a conversation toAnthropic can send, including one that starts with the assistant", () => {
    const messages = [
      system("s"),
      assistant("hi"),
      user("u"),
      assistant("x", ["a"]),
      tool("a"),
      user("more"),
      assistant("ok"),
    ];
    expect(validateMessages(messages, "anthropic")).toEqual({ ok: true, problems: [] });
  });

  it("accepts consecutive assistant calls answered together (they merge into one turn)", () => {
    const messages = [
      user("u"),
      assistant(null, ["a"]),
      assistant(null, ["b"]),
      tool("a"),
      tool("b"),
    ];
    expect(validateMessages(messages, "anthropic").ok).toBe(true);
    expect(validateMessages(messages, "openai").ok).toBe(false);
  });

  it("reports results outside the next user turn, unanswered uses and empty content", () => {
    const messages = [
      user("u"), // 0
      assistant(null, ["a", "b"]), // 1: b unanswered
      tool("a"), // 2
      assistant("x"), // 3
      tool("b"), // 4 misplaced
      tool("zzz"), // 5 orphan
      assistant("  "), // 6 blank
      user(""), // 7 empty
    ];
    expect(kinds(messages, "anthropic")).toEqual([
      "1:unanswered_call",
      "4:misplaced_result",
      "5:orphan_result",
      "6:empty_content",
      "7:empty_content",
    ]);
  });

  it("reports empty text parts and a conversation of system messages only", () => {
    const parts: ChatMessage = { role: "user", content: [{ type: "text", text: "" }] };
    expect(kinds([parts], "anthropic")).toEqual(["0:empty_content", "0:empty_content"]);
    expect(kinds([system("only")], "anthropic")).toEqual(["-1:no_user_turn"]);
    expect(kinds([], "anthropic")).toEqual([]);
  });

  it("reports an unanswered call at the end", () => {
    expect(kinds([user("u"), assistant("x", ["a"])], "anthropic")).toEqual(["1:unanswered_call"]);
  });
});

describe("validateMessages gemini", () => {
  it("accepts a well-formed conversation with parallel calls", () => {
    const messages = [
      system("s"),
      user("u"),
      assistant(null, ["a", "b"]),
      tool("b"),
      tool("a"),
      assistant("ok"),
    ];
    expect(validateMessages(messages, "gemini")).toEqual({ ok: true, problems: [] });
  });

  it("requires a user turn first and responses right after the model turn", () => {
    const messages = [
      system("s"),
      assistant("hi"), // 1 starts with model
      user("u"), // 2
      assistant(null, ["a", "b"]), // 3: b unanswered
      tool("a"), // 4
      user("stop"), // 5
      tool("b"), // 6 misplaced
      { role: "assistant", content: "" } as ChatMessage, // 7 empty
      {
        role: "user",
        content: [
          { type: "text", text: "" },
          { type: "text", text: "x" },
        ],
      } as ChatMessage, // 8 empty part
    ];
    expect(kinds(messages, "gemini")).toEqual([
      "1:starts_with_model",
      "3:unanswered_call",
      "6:misplaced_result",
      "7:empty_parts",
      "8:empty_parts",
    ]);
  });

  it("counts responses: one per call, no extras", () => {
    const messages = [user("u"), assistant(null, ["a"]), tool("a"), tool("a")];
    expect(kinds(messages, "gemini")).toEqual(["3:misplaced_result"]);
  });
});

it("rejects an unknown provider with a fix", () => {
  const result = validateMessages([user("u")], "mistral" as "openai");
  expect(result.ok).toBe(false);
  expect(result.problems[0]?.message).toContain("use openai, anthropic or gemini");
});

describe("validateMessages: empty turns", () => {
  const image = { type: "image_url", image_url: { url: "https://example.com/a.png" } } as const;

  it("openai: reports user and assistant turns with nothing in them", () => {
    const messages: ChatMessage[] = [
      user("u"), // 0
      assistant(null), // 1: null, no calls (an aborted turn)
      user(""), // 2: empty string
      assistant(""), // 3
      { role: "user", content: [] }, // 4: empty part array
      { role: "assistant", content: [{ type: "text", text: "" }] }, // 5: only empty text
      user("go on"), // 6
    ];
    expect(kinds(messages, "openai")).toEqual([
      "1:empty_turn",
      "2:empty_turn",
      "3:empty_turn",
      "4:empty_turn",
      "5:empty_turn",
    ]);
    const problem = validateMessages(messages, "openai").problems[0];
    expect(problem?.path).toBe("content");
    expect(problem?.message).toMatch(/no content and no tool calls.*repairMessages/);
  });

  it("openai: accepts calls without text, empty tool outputs and images without text", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: [image] },
      assistant(null, ["a"]),
      tool("a", ""),
      assistant("", ["b"]),
      tool("b", "out"),
      assistant("done"),
    ];
    expect(kinds(messages, "openai")).toEqual([]);
  });

  it("openai: reports an empty content array wherever it is", () => {
    const messages: ChatMessage[] = [
      user("u"),
      { role: "assistant", content: [], tool_calls: [call("a")] },
      { role: "tool", content: [], tool_call_id: "a" },
    ];
    expect(kinds(messages, "openai")).toEqual(["1:empty_content", "2:empty_content"]);
  });

  it("anthropic: reports empty and whitespace-only turns between tool calls", () => {
    const messages = [
      user("u"), // 0
      assistant(null, ["a"]), // 1
      tool("a"), // 2
      assistant(null), // 3: aborted
      user("again"), // 4
      assistant(" \n"), // 5: whitespace only
      user("and again"), // 6
    ];
    expect(kinds(messages, "anthropic")).toEqual(["3:empty_content", "5:empty_content"]);
  });
});

describe("validateMessages: files and audio", () => {
  const pdf: ChatMessage = {
    role: "user",
    content: [
      {
        type: "file",
        file: { file_data: "data:application/pdf;base64,JVBERi0x", filename: "a.pdf" },
      },
    ],
  };
  const audio: ChatMessage = {
    role: "user",
    content: [{ type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } }],
  };
  const zip: ChatMessage = {
    role: "user",
    content: [
      { type: "text", text: "unpack" },
      { type: "file", file: { file_data: "data:application/zip;base64,UEsDBA==" } },
    ],
  };
  const turns = (...users: ChatMessage[]): ChatMessage[] =>
    users.flatMap((message) => [message, assistant("ok")]);

  it("openai and gemini: a user turn of only a file or only audio is a turn, not an empty one", () => {
    for (const provider of ["openai", "gemini"] as const) {
      expect(kinds(turns(pdf, audio, zip), provider)).toEqual([]);
    }
  });

  it("anthropic: accepts PDFs, refuses audio and files it cannot hold, naming the part", () => {
    expect(kinds(turns(pdf), "anthropic")).toEqual([]);
    const problems = validateMessages(turns(pdf, audio, zip), "anthropic").problems;
    expect(problems.map((problem) => `${problem.index}|${problem.path}|${problem.kind}`)).toEqual([
      "2|content[0]|unsupported_part",
      "4|content[1]|unsupported_part",
    ]);
  });

  it("accepts every well-formed conversation with media for openai (property)", () => {
    fc.assert(
      fc.property(arbMediaConversation, (messages) => {
        expect(validateMessages(messages, "openai").problems).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });
});
