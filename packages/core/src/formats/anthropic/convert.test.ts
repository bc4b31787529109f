import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidMessagesError, type MessageProblem } from "../../errors/condense-error.js";
import { parseMessages } from "../../messages/parse.js";
import { repairMessages } from "../../messages/repair.js";
import type { ChatMessage, MessageContent } from "../../messages/types.js";
import {
  arbAnthropicNormalConversation,
  arbAnthropicRequest,
  arbMessyConversation,
} from "../../test-support/message-arbitraries.js";
import { validateMessages } from "../validate.js";
import { anthropicCacheMarkers, countAnthropicCacheMarkers } from "./cache-markers.js";
import { fromAnthropic, toAnthropic } from "./convert.js";
import { LEADING_USER_TEXT } from "./plan.js";
import { turnBlocksPerMessage } from "./to-canonical.js";
import type { AnthropicMessage } from "./types.js";

function problemsOf(input: { system?: unknown; messages: unknown }): MessageProblem[] {
  try {
    fromAnthropic(input as { messages: unknown[] });
  } catch (error) {
    if (InvalidMessagesError.isInstance(error)) return error.problems;
    throw error;
  }
  throw new Error("expected fromAnthropic to throw");
}

/** `value` with every `cache_control` key removed, at any depth. */
function withoutMarkers<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value, (key, inner: unknown) => (key === "cache_control" ? undefined : inner)),
  ) as T;
}

/** A request whose markers all sit on top-level blocks that take one (not inside a block, not on empty text). */
function withMarkersOnTopBlocks<T extends { messages: unknown[] }>(request: T): T {
  const top = (block: unknown): unknown => {
    if (typeof block !== "object" || block === null) return block;
    const { cache_control: marker, ...rest } = block as Record<string, unknown>;
    const bare = withoutMarkers(rest);
    const empty = bare.type === "text" && bare.text === "";
    return marker === undefined || empty ? bare : { ...bare, cache_control: marker };
  };
  const system = (request as { system?: unknown }).system;
  return {
    ...request,
    ...(Array.isArray(system) ? { system: system.map(top) } : {}),
    messages: request.messages.map((turn) => {
      const { content } = turn as { content: unknown };
      return Array.isArray(content) ? { ...(turn as object), content: content.map(top) } : turn;
    }),
  };
}

/**
 * Documented normalization of `toAnthropic`: whitespace-only text blocks next to other blocks are
 * dropped (Anthropic rejects them), from a message's content and from `system`.
 */
function withoutBlankText(request: { system?: unknown; messages: unknown[] }): {
  system?: unknown;
  messages: unknown[];
} {
  const blank = (block: unknown) =>
    typeof block === "object" &&
    block !== null &&
    Reflect.get(block, "type") === "text" &&
    String(Reflect.get(block, "text")).trim() === "";
  const drop = (content: unknown) => {
    if (!Array.isArray(content)) return content;
    const kept = content.filter((block) => !blank(block));
    return kept.length > 0 ? kept : content;
  };
  return {
    ...request,
    ...(request.system !== undefined ? { system: drop(request.system) } : {}),
    messages: request.messages.map((message) =>
      typeof message === "object" && message !== null
        ? { ...message, content: drop(Reflect.get(message, "content")) }
        : message,
    ),
  };
}

/** Documented normalization for comparing canonical round-trips: string content ≡ one text part. */
function normalized(messages: readonly ChatMessage[]): unknown[] {
  const asParts = (content: MessageContent): MessageContent =>
    typeof content === "string" ? [{ type: "text", text: content }] : content;
  return messages.map((message) => ({
    ...message,
    content: message.role === "tool" ? message.content : asParts(message.content),
  }));
}

describe("fromAnthropic", () => {
  it("maps system, tool_use/tool_result, images and thinking", () => {
    const messages = fromAnthropic({
      system: "be brief",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "what is this?" },
            {
              type: "image",
              source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" },
            },
            { type: "image", source: { type: "url", url: "https://example.com/a.png" } },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "let me look", signature: "sig" },
            { type: "text", text: "Checking." },
            { type: "tool_use", id: "toolu_1", name: "read", input: { path: "a.txt" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: "file body", is_error: true },
            { type: "text", text: "thanks" },
          ],
        },
        { role: "assistant", content: "It is a cat." },
      ],
    });
    expect(messages).toEqual([
      { role: "system", content: "be brief" },
      {
        role: "user",
        content: [
          { type: "text", text: "what is this?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
          { type: "image_url", image_url: { url: "https://example.com/a.png" } },
        ],
      },
      {
        role: "assistant",
        content: [{ type: "text", text: "Checking." }],
        tool_calls: [
          {
            id: "toolu_1",
            type: "function",
            function: { name: "read", arguments: '{"path":"a.txt"}' },
          },
        ],
        provider_data: {
          anthropic: {
            thinking: [{ type: "thinking", thinking: "let me look", signature: "sig" }],
          },
        },
      },
      {
        role: "tool",
        content: "file body",
        tool_call_id: "toolu_1",
        provider_data: { anthropic: { is_error: true } },
      },
      { role: "user", content: [{ type: "text", text: "thanks" }] },
      { role: "assistant", content: "It is a cat." },
    ]);
    expect(validateMessages(messages, "openai").ok).toBe(true);
  });

  it("keeps blocks it cannot rebuild (order, no content) in provider_data, never a cache marker", () => {
    const input = {
      system: [{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }],
      messages: [
        {
          role: "user",
          content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral", ttl: "1h" } }],
        },
        {
          role: "assistant",
          content: [
            { type: "tool_use", id: "t1", name: "f", input: {} },
            { type: "text", text: "after the call" },
          ],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1" }] },
      ],
    };
    const messages = fromAnthropic(input);
    // Markers belong to the request: only the blocks rebuilding would not give back are kept.
    expect(messages[0]?.provider_data).toBeUndefined();
    expect(messages[1]?.provider_data).toBeUndefined();
    expect(messages[2]?.content).toEqual([{ type: "text", text: "after the call" }]);
    expect(messages[2]?.provider_data?.anthropic?.blocks).toEqual(input.messages[1]?.content);
    expect(messages[3]).toMatchObject({ role: "tool", content: "", tool_call_id: "t1" });
    const unmarked = {
      system: [{ type: "text", text: "sys" }],
      messages: [
        { role: "user", content: [{ type: "text", text: "hi" }] },
        ...input.messages.slice(1),
      ],
    };
    expect(toAnthropic(messages)).toEqual(unmarked);
    // Placed again from the request, they come back where they were.
    expect(toAnthropic(messages, { cacheMarkers: anthropicCacheMarkers(input) })).toEqual(input);
  });

  it("rebuilds a message whose content changed instead of sending stale blocks", () => {
    const messages = fromAnthropic({
      messages: [
        { role: "user", content: "go" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "plan", signature: "s" },
            { type: "tool_use", id: "t1", name: "f", input: {} },
            { type: "text", text: "old text", cache_control: { type: "ephemeral" } },
          ],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "t1",
              content: "long output",
              is_error: true,
              cache_control: { type: "ephemeral" },
            },
          ],
        },
      ],
    });
    const edited = messages.map((message) => {
      if (message.role === "assistant") return { ...message, content: "new text" };
      if (message.role === "tool") return { ...message, content: "[pruned]" };
      return message;
    });
    expect(toAnthropic(edited).messages).toEqual([
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "plan", signature: "s" },
          { type: "text", text: "new text" },
          { type: "tool_use", id: "t1", name: "f", input: {} },
        ],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "t1", content: "[pruned]", is_error: true }],
      },
    ]);
  });

  it("puts tool_result blocks first in their turn (documented normalization)", () => {
    const input = {
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "f", input: {} }] },
        {
          role: "user",
          content: [
            { type: "text", text: "note" },
            { type: "tool_result", tool_use_id: "t1", content: "r" },
          ],
        },
      ],
    };
    expect(toAnthropic(fromAnthropic(input)).messages[2]).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "t1", content: "r" },
        { type: "text", text: "note" },
      ],
    });
  });

  it("lists every shape problem", () => {
    const problems = problemsOf({
      system: 5,
      messages: [
        { role: "tool", content: "x" },
        { role: "user", content: [] },
        { role: "user", content: [{ type: "tool_use", id: "a", name: "f", input: {} }] },
        {
          role: "assistant",
          content: [
            { type: "tool_use", id: "a", name: "f", input: "{}" },
            { type: "document", source: {} },
          ],
        },
        { role: "assistant", content: [{ type: "tool_use", id: "a", name: "g", input: {} }] },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "a", content: 3, is_error: "yes" },
            { type: "image", source: { type: "file" } },
            { type: "image", source: { type: "s3" } },
          ],
        },
        "text",
      ],
    });
    expect(problems.map((problem) => `${problem.index}|${problem.path}|${problem.kind}`)).toEqual([
      "-1|system|invalid_system",
      "0|role|unknown_role",
      "1|content|empty_content",
      "2|content[0].type|unknown_block_type",
      "3|content[0].input|invalid_block",
      "3|content[1].type|unknown_block_type",
      "4|content[0].id|duplicate_tool_call_id",
      "5|content[0].content|invalid_block",
      "5|content[0].is_error|invalid_block",
      "5|content[1].source.file_id|invalid_block",
      "5|content[2].source.type|invalid_block",
      "6||not_an_object",
    ]);
    expect(problems[3]?.message).toContain("belong in assistant turns");
  });

  it("rejects a non-array and an empty list", () => {
    expect(problemsOf({ messages: "hi" }).map((problem) => problem.kind)).toEqual(["not_an_array"]);
    expect(problemsOf({ messages: [] }).map((problem) => problem.kind)).toEqual(["empty"]);
  });

  it("rejects a request that is not an object with a typed error", () => {
    for (const input of [null, undefined, "hi", 5]) {
      expect(() => fromAnthropic(input as never)).toThrow(
        expect.objectContaining({ code: "invalid_messages" }),
      );
    }
  });

  it("replaces lone surrogates", () => {
    const [message] = fromAnthropic({ messages: [{ role: "user", content: "a\uD800b" }] });
    expect(message?.content).toBe("a\uFFFDb");
  });

  it("either converts or throws InvalidMessagesError, for anything (property)", () => {
    fc.assert(
      fc.property(
        fc.anything(),
        fc.oneof(fc.anything(), fc.array(fc.anything())),
        (system, messages) => {
          try {
            fromAnthropic({ system, messages: messages as unknown[] });
          } catch (error) {
            if (!InvalidMessagesError.isInstance(error)) throw error;
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("round-trips every valid alternating request exactly but its markers: toAnthropic(fromAnthropic(x)) = x (property)", () => {
    fc.assert(
      fc.property(arbAnthropicRequest, (request) => {
        const back = toAnthropic(fromAnthropic(request));
        const normalized = withoutBlankText(withoutMarkers(request));
        // Exact but for markers, unless the request holds blank text beside other blocks, which is
        // then dropped.
        if (JSON.stringify(normalized) === JSON.stringify(withoutMarkers(request)))
          expect(back).toEqual(normalized);
        else expect(withoutBlankText(back)).toEqual(normalized);
      }),
      { numRuns: 300 },
    );
  });

  it("gives the request's markers back where they were when they are placed again (property)", () => {
    fc.assert(
      fc.property(arbAnthropicRequest, (request) => {
        // A marker inside a tool result is placed on the tool result; Anthropic takes none on
        // empty text, which only stands in the arbitrary's requests. Blank text beside other
        // blocks is dropped (documented normalization).
        const input = withMarkersOnTopBlocks(withoutBlankText(request) as typeof request);
        const placement = { cacheMarkers: anthropicCacheMarkers(input), slots: 100 };
        expect(toAnthropic(fromAnthropic(input), placement)).toEqual(input);
      }),
      { numRuns: 300 },
    );
  });
});

describe("toAnthropic tool ids", () => {
  const pattern = /^[a-zA-Z0-9_-]+$/;
  const call = (id: string) => ({
    id,
    type: "function" as const,
    function: { name: "bash", arguments: "{}" },
  });
  const asks = (ids: string[]): ChatMessage => ({
    role: "assistant",
    content: null,
    tool_calls: ids.map(call),
  });
  const answer = (id: string): ChatMessage => ({ role: "tool", content: "out", tool_call_id: id });
  const user = (text: string): ChatMessage => ({ role: "user", content: text });
  /** tool_use ids in order, and tool_result ids in order. */
  const idsOf = (messages: readonly ChatMessage[]) => {
    const uses: string[] = [];
    const results: string[] = [];
    for (const turn of toAnthropic(messages).messages) {
      if (typeof turn.content === "string") continue;
      for (const block of turn.content) {
        if (block.type === "tool_use") uses.push(String(block.id));
        if (block.type === "tool_result") results.push(String(block.tool_use_id));
      }
    }
    return { uses, results };
  };

  it("maps an id Anthropic rejects, the same way in the tool_use and its tool_result", () => {
    const messages = [user("u"), asks(["call_123|fc_456"]), answer("call_123|fc_456")];
    const { uses, results } = idsOf(messages);
    expect(uses).toHaveLength(1);
    expect(uses[0]).toMatch(pattern);
    expect(uses[0]).toMatch(/^call_123_fc_456_[0-9a-f]{8}$/);
    expect(results).toEqual(uses);
    // Deterministic: the same input gives the same id.
    expect(idsOf(messages)).toEqual({ uses, results });
    expect(validateMessages(messages, "anthropic").problems).toEqual([]);
  });

  it("keeps valid ids, and never lets mapped ids collide with each other or with kept ones", () => {
    const ids = ["a|b", "a.b", "a b", "a_b", "a/b", "é", "ü", ""];
    const messages = [user("u"), asks(ids), ...ids.map(answer)];
    const { uses, results } = idsOf(messages);
    expect(uses[3]).toBe("a_b");
    expect(new Set(uses).size).toBe(ids.length);
    for (const id of uses) expect(id).toMatch(pattern);
    expect(results).toEqual(uses);
  });

  it("renames a reused id per occurrence, consistently with its result", () => {
    const messages = [
      user("u"),
      asks(["call_0"]),
      answer("call_0"),
      user("next"),
      asks(["call_0"]),
      answer("call_0"),
      user("again"),
      asks(["call_0", "call_1"]),
      answer("call_1"),
      answer("call_0"),
    ];
    const { uses, results } = idsOf(messages);
    expect(uses[0]).toBe("call_0");
    expect(new Set(uses).size).toBe(4);
    for (const id of uses) expect(id).toMatch(pattern);
    expect(uses[3]).toBe("call_1");
    // Results answer the nearest earlier call with their id, in the order the results come.
    expect(results).toEqual([uses[0], uses[1], uses[3], uses[2]]);
    expect(validateMessages(messages, "anthropic").problems).toEqual([]);
  });

  it("rewrites ids inside blocks it keeps verbatim (a marker placed again survives)", () => {
    const input = {
      messages: [
        { role: "user", content: "u" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "t", signature: "s" },
            {
              type: "tool_use",
              id: "bad|id",
              name: "bash",
              input: {},
              cache_control: { type: "ephemeral" },
            },
          ],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "bad|id", content: "x" }] },
      ],
    };
    const canonical = fromAnthropic(input);
    const request = toAnthropic(canonical, { cacheMarkers: anthropicCacheMarkers(input) });
    const use = request.messages[1]?.content[1];
    const result = request.messages[2]?.content[0];
    expect(use).toMatchObject({ type: "tool_use", cache_control: { type: "ephemeral" } });
    const id = typeof use === "object" && use.type === "tool_use" ? String(use.id) : "";
    expect(id).toMatch(pattern);
    expect(result).toMatchObject({ type: "tool_result", tool_use_id: id });
    // The stored blocks were not modified.
    expect(JSON.stringify(canonical)).toContain("bad|id");
  });

  it("round-trips ids it did not change: fromAnthropic(toAnthropic(x)) keeps them (property)", () => {
    fc.assert(
      fc.property(arbAnthropicRequest, (request) => {
        const canonical = fromAnthropic(request);
        const ids = (messages: readonly ChatMessage[]) =>
          messages.flatMap((m) => [
            ...(m.tool_calls ?? []).map((c) => c.id),
            ...(m.tool_call_id === undefined ? [] : [m.tool_call_id]),
          ]);
        expect(ids(fromAnthropic(toAnthropic(canonical)))).toEqual(ids(canonical));
      }),
      { numRuns: 200 },
    );
  });
});

describe("toAnthropic", () => {
  it("joins system/developer messages, merges turns and prepends a user turn when needed", () => {
    const request = toAnthropic([
      { role: "system", content: "one" },
      { role: "assistant", content: "I start", name: "bot" },
      { role: "developer", content: "two" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "[1,2]" } }],
      },
      { role: "user", content: "interjection" },
      { role: "tool", content: "r", tool_call_id: "c" },
      {
        role: "user",
        content: [{ type: "image_url", image_url: { url: "https://x/y.png", detail: "high" } }],
      },
    ]);
    expect(request).toEqual({
      system: [
        { type: "text", text: "one" },
        { type: "text", text: "two" },
      ],
      messages: [
        { role: "user", content: LEADING_USER_TEXT },
        {
          role: "assistant",
          content: [
            { type: "text", text: "I start" },
            { type: "tool_use", id: "c", name: "f", input: { arguments: "[1,2]" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "c", content: "r" },
            { type: "text", text: "interjection" },
            { type: "image", source: { type: "url", url: "https://x/y.png" } },
          ],
        },
      ],
    });
  });

  it("drops whitespace-only text next to tool calls, keeps a lone blank text for validate to flag", () => {
    const request = toAnthropic([
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: "\n\n",
        tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }],
      },
      { role: "tool", content: "", tool_call_id: "c" },
      { role: "assistant", content: [{ type: "text", text: " " }] },
    ]);
    expect(request.messages[1]?.content).toEqual([
      { type: "tool_use", id: "c", name: "f", input: {} },
    ]);
    expect(request.messages[2]?.content).toEqual([
      { type: "tool_result", tool_use_id: "c", content: "" },
    ]);
    expect(request.messages[3]?.content).toEqual([{ type: "text", text: " " }]);
  });

  it("drops whitespace-only text next to other blocks from blocks it kept verbatim too", () => {
    const messages = fromAnthropic({
      system: [
        { type: "text", text: "rules", citations: [] },
        { type: "text", text: "" },
      ],
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "" },
            { type: "text", text: "hello", citations: [] },
          ],
        },
      ],
    });
    expect(validateMessages(messages, "anthropic").problems).toEqual([]);
    // Kept verbatim (their `citations` differ from what toAnthropic would rebuild), less the blank text.
    const request = toAnthropic(messages);
    expect(request.system).toEqual([{ type: "text", text: "rules", citations: [] }]);
    expect(request.messages).toEqual([
      {
        role: "user",
        content: [{ type: "text", text: "hello", citations: [] }],
      },
    ]);
  });

  it("joins system messages without whitespace-only blocks, which Anthropic rejects", () => {
    const request = toAnthropic([
      { role: "system", content: [{ type: "text", text: "" }] },
      { role: "system", content: "Be brief." },
      {
        role: "developer",
        content: [
          { type: "text", text: " " },
          { type: "text", text: "Cite." },
        ],
      },
      { role: "user", content: "hi" },
    ]);
    expect(request.system).toEqual([
      { type: "text", text: "Be brief." },
      { type: "text", text: "Cite." },
    ]);
  });

  it("does not modify the messages or their stored blocks", () => {
    const messages = fromAnthropic({
      messages: [
        {
          role: "user",
          content: [{ type: "text", text: "a", cache_control: { type: "ephemeral" } }],
        },
        {
          role: "user",
          content: [{ type: "text", text: "b", cache_control: { type: "ephemeral" } }],
        },
      ],
    });
    const snapshot = structuredClone(messages);
    const request = toAnthropic(messages);
    expect(request.messages).toHaveLength(1);
    expect(request.messages[0]?.content).toHaveLength(2);
    expect(messages).toEqual(snapshot);
  });

  it("loses nothing Anthropic can hold: canonical → anthropic → canonical (property)", () => {
    fc.assert(
      fc.property(arbAnthropicNormalConversation(true), (messages) => {
        expect(normalized(fromAnthropic(toAnthropic(messages)))).toEqual(normalized(messages));
      }),
      { numRuns: 300 },
    );
  });

  it("is stable after one trip for any repaired conversation, and valid for Anthropic (property)", () => {
    fc.assert(
      fc.property(arbMessyConversation, (messy) => {
        const messages = repairMessages(messy).messages;
        // Only system messages: Anthropic has no turn to send (validate reports no_user_turn).
        fc.pre(messages.some((message) => message.role !== "system"));
        const once = toAnthropic(messages);
        const back = fromAnthropic(once);
        expect(toAnthropic(back)).toEqual(once);
        const problems = validateMessages(back, "anthropic").problems;
        // Repaired structure is always fine; only blank text (which Anthropic rejects) may remain.
        expect(problems.filter((problem) => problem.kind !== "empty_content")).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});

describe("Anthropic documents, search results and other user blocks", () => {
  const pdfData = "JVBERi0xLjQK";

  it("maps document blocks to file parts (PDF, text, file id) and rebuilds them exactly", () => {
    const input = {
      messages: [
        {
          role: "user",
          content: [
            {
              type: "document",
              source: { type: "base64", media_type: "application/pdf", data: pdfData },
              title: "spec.pdf",
            },
            {
              type: "document",
              source: { type: "text", media_type: "text/plain", data: "héllo, wörld" },
            },
            { type: "document", source: { type: "file", file_id: "file_011abc" } },
            { type: "text", text: "Compare them." },
          ],
        },
      ],
    };
    const messages = fromAnthropic(input);
    expect(messages).toEqual([
      {
        role: "user",
        content: [
          {
            type: "file",
            file: { file_data: `data:application/pdf;base64,${pdfData}`, filename: "spec.pdf" },
          },
          {
            type: "file",
            file: { file_data: `data:text/plain;base64,${btoa("h\xc3\xa9llo, w\xc3\xb6rld")}` },
          },
          { type: "file", file: { file_id: "file_011abc" } },
          { type: "text", text: "Compare them." },
        ],
      },
    ]);
    expect(toAnthropic(messages)).toEqual(input);
    expect(validateMessages(messages, "anthropic").problems).toEqual([]);
  });

  it("carries what has no canonical equivalent in provider_data, and a text part naming it", () => {
    const search = {
      type: "search_result",
      source: "https://docs.example.com/widgets",
      title: "Widgets",
      content: [
        { type: "text", text: "Widgets render twice when the cache is cold." },
        { type: "text", text: "See ticket TICKET-1001." },
      ],
      citations: { enabled: true },
    };
    const input = {
      messages: [
        {
          role: "user",
          content: [
            {
              type: "document",
              source: { type: "url", url: "https://example.com/report.pdf" },
              title: "Report",
              context: "Q3 figures",
              citations: { enabled: true },
              cache_control: { type: "ephemeral" },
            },
            search,
            { type: "container_upload", file_id: "file_xyz" },
            { type: "image", source: { type: "file", file_id: "file_img" } },
            {
              type: "document",
              source: {
                type: "content",
                content: [
                  { type: "text", text: "chunk one" },
                  { type: "image", source: { type: "url", url: "https://example.com/c.png" } },
                ],
              },
            },
          ],
        },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "toolu_1", name: "search", input: { q: "x" } }],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_1",
              content: [search, { type: "tool_reference", tool_name: "read_file" }],
            },
          ],
        },
      ],
    };
    const messages = fromAnthropic(input);
    expect(messages[0]?.content).toEqual([
      { type: "text", text: '[document "Report": https://example.com/report.pdf]' },
      {
        type: "text",
        text: "[search result: Widgets (https://docs.example.com/widgets)]\nWidgets render twice when the cache is cold.\nSee ticket TICKET-1001.",
      },
      { type: "text", text: "[container upload: file file_xyz]" },
      { type: "text", text: "[image: file file_img]" },
      { type: "text", text: "chunk one" },
      { type: "image_url", image_url: { url: "https://example.com/c.png" } },
    ]);
    expect(messages[0]?.provider_data?.anthropic?.blocks).toEqual(
      withoutMarkers(input).messages[0]?.content,
    );
    expect(messages[2]).toMatchObject({
      role: "tool",
      tool_call_id: "toolu_1",
      content: [
        { type: "text", text: expect.stringContaining("[search result: Widgets") },
        { type: "text", text: "[tool reference: read_file]" },
      ],
    });
    expect(toAnthropic(messages)).toEqual(withoutMarkers(input));
    expect(validateMessages(messages, "openai").ok).toBe(true);
  });

  it("rebuilds a changed message's blocks from its canonical parts", () => {
    const [message] = fromAnthropic({
      messages: [
        {
          role: "user",
          content: [
            {
              type: "search_result",
              source: "s",
              title: "t",
              content: [{ type: "text", text: "x" }],
            },
          ],
        },
      ],
    });
    if (message === undefined) throw new Error("no message");
    const edited = { ...message, content: "[pruned]" };
    expect(toAnthropic([edited]).messages).toEqual([{ role: "user", content: "[pruned]" }]);
  });

  it("names what is wrong with a document or search result", () => {
    const problems = problemsOf({
      messages: [
        {
          role: "user",
          content: [
            { type: "document" },
            { type: "document", source: { type: "base64", data: "x" } },
            { type: "document", source: { type: "zip" }, title: 5 },
            { type: "search_result", source: "s", title: "t", content: [] },
            { type: "search_result", source: 1, title: "t", content: [{ type: "image" }] },
            { type: "container_upload" },
            { type: "tool_reference", tool_name: "x" },
          ],
        },
      ],
    });
    expect(problems.map((problem) => `${problem.path}|${problem.kind}`)).toEqual([
      "content[0].source|invalid_block",
      "content[1].source.media_type|invalid_block",
      "content[2].source.type|invalid_block",
      "content[2].title|invalid_block",
      "content[3].content|invalid_block",
      "content[4].source|invalid_block",
      "content[4].content[0].type|invalid_block",
      "content[5].file_id|invalid_block",
      "content[6].type|unknown_block_type",
    ]);
    expect(problems[2]?.message).toContain('"base64", "text", "url", "file" or "content"');
    expect(problems[8]?.message).toContain("inside a tool_result");
  });
});

describe("Anthropic turns and blocks the engine cannot rebuild", () => {
  it("keeps a system turn in `messages` where it stood (Claude Code sends them mid-conversation)", () => {
    const input = {
      system: [{ type: "text", text: "You are Claude Code." }],
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: "Hello." },
        { role: "system", content: "The user switched to plan mode." },
        { role: "user", content: [{ type: "text", text: "plan it" }] },
        { role: "system", content: [{ type: "text", text: "<reminder>" }] },
      ],
    };
    const messages = fromAnthropic(input);
    expect(messages[3]).toEqual({
      role: "system",
      content: "The user switched to plan mode.",
      provider_data: { anthropic: { in_messages: true } },
    });
    expect(toAnthropic(messages)).toEqual(input);
    expect(validateMessages(messages, "anthropic").problems).toEqual([]);
    // A system message of another format still joins the top-level system.
    expect(
      toAnthropic([
        { role: "user", content: "a" },
        { role: "system", content: "b" },
      ]),
    ).toEqual({
      system: "b",
      messages: [{ role: "user", content: "a" }],
    });
  });

  it("keeps server-tool blocks and blocks of unknown types verbatim, a text part saying what they hold", () => {
    const use = {
      type: "server_tool_use",
      id: "srvtoolu_1",
      name: "web_search",
      input: { query: "vitest pool workers" },
    };
    const found = {
      type: "web_search_tool_result",
      tool_use_id: "srvtoolu_1",
      content: [
        {
          type: "web_search_result",
          url: "https://vitest.dev",
          title: "Vitest",
          encrypted_content: "EqkC",
          page_age: null,
        },
      ],
    };
    const input = {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "search" },
            { type: "future_block", payload: { a: 1 }, cache_control: { type: "ephemeral" } },
          ],
        },
        { role: "assistant", content: [use, found, { type: "text", text: "Vitest it is." }] },
        { role: "user", content: "read a" },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "toolu_1", name: "read", input: { path: "a" } }],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_1",
              content: [{ type: "future_result_part", data: "x" }],
            },
          ],
        },
      ],
    };
    const messages = fromAnthropic(input);
    expect(messages[0]?.content).toEqual([
      { type: "text", text: "search" },
      { type: "text", text: '[future_block] {"payload":{"a":1}}' },
    ]);
    expect(messages[1]).toMatchObject({
      role: "assistant",
      content: [
        {
          type: "text",
          text: '[server_tool_use] {"id":"srvtoolu_1","input":{"query":"vitest pool workers"},"name":"web_search"}',
        },
        {
          type: "text",
          text: '[web_search_tool_result] {"content":[{"encrypted_content":"EqkC","title":"Vitest","type":"web_search_result","url":"https://vitest.dev"}],"tool_use_id":"srvtoolu_1"}',
        },
        { type: "text", text: "Vitest it is." },
      ],
    });
    expect(messages[4]).toMatchObject({
      role: "tool",
      content: [{ type: "text", text: '[future_result_part] {"data":"x"}' }],
    });
    expect(toAnthropic(messages)).toEqual(withoutMarkers(input));
    expect(validateMessages(messages, "anthropic").problems).toEqual([]);
    // Changed, a message is rebuilt from its text parts: still a request Anthropic takes.
    const edited = { ...(messages[1] as ChatMessage), content: "edited" };
    expect(toAnthropic([messages[0] as ChatMessage, edited]).messages[1]).toEqual({
      role: "assistant",
      content: "edited",
    });
  });

  it("writes a custom tool call as a tool_use its result answers", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: "patch" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_p", type: "custom", custom: { name: "apply_patch", input: "*** Begin" } },
        ],
      },
      { role: "tool", tool_call_id: "call_p", content: "Done" },
    ];
    expect(toAnthropic(messages).messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "call_p", name: "apply_patch", input: { input: "*** Begin" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "call_p", content: "Done" }] },
    ]);
    expect(validateMessages(messages, "anthropic").problems).toEqual([]);
  });

  it("still refuses what Anthropic refuses: a known block in the wrong turn, a system turn of images", () => {
    expect(
      problemsOf({
        messages: [
          { role: "user", content: [{ type: "tool_use", id: "a", name: "f", input: {} }] },
          { role: "system", content: [{ type: "image", source: { type: "url", url: "u" } }] },
        ],
      }).map((problem) => `${problem.index}|${problem.path}|${problem.kind}`),
    ).toEqual(["0|content[0].type|unknown_block_type", "1|content[0]|invalid_system"]);
  });

  it("keeps a block type it does not know only when it is shaped like a type name", () => {
    const problems = problemsOf({
      messages: [
        { role: "user", content: [{ type: "😀".repeat(2_000) }] },
        {
          role: "assistant",
          content: [{ type: "Web Search" }, { type: "tool_use", id: "t1", name: "f", input: {} }],
        },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "x-y" }] }],
        },
      ],
    });
    expect(problems.map((problem) => `${problem.index}|${problem.path}|${problem.kind}`)).toEqual([
      "0|content[0].type|invalid_block_type",
      "1|content[0].type|invalid_block_type",
      "2|content[0].content[0].type|invalid_block_type",
    ]);
    expect(problems[0]?.message.length).toBeLessThan(400);
  });
});

/** What `fromAnthropic` made of `request` before markers were left out: every original block kept. */
function storedWithMarkers(request: { system?: unknown; messages: unknown[] }): ChatMessage[] {
  const originals: unknown[][] = [];
  if (Array.isArray(request.system)) originals.push(request.system);
  else if (request.system !== undefined) originals.push([request.system]);
  for (const turn of request.messages) {
    for (const { content } of turnBlocksPerMessage(turn as AnthropicMessage))
      originals.push(typeof content === "string" ? [content] : content);
  }
  return fromAnthropic(request).map((message, index) => ({
    ...message,
    provider_data: {
      anthropic: { ...message.provider_data?.anthropic, blocks: originals[index] ?? [] },
    },
  }));
}

describe("cache markers", () => {
  const marker = { type: "ephemeral" } as const;
  const conversation: ChatMessage[] = [
    { role: "system", content: [{ type: "text", text: "sys" }] },
    { role: "user", content: "one" },
    {
      role: "assistant",
      content: "two",
      provider_data: {
        anthropic: {
          thinking: [{ type: "thinking", thinking: "t", signature: "s" }],
          // A block stored with a marker before markers were left out: stale, never sent.
          blocks: [
            { type: "thinking", thinking: "t", signature: "s" },
            { type: "text", text: "two", cache_control: marker },
          ],
        },
      },
    },
    { role: "user", content: [{ type: "text", text: "three" }] },
  ];

  it("sends no marker but those placed for the request", () => {
    expect(countAnthropicCacheMarkers(toAnthropic(conversation))).toBe(0);
  });

  it("places each marker on its message's block, the nearest that takes one, once per block", () => {
    const request = toAnthropic(conversation, {
      cacheMarkers: [
        { message: 3, block: 5, cacheControl: marker },
        { message: 2, block: 0, cacheControl: { type: "ephemeral", ttl: "1h" } },
        { message: 2, block: 1, cacheControl: marker },
        { message: 0, block: 0, cacheControl: marker },
        { message: 9, block: 0, cacheControl: marker },
      ],
    });
    expect(request.system).toEqual([{ type: "text", text: "sys", cache_control: marker }]);
    // Thinking takes none: the marker moves to the text; a second marker on that block is dropped.
    expect(request.messages[1]?.content).toEqual([
      { type: "thinking", thinking: "t", signature: "s" },
      { type: "text", text: "two", cache_control: { type: "ephemeral", ttl: "1h" } },
    ]);
    expect(request.messages[2]?.content).toEqual([
      { type: "text", text: "three", cache_control: marker },
    ]);
    // String content becomes a block to carry one.
    expect(
      toAnthropic(conversation, { cacheMarkers: [{ message: 1, block: 0, cacheControl: marker }] })
        .messages[0],
    ).toEqual({ role: "user", content: [{ type: "text", text: "one", cache_control: marker }] });
    // Never more than the slots, the first ones first.
    const capped = toAnthropic(conversation, {
      cacheMarkers: [
        { message: 3, block: 0, cacheControl: marker },
        { message: 1, block: 0, cacheControl: marker },
        { message: 0, block: 0, cacheControl: marker },
      ],
      slots: 2,
    });
    expect(countAnthropicCacheMarkers(capped)).toBe(2);
    expect(capped.system).toEqual([{ type: "text", text: "sys" }]);
    // The stored messages were not modified.
    expect(JSON.stringify(conversation)).not.toContain("1h");
  });

  it("never sends more than 4 marked blocks, whatever was stored and asked for (property)", () => {
    const arbMarker = fc.record({
      message: fc.nat({ max: 30 }),
      block: fc.nat({ max: 6 }),
      cacheControl: fc.constantFrom({ type: "ephemeral" }, { type: "ephemeral", ttl: "1h" }),
    });
    fc.assert(
      fc.property(
        arbAnthropicRequest,
        fc.array(arbMarker, { maxLength: 12 }),
        fc.nat({ max: 4 }),
        (request, markers, reserved) => {
          // Stored as the gateway stored them before markers were left out: their blocks, markers and all.
          const stale = storedWithMarkers(request);
          const placed = toAnthropic(stale, {
            cacheMarkers: markers,
            slots: 4 - reserved,
          });
          expect(countAnthropicCacheMarkers(placed)).toBeLessThanOrEqual(4 - reserved);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("toAnthropic: file and audio parts", () => {
  const user = (content: ChatMessage["content"]): ChatMessage => ({ role: "user", content });

  it("writes file parts as document (or image) blocks, their filename as the title", () => {
    const text = "line 1\nline 2 — ünïcode";
    const bytes = new TextEncoder().encode(text);
    const base64Text = btoa(String.fromCharCode(...bytes));
    const request = toAnthropic([
      user([
        {
          type: "file",
          file: { file_data: "data:application/pdf;base64,JVBERi0x", filename: "a.pdf" },
        },
        { type: "file", file: { file_data: "JVBERi0y" } },
        { type: "file", file: { file_data: `data:text/markdown;base64,${base64Text}` } },
        { type: "file", file: { file_data: "data:image/png;base64,iVBORw0K" } },
        { type: "file", file: { file_id: "file-9", filename: "notes.txt" } },
      ]),
    ]);
    expect(request.messages[0]?.content).toEqual([
      {
        type: "document",
        source: { type: "base64", media_type: "application/pdf", data: "JVBERi0x" },
        title: "a.pdf",
      },
      {
        type: "document",
        source: { type: "base64", media_type: "application/pdf", data: "JVBERi0y" },
      },
      { type: "document", source: { type: "text", media_type: "text/plain", data: text } },
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0K" } },
      { type: "document", source: { type: "file", file_id: "file-9" }, title: "notes.txt" },
    ]);
  });

  it("refuses audio and files Anthropic cannot hold, naming each, instead of dropping them", () => {
    const messages: ChatMessage[] = [
      user("hi"),
      { role: "assistant", content: "ok" },
      user([
        { type: "text", text: "listen" },
        { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
        { type: "file", file: { file_data: "data:application/zip;base64,UEsDBA==" } },
      ]),
    ];
    let caught: unknown;
    try {
      toAnthropic(messages);
    } catch (error) {
      caught = error;
    }
    expect(InvalidMessagesError.isInstance(caught)).toBe(true);
    const problems = (caught as InvalidMessagesError).problems;
    expect(problems.map((problem) => `${problem.index}|${problem.path}|${problem.kind}`)).toEqual([
      "2|content[1]|unsupported_part",
      "2|content[2]|unsupported_part",
    ]);
    expect(problems[0]?.message).toContain("audio");
    expect(problems[1]?.message).toContain("application/zip");
    expect(validateMessages(messages, "anthropic").problems).toEqual(problems);
  });
});

describe("a system turn of per-turn control", () => {
  it("keeps Claude Code's output_config and its empty content through a round trip and a stored copy", () => {
    const input = {
      messages: [
        { role: "user", content: "go" },
        { role: "system", content: [], output_config: { effort: "medium" } },
        { role: "assistant", content: "ok" },
        { role: "user", content: "on" },
      ],
    };
    const messages = fromAnthropic(input);
    expect(messages[1]?.content).toBe("");
    // What a stored message is read back with (a compaction reads the session's so).
    expect(parseMessages(JSON.parse(JSON.stringify(messages)))).toEqual(messages);
    expect(toAnthropic(messages).messages).toEqual(input.messages);
  });
});
