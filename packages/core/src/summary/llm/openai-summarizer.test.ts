// Runs in Node and in workerd: the summarizer must work without Node built-ins,
// here with an injected fetch (the HTTP-server tests are in the `.node.test.ts`).
import { describe, expect, it } from "vitest";
import { InvalidOptionsError } from "../../errors/condense-error.js";
import type { SummarizeRequest } from "../summarizer.js";
import { missingSections, SUMMARY_SECTIONS } from "../template.js";
import { looksLikeRefusal, unwrapSummary } from "./answer-checks.js";
import { openAISummarizer } from "./openai-summarizer.js";

const summary = SUMMARY_SECTIONS.map((section) => `## ${section}\nNone`).join("\n\n");

const request: SummarizeRequest = {
  messages: [
    {
      role: "user",
      content:
        "Rename the `fetchUser` helper in src/api/user.ts. My key: sk-proj-AAAABBBBCCCCDDDDEEEEFFFF0000",
    },
    { role: "assistant", content: "Done: renamed to loadUser in src/api/user.ts." },
  ],
  model: "gpt-4o",
  targetTokens: 500,
  maxTokens: 2_000,
  identifierPolicy: "strict",
  ledger: { identifiers: [], files: { read: [], modified: ["src/api/user.ts"] }, userRequests: [] },
};

interface Captured {
  url: string;
  body: string;
  authorization: string | null;
}

function fakeFetch(captured: Captured[], stream: boolean): typeof globalThis.fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const headers = new Headers(init?.headers);
    captured.push({ url, body: String(init?.body), authorization: headers.get("authorization") });
    if (!stream) {
      const completion = {
        id: "x",
        object: "chat.completion",
        created: 0,
        model: "m",
        choices: [
          { index: 0, message: { role: "assistant", content: summary }, finish_reason: "stop" },
        ],
        usage: { prompt_tokens: 123, completion_tokens: 45, total_tokens: 168 },
      };
      return new Response(JSON.stringify(completion), {
        headers: { "content-type": "application/json" },
      });
    }
    const events = [
      {
        choices: [
          {
            index: 0,
            delta: { role: "assistant", content: summary.slice(0, 40) },
            finish_reason: null,
          },
        ],
      },
      { choices: [{ index: 0, delta: { content: summary.slice(40) }, finish_reason: null }] },
      { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
      { choices: [], usage: { prompt_tokens: 321, completion_tokens: 45, total_tokens: 366 } },
    ];
    const text = `${events.map((event) => `data: ${JSON.stringify({ id: "x", object: "chat.completion.chunk", created: 0, model: "m", ...event })}\n\n`).join("")}data: [DONE]\n\n`;
    return new Response(text, { headers: { "content-type": "text/event-stream" } });
  };
}

describe("openAISummarizer with an injected fetch", () => {
  for (const stream of [false, true]) {
    it(`summarizes through the SDK (stream ${stream})`, async () => {
      const captured: Captured[] = [];
      const summarizer = openAISummarizer({
        apiKey: "sk-test-key-000000000000000000000",
        baseURL: "https://llm.example.test/v1",
        model: "test-model",
        fetch: fakeFetch(captured, stream),
        stream,
      });
      expect(summarizer.name).toBe("openai:test-model");
      expect(summarizer.kind).toBe("llm");
      const result = await summarizer.summarize(request);
      expect(captured).toHaveLength(1);
      expect(captured[0]?.url).toBe("https://llm.example.test/v1/chat/completions");
      expect(captured[0]?.authorization).toBe("Bearer sk-test-key-000000000000000000000");
      expect(captured[0]?.body).not.toContain("sk-proj-AAAABBBBCCCCDDDDEEEEFFFF0000");
      expect(captured[0]?.body).toContain("Rename the `fetchUser` helper");
      expect(missingSections(result.summary)).toEqual([]);
      expect(result.summary).toContain("src/api/user.ts");
      expect(result.calls).toBe(1);
      expect(result.inputTokens).toBe(stream ? 321 : 123);
    });
  }
});

describe("openAISummarizer options", () => {
  it("rejects options that are not an object with a typed error", () => {
    for (const options of [null, undefined, "gpt-4o"]) {
      expect(() => openAISummarizer(options as never)).toThrow(
        expect.objectContaining({ code: "invalid_options" }),
      );
    }
  });

  it("names the option that is wrong", () => {
    expect(() => openAISummarizer({ apiKey: "k", model: "" })).toThrow(/`model`/);
    expect(() => openAISummarizer({ apiKey: "", model: "m" })).toThrow(/`apiKey`.*placeholder/);
    expect(() => openAISummarizer({ apiKey: "k", model: "m", timeoutMs: 0 })).toThrow(
      InvalidOptionsError,
    );
    expect(() => openAISummarizer({ apiKey: "k", model: "m", maxRetries: -1 })).toThrow(
      /`maxRetries`/,
    );
    expect(() => openAISummarizer({ apiKey: "k", model: "m", contextWindow: Number.NaN })).toThrow(
      /`contextWindow`/,
    );
  });
});

describe("looksLikeRefusal", () => {
  it("spots refusals only when the template is absent", () => {
    expect(looksLikeRefusal("I'm sorry, but I can't help with that.")).toBe(true);
    expect(looksLikeRefusal("I cannot summarize this content.")).toBe(true);
    expect(looksLikeRefusal(`I'm sorry for the long summary.\n\n${summary}`)).toBe(false);
    expect(looksLikeRefusal("HACKED")).toBe(false);
  });
});

describe("unwrapSummary", () => {
  it("drops inline reasoning, a wrapping code fence and a short preamble", () => {
    expect(unwrapSummary("<think>plan</think>\n```markdown\n## Goal\nShip\n```")).toBe(
      "## Goal\nShip",
    );
    expect(unwrapSummary("Here is the summary:\n\n## Goal\nShip")).toBe("## Goal\nShip");
  });

  it("keeps long text before the first heading, and text without headings", () => {
    const long = `${"Context that matters. ".repeat(20)}\n## Goal\nShip`;
    expect(unwrapSummary(long)).toBe(long);
    expect(unwrapSummary("HACKED")).toBe("HACKED");
  });
});

describe("openAISummarizer maxOutputTokens", () => {
  it("never asks for more output than the model can write", async () => {
    const captured: Captured[] = [];
    await openAISummarizer({
      apiKey: "k",
      model: "test-model",
      baseURL: "https://llm.example.test/v1",
      fetch: fakeFetch(captured, false),
      maxOutputTokens: 1_024,
      stream: false,
    }).summarize(request);
    const body: unknown = JSON.parse(captured[0]?.body ?? "{}");
    expect(body).toMatchObject({ max_tokens: 1_024 });
  });
});
