import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidMessagesError, type MessageProblem } from "../../errors/condense-error.js";
import { repairMessages } from "../../messages/repair.js";
import type { ChatMessage } from "../../messages/types.js";
import {
  arbMessyConversation,
  arbResponsesItems,
  arbResponsesNormalConversation,
} from "../../test-support/message-arbitraries.js";
import { isOpaqueMessage } from "../opaque.js";
import { validateMessages } from "../validate.js";
import { fromResponses, toResponses } from "./convert.js";

function problemsOf(items: unknown): MessageProblem[] {
  try {
    fromResponses(items as unknown[]);
  } catch (error) {
    if (InvalidMessagesError.isInstance(error)) return error.problems;
    throw error;
  }
  throw new Error("expected fromResponses to throw");
}

describe("fromResponses", () => {
  it("groups function calls with their assistant message and maps outputs to tool messages", () => {
    const messages = fromResponses([
      { role: "developer", content: "be brief" },
      {
        role: "user",
        content: [
          { type: "input_text", text: "look" },
          { type: "input_image", image_url: "https://x/y.png", detail: "low" },
        ],
      },
      { role: "assistant", content: "Checking." },
      { type: "function_call", call_id: "c1", name: "read", arguments: '{"path":"a"}' },
      { type: "function_call", call_id: "c2", name: "read", arguments: '{"path":"b"}' },
      { type: "function_call_output", call_id: "c1", output: "A" },
      { type: "function_call_output", call_id: "c2", output: [{ type: "input_text", text: "B" }] },
      { type: "function_call", call_id: "c3", name: "ls", arguments: "{}" },
      { type: "function_call_output", call_id: "c3", output: "" },
    ]);
    expect(messages).toEqual([
      { role: "developer", content: "be brief" },
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image_url", image_url: { url: "https://x/y.png", detail: "low" } },
        ],
      },
      {
        role: "assistant",
        content: "Checking.",
        tool_calls: [
          { id: "c1", type: "function", function: { name: "read", arguments: '{"path":"a"}' } },
          { id: "c2", type: "function", function: { name: "read", arguments: '{"path":"b"}' } },
        ],
      },
      { role: "tool", content: "A", tool_call_id: "c1" },
      { role: "tool", content: [{ type: "text", text: "B" }], tool_call_id: "c2" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c3", type: "function", function: { name: "ls", arguments: "{}" } }],
      },
      { role: "tool", content: "", tool_call_id: "c3" },
    ]);
    expect(validateMessages(messages, "openai").ok).toBe(true);
  });

  it("keeps reasoning and compaction items opaque, attached to the next message, never as content", () => {
    const reasoning = {
      type: "reasoning",
      id: "rs_1",
      summary: [{ type: "summary_text", text: "SECRET PLAN" }],
      encrypted_content: "enc",
    };
    const compaction = { type: "compaction", id: "cmp_1", encrypted_content: "opaque==" };
    const call = {
      type: "function_call",
      id: "fc_1",
      call_id: "c1",
      name: "bash",
      arguments: "{}",
      status: "completed",
    };
    const trailing = { type: "reasoning", id: "rs_2", summary: [] };
    const items = [
      compaction,
      { role: "user", content: "continue" },
      reasoning,
      call,
      { type: "function_call_output", call_id: "c1", output: "ok" },
      trailing,
    ];
    const messages = fromResponses(items);
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "tool"]);
    expect(messages[0]?.provider_data?.responses?.items).toEqual([compaction, items[1]]);
    expect(messages[1]?.provider_data?.responses?.items).toEqual([reasoning, call]);
    expect(messages[2]?.provider_data?.responses?.items).toEqual([items[4], trailing]);
    expect(JSON.stringify(messages.map((message) => message.content))).not.toContain("SECRET PLAN");
    expect(toResponses(messages)).toEqual(items);
  });

  it("rebuilds a changed message but keeps its opaque and unchanged items", () => {
    const reasoning = { type: "reasoning", id: "rs_1", summary: [] };
    const message = {
      type: "message",
      id: "msg_1",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: "old", annotations: [] }],
    };
    const call = {
      type: "function_call",
      id: "fc_1",
      call_id: "c1",
      name: "bash",
      arguments: "{}",
    };
    const [assistant] = fromResponses([reasoning, message, call]);
    expect(assistant).toBeDefined();
    if (!assistant) return;
    const edited = { ...assistant, content: "new" };
    expect(toResponses([edited])).toEqual([reasoning, { role: "assistant", content: "new" }, call]);
    const output = { type: "function_call_output", id: "fco_1", call_id: "c1", output: "long" };
    const [result] = fromResponses([{ role: "user", content: "x" }, output]).slice(1);
    expect(result?.provider_data?.responses?.items).toEqual([output]);
    expect(result && toResponses([{ ...result, content: "[pruned]" }])).toEqual([
      { type: "function_call_output", call_id: "c1", output: "[pruned]" },
    ]);
  });

  it("lists every shape problem", () => {
    const problems = problemsOf([
      7,
      { role: "tool", content: "x" },
      {
        type: "message",
        role: "user",
        content: [{ type: "input_file", filename: "a.pdf", detail: "max" }],
      },
      { role: "assistant", content: [{ type: "input_image", image_url: "u" }] },
      { role: "user", content: [] },
      { type: "function_call", call_id: "c", name: "", arguments: "{oops" },
      { type: "function_call", call_id: "c", name: "f", arguments: {} },
      { type: "function_call_output", output: 3 },
      { type: "compaction" },
      { type: 12, id: "ws" },
      { content: "no role, no type" },
      { role: "user", content: [{ type: "input_image", file_id: "f", detail: "huge" }] },
    ]);
    expect(problems.map((problem) => `${problem.index}|${problem.path}|${problem.kind}`)).toEqual([
      "0||not_an_object",
      "1|role|unknown_role",
      "2|content[0]|invalid_part",
      "2|content[0].detail|invalid_part",
      "3|content[0].type|unknown_part_type",
      "4|content|empty_content_parts",
      "5|name|invalid_item",
      "5|arguments|invalid_arguments",
      "6|arguments|invalid_arguments",
      "6|call_id|duplicate_tool_call_id",
      "7|call_id|invalid_item",
      "7|output|invalid_content",
      "8|encrypted_content|invalid_item",
      "9|type|invalid_item",
      "10|type|missing_type",
      "11|content[0].image_url|invalid_part",
      "11|content[0].detail|invalid_part",
    ]);
    expect(problems[2]?.message).toContain("`file_data`, `file_id` or `file_url`");
    expect(problems[4]?.message).toContain("output_text");
  });

  it("takes a call_id again once its call has its output, and refuses it while the call waits", () => {
    const turn = (output: string) => [
      { type: "function_call", call_id: "call_0", name: "bash", arguments: "{}" },
      { type: "function_call_output", call_id: "call_0", output },
    ];
    const items = [{ role: "user", content: "go" }, ...turn("one"), ...turn("two")];
    const messages = fromResponses(items);
    expect(messages.filter((message) => message.role === "tool").map((m) => m.content)).toEqual([
      "one",
      "two",
    ]);
    expect(toResponses(messages)).toEqual(items);
    const waiting = problemsOf([
      { role: "user", content: "go" },
      { type: "function_call", call_id: "call_0", name: "bash", arguments: "{}" },
      { type: "function_call", call_id: "call_0", name: "bash", arguments: "{}" },
    ]);
    expect(waiting.map((problem) => `${problem.index}|${problem.kind}`)).toEqual([
      "2|duplicate_tool_call_id",
    ]);
    expect(waiting[0]?.message).toContain("the call of item 1 still awaits its result");
  });

  it("rejects input without any message", () => {
    expect(problemsOf([]).map((problem) => problem.kind)).toEqual(["empty"]);
    expect(
      problemsOf([{ type: "compaction", encrypted_content: "x" }]).map((problem) => problem.kind),
    ).toEqual(["no_messages"]);
    expect(problemsOf("hello").map((problem) => problem.kind)).toEqual(["not_an_array"]);
  });

  it("either converts or throws InvalidMessagesError, for anything (property)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.array(fc.anything())), (items) => {
        try {
          fromResponses(items as unknown[]);
        } catch (error) {
          if (!InvalidMessagesError.isInstance(error)) throw error;
        }
      }),
      { numRuns: 300 },
    );
  });

  it("round-trips every valid item list exactly: toResponses(fromResponses(x)) = x (property)", () => {
    fc.assert(
      fc.property(arbResponsesItems, (items) => {
        expect(toResponses(fromResponses(items))).toEqual(items);
      }),
      { numRuns: 300 },
    );
  });
});

describe("Responses items the engine cannot rebuild", () => {
  const patch = "*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch";
  const customCall = {
    type: "custom_tool_call",
    id: "ctc_1",
    status: "completed",
    call_id: "call_patch",
    name: "apply_patch",
    input: patch,
  };
  const customOutput = {
    type: "custom_tool_call_output",
    call_id: "call_patch",
    output: "Success. Updated the following files:\nM src/a.ts",
  };

  it("reads Codex's custom_tool_call and its output as a custom call and its tool message, and writes them back verbatim", () => {
    const input = [
      { role: "user", content: "fix a.ts" },
      { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "enc" },
      customCall,
      customOutput,
    ];
    const messages = fromResponses(input);
    expect(messages.slice(1)).toMatchObject([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_patch", type: "custom", custom: { name: "apply_patch", input: patch } },
        ],
      },
      { role: "tool", tool_call_id: "call_patch", content: customOutput.output },
    ]);
    expect(toResponses(messages)).toEqual(input);
    expect(validateMessages(messages, "openai").ok).toBe(true);
    expect(repairMessages(messages).repairs).toEqual([]);
    // A changed output (pruned) is written as the output of the call it answers.
    const pruned = { ...(messages[2] as ChatMessage), content: "[pruned]" };
    expect(toResponses([...messages.slice(0, 2), pruned]).at(-1)).toEqual({
      type: "custom_tool_call_output",
      call_id: "call_patch",
      output: "[pruned]",
    });
  });

  it("keeps item types it does not know in place, verbatim, with a text saying what they hold", () => {
    const search = {
      type: "web_search_call",
      id: "ws_1",
      status: "completed",
      action: { type: "search", query: "vitest workers pool" },
    };
    const shell = {
      type: "local_shell_call",
      id: "lsh_1",
      call_id: "call_sh",
      status: "completed",
      action: { type: "exec", command: ["ls", "-la"], env: {} },
    };
    const shellOutput = {
      type: "local_shell_call_output",
      call_id: "call_sh",
      output: "a.ts\nb.ts",
    };
    const approval = {
      type: "mcp_approval_response",
      approval_request_id: "mcpr_1",
      approve: true,
    };
    const input = [
      { role: "user", content: "look it up" },
      search,
      { role: "assistant", content: "Found it; listing files." },
      shell,
      shellOutput,
      approval,
    ];
    const messages = fromResponses(input);
    expect(messages).toHaveLength(5);
    expect(messages[1]).toMatchObject({
      role: "assistant",
      content: '[web_search_call] {"action":{"query":"vitest workers pool","type":"search"}}',
      provider_data: { responses: { items: [search] } },
    });
    // A call_id pairs it like a function call: the call joins the assistant message, the output answers it.
    expect(messages[2]).toMatchObject({
      role: "assistant",
      content: "Found it; listing files.",
      tool_calls: [
        {
          id: "call_sh",
          type: "custom",
          custom: {
            name: "local_shell_call",
            input: '{"action":{"command":["ls","-la"],"env":{},"type":"exec"}}',
          },
        },
      ],
    });
    expect(messages[3]).toMatchObject({
      role: "tool",
      tool_call_id: "call_sh",
      content: "a.ts\nb.ts",
    });
    expect(messages[4]).toMatchObject({
      role: "assistant",
      content: '[mcp_approval_response] {"approval_request_id":"mcpr_1","approve":true}',
    });
    expect(toResponses(messages)).toEqual(input);
    // The shell output is rebuilt exactly from its text (`local_shell_call_output`): not opaque.
    expect(messages.map(isOpaqueMessage)).toEqual([false, true, true, false, true]);
    const pruned = { ...(messages[3] as ChatMessage), content: "[pruned]" };
    expect(toResponses([...messages.slice(0, 3), pruned]).at(-1)).toEqual({
      type: "local_shell_call_output",
      call_id: "call_sh",
      output: "[pruned]",
    });
    expect(validateMessages(messages, "openai").ok).toBe(true);
    expect(validateMessages(messages, "anthropic").problems).toEqual([]);
  });

  it("holds an answer of opaque items only", () => {
    const search = { type: "web_search_call", id: "ws_2", status: "completed", action: {} };
    const messages = fromResponses([{ type: "reasoning", id: "rs_2", summary: [] }, search]);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      role: "assistant",
      content: '[web_search_call] {"action":{}}',
    });
  });

  it("pairs by call_id only items typed as calls (`*_call`) and their outputs (`*_call_output`)", () => {
    // A content part's name used as an item type, with a call's fields: kept opaque, never a tool call.
    const notACall = {
      type: "output_text",
      call_id: "call_x",
      name: "lookup",
      arguments: "{}",
    };
    const notAnOutput = { type: "output_text_output", call_id: "call_x", output: "done" };
    const input = [{ role: "user", content: "hi" }, notACall, notAnOutput];
    const messages = fromResponses(input);
    expect(messages.some((message) => message.tool_calls !== undefined)).toBe(false);
    expect(messages.some((message) => message.role === "tool")).toBe(false);
    expect(messages.slice(1)).toMatchObject([
      {
        role: "assistant",
        content: '[output_text] {"arguments":"{}","name":"lookup"}',
        provider_data: { responses: { items: [notACall] } },
      },
      {
        role: "assistant",
        content: '[output_text_output] {"output":"done"}',
        provider_data: { responses: { items: [notAnOutput] } },
      },
    ]);
    expect(toResponses(messages)).toEqual(input);
    expect(validateMessages(messages, "openai").ok).toBe(true);
    expect(validateMessages(messages, "anthropic").problems).toEqual([]);
  });

  it("keeps an unknown type opaque only when it is shaped like a type name", () => {
    const problems = problemsOf([
      { role: "user", content: "hi" },
      { type: "😀".repeat(2_000), call_id: "c" },
      { type: "web search!" },
      { type: `a${"b".repeat(64)}` },
      { type: "Shell_Call" },
    ]);
    expect(problems.map((problem) => `${problem.index}|${problem.path}|${problem.kind}`)).toEqual([
      "1|type|invalid_item_type",
      "2|type|invalid_item_type",
      "3|type|invalid_item_type",
      "4|type|invalid_item_type",
    ]);
    // The message quotes a bounded part of what it refuses.
    expect(problems[0]?.message.length).toBeLessThan(400);
    expect(fromResponses([{ type: "image_generation_call", id: "ig_1" }])).toHaveLength(1);
  });

  it("still refuses what the provider refuses: a custom call without its input", () => {
    expect(
      problemsOf([{ type: "custom_tool_call", call_id: "c", name: "apply_patch" }]).map(
        (problem) => `${problem.path}|${problem.kind}`,
      ),
    ).toEqual(["input|invalid_item"]);
  });
});

describe("Responses files", () => {
  const pdf = "data:application/pdf;base64,JVBERi0xLjQK";

  it("maps input_file parts to file parts and back, keeping what has no canonical place", () => {
    const items = [
      {
        role: "user",
        content: [
          { type: "input_text", text: "Compare." },
          { type: "input_file", file_data: pdf, filename: "a.pdf" },
          { type: "input_file", file_id: "file-abc" },
          { type: "input_file", file_url: "https://example.com/b.pdf", detail: "low" },
        ],
      },
      { type: "function_call", call_id: "c1", name: "fetch", arguments: "{}" },
      {
        type: "function_call_output",
        call_id: "c1",
        output: [{ type: "input_file", file_data: pdf, filename: "c.pdf" }],
      },
    ];
    const messages = fromResponses(items);
    expect(messages[0]?.content).toEqual([
      { type: "text", text: "Compare." },
      { type: "file", file: { file_data: pdf, filename: "a.pdf" } },
      { type: "file", file: { file_id: "file-abc" } },
      { type: "text", text: "[file: https://example.com/b.pdf]" },
    ]);
    expect(messages[0]?.provider_data?.responses?.items).toEqual([items[0]]);
    expect(messages[2]).toEqual({
      role: "tool",
      tool_call_id: "c1",
      content: [{ type: "file", file: { file_data: pdf, filename: "c.pdf" } }],
    });
    expect(toResponses(messages)).toEqual(items);
  });

  it("writes canonical file parts as input_file and refuses audio, which Responses does not take", () => {
    expect(
      toResponses([
        { role: "user", content: [{ type: "file", file: { file_id: "file-1", filename: "x" } }] },
      ]),
    ).toEqual([
      { role: "user", content: [{ type: "input_file", file_id: "file-1", filename: "x" }] },
    ]);
    let caught: unknown;
    try {
      toResponses([
        { role: "user", content: "hi" },
        {
          role: "user",
          content: [{ type: "input_audio", input_audio: { data: "SUQz", format: "mp3" } }],
        },
      ]);
    } catch (error) {
      caught = error;
    }
    expect(InvalidMessagesError.isInstance(caught)).toBe(true);
    expect((caught as InvalidMessagesError).problems).toEqual([
      expect.objectContaining({ index: 1, path: "content[0]", kind: "unsupported_part" }),
    ]);
    expect((caught as Error).message).toContain("format");
  });
});

describe("toResponses", () => {
  it("writes each role in its own item form", () => {
    expect(
      toResponses([
        { role: "system", content: "s" },
        {
          role: "user",
          content: [
            { type: "text", text: "u" },
            { type: "image_url", image_url: { url: "data:image/png;base64,AA==" } },
          ],
          name: "ann",
        },
        { role: "assistant", content: [{ type: "text", text: "a" }] },
        {
          role: "assistant",
          content: "",
          tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }],
        },
        { role: "tool", content: [{ type: "text", text: "r" }], tool_call_id: "c" },
        { role: "assistant", content: null },
      ]),
    ).toEqual([
      { role: "system", content: "s" },
      {
        role: "user",
        content: [
          { type: "input_text", text: "u" },
          { type: "input_image", image_url: "data:image/png;base64,AA==" },
        ],
      },
      { role: "assistant", content: [{ type: "output_text", text: "a", annotations: [] }] },
      { type: "function_call", call_id: "c", name: "f", arguments: "{}" },
      { type: "function_call_output", call_id: "c", output: [{ type: "input_text", text: "r" }] },
      { role: "assistant", content: "" },
    ]);
  });

  it("loses nothing Responses can hold: canonical → responses → canonical (property)", () => {
    fc.assert(
      fc.property(arbResponsesNormalConversation, (messages) => {
        expect(fromResponses(toResponses(messages))).toEqual(messages);
      }),
      { numRuns: 300 },
    );
  });

  it("is stable after one trip for any repaired conversation and stays valid for OpenAI (property)", () => {
    fc.assert(
      fc.property(arbMessyConversation, (messy) => {
        const messages = repairMessages(messy).messages;
        // A conversation of empty turns only repairs to nothing, which no format can carry.
        fc.pre(messages.length > 0);
        const once = toResponses(messages);
        const back = fromResponses(once);
        expect(toResponses(back)).toEqual(once);
        expect(validateMessages(back, "openai").problems).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
