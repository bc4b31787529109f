import fc from "fast-check";
import { Tiktoken } from "js-tiktoken/lite";
import cl100kBase from "js-tiktoken/ranks/cl100k_base";
import o200kBase from "js-tiktoken/ranks/o200k_base";
import { beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage } from "../messages/types.js";
import { countMessageTokens, countTokens, messageTokens } from "./count.js";
import { encoderStats } from "./encoder.js";

let o200k: Tiktoken;
let cl100k: Tiktoken;
beforeAll(() => {
  o200k = new Tiktoken(o200kBase);
  cl100k = new Tiktoken(cl100kBase);
});

const exact = (text: string, encoder: Tiktoken = o200k): number =>
  encoder.encode(text, [], []).length;

/** How many texts the tokenizer encodes while `run` executes. */
function encodes(run: () => void): number {
  const before = encoderStats().textsEncoded;
  run();
  return encoderStats().textsEncoded - before;
}

let unique = 0;
/** A message whose content no other test uses, so caches start cold for it. */
function fresh(role: ChatMessage["role"] = "user", text = "some content"): ChatMessage {
  unique++;
  return { role, content: `${text} #${unique}-${Math.random()}` };
}

describe("countTokens", () => {
  it("is the exact count for OpenAI models", () => {
    const text = "Compaction keeps long-running agents inside their context window.";
    expect(countTokens(text, "gpt-4o")).toBe(exact(text));
    expect(countTokens(text, "openai/gpt-5")).toBe(exact(text));
    expect(countTokens(text, "gpt-4")).toBe(exact(text, cl100k));
  });

  it("pads estimated families by their safety margin, rounding up", () => {
    const text = "Compaction keeps long-running agents inside their context window.";
    const base = exact(text);
    expect(countTokens(text, "claude-sonnet-4-5")).toBe(Math.ceil(base * 1.15));
    expect(countTokens(text, "gemini-2.5-pro")).toBe(Math.ceil(base * 1.1));
    expect(countTokens(text, "deepseek-chat")).toBe(Math.ceil(base * 1.1));
    expect(countTokens(text, "some-unknown-model")).toBe(Math.ceil(base * 1.2));
  });

  it("is 0 for empty text under every model", () => {
    for (const model of ["gpt-4o", "gpt-4", "claude-opus-4-1", "unknown"]) {
      expect(countTokens("", model)).toBe(0);
    }
  });
});

describe("messageTokens", () => {
  it("adds 3 framing tokens and the role to the content", () => {
    const message: ChatMessage = { role: "user", content: "Hello there, how are you?" };
    expect(messageTokens(message, "gpt-4o")).toBe(
      3 + exact("user") + exact(message.content as string),
    );
  });

  it("adds the name and 1 token when a name is set", () => {
    const plain: ChatMessage = { role: "user", content: "Hi" };
    const named: ChatMessage = { role: "user", content: "Hi", name: "alice_smith" };
    expect(messageTokens(named, "gpt-4o") - messageTokens(plain, "gpt-4o")).toBe(
      1 + exact("alice_smith"),
    );
    // An empty name is still a name field.
    expect(messageTokens({ ...plain, name: "" }, "gpt-4o")).toBe(
      messageTokens(plain, "gpt-4o") + 1,
    );
  });

  it("counts null content as nothing", () => {
    expect(messageTokens({ role: "assistant", content: null }, "gpt-4o")).toBe(
      3 + exact("assistant"),
    );
  });

  it("adds name, arguments and 3 tokens per tool call", () => {
    const args = JSON.stringify({ command: "ls -la /tmp", timeout: 30 });
    const message: ChatMessage = {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "bash", arguments: args } },
        { id: "call_2", type: "function", function: { name: "read_file", arguments: "{}" } },
      ],
    };
    expect(messageTokens(message, "gpt-4o")).toBe(
      3 +
        exact("assistant") +
        (3 + exact("bash") + exact(args)) +
        (3 + exact("read_file") + exact("{}")),
    );
  });

  it("counts text parts as text and images by their estimate", () => {
    const message: ChatMessage = {
      role: "user",
      content: [
        { type: "text", text: "What is in this picture?" },
        { type: "image_url", image_url: { url: "https://example.com/a.png", detail: "low" } },
        { type: "image_url", image_url: { url: "https://example.com/b.png" } },
      ],
    };
    expect(messageTokens(message, "gpt-4o")).toBe(
      3 + exact("user") + exact("What is in this picture?") + 85 + 765,
    );
  });

  it("counts file parts by their pages and audio parts by their duration", () => {
    const pdf = `data:application/pdf;base64,${btoa("%PDF-1.7\n<< /Type /Page >>\n<< /Type /Page >>")}`;
    const wav = btoa(
      `RIFF\0\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0\0\0\0\0\x10\x27\0\0\x02\0\x10\0data\x20\x4e\0\0${"\0".repeat(20_000)}`,
    );
    const message: ChatMessage = {
      role: "user",
      content: [
        { type: "text", text: "Read this." },
        { type: "file", file: { file_data: pdf, filename: "spec.pdf" } },
        { type: "input_audio", input_audio: { data: wav, format: "wav" } },
      ],
    };
    // Two pages of 3,000 tokens, the filename, and 2 s of audio (10,000 bytes per second) at 10 tokens a second.
    expect(messageTokens(message, "gpt-4o")).toBe(
      3 + exact("user") + exact("Read this.") + 6_000 + exact("spec.pdf") + 20,
    );
  });

  it("tells apart files that differ only past their first 64 KiB", () => {
    const filler = "%".repeat(70_000);
    const pdf = (pages: number) => ({
      role: "user" as const,
      content: [
        {
          type: "file" as const,
          file: {
            file_data: `data:application/pdf;base64,${btoa(`%PDF-1.7\n${filler}${"<< /Type /Page >>".repeat(pages)}`)}`,
          },
        },
      ],
    });
    expect(messageTokens(pdf(2), "gpt-4o")).toBe(3 + exact("user") + 6_000);
    expect(messageTokens(pdf(3), "gpt-4o")).toBe(3 + exact("user") + 9_000);
  });

  it("does not count provider data or tool call ids", () => {
    const base: ChatMessage = { role: "tool", content: "ok", tool_call_id: "call_1" };
    const withData: ChatMessage = {
      role: "tool",
      content: "ok",
      tool_call_id: "call_9999999999999999",
      provider_data: {
        anthropic: { thinking: [{ type: "thinking", thinking: "x".repeat(5000) }] },
      },
    };
    expect(messageTokens(withData, "gpt-4o")).toBe(messageTokens(base, "gpt-4o"));
  });

  it("pads the whole message for estimated families", () => {
    const message: ChatMessage = { role: "user", content: "Please summarise the build log." };
    const raw = messageTokens(message, "gpt-4o");
    expect(messageTokens(message, "claude-3-7-sonnet")).toBe(Math.ceil(raw * 1.15));
  });

  it("counts hostile content exactly and without splitting", () => {
    // Mixed-case base64 splits into short pieces, so the js-tiktoken reference stays affordable.
    const blob = `${btoa(Array.from({ length: 60_000 }, (_, i) => String.fromCharCode((i * 7919) % 256)).join(""))}==`;
    const message: ChatMessage = { role: "tool", content: blob, tool_call_id: "t" };
    expect(messageTokens(message, "gpt-4o")).toBe(3 + exact("tool") + exact(blob));
  });
});

describe("countMessageTokens", () => {
  it("is the sum of messageTokens plus 3 for reply priming", () => {
    const messages: ChatMessage[] = [
      { role: "system", content: "You are terse." },
      { role: "user", content: "List three colours." },
      { role: "assistant", content: "Red, green, blue." },
    ];
    const sum = messages.reduce((total, m) => total + messageTokens(m, "gpt-4o"), 0);
    expect(countMessageTokens(messages, "gpt-4o")).toBe(sum + 3);
  });

  it("matches OpenAI's cookbook count for plain messages", () => {
    // The cookbook: 3 per message + tokens of every value + 1 per name, + 3 for the reply.
    const messages: ChatMessage[] = [
      { role: "system", content: "You are a helpful, pattern-following assistant." },
      {
        role: "user",
        name: "example_user",
        content: "New synergies will help drive top-line growth.",
      },
      { role: "assistant", content: "Things working well together will increase revenue." },
    ];
    let expected = 3;
    for (const m of messages) {
      expected += 3 + exact(m.role) + exact(m.content as string);
      if (m.name !== undefined) expected += 1 + exact(m.name);
    }
    expect(countMessageTokens(messages, "gpt-4o-mini")).toBe(expected);
    let expected35 = 3;
    for (const m of messages) {
      expected35 += 3 + exact(m.role, cl100k) + exact(m.content as string, cl100k);
      if (m.name !== undefined) expected35 += 1 + exact(m.name, cl100k);
    }
    expect(countMessageTokens(messages, "gpt-3.5-turbo")).toBe(expected35);
  });

  it("is 0 for no messages", () => {
    expect(countMessageTokens([], "gpt-4o")).toBe(0);
  });

  it("keeps sum + 3 for any list and model (property)", () => {
    const message = fc.record({
      role: fc.constantFrom("system", "user", "assistant", "tool", "developer"),
      content: fc.oneof(fc.string({ maxLength: 80 }), fc.constant(null)),
    }) as fc.Arbitrary<ChatMessage>;
    const model = fc.constantFrom("gpt-4o", "gpt-4", "claude-sonnet-4", "gemini-2.5-flash", "x");
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 8 }), model, (messages, m) => {
        const sum = messages.reduce((total, msg) => total + messageTokens(msg, m), 0);
        expect(countMessageTokens(messages, m)).toBe(sum + 3);
      }),
      { numRuns: 200 },
    );
  });
});

describe("caching", () => {
  it("tokenizes a message counted twice only once", () => {
    const message = fresh();
    expect(encodes(() => messageTokens(message, "gpt-4o"))).toBeGreaterThan(0);
    expect(encodes(() => messageTokens(message, "gpt-4o"))).toBe(0);
    expect(encodes(() => countMessageTokens([message, message], "gpt-4o"))).toBe(0);
  });

  it("does not re-tokenize an equal message that arrives as a new object", () => {
    const message: ChatMessage = {
      ...fresh("assistant"),
      tool_calls: [
        { id: "c1", type: "function", function: { name: "grep", arguments: '{"q":"x"}' } },
      ],
    };
    const first = messageTokens(message, "gpt-4o");
    const reparsed = JSON.parse(JSON.stringify(message)) as ChatMessage;
    let second = 0;
    expect(encodes(() => (second = messageTokens(reparsed, "gpt-4o")))).toBe(0);
    expect(second).toBe(first);
  });

  it("shares counts between models with the same encoding, margins included", () => {
    const message = fresh();
    const exactCount = messageTokens(message, "gpt-4o");
    let padded = 0;
    expect(encodes(() => messageTokens(message, "o3-mini"))).toBe(0);
    expect(encodes(() => (padded = messageTokens(message, "claude-opus-4")))).toBe(0);
    expect(padded).toBe(Math.ceil(exactCount * 1.15));
  });

  it("tokenizes again for another encoding", () => {
    const message = fresh();
    messageTokens(message, "gpt-4o");
    expect(encodes(() => messageTokens(message, "gpt-4"))).toBeGreaterThan(0);
    expect(encodes(() => messageTokens(message, "gpt-3.5-turbo"))).toBe(0);
  });

  it("never conflates messages that differ only in where one field ends", () => {
    const a: ChatMessage = {
      role: "assistant",
      content: `split ${Math.random()}`,
      tool_calls: [{ id: "1", type: "function", function: { name: "ab", arguments: "c" } }],
    };
    const b: ChatMessage = {
      ...a,
      tool_calls: [{ id: "1", type: "function", function: { name: "a", arguments: "bc" } }],
    };
    messageTokens(a, "gpt-4o");
    expect(encodes(() => messageTokens(b, "gpt-4o"))).toBeGreaterThan(0);
    const named: ChatMessage = { role: "user", content: `x${a.content}`, name: "y" };
    const unnamed: ChatMessage = { role: "user", content: `x${a.content}` };
    messageTokens(named, "gpt-4o");
    expect(encodes(() => messageTokens(unnamed, "gpt-4o"))).toBeGreaterThan(0);
  });

  it("re-tokenizes a changed message", () => {
    const message = fresh();
    messageTokens(message, "gpt-4o");
    const changed: ChatMessage = { ...message, content: `${message.content as string}!` };
    expect(encodes(() => messageTokens(changed, "gpt-4o"))).toBeGreaterThan(0);
  });

  it("keeps the content cache bounded, evicting the least recently used", () => {
    const old = fresh();
    const kept = fresh();
    messageTokens(old, "gpt-4o");
    messageTokens(kept, "gpt-4o");
    for (let i = 0; i < 5000; i++) {
      messageTokens(fresh("user", "filler"), "gpt-4o");
      if (i % 1000 === 0) messageTokens({ ...kept }, "gpt-4o"); // a copy: touches the LRU entry
    }
    messageTokens({ ...kept }, "gpt-4o");
    expect(encodes(() => messageTokens({ ...kept }, "gpt-4o"))).toBe(0);
    expect(encodes(() => messageTokens({ ...old }, "gpt-4o"))).toBeGreaterThan(0);
    // The identity cache still holds the original object.
    expect(encodes(() => messageTokens(old, "gpt-4o"))).toBe(0);
  });
});
