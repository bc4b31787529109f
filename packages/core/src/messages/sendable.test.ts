import { arbAgentConversation } from "@condense/test-fixtures";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateMessages } from "../formats/validate.js";
import { INTERRUPTED_RESULT } from "./repair.js";
import { carriesNothing, isSendable, repairedSendable, sendableMessages } from "./sendable.js";
import type { ChatMessage } from "./types.js";

const call = (id: string, name = "ls"): ChatMessage => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name, arguments: "{}" } }],
});
const result = (id: string, content: string): ChatMessage => ({
  role: "tool",
  content,
  tool_call_id: id,
});
const user = (content: string): ChatMessage => ({ role: "user", content });
const placeholder = (id: string) => result(id, INTERRUPTED_RESULT);

/** The last assistant message's calls answered, as the client does before it sends the context. */
function answerOpenCalls(messages: readonly ChatMessage[]): ChatMessage[] {
  let last = messages.length - 1;
  while (last >= 0 && messages[last]?.role === "tool") last--;
  const answered = new Set(messages.slice(last + 1).map((message) => message.tool_call_id));
  const open = (messages[last]?.tool_calls ?? []).filter((toolCall) => !answered.has(toolCall.id));
  return [...messages, ...open.map((toolCall) => result(toolCall.id, "the result"))];
}

describe("sendableMessages", () => {
  it("answers a call a later message interrupted with a placeholder, right after the call", () => {
    const messages = [user("list files"), call("call_1"), user("never mind")];
    const sent = sendableMessages(messages);
    expect(sent.changed).toBe(true);
    expect(sent.messages).toEqual([
      user("list files"),
      call("call_1"),
      placeholder("call_1"),
      user("never mind"),
    ]);
    expect(validateMessages(sent.messages, "openai").ok).toBe(true);
    expect(validateMessages(sent.messages, "anthropic").ok).toBe(true);
  });

  it("places a late result with its call, in place of any placeholder (a compaction's too)", () => {
    const late = [user("list files"), call("call_1"), user("never mind"), result("call_1", "a b")];
    const expected = [
      user("list files"),
      call("call_1"),
      result("call_1", "a b"),
      user("never mind"),
    ];
    expect(sendableMessages(late).messages).toEqual(expected);
    const compacted = [
      user("list files"),
      call("call_1"),
      placeholder("call_1"),
      user("never mind"),
      result("call_1", "a b"),
    ];
    expect(sendableMessages(compacted).messages).toEqual(expected);
  });

  it("leaves a result out whose call is no longer there (a summary replaced it)", () => {
    const summarized = [user("summary of earlier work"), user("go on"), result("call_1", "late")];
    expect(sendableMessages(summarized).messages).toEqual([
      user("summary of earlier work"),
      user("go on"),
    ]);
  });

  it("leaves the last calls open while only their results follow, and changes nothing else", () => {
    const parallel: ChatMessage = {
      role: "assistant",
      content: "two at once",
      tool_calls: [
        { id: "a", type: "function", function: { name: "ls", arguments: "{}" } },
        { id: "b", type: "function", function: { name: "ls", arguments: "{}" } },
      ],
    };
    for (const messages of [
      [user("list files"), call("call_1")],
      [user("list files"), parallel, result("a", "one")],
      [user("hi"), { role: "assistant", content: "hello" } satisfies ChatMessage],
    ]) {
      const sent = sendableMessages(messages);
      expect(sent.changed).toBe(false);
      expect(sent.messages).toEqual(messages);
    }
    // A late result of an earlier call after them still goes to its own call.
    const late = [user("a"), call("x"), user("b"), call("y"), result("x", "late")];
    expect(sendableMessages(late).messages).toEqual([
      user("a"),
      call("x"),
      result("x", "late"),
      user("b"),
      call("y"),
    ]);
  });

  it("leaves out what carries nothing: empty turns and system or developer messages without text", () => {
    const messages: ChatMessage[] = [
      { role: "system", content: "rules" },
      { role: "developer", content: "" },
      { role: "system", content: [{ type: "text", text: " \n" }] },
      user("hi"),
      { role: "assistant", content: null },
      { role: "assistant", content: "hello" },
    ];
    expect(messages.map(carriesNothing)).toEqual([false, true, true, false, true, false]);
    expect(sendableMessages(messages).messages).toEqual([
      { role: "system", content: "rules" },
      user("hi"),
      { role: "assistant", content: "hello" },
    ]);
  });

  it("makes any session as agents append it valid for every provider once its open calls are answered, losing no result (property)", () => {
    fc.assert(
      fc.property(arbAgentConversation, (messages) => {
        const sent = sendableMessages(messages);
        const complete = answerOpenCalls(sent.messages);
        expect(validateMessages(complete, "openai").problems).toEqual([]);
        expect(validateMessages(complete, "anthropic").problems).toEqual([]);
        // Every result appended is sent, with its own call.
        for (const message of messages) {
          if (message.role === "tool") expect(sent.messages).toContain(message);
        }
        expect(sendableMessages(sent.messages).messages).toEqual(sent.messages);
      }),
      { numRuns: 300 },
    );
  });

  it("takes a history that already follows the rules as it is, and only such a one", () => {
    const calls = (...ids: string[]): ChatMessage => ({
      role: "assistant",
      content: null,
      tool_calls: ids.map((id) => ({
        id,
        type: "function",
        function: { name: "ls", arguments: "{}" },
      })),
    });
    const answered = [user("go"), calls("a", "b"), result("b", "2"), result("a", "1")];
    expect(isSendable(answered)).toBe(true);
    expect(isSendable([...answered, user("more"), call("a"), placeholder("a")])).toBe(true);
    // The last calls are open while only their results follow.
    expect(isSendable([...answered, calls("c", "d"), result("d", "4")])).toBe(true);
    expect(isSendable([...answered, calls("c", "d"), result("d", "4"), user("stop")])).toBe(false);
    expect(isSendable([user("go"), calls("a", "a"), result("a", "1"), result("a", "2")])).toBe(
      false,
    );
    expect(isSendable([...answered, result("a", "again")])).toBe(false);
    expect(isSendable([user("go"), result("a", "orphan")])).toBe(false);
    expect(isSendable([user("go"), user(" ")])).toBe(false);
    expect(isSendable([{ role: "system", content: "" }, user("go")])).toBe(false);
  });

  it("sends what the whole way sends, the same objects, for any messages (property)", () => {
    const id = fc.constantFrom("a", "b", "c");
    const text = fc.constantFrom("", " ", "text", INTERRUPTED_RESULT);
    const anyMessage: fc.Arbitrary<ChatMessage> = fc.oneof(
      text.map((content) => user(content)),
      text.map((content): ChatMessage => ({ role: "system", content })),
      text.map((content): ChatMessage => ({ role: "assistant", content })),
      fc.array(id, { minLength: 1, maxLength: 3 }).map(
        (ids): ChatMessage => ({
          role: "assistant",
          content: null,
          tool_calls: ids.map((callId) => ({
            id: callId,
            type: "function",
            function: { name: "ls", arguments: "{}" },
          })),
        }),
      ),
      fc.tuple(id, text).map(([callId, content]) => result(callId, content)),
    );
    const histories = fc.oneof(arbAgentConversation, fc.array(anyMessage, { maxLength: 12 }));
    fc.assert(
      fc.property(histories, (messages) => {
        const sent = sendableMessages(messages);
        const whole = repairedSendable(messages);
        expect(sent).toEqual(whole);
        // A message sent unchanged is the request's own object (placeholders are made anew).
        const given = new Set(messages);
        sent.messages.forEach((message, index) => {
          if (given.has(message)) expect(message).toBe(whole.messages[index]);
        });
      }),
      { numRuns: 1000 },
    );
  });
});
