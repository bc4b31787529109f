// The provider list alone: the server itself is Node-only, and these tests run in workerd.
import { OVERFLOW_PROVIDERS } from "@condense/test-servers/provider-overflows";
import OpenAI, { APIError } from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { describe, expect, it } from "vitest";
import { type LogEntry, openaiClient, registerScenario, serverLog } from "../test/model.js";
import { client, freshId, workerFetch } from "../test/worker.js";
import type { RecoveryEvent } from "./conversation.js";
import type { SessionHandle } from "./session.js";
import type { FetchLike } from "./transport.js";
import { withCompaction } from "./with-compaction.js";

/** A model the engine does not count exactly, so the session calibrates its estimate. */
const SESSION_MODEL = "llama-3.1-70b-instruct";
const SYSTEM =
  "You are a coding agent working in the repository acme/widgets. Use read_file to inspect files.";

const tools = [
  {
    type: "function" as const,
    function: {
      name: "read_file",
      description: "Read a file",
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
  },
];

function userText(turn: number): string {
  return `Turn ${turn}: ticket TICKET-${1000 + turn} reports that widget ${turn} renders twice. ${"Please look at the render loop and the cache invalidation, then report what you find. ".repeat(5)}`;
}

function toolOutput(callId: string): string {
  const lines = Array.from(
    { length: 40 },
    (_, i) =>
      `${i + 1}: export function render_${i}(widget) { return cache.get(widget) ?? draw(widget); } // ${callId}`,
  );
  return lines.join("\n");
}

async function newSession(
  contextWindow: number,
  id = freshId("wc"),
  fetch: FetchLike = workerFetch,
): Promise<SessionHandle> {
  const session = client({ fetch }).session(id);
  await session.append([{ role: "system", content: SYSTEM }], { model: SESSION_MODEL });
  await session.update({ contextWindow, model: SESSION_MODEL });
  return session;
}

/** A fetch into the Worker that counts the overflow reports it carries. */
function overflowReports(): { fetch: FetchLike; count: () => number } {
  let reports = 0;
  return {
    fetch: (input, init) => {
      if (input.endsWith("/overflow")) reports++;
      return workerFetch(input, init);
    },
    count: () => reports,
  };
}

/** The requests the server refused as too long, and whether the request after each one fit. */
function overflowsAndRetries(log: LogEntry[]): { overflows: number; retriesOverLimit: number } {
  let overflows = 0;
  let retriesOverLimit = 0;
  log.forEach((entry, index) => {
    if (!entry.overLimit) return;
    overflows++;
    if (log[index + 1]?.overLimit === true) retriesOverLimit++;
  });
  return { overflows, retriesOverLimit };
}

describe("withCompaction: a long conversation against a model that refuses over-limit prompts", () => {
  // 67 s alone on a quiet 2-core machine; beside the other packages' suites it passed 120 s.
  it("runs 300 turns (streaming and not, with tool calls) without a failure; every recovery's retry fits", {
    timeout: 360_000,
  }, async () => {
    const name = `long-chat-${crypto.randomUUID()}`;
    // The provider counts 1.5 characters per token (the engine about 4) and reports no usage, so the
    // session only learns the real size from the overflow errors.
    const limit = 80_000;
    await registerScenario({ name, limit, charsPerToken: 1.5, reportUsage: false, toolEvery: 3 });
    const session = await newSession(limit);
    const recoveries: RecoveryEvent[] = [];
    const ai = withCompaction(openaiClient(), {
      session,
      model: SESSION_MODEL,
      onRecovery: (event) => recoveries.push(event),
    });

    let pending: ChatCompletionMessageParam[] = [{ role: "user", content: userText(0) }];
    let toolResultsSent = 0;
    for (let turn = 0; turn < 300; turn++) {
      let callIds: string[] = [];
      if (turn % 2 === 0) {
        const completion = await ai.chat.completions.create({
          model: name,
          messages: pending,
          tools,
        });
        callIds = (completion.choices[0]?.message.tool_calls ?? []).map((call) => call.id);
      } else {
        const stream = await ai.chat.completions.create({
          model: name,
          messages: pending,
          tools,
          stream: true,
        });
        for await (const chunk of stream) {
          for (const call of chunk.choices[0]?.delta.tool_calls ?? [])
            if (call.id !== undefined) callIds.push(call.id);
        }
      }
      toolResultsSent += pending.filter((message) => message.role === "tool").length;
      pending =
        callIds.length > 0
          ? callIds.map((id) => ({
              role: "tool" as const,
              tool_call_id: id,
              content: toolOutput(id),
            }))
          : [{ role: "user", content: userText(turn + 1) }];
    }

    const log = await serverLog(name);
    const { overflows, retriesOverLimit } = overflowsAndRetries(log);
    // The scenario must actually exercise recovery, or this test proves nothing.
    expect(overflows).toBeGreaterThan(0);
    expect(recoveries).toHaveLength(overflows);
    expect(retriesOverLimit).toBe(0);
    // 300 answered requests, plus one refused request per recovery.
    expect(log.filter((entry) => entry.status === 200)).toHaveLength(300);
    expect(log).toHaveLength(300 + overflows);
    // The head survives every compaction.
    expect(log.every((entry) => entry.system === SYSTEM)).toBe(true);

    // Nothing is lost: the transcript holds every message sent and every answer, in order.
    const entries = [];
    for await (const entry of session.transcriptEntries({ limit: 1000 })) entries.push(entry);
    const roles = entries.map((entry) => entry.role);
    expect(roles[0]).toBe("system");
    expect(roles.filter((role) => role === "assistant")).toHaveLength(300);
    expect(roles.filter((role) => role === "tool")).toHaveLength(toolResultsSent);
    expect(toolResultsSent).toBe(99);
    expect(entries).toHaveLength(1 + 300 + 300);
    console.info(
      `long chat: ${overflows} overflow(s) recovered, ${recoveries.map((r) => `${r.tokens} tokens after ${r.passes} pass(es)`).join("; ")}`,
    );
    const status = await session.status();
    expect(status.compactions).toBeGreaterThan(0);
    expect(status.calibration.samples).toBeGreaterThan(0);
  });
});

/**
 * A provider whose tokenizer counts far more tokens than the engine's (1.5 characters per token)
 * and reports no usage: with turns of ~3 000 characters the first overflow comes within 20 turns.
 * (The window must leave the engine room to summarize: below ~16k tokens it declines to compact.)
 */
async function shortRun(name: string, extra: Partial<Parameters<typeof registerScenario>[0]> = {}) {
  await registerScenario({ name, limit: 40_000, charsPerToken: 1.5, reportUsage: false, ...extra });
  return newSession(40_000);
}

/** A turn of about 3 000 characters. */
function bulkyText(turn: number): string {
  return `${userText(turn)}\n${toolOutput(`turn_${turn}`).slice(0, 2_400)}`;
}

describe("withCompaction: recovery from each provider's overflow error", () => {
  it.each(OVERFLOW_PROVIDERS)("recovers from %s's overflow error and goes on", async (provider) => {
    const name = `provider-${provider}-${crypto.randomUUID()}`;
    const session = await shortRun(name, { providers: [provider] });
    const recoveries: RecoveryEvent[] = [];
    const ai = withCompaction(openaiClient(), {
      session,
      model: SESSION_MODEL,
      onRecovery: (e) => recoveries.push(e),
    });
    for (let turn = 0; turn < 30; turn++) {
      const reply = await ai.chat.completions.create({
        model: name,
        messages: [{ role: "user", content: bulkyText(turn) }],
      });
      expect(reply.choices[0]?.message.content).toMatch(/^Answer \d+/);
    }
    const log = await serverLog(name);
    const refused = log.filter((entry) => entry.overLimit);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((entry) => entry.provider === provider)).toBe(true);
    expect(overflowsAndRetries(log).retriesOverLimit).toBe(0);
    expect(recoveries).toHaveLength(refused.length);
    // The error's token count taught the session how the provider counts.
    const status = await session.status();
    expect(status.calibration.samples).toBeGreaterThan(0);
    expect(status.calibration.ratio).toBeGreaterThan(1.2);
  });
});

describe("withCompaction: errors it must not swallow", () => {
  it("throws a rate limit exactly as the provider sent it, and compacts nothing", async () => {
    const name = `rate-limited-${crypto.randomUUID()}`;
    await registerScenario({
      name,
      limit: 1_000_000,
      fail: {
        status: 429,
        body: {
          error: {
            message: "Rate limit reached for requests per min (RPM)",
            type: "requests",
            code: "rate_limit_exceeded",
          },
        },
      },
    });
    const session = await newSession(8_000);
    const ai = withCompaction(openaiClient(), { session, model: SESSION_MODEL });
    const error = await ai.chat.completions
      .create({ model: name, messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(429);
    expect((error as APIError).message).toContain("Rate limit reached");
    expect(await serverLog(name)).toHaveLength(1);
    expect(await session.compactions()).toEqual([]);
  });

  it("gives up after two recoveries and throws the first overflow error", async () => {
    const name = `hopeless-${crypto.randomUUID()}`;
    // The provider counts a third more than the engine does for gpt-4o (characters / 3): at a
    // window of 160 the session's context fits by the engine's count (which for gpt-4o is never
    // calibrated), and is refused by the provider's, every time; three providers in turn.
    await registerScenario({ name, limit: 160, providers: ["openai", "anthropic", "vllm"] });
    const reports = overflowReports();
    const session = client({ fetch: reports.fetch }).session(freshId("wc"));
    await session.append([{ role: "system", content: SYSTEM }], { model: "gpt-4o" });
    await session.update({ contextWindow: 8_000, model: "gpt-4o" });
    const recoveries: RecoveryEvent[] = [];
    const ai = withCompaction(openaiClient(), {
      session,
      model: "gpt-4o",
      onRecovery: (e) => recoveries.push(e),
    });
    const error = await ai.chat.completions
      .create({ model: name, messages: [{ role: "user", content: userText(1) }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(400);
    expect((error as APIError).message).toContain("your messages resulted in"); // OpenAI's, the first one
    const log = await serverLog(name);
    expect(log.map((entry) => entry.provider)).toEqual(["openai", "anthropic", "vllm"]);
    expect(recoveries.map((event) => event.attempt)).toEqual([1, 2]);
    // The third refusal is not reported: no retry would use what its compaction made.
    expect(reports.count()).toBe(2);
  });

  it("throws the first overflow error at once when no context fits the window it states", async () => {
    const name = `nothing-fits-${crypto.randomUUID()}`;
    // Nothing fits a 10-token window: the session says so (`context_over_window`, issue 33), and
    // the same context is not sent again for nothing.
    await registerScenario({ name, limit: 10 });
    const reports = overflowReports();
    const session = await newSession(8_000, freshId("wc"), reports.fetch);
    const recoveries: RecoveryEvent[] = [];
    const ai = withCompaction(openaiClient(), {
      session,
      model: SESSION_MODEL,
      onRecovery: (e) => recoveries.push(e),
    });
    const error = await ai.chat.completions
      .create({ model: name, messages: [{ role: "user", content: userText(1) }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).message).toContain("maximum context length is 10 tokens");
    expect(await serverLog(name)).toHaveLength(1);
    expect(recoveries).toEqual([]);
    expect(reports.count()).toBe(1);
  });

  it("with maxRecoveries 0, sends once and throws the overflow", async () => {
    const name = `no-recovery-${crypto.randomUUID()}`;
    await registerScenario({ name, limit: 10 });
    const reports = overflowReports();
    const session = await newSession(8_000, freshId("wc"), reports.fetch);
    const ai = withCompaction(openaiClient(), { session, model: SESSION_MODEL, maxRecoveries: 0 });
    await expect(
      ai.chat.completions.create({ model: name, messages: [{ role: "user", content: "hi" }] }),
    ).rejects.toThrow(/maximum context length/);
    expect(await serverLog(name)).toHaveLength(1);
    // No recovery wanted, so the session is not compacted for one either.
    expect(reports.count()).toBe(0);
  });
});

describe("withCompaction: what reaches the session", () => {
  it("sends the session's context, not the caller's messages, and stores the answer", async () => {
    const name = `context-${crypto.randomUUID()}`;
    await registerScenario({ name, limit: 1_000_000 });
    const session = await newSession(64_000);
    const ai = withCompaction(openaiClient(), { session, model: SESSION_MODEL });
    await ai.chat.completions.create({
      model: name,
      messages: [{ role: "user", content: "first question" }],
    });
    await ai.chat.completions.create({
      model: name,
      messages: [{ role: "user", content: "second question" }],
    });
    const log = await serverLog(name);
    // system + first question, then system + first question + answer + second question.
    expect(log.map((entry) => entry.items)).toEqual([2, 4]);
    const transcript = await session.transcript();
    expect(transcript.messages.map((entry) => [entry.role, entry.message.content])).toEqual([
      ["system", SYSTEM],
      ["user", "first question"],
      ["assistant", expect.stringMatching(/^Answer 1:/)],
      ["user", "second question"],
      ["assistant", expect.stringMatching(/^Answer 2:/)],
    ]);
  });

  it("passes stream chunks through, hides the usage chunk it asked for, and stores the assembled tool call", async () => {
    const name = `stream-${crypto.randomUUID()}`;
    await registerScenario({ name, limit: 1_000_000, toolEvery: 1 });
    const session = await newSession(64_000);
    const ai = withCompaction(openaiClient(), { session, model: SESSION_MODEL });
    const stream = await ai.chat.completions.create({
      model: name,
      messages: [{ role: "user", content: bulkyText(0) }],
      tools,
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.every((chunk) => chunk.choices.length === 1)).toBe(true);
    const args = chunks
      .map((chunk) => chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? "")
      .join("");
    expect(args).toBe(JSON.stringify({ path: "src/module_1.ts" }));

    const transcript = await session.transcript();
    const answer = transcript.messages.at(-1);
    expect(answer?.message).toMatchObject({
      role: "assistant",
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "read_file", arguments: args } },
      ],
    });
    // The usage the wrapper asked for reached the session.
    expect((await session.status()).calibration.samples).toBe(1);
  });

  it("lets the usage chunk through when the caller asked for it", async () => {
    const name = `stream-usage-${crypto.randomUUID()}`;
    await registerScenario({ name, limit: 1_000_000 });
    const session = await newSession(64_000);
    const ai = withCompaction(openaiClient(), { session, model: SESSION_MODEL });
    const stream = await ai.chat.completions.create({
      model: name,
      messages: [{ role: "user", content: userText(0) }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const usage = [];
    for await (const chunk of stream) if (chunk.usage) usage.push(chunk.usage.prompt_tokens);
    expect(usage).toHaveLength(1);
    expect(usage[0]).toBe((await serverLog(name))[0]?.tokens);
  });

  it("stores nothing for a stream the caller abandons", async () => {
    const name = `abandoned-${crypto.randomUUID()}`;
    await registerScenario({ name, limit: 1_000_000, answerChars: 2_000 });
    const session = await newSession(64_000);
    const ai = withCompaction(openaiClient(), { session, model: SESSION_MODEL });
    const stream = await ai.chat.completions.create({
      model: name,
      messages: [{ role: "user", content: "tell me a long story" }],
      stream: true,
    });
    for await (const _chunk of stream) break;
    const transcript = await session.transcript();
    expect(transcript.messages.map((entry) => entry.role)).toEqual(["system", "user"]);
  });

  it("reports each answer's prompt tokens, which calibrate the session", async () => {
    const name = `usage-${crypto.randomUUID()}`;
    await registerScenario({ name, limit: 1_000_000, charsPerToken: 2.5 });
    const session = await newSession(64_000);
    const ai = withCompaction(openaiClient(), { session, model: SESSION_MODEL });
    for (let turn = 0; turn < 5; turn++) {
      await ai.chat.completions.create({
        model: name,
        messages: [{ role: "user", content: bulkyText(turn) }],
      });
    }
    const { calibration } = await session.status();
    expect(calibration.samples).toBe(5);
    // 2.5 characters per token against the engine's ~4: the ratio moves well above 1.
    expect(calibration.ratio).toBeGreaterThan(1.2);
  });

  it("keeps an answer whose append failed and appends it first on the next call", async () => {
    const name = `append-fails-${crypto.randomUUID()}`;
    await registerScenario({ name, limit: 1_000_000 });
    const id = freshId("wc");
    await newSession(64_000, id);
    let failAssistantAppends = true;
    const flaky: FetchLike = async (input, init) => {
      if (
        failAssistantAppends &&
        typeof init.body === "string" &&
        init.body.includes('"role":"assistant"')
      ) {
        throw new TypeError("network connection lost");
      }
      return workerFetch(input, init);
    };
    const session = client({ fetch: flaky, maxRetries: 0 }).session(id);
    const appendErrors: unknown[] = [];
    const ai = withCompaction(openaiClient(), {
      session,
      model: SESSION_MODEL,
      onAppendError: (error) => appendErrors.push(error),
    });
    const first = await ai.chat.completions.create({
      model: name,
      messages: [{ role: "user", content: "one" }],
    });
    expect(first.choices[0]?.message.content).toMatch(/^Answer 1:/);
    expect(appendErrors).toHaveLength(1);
    failAssistantAppends = false;
    await ai.chat.completions.create({ model: name, messages: [{ role: "user", content: "two" }] });
    const transcript = await session.transcript();
    expect(transcript.messages.map((entry) => [entry.role, entry.message.content])).toEqual([
      ["system", SYSTEM],
      ["user", "one"],
      ["assistant", expect.stringMatching(/^Answer 1:/)],
      ["user", "two"],
      ["assistant", expect.stringMatching(/^Answer 2:/)],
    ]);
  });

  it("stores the messages of a failed call once when the caller repeats the call", async () => {
    const name = `retried-${crypto.randomUUID()}`;
    await registerScenario({ name, limit: 1_000_000 });
    const session = await newSession(64_000);
    let failures = 1;
    const flaky = new OpenAI({
      apiKey: "sk-test-model",
      baseURL: openaiClient().baseURL,
      maxRetries: 0,
      fetch: async (input: string | URL | Request, init?: RequestInit) => {
        if (failures-- > 0) throw new TypeError("network connection lost");
        return fetch(input, init);
      },
    });
    const ai = withCompaction(flaky, { session, model: SESSION_MODEL });
    const ask = () =>
      ai.chat.completions.create({
        model: name,
        messages: [{ role: "user", content: "what failed?" }],
      });
    await expect(ask()).rejects.toThrow(/Connection error/);
    // The app retries the same call: the question was stored by the first attempt, and stays one.
    await ask();
    // A new call with the same text after an answer is a new message.
    await ask();
    const transcript = await session.transcript();
    expect(transcript.messages.map((entry) => [entry.role, entry.message.content])).toEqual([
      ["system", SYSTEM],
      ["user", "what failed?"],
      ["assistant", expect.stringMatching(/^Answer 1:/)],
      ["user", "what failed?"],
      ["assistant", expect.stringMatching(/^Answer 2:/)],
    ]);
  });

  it("leaves the rest of the client as it was", async () => {
    const openai = openaiClient();
    const ai = withCompaction(openai, { session: client().session(freshId()) });
    expect(ai.baseURL).toBe(openai.baseURL);
    expect(ai.models).toBe(openai.models);
    expect(typeof ai.chat.completions.parse).toBe("function");
    expect(ai.chat.completions.create).not.toBe(openai.chat.completions.create);
  });
});

/**
 * An `openai` client whose every request is answered by a server-sent-event stream of `events`
 * that delivers one event each time the reader asks for more (highWaterMark 0): `delivered()` says
 * how many the source has handed out so far.
 */
function streamingModel(events: (index: number) => object[]): {
  openai: OpenAI;
  delivered: () => number;
} {
  let delivered = 0;
  let calls = 0;
  const encoder = new TextEncoder();
  const openai = new OpenAI({
    apiKey: "sk-test-model",
    baseURL: "https://model.test/v1",
    maxRetries: 0,
    fetch: async () => {
      const payloads = events(calls++);
      let next = 0;
      const body = new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            const payload = payloads[next++];
            if (payload === undefined) {
              controller.enqueue(encoder.encode("data: [DONE]\n\n"));
              controller.close();
              return;
            }
            delivered++;
            controller.enqueue(encoder.encode(`data: ${JSON.stringify(payload)}\n\n`));
          },
        },
        { highWaterMark: 0 },
      );
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    },
  });
  return { openai, delivered: () => delivered };
}

describe("withCompaction: streams pass through as they arrive", () => {
  const PIECES = 30;

  it("hands each Chat Completions chunk on before the next one is read, and stores the whole answer", async () => {
    const chunk = (delta: object, finish: string | null) => ({
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 1,
      model: "m",
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    const model = streamingModel(() => [
      ...Array.from({ length: PIECES }, (_, i) => chunk({ content: `piece${i} ` }, null)),
      chunk({}, "stop"),
    ]);
    const session = await newSession(64_000);
    const ai = withCompaction(model.openai, { session, model: SESSION_MODEL });
    const stream = await ai.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "stream please" }],
      stream: true,
    });
    const iterator = stream[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value?.choices[0]?.delta.content).toBe("piece0 ");
    // A wrapper that collected the stream first would have read all of it by now.
    expect(model.delivered()).toBeLessThan(PIECES);
    let rest = 0;
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next()) rest++;
    expect(rest).toBe(PIECES);

    const transcript = await session.transcript();
    expect(transcript.messages.at(-1)?.message).toEqual({
      role: "assistant",
      content: Array.from({ length: PIECES }, (_, i) => `piece${i} `).join(""),
    });
  });

  it("hands each Responses event on before the next one is read, and stores the completed output", async () => {
    const text = Array.from({ length: PIECES }, (_, i) => `piece${i} `).join("");
    const response = (status: string, output: object[]) => ({
      id: "resp_1",
      object: "response",
      created_at: 1,
      model: "m",
      status,
      output,
    });
    const message = {
      type: "message",
      id: "msg_1",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text, annotations: [] }],
    };
    const model = streamingModel(() => [
      { type: "response.created", sequence_number: 0, response: response("in_progress", []) },
      ...Array.from({ length: PIECES }, (_, i) => ({
        type: "response.output_text.delta",
        sequence_number: i + 1,
        item_id: "msg_1",
        output_index: 0,
        content_index: 0,
        delta: `piece${i} `,
      })),
      {
        type: "response.completed",
        sequence_number: PIECES + 1,
        response: response("completed", [message]),
      },
    ]);
    const session = await newSession(64_000);
    const ai = withCompaction(model.openai, { session, model: SESSION_MODEL });
    const stream = await ai.responses.create({ model: "m", input: "stream please", stream: true });
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).value?.type).toBe("response.created");
    expect((await iterator.next()).value?.type).toBe("response.output_text.delta");
    expect(model.delivered()).toBeLessThan(PIECES);
    const types: string[] = [];
    for (let next = await iterator.next(); next.done !== true; next = await iterator.next())
      types.push(next.value.type);
    expect(types.at(-1)).toBe("response.completed");

    const transcript = await session.transcript();
    expect(transcript.messages.at(-1)?.message).toMatchObject({ role: "assistant" });
    expect(JSON.stringify(transcript.messages.at(-1)?.message)).toContain("piece29");
  });
});

describe("withCompaction: the Responses API", () => {
  it("sends the session's items, stores output messages and function calls, streaming and not", async () => {
    const name = `responses-${crypto.randomUUID()}`;
    await registerScenario({ name, limit: 1_000_000, toolEvery: 2 });
    const session = await newSession(64_000);
    const ai = withCompaction(openaiClient(), { session, model: SESSION_MODEL });

    const first = await ai.responses.create({ model: name, input: bulkyText(7) });
    expect(first.output[0]?.type).toBe("message");
    const stream = await ai.responses.create({
      model: name,
      input: [{ role: "user", content: "Read its source." }],
      stream: true,
    });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types.at(0)).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");

    const output: ResponseInputItem[] = [
      { type: "function_call_output", call_id: "call_2", output: toolOutput("call_2") },
    ];
    await ai.responses.create({ model: name, input: output });

    const log = await serverLog(name);
    // system, user / + answer, user / + function call, its output.
    expect(log.map((entry) => entry.items)).toEqual([2, 4, 6]);
    const transcript = await session.transcript();
    expect(transcript.messages.map((entry) => entry.role)).toEqual([
      "system",
      "user",
      "assistant",
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(transcript.messages[4]?.message.tool_calls).toMatchObject([
      {
        id: "call_2",
        function: { name: "read_file", arguments: JSON.stringify({ path: "src/module_2.ts" }) },
      },
    ]);
    expect(transcript.messages[5]?.message).toMatchObject({ role: "tool", tool_call_id: "call_2" });
    expect((await session.status()).calibration.samples).toBe(3);
  });

  it("recovers from overflows over a 60-turn Responses conversation", async () => {
    const name = `responses-long-${crypto.randomUUID()}`;
    const session = await shortRun(name);
    const recoveries: RecoveryEvent[] = [];
    const ai = withCompaction(openaiClient(), {
      session,
      model: SESSION_MODEL,
      onRecovery: (e) => recoveries.push(e),
    });
    for (let turn = 0; turn < 60; turn++) {
      const stream = turn % 2 === 1;
      if (stream) {
        const events = await ai.responses.create({
          model: name,
          input: bulkyText(turn),
          stream: true,
        });
        for await (const _event of events) {
          // consumed
        }
      } else {
        await ai.responses.create({ model: name, input: bulkyText(turn) });
      }
    }
    const log = await serverLog(name);
    const { overflows, retriesOverLimit } = overflowsAndRetries(log);
    expect(overflows).toBeGreaterThan(0);
    expect(retriesOverLimit).toBe(0);
    expect(recoveries).toHaveLength(overflows);
    expect(log.filter((entry) => entry.status === 200)).toHaveLength(60);
  });

  it("refuses previous_response_id, which would make OpenAI keep a second copy of the history", async () => {
    const ai = withCompaction(openaiClient(), { session: client().session(freshId()) });
    await expect(
      ai.responses.create({ model: "m", input: "hi", previous_response_id: "resp_1" }),
    ).rejects.toThrow(/previous_response_id/);
  });
});

describe("withCompaction: concurrent calls on one session", () => {
  it("takes turns: each question is followed by its own answer, nothing lost or stored twice", async () => {
    const name = `concurrent-${crypto.randomUUID()}`;
    await registerScenario({ name, limit: 1_000_000 });
    const session = await newSession(64_000);
    // Two wrappers on two handles of the same session: they share its turn lock.
    const condense = client();
    const ai = withCompaction(openaiClient(), {
      session: condense.session(session.id),
      model: SESSION_MODEL,
    });
    const other = withCompaction(openaiClient(), {
      session: condense.session(session.id),
      model: SESSION_MODEL,
    });
    const questions = Array.from({ length: 6 }, (_, i) => `question ${i}`);
    const answers = await Promise.all(
      questions.map(async (question, i) => {
        const wrapper = i % 2 === 0 ? ai : other;
        const messages = [{ role: "user" as const, content: question }];
        if (i % 3 === 0) {
          const reply = await wrapper.chat.completions.create({ model: name, messages });
          return reply.choices[0]?.message.content ?? "";
        }
        if (i % 3 === 1) {
          const stream = await wrapper.chat.completions.create({
            model: name,
            messages,
            stream: true,
          });
          let text = "";
          for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
          return text;
        }
        const response = await wrapper.responses.create({ model: name, input: question });
        return response.output_text;
      }),
    );
    const transcript = await session.transcript();
    const entries = transcript.messages.slice(1);
    expect(entries).toHaveLength(12);
    expect(entries.filter((_, i) => i % 2 === 0).map((entry) => entry.message.content)).toEqual(
      questions,
    );
    answers.forEach((answer, i) => {
      expect(entries[2 * i + 1]?.role).toBe("assistant");
      expect(JSON.stringify(entries[2 * i + 1]?.message)).toContain(answer.slice(0, 40));
    });
    // The n-th request saw the system prompt and the 2n-1 messages before it.
    expect((await serverLog(name)).map((entry) => entry.items)).toEqual([2, 4, 6, 8, 10, 12]);
  });
});
