import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CondenseError, InvalidMessagesError } from "../errors/condense-error.js";
import type { ChatMessage, MessageFormat } from "../messages/types.js";
import { arbMediaConversation, arbValidConversation } from "../test-support/message-arbitraries.js";
import { openaiCacheMarkers } from "./cache-markers.js";
import { fromCanonical, toCanonical, unsupportedParts } from "./convert.js";

function caught(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("toCanonical", () => {
  it("parses openai input by default", () => {
    expect(toCanonical({ messages: [{ role: "user", content: "hi", refusal: null }] })).toEqual([
      { role: "user", content: "hi" },
    ]);
  });

  it("converts anthropic input with its system", () => {
    expect(
      toCanonical({
        format: "anthropic",
        system: "sys",
        messages: [{ role: "user", content: "hi" }],
      }),
    ).toEqual([
      { role: "system", content: "sys" },
      { role: "user", content: "hi" },
    ]);
  });

  it("converts responses input", () => {
    expect(
      toCanonical({ format: "responses", messages: [{ role: "user", content: "hi" }] }),
    ).toEqual([{ role: "user", content: "hi" }]);
  });

  it("reports bad input of every format with InvalidMessagesError", () => {
    for (const format of ["openai", "anthropic", "responses"] as const) {
      const error = caught(() =>
        toCanonical({ format, messages: [{ role: "robot", content: 1 }] }),
      );
      expect(InvalidMessagesError.isInstance(error)).toBe(true);
      expect((error as InvalidMessagesError).problems[0]?.index).toBe(0);
    }
  });

  it("rejects `system` outside the anthropic format with a fix", () => {
    const error = caught(() =>
      toCanonical({ messages: [{ role: "user", content: "hi" }], system: "s" }),
    );
    expect(InvalidMessagesError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("put a system message first");
  });

  it("rejects an unknown format with unknown_format", () => {
    const error = caught(() => toCanonical({ format: "mistral" as MessageFormat, messages: [] }));
    expect(CondenseError.isInstance(error)).toBe(true);
    expect((error as CondenseError).code).toBe("unknown_format");
    expect((error as Error).message).toBe(
      "format `mistral` is not supported; use openai, anthropic, responses or gemini",
    );
  });
});

describe("fromCanonical", () => {
  const messages: ChatMessage[] = [
    { role: "system", content: "sys" },
    { role: "user", content: "hi" },
    {
      role: "assistant",
      content: "ok",
      provider_data: {
        anthropic: { thinking: [{ type: "thinking", thinking: "t", signature: "s" }] },
      },
    },
  ];

  it("places a Chat Completions request's content-part cache markers again, and none other", () => {
    const marker = { type: "ephemeral" };
    const request = [
      { role: "system", content: [{ type: "text", text: "sys", cache_control: marker }] },
      { role: "user", content: "one" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c", content: "out" },
      { role: "user", content: [{ type: "text", text: "two", cache_control: marker }] },
    ];
    const canonical = toCanonical({ messages: request });
    // Parsing leaves markers out: the canonical messages (and their hashes) never hold them.
    expect(JSON.stringify(canonical)).not.toContain("cache_control");
    expect(openaiCacheMarkers(request)).toEqual([
      { message: 0, block: 0, cacheControl: marker },
      { message: 4, block: 0, cacheControl: marker },
    ]);
    const placed = fromCanonical(canonical, "openai", {
      markers: { cacheMarkers: openaiCacheMarkers(request) },
    });
    expect(placed.messages).toEqual(request);
    // String content becomes a part to carry one; a message without content passes it back.
    const moved = fromCanonical(canonical, "openai", {
      markers: {
        cacheMarkers: [
          { message: 1, block: 0, cacheControl: marker },
          { message: 2, block: 0, cacheControl: marker },
        ],
      },
    });
    expect(moved.messages[1]).toEqual({
      role: "user",
      content: [{ type: "text", text: "one", cache_control: marker }],
    });
    expect(moved.messages[2]).toEqual(canonical[2]);
    expect(fromCanonical(canonical, "openai").messages).toEqual(canonical);
  });

  it("writes openai without provider_data", () => {
    expect(fromCanonical(messages, "openai")).toEqual({
      messages: [
        { role: "system", content: "sys" },
        { role: "user", content: "hi" },
        { role: "assistant", content: "ok" },
      ],
    });
  });

  it("writes anthropic with a top-level system, and omits system when there is none", () => {
    expect(fromCanonical(messages, "anthropic")).toEqual({
      system: "sys",
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "t", signature: "s" },
            { type: "text", text: "ok" },
          ],
        },
      ],
    });
    expect(Object.keys(fromCanonical(messages.slice(1), "anthropic"))).toEqual(["messages"]);
  });

  it("writes responses items", () => {
    expect(fromCanonical(messages.slice(0, 2), "responses")).toEqual({
      messages: [
        { role: "system", content: "sys" },
        { role: "user", content: "hi" },
      ],
    });
  });

  it("rejects an unknown format", () => {
    const error = caught(() => fromCanonical(messages, "xml" as MessageFormat));
    expect((error as CondenseError).code).toBe("unknown_format");
  });

  it("round-trips canonical conversations through every format (property)", () => {
    fc.assert(
      fc.property(
        arbValidConversation,
        fc.constantFrom<MessageFormat>("openai", "anthropic", "responses"),
        (conversation, format) => {
          fc.pre(conversation.some((message) => message.role !== "system"));
          const written = fromCanonical(conversation, format);
          const back = toCanonical({ format, ...written });
          expect(fromCanonical(back, format)).toEqual(written);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("carries images, files and audio through every format, or refuses audio where a format has none (property)", () => {
    fc.assert(
      fc.property(
        arbMediaConversation,
        fc.constantFrom<MessageFormat>("openai", "anthropic", "responses"),
        (conversation, format) => {
          fc.pre(conversation.some((message) => message.role !== "system"));
          const hasAudio = conversation.some(
            (message) =>
              Array.isArray(message.content) &&
              message.content.some((part) => part.type === "input_audio"),
          );
          if (format !== "openai" && hasAudio) {
            expect(() => fromCanonical(conversation, format)).toThrow(
              expect.objectContaining({ code: "invalid_messages" }),
            );
            return;
          }
          const written = fromCanonical(conversation, format);
          const back = toCanonical({ format, ...JSON.parse(JSON.stringify(written)) });
          expect(fromCanonical(back, format)).toEqual(written);
          const parts = (messages: readonly ChatMessage[]) =>
            messages.flatMap((message) =>
              Array.isArray(message.content)
                ? message.content.filter((part) => part.type !== "text")
                : [],
            );
          expect(parts(back)).toEqual(parts(conversation));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("unsupportedParts", () => {
  it("names the parts fromCanonical would refuse for a format, before converting anything", () => {
    const messages: ChatMessage[] = [
      { role: "user", content: "hi" },
      {
        role: "user",
        content: [
          { type: "input_audio", input_audio: { data: "SUQz", format: "mp3" } },
          { type: "file", file: { file_data: "data:application/zip;base64,UEsDBA==" } },
        ],
      },
    ];
    const where = (format: MessageFormat) =>
      unsupportedParts(messages, format).map((problem) => `${problem.index}|${problem.path}`);
    expect(where("openai")).toEqual([]);
    expect(where("anthropic")).toEqual(["1|content[0]", "1|content[1]"]);
    expect(where("responses")).toEqual(["1|content[0]"]);
    expect(() => unsupportedParts(messages, "xml" as MessageFormat)).toThrow(
      expect.objectContaining({ code: "unknown_format" }),
    );
  });
});
