/**
 * The upstream's count is the truth for the request it refused (issue 33,
 * finding 2). When an overflow error states figures (`maximum context length
 * is 16385 tokens. However, your messages resulted in 20000 tokens`) far above
 * what the gateway counted for what it sent (another tokenizer, images, tool
 * definitions), the gateway scales its target by them and retries once with
 * a context small enough by the upstream's count; it passes the error through
 * only when nothing smaller can be sent, and says why in a header.
 */

import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { freshTag, openaiClient, upstreamCalls } from "../support/gateway-helpers";
import { freshSession } from "../support/helpers";

type ChatParam = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** `lines` lines of a build log, about 16 tokens each. */
function buildLog(lines: number): string {
  return Array.from(
    { length: lines },
    (_, i) => `[${i}] compiling src/module_${i}.ts … ok (${i % 17} warnings)`,
  ).join("\n");
}

/** A short task whose newest tool result (never compacted) is most of it: about 7,000 tokens. */
function history(): ChatParam[] {
  return [
    { role: "system", content: "You are a build agent." },
    { role: "user", content: "Build the project and tell me what fails." },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: "call_build",
          type: "function",
          function: { name: "bash", arguments: '{"cmd":"make"}' },
        },
      ],
    },
    { role: "tool", tool_call_id: "call_build", content: buildLog(420) },
  ];
}

describe("an overflow whose figures disagree with the gateway's count (issue 33)", () => {
  for (const withSession of [true, false]) {
    it(`is retried once with the context scaled by the upstream's count (${withSession ? "with a session" : "stateless"})`, async () => {
      const tag = freshTag();
      // The upstream counts three times what the engine does; its window is 16,385 of its tokens.
      const client = openaiClient(tag, {
        ...(withSession ? { session: freshSession("gw-count") } : {}),
        scenario: { limit: 16385, scale: 3 },
      });
      const reply = await client.chat.completions
        .create({ model: "gpt-4o", messages: history() })
        .withResponse();
      expect(reply.response.status).toBe(200);
      expect(reply.response.headers.get("X-Condense-Overflow-Retries")).toBe("1");
      const calls = await upstreamCalls(tag);
      expect(calls).toHaveLength(2);
      const [first, second] = calls.map((received) => received.tokens ?? 0);
      expect((first ?? 0) * 3).toBeGreaterThan(16_385);
      expect((first ?? 0) * 3).toBeLessThan(30_000);
      // By the upstream's own count, the retry fits its window.
      expect((second ?? 0) * 3).toBeLessThanOrEqual(16_385);
      // The newest result is there, cut to its head and tail.
      const sent = calls[1]?.body?.messages as Array<{ role: string; content: unknown }>;
      const result = String(sent.at(-1)?.content);
      expect(result.startsWith("[0] compiling src/module_0.ts")).toBe(true);
      expect(result).toContain("[419] compiling src/module_419.ts");
      expect(result).toMatch(/\[Condense cut \d+ tokens/);
    });
  }

  it("is passed through, after one call, with a header saying why, when nothing smaller can be sent", async () => {
    const tag = freshTag();
    const session = freshSession("gw-count");
    // An injected fault: the first request is refused as 20,000 tokens, whatever its size.
    const client = openaiClient(tag, {
      session,
      scenario: { inject: { tokens: 20_000, limit: 16_385 } },
    });
    let refused: unknown;
    try {
      await client.chat.completions.create({
        model: "gpt-4o",
        messages: [
          { role: "system", content: "You are a build agent." },
          { role: "user", content: "Say hello." },
        ],
      });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    const error = refused as InstanceType<typeof OpenAI.BadRequestError>;
    expect(error.message).toContain("your messages resulted in 20000 tokens");
    expect(await upstreamCalls(tag)).toHaveLength(1);
    expect(error.headers?.get("X-Condense-Overflow")).toBe("passed-through");
    const reason = error.headers?.get("X-Condense-Overflow-Reason") ?? "";
    expect(reason).toMatch(/upstream counted 20000 tokens where Condense counted \d+/);
    expect(reason).toMatch(/nothing smaller can be sent/);
  });
});
