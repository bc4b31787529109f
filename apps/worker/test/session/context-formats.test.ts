/**
 * A session holds canonical messages; `GET /context` (and `POST /overflow`) render them in any
 * format. Appended in one format and served in another, files, documents, search results and
 * audio keep what each format can hold, and what a format cannot hold is refused (409), never
 * dropped. `providerData=true` keeps thinking blocks and tool-error flags in the openai format.
 */

import { describe, expect, it } from "vitest";
import type {
  CompactionsResponseBody,
  ContextResponseBody,
  OverflowResponseBody,
  TranscriptResponseBody,
} from "../../src/api/schemas";
import { append, call, conversation, freshSession } from "../support/helpers";

const context = (id: string, query: string) =>
  call<ContextResponseBody>("GET", `/v1/sessions/${id}/context?${query}`);

const pdf = `data:application/pdf;base64,${btoa("%PDF-1.7\n<< /Type /Page >>\n<< /Type /Page >>\n%%EOF")}`;
const notes = "TODO: fix src/render.ts before the release of v2.3.1";
const notesData = `data:text/plain;base64,${btoa(notes)}`;
const wav = btoa(
  `RIFF\0\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0\0\0\0\0\x10\x27\0\0\x02\0\x10\0data\x20\x4e\0\0${"\0".repeat(20_000)}`,
);

const thinking = { type: "thinking", thinking: "List the directory first.", signature: "sig-123" };

/** An Anthropic turn with thinking, and a tool result flagged as an error. */
const anthropicToolTurn = [
  { role: "user", content: "Look at src." },
  {
    role: "assistant",
    content: [thinking, { type: "tool_use", id: "toolu_ls", name: "ls", input: { path: "src" } }],
  },
  {
    role: "user",
    content: [
      { type: "tool_result", tool_use_id: "toolu_ls", content: "ENOENT: src", is_error: true },
    ],
  },
];

describe("GET /context?providerData=true", () => {
  it("keeps provider_data in the openai format, which leaves it out by default", async () => {
    const id = freshSession();
    expect((await append(id, { format: "anthropic", messages: anthropicToolTurn })).status).toBe(
      200,
    );

    const plain = await context(id, "format=openai");
    expect(plain.status).toBe(200);
    expect(JSON.stringify(plain.body.messages)).not.toContain("provider_data");

    const kept = await context(id, "format=openai&providerData=true");
    expect(kept.status).toBe(200);
    expect(kept.body.messages).toEqual([
      { role: "user", content: "Look at src." },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "toolu_ls",
            type: "function",
            function: { name: "ls", arguments: '{"path":"src"}' },
          },
        ],
        provider_data: { anthropic: { thinking: [thinking] } },
      },
      {
        role: "tool",
        content: "ENOENT: src",
        tool_call_id: "toolu_ls",
        provider_data: { anthropic: { is_error: true } },
      },
    ]);
    // Nothing else changes: the default and `false` are the same answer.
    const off = await context(id, "format=openai&providerData=false");
    expect(off.body.messages).toEqual(plain.body.messages);
    // The other formats carry provider data in their own blocks and items, with or without it.
    const anthropic = await context(id, "format=anthropic&providerData=true");
    expect(anthropic.body.messages).toEqual(anthropicToolTurn);
  });

  it("is documented in the OpenAPI document", async () => {
    const reply = await call<{
      paths: Record<string, { get?: { parameters?: Array<{ name: string; in: string }> } }>;
    }>("GET", "/openapi.json", { as: null });
    expect(reply.body.paths["/v1/sessions/{id}/context"]?.get?.parameters).toContainEqual(
      expect.objectContaining({ name: "providerData", in: "query" }),
    );
  });

  it("is refused unless it is true or false", async () => {
    const id = freshSession();
    await append(id, { messages: [{ role: "user", content: "hi" }] });
    const reply = await call<{ error: { code: string; details: unknown } }>(
      "GET",
      `/v1/sessions/${id}/context?providerData=yes`,
    );
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe("invalid_request");
    expect(JSON.stringify(reply.body.error.details)).toContain("providerData");
  });

  it("is taken by POST /overflow too, for the recovered context", async () => {
    const id = freshSession();
    await append(id, { messages: conversation(6), model: "gpt-4o" });
    await append(id, { format: "anthropic", messages: anthropicToolTurn });
    const reply = await call<OverflowResponseBody>("POST", `/v1/sessions/${id}/overflow`, {
      body: {
        error: { status: 400, message: "This model's maximum context length is 128000 tokens." },
        providerData: true,
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.format).toBe("openai");
    expect(reply.body.messages).toContainEqual(
      expect.objectContaining({ provider_data: { anthropic: { is_error: true } } }),
    );
  });
});

describe("files and documents across formats", () => {
  it("serves a PDF and a text file appended in the openai format as Anthropic documents and Responses input_file", async () => {
    const id = freshSession();
    const user = {
      role: "user",
      content: [
        { type: "text", text: "Read both." },
        { type: "file", file: { file_data: pdf, filename: "spec.pdf" } },
        { type: "file", file: { file_data: notesData } },
        { type: "file", file: { file_id: "file-abc123" } },
      ],
    };
    const appended = await append(id, { messages: [user], model: "gpt-4o" });
    expect(appended.status).toBe(200);
    // Two PDF pages (3,000 tokens each) and a one-page file by id: counted, not as text.
    expect(appended.body.tokens).toBeGreaterThan(9_000);
    expect(appended.body.tokens).toBeLessThan(9_100);

    expect((await context(id, "format=openai")).body.messages).toEqual([user]);
    expect((await context(id, "format=anthropic")).body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Read both." },
          {
            type: "document",
            source: { type: "base64", media_type: "application/pdf", data: pdf.split(",")[1] },
            title: "spec.pdf",
          },
          { type: "document", source: { type: "text", media_type: "text/plain", data: notes } },
          { type: "document", source: { type: "file", file_id: "file-abc123" } },
        ],
      },
    ]);
    expect((await context(id, "format=responses")).body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "input_text", text: "Read both." },
          { type: "input_file", file_data: pdf, filename: "spec.pdf" },
          { type: "input_file", file_data: notesData },
          { type: "input_file", file_id: "file-abc123" },
        ],
      },
    ]);
  });

  it("keeps Anthropic documents and search results exactly, and shows them to the other formats", async () => {
    const id = freshSession();
    const search = {
      type: "search_result",
      source: "https://docs.example.com/widgets",
      title: "Widgets",
      content: [{ type: "text", text: "Widgets render twice when the cache is cold." }],
      citations: { enabled: true },
    };
    const turn = [
      {
        role: "user",
        content: [
          {
            type: "document",
            source: { type: "base64", media_type: "application/pdf", data: pdf.split(",")[1] },
            title: "spec.pdf",
            citations: { enabled: true },
          },
          { type: "text", text: "Search for it." },
        ],
      },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "toolu_s", name: "search", input: { q: "widgets" } }],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_s", content: [search] }],
      },
    ];
    expect((await append(id, { format: "anthropic", messages: turn })).status).toBe(200);

    expect((await context(id, "format=anthropic")).body.messages).toEqual(turn);
    const openai = (await context(id, "format=openai")).body.messages;
    expect(openai[0]).toEqual({
      role: "user",
      content: [
        { type: "file", file: { file_data: pdf, filename: "spec.pdf" } },
        { type: "text", text: "Search for it." },
      ],
    });
    expect(openai[2]).toEqual({
      role: "tool",
      tool_call_id: "toolu_s",
      content: [
        {
          type: "text",
          text: "[search result: Widgets (https://docs.example.com/widgets)]\nWidgets render twice when the cache is cold.",
        },
      ],
    });
    const responses = (await context(id, "format=responses")).body.messages;
    expect(responses[0]).toMatchObject({
      role: "user",
      content: [
        { type: "input_file", file_data: pdf, filename: "spec.pdf" },
        { type: "input_text" },
      ],
    });
  });
});

describe("audio", () => {
  it("is served in the openai format and refused (409) by the formats without audio, naming the part", async () => {
    const id = freshSession();
    const user = {
      role: "user",
      content: [
        { type: "text", text: "Transcribe this." },
        { type: "input_audio", input_audio: { data: wav, format: "wav" } },
      ],
    };
    const appended = await append(id, { messages: [user], model: "gpt-4o" });
    expect(appended.status).toBe(200);
    expect((await context(id, "format=openai")).body.messages).toEqual([user]);
    for (const format of ["anthropic", "responses"]) {
      const reply = await call<{
        error: { code: string; message: string; details: { problems: unknown[] } };
      }>("GET", `/v1/sessions/${id}/context?format=${format}`);
      expect(reply.status).toBe(409);
      expect(reply.body.error.code).toBe("format_not_available");
      expect(reply.body.error.message).toContain("format=openai");
      expect(reply.body.error.details.problems).toEqual([
        expect.objectContaining({ index: 0, path: "content[1]", kind: "unsupported_part" }),
      ]);
    }
  });

  it("refuses before compacting, so a refused request changes nothing", async () => {
    const id = freshSession();
    await append(id, { messages: conversation(10), model: "gpt-4o" });
    await append(id, {
      messages: [
        {
          role: "user",
          content: [{ type: "input_audio", input_audio: { data: wav, format: "wav" } }],
        },
      ],
    });
    // A window the context no longer fits: serving it would compact first.
    expect(
      (await call("PATCH", `/v1/sessions/${id}`, { body: { contextWindow: 8_000 } })).status,
    ).toBe(200);
    expect((await context(id, "format=anthropic")).status).toBe(409);
    const overflow = await call("POST", `/v1/sessions/${id}/overflow`, {
      body: {
        error: { message: "prompt is too long: 9000 tokens > 8000 maximum" },
        format: "responses",
      },
    });
    expect(overflow.status).toBe(409);
    const history = await call<CompactionsResponseBody>("GET", `/v1/sessions/${id}/compactions`);
    expect(history.body.compactions).toEqual([]);
    // The openai format can carry it: the context is compacted and served.
    expect((await context(id, "format=openai")).status).toBe(200);
  });
});

describe("blank text", () => {
  it("is not served to Anthropic beside other blocks, though the transcript keeps the append as it was", async () => {
    const id = freshSession();
    const blocks = [
      { type: "text", text: "" },
      { type: "text", text: "hello" },
    ];
    const appended = await append(id, {
      format: "anthropic",
      messages: [{ role: "user", content: blocks }],
    });
    expect(appended.status).toBe(200);
    const context = await call<ContextResponseBody>(
      "GET",
      `/v1/sessions/${id}/context?format=anthropic`,
    );
    expect(context.body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "hello" }] },
    ]);
    const stored = await call<TranscriptResponseBody>("GET", `/v1/sessions/${id}/transcript`);
    expect(stored.body.messages[0]?.message.provider_data).toEqual({ anthropic: { blocks } });
  });
});

describe("items of types the engine does not know (issue 33)", () => {
  it("are refused at append when not shaped like a type name, naming the field, and nothing is stored", async () => {
    const id = freshSession();
    const reply = await call<{
      error: { code: string; details: { problems: { index: number; path: string }[] } };
    }>("POST", `/v1/sessions/${id}/messages`, {
      body: {
        format: "responses",
        model: "gpt-4o",
        messages: [
          { role: "user", content: "hi" },
          { type: "😀".repeat(2_000), call_id: "c1" },
        ],
      },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe("invalid_messages");
    expect(reply.body.error.details.problems).toEqual([
      expect.objectContaining({ index: 1, path: "type", kind: "invalid_item_type" }),
    ]);
    expect((await call("GET", `/v1/sessions/${id}`)).status).toBe(404);
  });

  it("are never served to another format as tool calls unless typed as a call", async () => {
    const id = freshSession();
    const items = [
      { role: "user", content: "hi" },
      { type: "output_text", call_id: "call_x", name: "output_text", arguments: "{}" },
      { type: "output_text_output", call_id: "call_x", output: "done" },
    ];
    const appended = await append(id, { format: "responses", model: "gpt-4o", messages: items });
    expect(appended.status).toBe(200);
    const served = (await context(id, "format=openai")).body.messages as {
      role: string;
      tool_calls?: unknown[];
    }[];
    expect(served.map((message) => message.role)).toEqual(["user", "assistant", "assistant"]);
    expect(served.some((message) => message.tool_calls !== undefined)).toBe(false);
    // Sent back in its own format as it came, for the provider to judge.
    expect((await context(id, "format=responses")).body.messages).toEqual(items);
  });
});
