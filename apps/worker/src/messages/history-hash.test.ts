import { type ChatMessage, parseMessages, toCanonical } from "@condense/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalContent, messageHashes, messageHashesSync } from "./history-hash";

const canonical = (message: Record<string, unknown>): ChatMessage => {
  const [parsed] = parseMessages([message]);
  if (parsed === undefined) throw new Error("no message");
  return parsed;
};

const call = (args: string) => ({
  id: "call_1",
  type: "function",
  function: { name: "read_file", arguments: args },
});

describe("canonicalContent", () => {
  it("tells files apart by their content and name, whatever their keys' order", () => {
    const pdf = (data: string, filename = "a.pdf") =>
      canonical({
        role: "user",
        content: [
          { type: "text", text: "read this" },
          { type: "file", file: { filename, file_data: `data:application/pdf;base64,${data}` } },
        ],
      });
    expect(canonicalContent(pdf("JVBERi0x"))).not.toBe(canonicalContent(pdf("JVBERi0y")));
    expect(canonicalContent(pdf("JVBERi0x"))).not.toBe(canonicalContent(pdf("JVBERi0x", "b.pdf")));
    const reordered = canonical({
      role: "user",
      content: [
        { type: "text", text: "read this" },
        {
          file: { file_data: "data:application/pdf;base64,JVBERi0x", filename: "a.pdf" },
          type: "file",
        },
      ],
    });
    expect(canonicalContent(reordered)).toBe(canonicalContent(pdf("JVBERi0x")));
  });

  it("hashes a message in memory as its stored JSON copy: a field holding undefined is absent", () => {
    // Built in code (a converter may leave an optional field undefined), then stored as JSON and read back.
    const inMemory: ChatMessage = {
      role: "user",
      content: [
        {
          type: "file",
          file: { file_data: "data:application/pdf;base64,JVBERi0x", filename: undefined },
        },
      ],
    };
    const stored = JSON.parse(JSON.stringify(inMemory)) as ChatMessage;
    expect(canonicalContent(inMemory)).toBe(canonicalContent(stored));
  });

  it("equals for what SDKs re-serialize differently", () => {
    const pairs: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      // content: null vs absent vs "", refusal and annotations of the SDK's message object
      [
        { role: "assistant", content: null, tool_calls: [call('{"path":"a.ts"}')] },
        {
          role: "assistant",
          tool_calls: [call('{"path":"a.ts"}')],
          refusal: null,
          annotations: [],
        },
      ],
      [
        { role: "assistant", content: "", tool_calls: [call('{"path":"a.ts"}')] },
        { role: "assistant", content: null, tool_calls: [call('{"path":"a.ts"}')] },
      ],
      // a string and a single text part
      [
        { role: "user", content: "hello" },
        { role: "user", content: [{ type: "text", text: "hello" }] },
      ],
      // arguments as parsed JSON: key order and spacing do not matter
      [
        { role: "assistant", content: null, tool_calls: [call('{"a":1,"b":[1,2]}')] },
        { role: "assistant", content: null, tool_calls: [call('{ "b": [1, 2], "a": 1 }')] },
      ],
      // key order of the message itself
      [
        { role: "tool", tool_call_id: "call_1", content: "ok" },
        { content: "ok", tool_call_id: "call_1", role: "tool" },
      ],
    ];
    for (const [a, b] of pairs) {
      expect(canonicalContent(canonical(a)), JSON.stringify(a)).toBe(
        canonicalContent(canonical(b)),
      );
    }
  });

  it("reads a prompt without Claude Code's billing header, whose build hash each process changes", () => {
    const prompt = (build: string) =>
      toCanonical({
        format: "anthropic",
        messages: [{ role: "user", content: "go" }],
        system: [
          {
            type: "text",
            text: `x-anthropic-billing-header: cc_version=2.1.332.${build}; cc_entrypoint=sdk-cli;`,
          },
          { type: "text", text: "You are Claude Code." },
        ],
      })[0];
    const [first, second] = [prompt("ab8"), prompt("cf6")];
    if (first === undefined || second === undefined) throw new Error("no prompt");
    expect(canonicalContent(first)).toBe(canonicalContent(second));
    expect(canonicalContent(first)).toContain("You are Claude Code.");
    // Only a prompt's: the same line in a user's message is what the user said.
    const user = (build: string) =>
      canonical({ role: "user", content: `x-anthropic-billing-header: cc_version=${build};` });
    expect(canonicalContent(user("ab8"))).not.toBe(canonicalContent(user("cf6")));
  });

  it("differs for what the messages say differently", () => {
    const base = { role: "assistant", content: "Reading.", tool_calls: [call('{"path":"a.ts"}')] };
    const variants: Record<string, unknown>[] = [
      { ...base, role: "user", tool_calls: undefined },
      { ...base, content: "Reading!" },
      { ...base, tool_calls: [call('{"path":"b.ts"}')] },
      { ...base, tool_calls: [{ ...call('{"path":"a.ts"}'), id: "call_2" }] },
      {
        ...base,
        tool_calls: [
          {
            ...call('{"path":"a.ts"}'),
            function: { name: "write_file", arguments: '{"path":"a.ts"}' },
          },
        ],
      },
      { ...base, content: "" },
    ];
    const reference = canonicalContent(canonical(base));
    for (const variant of variants) {
      expect(canonicalContent(canonical(variant)), JSON.stringify(variant)).not.toBe(reference);
    }
    expect(
      canonicalContent(canonical({ role: "tool", tool_call_id: "call_1", content: "ok" })),
    ).not.toBe(
      canonicalContent(canonical({ role: "tool", tool_call_id: "call_2", content: "ok" })),
    );
  });

  it("ignores the key order of any arguments object (property)", () => {
    const json = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), {
      maxKeys: 6,
    });
    fc.assert(
      fc.property(json, (value) => {
        const reordered = Object.fromEntries(Object.entries(value).reverse());
        const a = canonical({
          role: "assistant",
          content: null,
          tool_calls: [call(JSON.stringify(value))],
        });
        const b = canonical({
          role: "assistant",
          content: null,
          tool_calls: [call(JSON.stringify(reordered, null, 2))],
        });
        expect(canonicalContent(a)).toBe(canonicalContent(b));
      }),
    );
  });
});

describe("messageHashes", () => {
  it("hashes each message by its canonical content, in order, alike in both ways", async () => {
    const messages = [
      canonical({ role: "user", content: "one" }),
      canonical({ role: "user", content: [{ type: "text", text: "one" }] }),
      canonical({ role: "user", content: "two" }),
    ];
    const hashes = await messageHashes(messages);
    expect(messageHashesSync(messages)).toEqual(hashes);
    expect(hashes).toHaveLength(3);
    expect(hashes[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(hashes[0]).toBe(hashes[1]);
    expect(hashes[2]).not.toBe(hashes[0]);
  });

  it("answers a history hashed before from the isolate's cache, in order, with new messages among them", async () => {
    const first = [
      canonical({ role: "user", content: "cached one" }),
      canonical({ role: "assistant", content: "cached two" }),
    ];
    await messageHashes(first);
    const mixed = [
      canonical({ role: "user", content: "new before" }),
      ...first,
      canonical({ role: "user", content: "new after" }),
      canonical({ role: "user", content: [{ type: "text", text: "cached one" }] }),
    ];
    expect(await messageHashes(mixed)).toEqual(messageHashesSync(mixed));
  });

  it("answers from the cache what it would compute, for messages written any way (property)", async () => {
    const part = fc.oneof(
      fc.record({
        type: fc.constant("text"),
        text: fc.oneof(fc.string({ maxLength: 12 }), fc.constant("a")),
      }),
      fc.record({
        type: fc.constant("image_url"),
        image_url: fc.record({ url: fc.constantFrom("https://a.example/x.png", "data:,1") }),
      }),
    );
    // Texts that look like the cache key's other parts: JSON, line breaks, a serialized content.
    const keyLike = fc.constantFrom(
      "null",
      "a\nb",
      '["user",null,null,true]\nx',
      '[{"type":"text","text":"a"}]',
      '[{"type":"image_url","image_url":{"url":"data:,1"}}]',
      '""',
      "[]",
    );
    const text = fc.oneof(fc.string({ maxLength: 12 }), keyLike);
    const content = fc.oneof(
      fc.constant(null),
      fc.constant(""),
      text,
      fc.array(part, { maxLength: 3 }),
    );
    const args = fc
      .dictionary(fc.constantFrom("a", "b", "c"), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })
      .map((value) => JSON.stringify(value));
    const message = fc.oneof(
      fc.record({ role: fc.constantFrom("user", "system"), content }),
      fc.record(
        {
          role: fc.constant("assistant"),
          content,
          tool_calls: fc.array(
            fc.record({
              id: fc.constantFrom("call_1", "call_2"),
              type: fc.constant("function"),
              function: fc.record({ name: fc.constantFrom("read", "write"), arguments: args }),
            }),
            { maxLength: 2 },
          ),
        },
        { requiredKeys: ["role", "content"] },
      ),
      fc.record({
        role: fc.constant("tool"),
        tool_call_id: fc.constantFrom("call_1", "call_2"),
        content: text,
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(message, { maxLength: 8 }), async (raw) => {
        // A message the engine refuses (an empty assistant turn) is not a history the gateway hashes.
        const messages = raw.flatMap((m) => {
          try {
            return [canonical(m)];
          } catch {
            return [];
          }
        });
        const expected = messageHashesSync(messages);
        expect(await messageHashes(messages)).toEqual(expected);
        // The second time from the cache, keys reordered as another SDK would write them.
        const reordered = messages.map(
          (m) => Object.fromEntries(Object.entries(m).reverse()) as unknown as ChatMessage,
        );
        expect(await messageHashes(reordered)).toEqual(expected);
      }),
    );
  });
});

describe("cache markers and opaque items", () => {
  const marker = { type: "ephemeral" };

  it("leave the hash alone: a marker moved from message to message changes no hash", () => {
    // Claude Code marks its newest messages, so each message carries a marker for one turn only.
    const anthropic = (marked: number) =>
      toCanonical({
        format: "anthropic",
        system: [{ type: "text", text: "You are Claude Code.", cache_control: marker }],
        messages: [
          { role: "user", content: [{ type: "text", text: "hi" }] },
          {
            role: "assistant",
            content: [
              { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { q: "x" } },
              { type: "text", text: "found" },
            ],
          },
          { role: "system", content: [{ type: "text", text: "reminder" }] },
          { role: "user", content: [{ type: "text", text: "go on" }] },
        ].map((turn, index) =>
          index === marked
            ? {
                ...turn,
                content: turn.content.map((block) => ({ ...block, cache_control: marker })),
              }
            : turn,
        ),
      });
    const unmarked = messageHashesSync(anthropic(-1));
    for (const marked of [0, 1, 2, 3])
      expect(messageHashesSync(anthropic(marked))).toEqual(unmarked);
    const chat = (marked: boolean) =>
      parseMessages([
        {
          role: "user",
          content: [{ type: "text", text: "hi", ...(marked ? { cache_control: marker } : {}) }],
        },
      ]);
    expect(messageHashesSync(chat(true))).toEqual(messageHashesSync(chat(false)));
  });

  it("hash an opaque item by what it holds, whatever its id, status and key order", () => {
    const item = (extra: Record<string, unknown>) =>
      toCanonical({
        format: "responses",
        messages: [{ type: "web_search_call", action: { type: "search", query: "q" }, ...extra }],
      });
    expect(messageHashesSync(item({ id: "ws_1", status: "completed" }))).toEqual(
      messageHashesSync(item({})),
    );
    expect(messageHashesSync(item({ extra: 1 }))).not.toEqual(messageHashesSync(item({})));
  });

  it("tell a custom tool call from a function call with the same name and text", () => {
    const custom = canonical({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c", type: "custom", custom: { name: "f", input: "{}" } }],
    });
    const fn = canonical({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }],
    });
    expect(canonicalContent(custom)).not.toBe(canonicalContent(fn));
  });
});
