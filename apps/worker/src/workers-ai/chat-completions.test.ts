import { describe, expect, it } from "vitest";
import { completionOf, runInput, workersAiFetch } from "./chat-completions";

describe("runInput", () => {
  it("passes messages, the output limit and the tools as Workers AI takes them", () => {
    expect(
      runInput({
        model: "@cf/x",
        messages: [{ role: "user", content: "hi" }],
        max_completion_tokens: 500,
        tools: [{ type: "function", function: { name: "memory", parameters: { type: "object" } } }],
        tool_choice: "auto",
      }),
    ).toEqual({
      messages: [{ role: "user", content: "hi" }],
      max_tokens: 500,
      tools: [{ name: "memory", description: "", parameters: { type: "object" } }],
    });
  });
});

describe("completionOf", () => {
  it("reads Workers AI's own shape, tool call arguments as objects included", () => {
    const body = completionOf("@cf/x", {
      response: null,
      tool_calls: [{ name: "memory", arguments: { op: "add" } }],
      usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
    });
    expect(body).toMatchObject({
      object: "chat.completion",
      model: "@cf/x",
      choices: [
        {
          message: {
            role: "assistant",
            content: "",
            tool_calls: [
              {
                id: "call_1",
                type: "function",
                function: { name: "memory", arguments: '{"op":"add"}' },
              },
            ],
          },
          finish_reason: "tool_calls",
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
    });
  });

  it("reads OpenAI's shape, which some newer models answer in", () => {
    const body = completionOf("@cf/y", {
      choices: [{ message: { content: "a summary" }, finish_reason: "length" }],
    });
    expect(body).toMatchObject({
      choices: [{ message: { content: "a summary" }, finish_reason: "length" }],
    });
  });
});

describe("workersAiFetch", () => {
  it("answers a binding that throws with a 502 the summarizer retries, and serves nothing else", async () => {
    const fetch = workersAiFetch({
      run: async () => {
        throw new Error("3040: Capacity temporarily exceeded");
      },
    });
    const post = (path: string, body: unknown) =>
      fetch(`https://workers-ai.internal/v1${path}`, {
        method: "POST",
        body: JSON.stringify(body),
      });
    const failed = await post("/chat/completions", { model: "@cf/x", messages: [] });
    expect(failed.status).toBe(502);
    expect(await failed.text()).toContain("Capacity temporarily exceeded");
    expect((await post("/embeddings", { model: "@cf/x" })).status).toBe(404);
    expect((await post("/chat/completions", { model: "@cf/x", stream: true })).status).toBe(400);
  });

  it("gives up when the SDK's timeout aborts the call", async () => {
    const fetch = workersAiFetch({ run: () => new Promise(() => {}) });
    const controller = new AbortController();
    const pending = fetch("https://workers-ai.internal/v1/chat/completions", {
      method: "POST",
      body: JSON.stringify({ model: "@cf/x", messages: [] }),
      signal: controller.signal,
    });
    controller.abort();
    await expect(pending).rejects.toThrow();
  });
});
