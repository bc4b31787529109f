import { describe, expect, it } from "vitest";
import {
  anthropicViolation,
  cacheControlViolation,
  diagnosticsViolation,
  emptyContentViolation,
  roleViolation,
  thinkingViolation,
  toolPairingViolation,
} from "./anthropic-rules.ts";
import { sign } from "./signatures.ts";

const marker = { cache_control: { type: "ephemeral" } };
const user = (text: string, extra = {}) => ({
  role: "user",
  content: [{ type: "text", text, ...extra }],
});
const toolUse = (id: string, thinking?: string) => ({
  role: "assistant",
  content: [
    ...(thinking === undefined ? [] : [{ type: "thinking", thinking, signature: sign(thinking) }]),
    { type: "tool_use", id, name: "Read", input: { file_path: "/a" } },
  ],
});
const toolResult = (id: string) => ({
  role: "user",
  content: [{ type: "tool_result", tool_use_id: id, content: "text of /a" }],
});

describe("cache_control markers", () => {
  it("accepts four", () => {
    const body = {
      system: [{ type: "text", text: "s", ...marker }],
      tools: [{ name: "Read", ...marker }],
      messages: [user("a", marker), user("b", marker)],
    };
    expect(cacheControlViolation(body)).toBeUndefined();
  });

  it("refuses a fifth, counting system, tools, messages and nested tool results, in Anthropic's words", () => {
    const body = {
      system: [{ type: "text", text: "s", ...marker }],
      tools: [{ name: "Read", ...marker }],
      messages: [
        user("a", marker),
        toolUse("toolu_1"),
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_1",
              content: [{ type: "text", text: "x", ...marker }],
              ...marker,
            },
          ],
        },
      ],
    };
    expect(cacheControlViolation(body)?.message).toBe(
      "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    );
    expect(cacheControlViolation(body)?.status).toBe(400);
  });
});

describe("roles", () => {
  it("refuses a system turn inside messages without the beta that allows it", () => {
    const body = { messages: [user("a"), { role: "system", content: "be brief" }] };
    expect(roleViolation(body, "")?.message).toBe(
      "messages.1.role: Input should be 'user' or 'assistant'",
    );
    expect(roleViolation(body, "claude-code-20250219,per-turn-control-2026-07-01")).toBeUndefined();
  });

  it("refuses an empty message and an empty text block", () => {
    expect(
      emptyContentViolation({ messages: [{ role: "user", content: [] }, user("b")] })?.message,
    ).toMatch(/^messages\.0: all messages must have non-empty content/);
    expect(emptyContentViolation({ messages: [user("")] })?.message).toBe(
      "messages: text content blocks must be non-empty",
    );
    // A system turn of per-turn control only (Claude Code's on `--continue`) is no empty message.
    const control = { role: "system", content: [], output_config: { effort: "medium" } };
    expect(emptyContentViolation({ messages: [user("a"), control, user("b")] })).toBeUndefined();
    expect(
      emptyContentViolation({ messages: [user("a"), { role: "system", content: [] }, user("b")] })
        ?.message,
    ).toMatch(/^messages\.1: all messages must have non-empty content/);
  });
});

describe("tool_use and tool_result", () => {
  it("accepts a tool_use answered in the next message, with a system turn between", () => {
    const body = {
      messages: [
        user("go"),
        toolUse("toolu_1"),
        { role: "system", content: "note" },
        toolResult("toolu_1"),
      ],
    };
    expect(toolPairingViolation(body)).toBeUndefined();
  });

  it("refuses a tool_use left unanswered", () => {
    const body = { messages: [user("go"), toolUse("toolu_1"), user("and then?")] };
    expect(toolPairingViolation(body)?.message).toBe(
      "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    );
  });

  it("refuses a tool_result whose tool_use is not in the previous message (a pruned or reordered history)", () => {
    const body = {
      messages: [user("go"), { role: "assistant", content: "ok" }, toolResult("toolu_9")],
    };
    expect(toolPairingViolation(body)?.message).toMatch(
      /^messages\.2\.content\.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9\./,
    );
  });
});

describe("thinking", () => {
  const on = { thinking: { type: "adaptive" } };

  it("accepts thinking returned intact", () => {
    const body = {
      ...on,
      messages: [user("go"), toolUse("toolu_1", "I read /a."), toolResult("toolu_1")],
    };
    expect(thinkingViolation(body)).toBeUndefined();
  });

  it("refuses a thinking block whose text was changed", () => {
    const changed = toolUse("toolu_1", "I read /a.");
    const block = changed.content[0] as { thinking: string };
    block.thinking = "I read /b.";
    const body = { ...on, messages: [user("go"), changed, toolResult("toolu_1")] };
    expect(thinkingViolation(body)?.message).toBe(
      "messages.1.content.0: Invalid `signature` in `thinking` block",
    );
  });

  it("refuses, while thinking is on, a last tool-loop turn whose thinking was dropped", () => {
    const body = { ...on, messages: [user("go"), toolUse("toolu_1"), toolResult("toolu_1")] };
    expect(thinkingViolation(body)?.message).toMatch(
      /^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`\./,
    );
    expect(thinkingViolation({ ...body, thinking: { type: "disabled" } })).toBeUndefined();
  });
});

describe("anthropicViolation", () => {
  it("accepts a well-formed conversation and names the first rule broken otherwise", () => {
    const good = { messages: [user("go"), toolUse("toolu_1"), toolResult("toolu_1")] };
    expect(anthropicViolation(good, "")).toBeUndefined();
    expect(anthropicViolation({ messages: [] }, "")?.status).toBe(400);
  });
});

describe("cache diagnostics (`diagnostics.previous_message_id`)", () => {
  const messages = [user("a")];

  it("accepts the opt-in as documented: null on the first turn, the previous answer's id after, or none", () => {
    for (const diagnostics of [
      { previous_message_id: null },
      { previous_message_id: "msg_01AbC" },
      {},
      null,
      undefined,
    ]) {
      expect(diagnosticsViolation({ messages, diagnostics })).toBeUndefined();
    }
  });

  it("refuses a malformed opt-in in Anthropic's words: not an object, an id that is not a string, an unknown field", () => {
    expect(diagnosticsViolation({ messages, diagnostics: true })?.message).toBe(
      "diagnostics: Input should be a valid dictionary or object to extract fields from",
    );
    expect(
      diagnosticsViolation({ messages, diagnostics: { previous_message_id: 42 } })?.message,
    ).toBe("diagnostics.previous_message_id: Input should be a valid string");
    expect(
      diagnosticsViolation({ messages, diagnostics: { previousMessageId: "msg_1" } })?.message,
    ).toBe("diagnostics.previousMessageId: Extra inputs are not permitted");
    const refused = anthropicViolation({ messages, diagnostics: { previous_message_id: 1 } }, "");
    expect(refused).toMatchObject({ status: 400, errorType: "invalid_request_error" });
  });
});
