/**
 * Provider data (Anthropic thinking blocks, Responses reasoning items) appended
 * in its own format survives storage, compaction and rendering: `/transcript`
 * keeps it, and `/context` in the same format sends it back, before and after
 * the session is compacted. `POST /v1/compact` keeps it too.
 */

import { describe, expect, it } from "vitest";
import type {
  ContextResponseBody,
  ManualCompactResponseBody,
  TranscriptResponseBody,
} from "../../src/api/schemas";
import { append, call, conversation, freshSession } from "../support/helpers";

const context = async (id: string, format: string) =>
  (await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context?format=${format}`)).body;

const thinking = {
  type: "thinking",
  thinking: "The build log points at src/module_3.ts; list the directory first.",
  signature: "sig-EqQBCkgIARABGAIiQL",
};
const redacted = { type: "redacted_thinking", data: "redacted-blob-123" };

/** An Anthropic tool turn whose assistant message carries thinking blocks. */
const anthropicTurn = [
  {
    role: "assistant",
    content: [
      thinking,
      redacted,
      { type: "text", text: "Listing the directory." },
      { type: "tool_use", id: "toolu_think", name: "ls", input: { path: "src" } },
    ],
  },
  {
    role: "user",
    content: [{ type: "tool_result", tool_use_id: "toolu_think", content: "module_3.ts" }],
  },
];

const reasoning = {
  type: "reasoning",
  id: "rs_42",
  summary: [{ type: "summary_text", text: "Check the directory." }],
  encrypted_content: "gAAAA-reasoning-enc-42",
};

/** A Responses tool turn led by an opaque reasoning item. */
const responsesTurn = [
  reasoning,
  { type: "function_call", call_id: "call_reason", name: "ls", arguments: '{"path":"src"}' },
  { type: "function_call_output", call_id: "call_reason", output: "module_3.ts" },
];

/** A session with enough history for a forced compaction to summarize, then the provider turn. */
async function sessionWith(format: "anthropic" | "responses"): Promise<string> {
  const id = freshSession();
  expect((await append(id, { messages: conversation(12), model: "gpt-4o" })).status).toBe(200);
  expect(
    (
      await call("PATCH", `/v1/sessions/${id}`, {
        body: { contextWindow: 32_000, tailTokens: 1_500 },
      })
    ).status,
  ).toBe(200);
  const turn = format === "anthropic" ? anthropicTurn : responsesTurn;
  expect((await append(id, { format, messages: turn })).status).toBe(200);
  return id;
}

async function compactNow(id: string): Promise<void> {
  const reply = await call<ManualCompactResponseBody>("POST", `/v1/sessions/${id}/compact`, {
    body: {},
  });
  expect(reply.status).toBe(200);
  expect(reply.body.compacted).toBe(true);
}

function anthropicAssistant(messages: unknown[]): unknown {
  return messages.find((message) => JSON.stringify(message).includes('"toolu_think"'));
}

describe("Anthropic thinking blocks", () => {
  it("are stored, served in /transcript, and sent back by /context before and after compaction", async () => {
    const id = await sessionWith("anthropic");
    const page = (
      await call<TranscriptResponseBody>("GET", `/v1/sessions/${id}/transcript?limit=1000`)
    ).body;
    expect(JSON.stringify(page.messages)).toContain(thinking.signature);
    expect(JSON.stringify(page.messages)).toContain(redacted.data);

    const before = await context(id, "anthropic");
    expect(anthropicAssistant(before.messages)).toMatchObject({
      content: expect.arrayContaining([thinking, redacted]),
    });

    await compactNow(id);
    const after = await context(id, "anthropic");
    expect(after.coveredSeq).toBe(after.lastSeq);
    expect(anthropicAssistant(after.messages)).toMatchObject({
      role: "assistant",
      content: expect.arrayContaining([thinking, redacted]),
    });
  });
});

describe("Responses reasoning items", () => {
  it("are stored, served in /transcript, and sent back by /context before and after compaction", async () => {
    const id = await sessionWith("responses");
    const page = (
      await call<TranscriptResponseBody>("GET", `/v1/sessions/${id}/transcript?limit=1000`)
    ).body;
    expect(JSON.stringify(page.messages)).toContain(reasoning.encrypted_content);

    const before = await context(id, "responses");
    expect(before.messages).toContainEqual(reasoning);

    await compactNow(id);
    const after = await context(id, "responses");
    expect(after.coveredSeq).toBe(after.lastSeq);
    expect(after.messages).toContainEqual(reasoning);
    // The reasoning item still comes right before the call it led to.
    const index = after.messages.findIndex(
      (item) => JSON.stringify(item) === JSON.stringify(reasoning),
    );
    expect(after.messages[index + 1]).toMatchObject({
      type: "function_call",
      call_id: "call_reason",
    });
  });
});

describe("items and blocks the engine does not know, appended through /messages", () => {
  it("are stored opaque in place and sent back verbatim by /context, before and after compaction", async () => {
    const id = freshSession();
    expect((await append(id, { messages: conversation(12), model: "gpt-4o" })).status).toBe(200);
    expect(
      (
        await call("PATCH", `/v1/sessions/${id}`, {
          body: { contextWindow: 32_000, tailTokens: 1_500 },
        })
      ).status,
    ).toBe(200);
    const search = {
      type: "web_search_call",
      id: "ws_7",
      status: "completed",
      action: { type: "search", query: "vitest pool workers" },
    };
    const patch = {
      type: "custom_tool_call",
      id: "ctc_7",
      status: "completed",
      call_id: "call_patch7",
      name: "apply_patch",
      input: "*** Begin Patch\n*** Add File: NOTES.md\n+done\n*** End Patch",
    };
    const output = {
      type: "custom_tool_call_output",
      id: "ctco_7",
      call_id: "call_patch7",
      output: "Success. Updated the following files:\nA NOTES.md",
    };
    const items = [{ role: "user", content: "Note it down." }, search, patch, output];
    expect((await append(id, { format: "responses", messages: items })).status).toBe(200);
    expect((await context(id, "responses")).messages.slice(-4)).toEqual(items);

    await compactNow(id);
    const after = await context(id, "responses");
    expect(after.coveredSeq).toBe(after.lastSeq);
    expect(after.messages.slice(-4)).toEqual(items);
    // Other formats show what they hold; the custom call is a tool call its result answers.
    expect((await context(id, "openai")).messages.slice(-2)).toMatchObject([
      {
        role: "assistant",
        content: expect.stringContaining("[web_search_call]"),
        tool_calls: [{ id: "call_patch7", type: "custom", custom: { name: "apply_patch" } }],
      },
      { role: "tool", tool_call_id: "call_patch7" },
    ]);
  });

  it("keeps a system turn and server-tool blocks of Anthropic messages", async () => {
    const id = freshSession();
    const blocks = [
      { type: "server_tool_use", id: "srvtoolu_9", name: "web_search", input: { query: "q" } },
      { type: "web_search_tool_result", tool_use_id: "srvtoolu_9", content: [] },
      { type: "text", text: "Nothing found." },
    ];
    const messages = [
      { role: "user", content: "Search." },
      { role: "system", content: "Answer in one line." },
      { role: "assistant", content: blocks },
    ];
    expect((await append(id, { format: "anthropic", messages })).status).toBe(200);
    expect((await context(id, "anthropic")).messages).toEqual(messages);
  });
});

describe("POST /v1/compact", () => {
  it("keeps thinking blocks of the messages it keeps", async () => {
    const history = conversation(12);
    const reply = await call<{ compacted: boolean; messages: unknown[] }>("POST", "/v1/compact", {
      body: {
        model: "gpt-4o",
        format: "anthropic",
        system: "You are a careful coding agent.",
        messages: [...toAnthropic(history.slice(1)), ...anthropicTurn],
        options: { contextWindow: 32_000, tailTokens: 1_500, force: true },
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.compacted).toBe(true);
    expect(anthropicAssistant(reply.body.messages)).toMatchObject({
      content: expect.arrayContaining([thinking, redacted]),
    });
  });
});

/** The helpers' OpenAI conversation (without its system message) as Anthropic messages. */
function toAnthropic(messages: ReturnType<typeof conversation>): unknown[] {
  const out: Array<{ role: string; content: unknown }> = [];
  for (const message of messages) {
    if (message.role === "tool") {
      out.push({
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: message.tool_call_id, content: message.content },
        ],
      });
    } else if (message.role === "assistant") {
      const calls = (message.tool_calls ?? []) as Array<{
        id: string;
        function: { name: string; arguments: string };
      }>;
      out.push({
        role: "assistant",
        content: [
          { type: "text", text: message.content },
          ...calls.map((c) => ({
            type: "tool_use",
            id: c.id,
            name: c.function.name,
            input: JSON.parse(c.function.arguments) as unknown,
          })),
        ],
      });
    } else out.push({ role: message.role as string, content: message.content });
  }
  return out;
}

describe("provider data nested as deep as any format accepts", () => {
  /** A JSON value nesting `depth` levels (the value itself is level 1). */
  function nested(depth: number): unknown {
    let value: unknown = { leaf: "x" };
    for (let level = 1; level < depth; level++) value = [value];
    return value;
  }

  const reasoning = (depth: number) => [
    { role: "user", content: "hi" },
    {
      type: "reasoning",
      id: "rs_deep",
      summary: [{ type: "summary_text", text: "thought", extra: nested(depth) }],
    },
    { role: "assistant", content: "ok" },
  ];

  it("is compacted and reported over without a 500, wherever the append stopped accepting it", async () => {
    const overflow = {
      error: {
        status: 400,
        message:
          "This model's maximum context length is 100 tokens. However, your messages resulted in 200 tokens.",
      },
    };
    let accepted = 0;
    for (let depth = 250; depth <= 262; depth++) {
      const id = freshSession("deep");
      const appended = await append(id, { format: "responses", messages: reasoning(depth) });
      if (appended.status !== 200) {
        expect(appended.body).toMatchObject({ error: { code: "invalid_messages" } });
        continue;
      }
      accepted++;
      const compacted = await call("POST", `/v1/sessions/${id}/compact`, { body: {} });
      expect(compacted.status, `compact at depth ${depth}`).toBe(200);
      const reported = await call("POST", `/v1/sessions/${id}/overflow`, { body: overflow });
      expect(reported.status, `overflow at depth ${depth}`).toBe(200);
    }
    expect(accepted).toBeGreaterThan(0);
  });
});
