/**
 * A gateway request that waits on a compaction is kept alive (issue 33, `gateway/keep-alive`): the
 * upstream refuses the context as too long, the session compacts with an LLM summarizer that is
 * held for longer than the keep-alive interval (a proxy's idle limit, made short here through
 * `GATEWAY_KEEPALIVE_MS`), and the client, the unmodified `openai` SDK, gets keep-alive bytes it
 * ignores (SSE comments, spaces before JSON) and then the answer. Nothing is timed: the summarizer
 * is released only once the client has read keep-alive bytes.
 */

import { env } from "cloudflare:test";
import { scenarioHeaders, scenarioModel } from "@condense/test-servers";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { freshTag } from "../support/gateway-helpers";
import { BASE, llm, llmSession, prose, TOKENS, waitFor } from "../support/helpers";

type ChatParam = OpenAI.Chat.Completions.ChatCompletionMessageParam;

const KEEP_ALIVE = { sse: ": keep-alive\n\n", json: " " };

/**
 * The Worker's app with a 50 ms keep-alive, as the SDK's fetch; `observed` counts the keep-alive
 * bytes that reached the client before anything else of the body, and keeps the headers.
 */
interface Observed {
  keepAlives: number;
  body: string;
  headers?: Headers;
}

function keepAliveFetch(observed: Observed) {
  const app = createApp();
  const bindings = { ...env, GATEWAY_KEEPALIVE_MS: "50" };
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await app.request(
      String(input instanceof Request ? input.url : input),
      init,
      bindings,
    );
    observed.headers = response.headers;
    if (response.body === null) return response;
    const decoder = new TextDecoder();
    const watch = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        observed.body += decoder.decode(chunk, { stream: true });
        const leading = /^(?:(?:: keep-alive\n\n)| )*/.exec(observed.body)?.[0] ?? "";
        observed.keepAlives =
          leading.split(KEEP_ALIVE.sse).length - 1 + (leading.match(/^ +/)?.[0].length ?? 0);
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(watch), {
      status: response.status,
      headers: response.headers,
    });
  };
}

describe("a request waiting on an overflow's compaction with a slow LLM summarizer", () => {
  for (const stream of [true, false]) {
    it(`is kept alive past the proxy's idle limit, then answered (${stream ? "SSE comments" : "spaces before JSON"})`, async () => {
      const hold = freshTag();
      const summarizer = scenarioModel({ name: hold, hold: true });
      const session = await llmSession(summarizer, 20);
      const tag = freshTag();
      const observed: Observed = { keepAlives: 0, body: "" };
      const client = new OpenAI({
        baseURL: `${BASE}/v1/gateway/up`,
        apiKey: "sk-caller-openai",
        maxRetries: 0,
        fetch: keepAliveFetch(observed),
        defaultHeaders: {
          "X-Condense-Key": TOKENS.alice ?? "",
          "X-Condense-Session": session,
          ...scenarioHeaders({ name: tag, limit: 3000 }),
          // The upstream refuses the session's context (the scenario's limit): the overflow compacts
          // it, with the summarizer.
        },
      });
      const messages = [
        ...(prose(20) as unknown as ChatParam[]),
        { role: "user", content: "Now write the plan's summary." } as ChatParam,
      ];
      const answer = (async () => {
        if (!stream) {
          const completion = await client.chat.completions.create({ model: "gpt-4o", messages });
          return completion.choices[0]?.message.content ?? "";
        }
        const events = await client.chat.completions.create({
          model: "gpt-4o",
          messages,
          stream: true,
        });
        let text = "";
        for await (const event of events) text += event.choices[0]?.delta.content ?? "";
        return text;
      })();

      // The summarizer holds the compaction until the client has been kept alive a few times.
      await llm.waitForRequests(summarizer);
      await waitFor(() => observed.keepAlives >= 3, "keep-alive bytes at the client").catch(
        () => {},
      );
      const keptAlive = observed.keepAlives;
      await llm.release(hold);

      expect(await answer).toMatch(/^Answer \d+/);
      expect(keptAlive).toBeGreaterThanOrEqual(3);
      expect(observed.headers?.get("X-Condense-Keep-Alive")).toBe("50");
      expect(observed.headers?.get("X-Condense-Session")).toBe(session);
      expect(observed.headers?.get("X-Condense-Generation")).toBe("1");
      const leading = stream ? KEEP_ALIVE.sse : KEEP_ALIVE.json;
      expect(observed.body.startsWith(leading.repeat(3))).toBe(true);
    });
  }

  it("gives an error that comes after the commit in the stream, which the SDK raises", async () => {
    const hold = freshTag();
    const summarizer = scenarioModel({ name: hold, hold: true });
    const session = await llmSession(summarizer, 20);
    const observed: Observed = { keepAlives: 0, body: "" };
    const client = new OpenAI({
      baseURL: `${BASE}/v1/gateway/up`,
      apiKey: "sk-caller-openai",
      maxRetries: 0,
      fetch: keepAliveFetch(observed),
      defaultHeaders: {
        "X-Condense-Key": TOKENS.alice ?? "",
        "X-Condense-Session": session,
        // Nothing fits: the overflow's compaction cannot help, and the upstream's error stands.
        ...scenarioHeaders({ name: freshTag(), limit: 20 }),
      },
    });
    const messages = prose(20) as unknown as ChatParam[];
    const answer = (async () => {
      const events = await client.chat.completions.create({
        model: "gpt-4o",
        messages,
        stream: true,
      });
      for await (const _event of events) {
        // An error event ends the loop with the SDK's error.
      }
    })();
    await llm.waitForRequests(summarizer);
    await waitFor(() => observed.keepAlives >= 1, "keep-alive bytes at the client").catch(() => {});
    await llm.release(hold);
    const error = await answer.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(String((error as Error).message)).toMatch(/maximum context length/);
  });
});
