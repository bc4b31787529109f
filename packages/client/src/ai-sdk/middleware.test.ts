import type { LanguageModelV4Prompt, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import {
  APICallError,
  generateText,
  jsonSchema,
  type ModelMessage,
  stepCountIs,
  streamText,
  tool,
  wrapLanguageModel,
} from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { type MockCall, mockModel } from "../../test/ai-sdk-model.js";
import { client, freshId } from "../../test/worker.js";
import type { RecoveryEvent } from "../conversation.js";
import type { SessionHandle } from "../session.js";
import { condenseMiddleware } from "./middleware.js";

const SESSION_MODEL = "llama-3.1-70b-instruct";
const SYSTEM = "You are a coding agent working in the repository acme/widgets.";

const tools = {
  read_file: tool({
    description: "Read a file",
    inputSchema: jsonSchema<{ path: string }>({
      type: "object",
      properties: { path: { type: "string" } },
      required: ["path"],
    }),
    execute: async ({ path }) =>
      Array.from(
        { length: 30 },
        (_, i) => `${i + 1}: // ${path} line ${i + 1} renders widget`,
      ).join("\n"),
  }),
};

function userText(turn: number): string {
  return `Turn ${turn}: ticket TICKET-${1000 + turn} reports that widget ${turn} renders twice. ${"Please look at the render loop and the cache invalidation, then report what you find. ".repeat(8)}`;
}

async function newSession(contextWindow: number): Promise<SessionHandle> {
  const session = client().session(freshId("ai"));
  await session.update({ contextWindow, model: SESSION_MODEL });
  return session;
}

async function transcriptOf(session: SessionHandle) {
  const entries = [];
  for await (const entry of session.transcriptEntries({ limit: 1000 })) entries.push(entry);
  return entries;
}

function roles(prompt: LanguageModelV4Prompt): string[] {
  return prompt.map((message) => message.role);
}

/** Every key of the transcript's messages appears once (nothing stored twice). */
function expectNoDuplicates(entries: Array<{ message: unknown }>): void {
  const keys = entries.map((entry) => JSON.stringify(entry.message));
  expect(new Set(keys).size).toBe(keys.length);
}

describe("condenseMiddleware: generateText and streamText on a session", () => {
  it("runs a multi-step tool loop (stopWhen), appending each message once and sending the session's context", async () => {
    const session = await newSession(64_000);
    const { model, log } = mockModel({ limit: 1_000_000, toolEvery: 2 });
    const wrapped = wrapLanguageModel({
      model,
      middleware: condenseMiddleware({ session, model: SESSION_MODEL }),
    });
    // Answer 1 is text, 2 a tool call, 3 text: two generateText calls, the second a two-step loop.
    const first = await generateText({
      model: wrapped,
      system: SYSTEM,
      prompt: userText(1),
      tools,
    });
    const messages: ModelMessage[] = [
      { role: "user", content: userText(1) },
      ...first.responseMessages,
      { role: "user", content: userText(2) },
    ];
    const second = await generateText({
      model: wrapped,
      system: SYSTEM,
      messages,
      tools,
      stopWhen: stepCountIs(5),
    });
    expect(second.steps).toHaveLength(2);
    expect(second.text).toMatch(/^Answer 3/);

    const entries = await transcriptOf(session);
    expect(entries.map((entry) => entry.role)).toEqual([
      "system",
      "user",
      "assistant",
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(entries[4]?.message.tool_calls).toEqual([
      {
        id: "call_2",
        type: "function",
        function: { name: "read_file", arguments: '{"path":"src/module_2.ts"}' },
      },
    ]);
    expect(entries[5]?.message).toMatchObject({ role: "tool", tool_call_id: "call_2" });
    expectNoDuplicates(entries);
    // The model got the session's context: system, then the conversation so far.
    expect(log.map((call) => roles(call.prompt))).toEqual([
      ["system", "user"],
      ["system", "user", "assistant", "user"],
      ["system", "user", "assistant", "user", "assistant", "tool"],
    ]);
    // Each answer's prompt tokens calibrated the session.
    expect((await session.status()).calibration.samples).toBe(3);
  });

  it("streams a tool loop through streamText part by part and stores the assembled answers once", async () => {
    const session = await newSession(64_000);
    const { model, log } = mockModel({ limit: 1_000_000, toolEvery: 1 });
    let calls = 0;
    // Tool call first, then text: answer 1 is a call; answers after it are text.
    const textAfterFirst = mockModel({ limit: 1_000_000 });
    const mixed = new MockLanguageModelV4({
      doStream: async (options) => {
        calls++;
        return calls === 1 ? model.doStream(options) : textAfterFirst.model.doStream(options);
      },
    });
    const wrapped = wrapLanguageModel({
      model: mixed,
      middleware: condenseMiddleware({ session, model: SESSION_MODEL }),
    });
    const result = streamText({
      model: wrapped,
      system: SYSTEM,
      prompt: userText(1),
      tools,
      stopWhen: stepCountIs(3),
    });
    let deltas = 0;
    for await (const part of result.fullStream) if (part.type === "text-delta") deltas++;
    expect(deltas).toBeGreaterThan(2);
    expect(await result.text).toMatch(/^Answer 1/);
    expect(log).toHaveLength(1);
    expect(roles(textAfterFirst.log[0]?.prompt ?? [])).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
    ]);

    const entries = await transcriptOf(session);
    expect(entries.map((entry) => entry.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(entries[4]?.message.content).toBe(await result.text);
    expectNoDuplicates(entries);
    expect((await session.status()).calibration.samples).toBe(2);
  });

  it("hands each stream part on before the next one is read", async () => {
    const session = await newSession(64_000);
    let delivered = 0;
    const PIECES = 20;
    const model = new MockLanguageModelV4({
      doStream: async () => {
        const parts: LanguageModelV4StreamPart[] = [
          { type: "stream-start", warnings: [] },
          { type: "text-start", id: "t" },
          ...Array.from(
            { length: PIECES },
            (_, i): LanguageModelV4StreamPart => ({
              type: "text-delta",
              id: "t",
              delta: `piece${i} `,
            }),
          ),
          { type: "text-end", id: "t" },
          {
            type: "finish",
            finishReason: { unified: "stop", raw: undefined },
            usage: {
              inputTokens: {
                total: 10,
                noCache: undefined,
                cacheRead: undefined,
                cacheWrite: undefined,
              },
              outputTokens: { total: 10, text: 10, reasoning: undefined },
            },
          },
        ];
        let next = 0;
        const stream = new ReadableStream<LanguageModelV4StreamPart>(
          {
            pull(controller) {
              const part = parts[next++];
              if (part === undefined) controller.close();
              else {
                delivered++;
                controller.enqueue(part);
              }
            },
          },
          { highWaterMark: 0 },
        );
        return { stream };
      },
    });
    const wrapped = wrapLanguageModel({ model, middleware: condenseMiddleware({ session }) });
    const result = await wrapped.doStream({
      prompt: [{ role: "user", content: [{ type: "text", text: "go" }] }],
    });
    const reader = result.stream.getReader();
    let first = await reader.read();
    while (first.value?.type !== "text-delta") first = await reader.read();
    // A wrapper that collected the stream first would have read all of it by now.
    expect(delivered).toBeLessThan(PIECES);
    for (let next = await reader.read(); next.done !== true; next = await reader.read()) {
      // consumed
    }
    const entries = await transcriptOf(session);
    expect(entries.at(-1)?.message).toEqual({
      role: "assistant",
      content: Array.from({ length: PIECES }, (_, i) => `piece${i} `).join(""),
    });
  });

  it("stores nothing for a stream its reader cancels, and frees the session for the next call", async () => {
    const session = await newSession(64_000);
    const { model } = mockModel({ limit: 1_000_000, answer: () => "x".repeat(2_000) });
    const wrapped = wrapLanguageModel({ model, middleware: condenseMiddleware({ session }) });
    const result = await wrapped.doStream({
      prompt: [{ role: "user", content: [{ type: "text", text: "long story" }] }],
    });
    const reader = result.stream.getReader();
    await reader.read();
    await reader.cancel();
    const next = await generateText({ model: wrapped, prompt: "short one" });
    expect(next.text).toBe("x".repeat(2_000));
    const entries = await transcriptOf(session);
    expect(entries.map((entry) => [entry.role, entry.message.content])).toEqual([
      ["user", "long story"],
      ["user", "short one"],
      ["assistant", "x".repeat(2_000)],
    ]);
  });
});

describe("condenseMiddleware: which messages are new", () => {
  it("appends only what the session lacks, whether the caller sends the whole history, a window of it, or only the new turn", async () => {
    const session = await newSession(64_000);
    const { model } = mockModel({ limit: 1_000_000 });
    const wrapped = wrapLanguageModel({ model, middleware: condenseMiddleware({ session }) });
    const history: ModelMessage[] = [];
    const ask = async (messages: ModelMessage[]) => {
      const result = await generateText({ model: wrapped, system: SYSTEM, messages });
      return result.responseMessages;
    };
    history.push({ role: "user", content: "one" });
    history.push(...(await ask(history)));
    history.push({ role: "user", content: "two" });
    history.push(...(await ask(history)));
    // A window of the latest messages, then only the new turn.
    history.push({ role: "user", content: "three" });
    history.push(...(await ask(history.slice(-3))));
    history.push({ role: "user", content: "four" });
    history.push(...(await ask([{ role: "user", content: "four" }])));
    // The same text again, after an answer, is a new message.
    history.push({ role: "user", content: "four" });
    history.push(...(await ask(history)));

    const entries = await transcriptOf(session);
    expect(entries.map((entry) => [entry.role, String(entry.message.content).slice(0, 9)])).toEqual(
      [
        ["system", SYSTEM.slice(0, 9)],
        ["user", "one"],
        ["assistant", "Answer 1 "],
        ["user", "two"],
        ["assistant", "Answer 2 "],
        ["user", "three"],
        ["assistant", "Answer 3 "],
        ["user", "four"],
        ["assistant", "Answer 4 "],
        ["user", "four"],
        ["assistant", "Answer 5 "],
      ],
    );
  });

  it("adds no duplicate when the caller's history lost a tool loop's middle steps (kept only the last step's messages)", async () => {
    const session = await newSession(64_000);
    const { model } = mockModel({ limit: 1_000_000, toolEvery: 2 });
    const wrapped = wrapLanguageModel({ model, middleware: condenseMiddleware({ session }) });
    const history: ModelMessage[] = [{ role: "user", content: "one" }];
    history.push(
      ...(await generateText({ model: wrapped, messages: history, tools })).responseMessages,
    );
    history.push({ role: "user", content: "two" });
    // A two-step loop (a tool call, then text); the caller keeps only the final step's answer.
    const loop = await generateText({
      model: wrapped,
      messages: history,
      tools,
      stopWhen: stepCountIs(3),
    });
    expect(loop.steps).toHaveLength(2);
    history.push(...loop.finalStep.response.messages);
    history.push({ role: "user", content: "three" });
    await generateText({ model: wrapped, messages: history, tools });
    const entries = await transcriptOf(session);
    expect(entries.map((entry) => entry.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
      "assistant",
    ]);
    expectNoDuplicates(entries);
  });

  it("passes each answer's cached tokens with its append, so the session's bill is what the provider counted", async () => {
    const session = await newSession(64_000);
    const usage = (cacheRead: number, cacheWrite: number) => ({
      inputTokens: { total: 1_000, noCache: 1_000 - cacheRead - cacheWrite, cacheRead, cacheWrite },
      outputTokens: { total: 1, text: 1, reasoning: undefined },
    });
    let calls = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        calls++;
        return {
          content: [{ type: "text", text: `answer ${calls}` }],
          finishReason: { unified: "stop", raw: undefined },
          usage: calls === 1 ? usage(0, 900) : usage(900, 50),
          warnings: [],
        };
      },
      doStream: async () => ({
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            for (const part of [
              { type: "text-start", id: "t" },
              { type: "text-delta", id: "t", delta: "streamed" },
              { type: "text-end", id: "t" },
              {
                type: "finish",
                finishReason: { unified: "stop", raw: undefined },
                usage: usage(950, 0),
              },
            ] satisfies LanguageModelV4StreamPart[])
              controller.enqueue(part);
            controller.close();
          },
        }),
      }),
    });
    const wrapped = wrapLanguageModel({ model, middleware: condenseMiddleware({ session }) });
    const history: ModelMessage[] = [{ role: "user", content: "one" }];
    history.push(...(await generateText({ model: wrapped, messages: history })).responseMessages);
    history.push({ role: "user", content: "two" });
    history.push(...(await generateText({ model: wrapped, messages: history })).responseMessages);
    history.push({ role: "user", content: "three" });
    const streamed = streamText({ model: wrapped, messages: history });
    await streamed.consumeStream();
    const { bill } = await session.status();
    expect(bill.reported).toMatchObject({
      turns: 3,
      inputTokens: 3_000,
      cacheReadTokens: 1_850,
      cacheWriteTokens: 950,
    });
  });

  it("stores a tool call's arguments as the model wrote them, and knows the call again in the SDK's parsed form", async () => {
    const session = await newSession(64_000);
    const raw = '{ "path" : "src/a.ts" }';
    let calls = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        calls++;
        return {
          content:
            calls === 1
              ? [{ type: "tool-call", toolCallId: "call_raw", toolName: "read_file", input: raw }]
              : [{ type: "text", text: "done" }],
          finishReason: { unified: calls === 1 ? "tool-calls" : "stop", raw: undefined },
          usage: {
            inputTokens: {
              total: 10,
              noCache: undefined,
              cacheRead: undefined,
              cacheWrite: undefined,
            },
            outputTokens: { total: 1, text: 1, reasoning: undefined },
          },
          warnings: [],
        };
      },
    });
    const wrapped = wrapLanguageModel({ model, middleware: condenseMiddleware({ session }) });
    await generateText({ model: wrapped, prompt: "read a", tools, stopWhen: stepCountIs(3) });
    const entries = await transcriptOf(session);
    expect(entries.map((entry) => entry.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(entries[1]?.message.tool_calls).toMatchObject([{ function: { arguments: raw } }]);
  });

  it("knows what the session holds after a restart (a new middleware reads the transcript once)", async () => {
    const session = await newSession(64_000);
    const { model } = mockModel({ limit: 1_000_000 });
    const history: ModelMessage[] = [{ role: "user", content: "one" }];
    const first = wrapLanguageModel({ model, middleware: condenseMiddleware({ session }) });
    history.push(
      ...(await generateText({ model: first, system: SYSTEM, messages: history })).responseMessages,
    );
    history.push({ role: "user", content: "two" });
    const restarted = wrapLanguageModel({ model, middleware: condenseMiddleware({ session }) });
    await generateText({ model: restarted, system: SYSTEM, messages: history });
    const entries = await transcriptOf(session);
    expect(entries.map((entry) => entry.role)).toEqual([
      "system",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
  });

  it("keeps every part across the session: files, images, reasoning with its signature, tool results of each kind", async () => {
    const session = await newSession(64_000);
    const { model, log } = mockModel({ limit: 1_000_000 });
    const png = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13]);
    const prompt: LanguageModelV4Prompt = [
      { role: "system", content: SYSTEM },
      {
        role: "user",
        content: [
          { type: "text", text: "Look at these." },
          { type: "file", mediaType: "image/png", data: { type: "data", data: png } },
          {
            type: "file",
            mediaType: "application/pdf",
            data: { type: "data", data: "JVBERi0xLjQK" },
          },
          {
            type: "file",
            mediaType: "image",
            data: { type: "url", url: new URL("https://example.com/a.png") },
          },
        ],
      },
      {
        role: "assistant",
        content: [
          {
            type: "reasoning",
            text: "The PDF is a spec.",
            providerOptions: { anthropic: { signature: "sig-1" } },
          },
          { type: "text", text: "Reading both files." },
          {
            type: "tool-call",
            toolCallId: "call_a",
            toolName: "read_file",
            input: { path: "a.ts" },
          },
          {
            type: "tool-call",
            toolCallId: "call_b",
            toolName: "read_file",
            input: { path: "b.ts" },
          },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "call_a",
            toolName: "read_file",
            output: { type: "json", value: { lines: 3 } },
          },
          {
            type: "tool-result",
            toolCallId: "call_b",
            toolName: "read_file",
            output: { type: "error-text", value: "ENOENT: b.ts" },
          },
        ],
      },
      { role: "user", content: [{ type: "text", text: "Go on." }] },
    ];
    // Within the process the prompt comes back exactly as it was sent.
    const wrapped = wrapLanguageModel({ model, middleware: condenseMiddleware({ session }) });
    await wrapped.doGenerate({ prompt });
    expect(log[0]?.prompt).toEqual(prompt);

    // A new middleware (as after a restart), sent only a new turn, rebuilds the rest from what the
    // session stored: every part is there, in the forms the canonical format has for them.
    const restarted = wrapLanguageModel({ model, middleware: condenseMiddleware({ session }) });
    await restarted.doGenerate({
      prompt: [{ role: "user", content: [{ type: "text", text: "Next." }] }],
    });
    const rebuilt = (log[1] as MockCall).prompt;
    expect(rebuilt.slice(0, 5)).toEqual([
      { role: "system", content: SYSTEM },
      {
        role: "user",
        content: [
          { type: "text", text: "Look at these." },
          {
            type: "file",
            mediaType: "image/png",
            data: { type: "data", data: "iVBORw0KGgoAAAAN" },
          },
          {
            type: "file",
            mediaType: "application/pdf",
            data: { type: "data", data: "JVBERi0xLjQK" },
          },
          {
            type: "file",
            mediaType: "image",
            data: { type: "url", url: new URL("https://example.com/a.png") },
          },
        ],
      },
      {
        role: "assistant",
        content: [
          {
            type: "reasoning",
            text: "The PDF is a spec.",
            providerOptions: { anthropic: { signature: "sig-1" } },
          },
          { type: "text", text: "Reading both files." },
          {
            type: "tool-call",
            toolCallId: "call_a",
            toolName: "read_file",
            input: { path: "a.ts" },
          },
          {
            type: "tool-call",
            toolCallId: "call_b",
            toolName: "read_file",
            input: { path: "b.ts" },
          },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "call_a",
            toolName: "read_file",
            output: { type: "text", value: '{"lines":3}' },
          },
          {
            type: "tool-result",
            toolCallId: "call_b",
            toolName: "read_file",
            output: { type: "error-text", value: "ENOENT: b.ts" },
          },
        ],
      },
      { role: "user", content: [{ type: "text", text: "Go on." }] },
    ]);
    const entries = await transcriptOf(session);
    expect(entries.map((entry) => entry.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "tool",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
  });
});

describe("condenseMiddleware: files, audio and provider data", () => {
  const pdf = btoa("%PDF-1.7\n<< /Type /Page >>\n%%EOF");
  const wav = btoa(
    `RIFF\0\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0\0\0\0\0\x10\x27\0\0\x02\0\x10\0data\x10\x00\0\0${"\0".repeat(16)}`,
  );
  const reasoning = (text: string, signature: string) => ({
    type: "reasoning" as const,
    text,
    providerOptions: { anthropic: { signature } },
  });

  it("stores a PDF as a file part and an audio file as input_audio, and a restarted middleware gives them back as files", async () => {
    const session = await newSession(64_000);
    // No usage reported: the session's own count, uncalibrated.
    const { model, log } = mockModel({ limit: 1_000_000, reportUsage: false });
    const prompt: LanguageModelV4Prompt = [
      {
        role: "user",
        content: [
          { type: "text", text: "Read the spec and the memo." },
          {
            type: "file",
            mediaType: "application/pdf",
            filename: "spec.pdf",
            data: { type: "data", data: pdf },
          },
          { type: "file", mediaType: "audio/wav", data: { type: "data", data: wav } },
          { type: "file", mediaType: "text/csv", data: { type: "data", data: btoa("a,b\n1,2") } },
        ],
      },
    ];
    const wrapped = wrapLanguageModel({ model, middleware: condenseMiddleware({ session }) });
    await wrapped.doGenerate({ prompt });

    const [stored] = await transcriptOf(session);
    expect(stored?.message).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Read the spec and the memo." },
        {
          type: "file",
          file: { file_data: `data:application/pdf;base64,${pdf}`, filename: "spec.pdf" },
        },
        { type: "input_audio", input_audio: { data: wav, format: "wav" } },
        { type: "file", file: { file_data: `data:text/csv;base64,${btoa("a,b\n1,2")}` } },
      ],
    });
    // The session counts the PDF as a page (3,000 tokens, plus the model's margin), not as an image.
    const { tokens } = await session.context();
    expect(tokens).toBeGreaterThan(3_000);
    expect(tokens).toBeLessThan(4_000);

    const restarted = wrapLanguageModel({ model, middleware: condenseMiddleware({ session }) });
    await restarted.doGenerate({
      prompt: [{ role: "user", content: [{ type: "text", text: "Next." }] }],
    });
    expect((log[1] as MockCall).prompt[0]).toEqual(prompt[0]);
  });

  it("rebuilds each message's own reasoning after a restart, from the context's provider data", async () => {
    const session = await newSession(64_000);
    const { model, log } = mockModel({ limit: 1_000_000 });
    // Two answers that read the same (same text, no calls) but thought differently.
    const prompt: LanguageModelV4Prompt = [
      { role: "user", content: [{ type: "text", text: "First question?" }] },
      {
        role: "assistant",
        content: [reasoning("Think about the first.", "sig-first"), { type: "text", text: "OK." }],
      },
      { role: "user", content: [{ type: "text", text: "Second question?" }] },
      {
        role: "assistant",
        content: [
          reasoning("Think about the second.", "sig-second"),
          { type: "text", text: "OK." },
        ],
      },
      { role: "user", content: [{ type: "text", text: "Go on." }] },
    ];
    const first = wrapLanguageModel({ model, middleware: condenseMiddleware({ session }) });
    await first.doGenerate({ prompt });
    expect(log[0]?.prompt).toEqual(prompt);

    const restarted = wrapLanguageModel({ model, middleware: condenseMiddleware({ session }) });
    await restarted.doGenerate({
      prompt: [{ role: "user", content: [{ type: "text", text: "Next." }] }],
    });
    const rebuilt = (log[1] as MockCall).prompt;
    expect(rebuilt.slice(0, 5)).toEqual(prompt);
  });

  it("keeps the reasoning of an overflow retry's recovered context", async () => {
    const session = await newSession(64_000);
    const history: LanguageModelV4Prompt = [
      { role: "user", content: [{ type: "text", text: userText(1) }] },
      {
        role: "assistant",
        content: [reasoning("Plan the fix.", "sig-plan"), { type: "text", text: "Plan ready." }],
      },
      { role: "user", content: [{ type: "text", text: userText(2) }] },
    ];
    const big = mockModel({ limit: 1_000_000 });
    await wrapLanguageModel({
      model: big.model,
      middleware: condenseMiddleware({ session }),
    }).doGenerate({ prompt: history });
    // A restarted middleware on a model that refuses the whole context once.
    const small = mockModel({ limit: 1_000_000 });
    let refused = false;
    const refusing = {
      ...small.model,
      specificationVersion: "v4" as const,
      provider: small.model.provider,
      modelId: small.model.modelId,
      supportedUrls: small.model.supportedUrls,
      doStream: small.model.doStream.bind(small.model),
      doGenerate: async (options: Parameters<typeof small.model.doGenerate>[0]) => {
        if (!refused) {
          refused = true;
          throw new APICallError({
            message:
              "This model's maximum context length is 1000 tokens. However, your messages resulted in 2000 tokens.",
            url: "https://api.example.com",
            requestBodyValues: {},
            statusCode: 400,
          });
        }
        return small.model.doGenerate(options);
      },
    };
    await wrapLanguageModel({
      model: refusing,
      middleware: condenseMiddleware({ session }),
    }).doGenerate({ prompt: [{ role: "user", content: [{ type: "text", text: "Next." }] }] });
    const retried = (small.log[0] as MockCall).prompt;
    const assistant = retried.find((message) => message.role === "assistant");
    expect(assistant?.content).toContainEqual(reasoning("Plan the fix.", "sig-plan"));
  });
});

describe("condenseMiddleware: overflows", () => {
  it("recovers from the provider's overflow errors over a 40-turn conversation, streamed and not; every retry fits", async () => {
    const session = await newSession(40_000);
    // The provider takes far less than the session's configured window: only its errors tell.
    const { model, log } = mockModel({
      limit: 8_000,
      charsPerToken: 1.5,
      reportUsage: false,
      toolEvery: 4,
    });
    const recoveries: RecoveryEvent[] = [];
    const wrapped = wrapLanguageModel({
      model,
      middleware: condenseMiddleware({
        session,
        model: SESSION_MODEL,
        onRecovery: (e) => recoveries.push(e),
      }),
    });
    const history: ModelMessage[] = [];
    for (let turn = 0; turn < 40; turn++) {
      history.push({ role: "user", content: userText(turn) });
      if (turn % 2 === 0) {
        const result = await generateText({
          model: wrapped,
          system: SYSTEM,
          messages: history,
          tools,
          stopWhen: stepCountIs(3),
        });
        history.push(...result.responseMessages);
      } else {
        const result = streamText({
          model: wrapped,
          system: SYSTEM,
          messages: history,
          tools,
          stopWhen: stepCountIs(3),
        });
        await result.consumeStream();
        history.push(...(await result.responseMessages));
      }
    }
    const refused = log.filter((call) => call.overLimit);
    expect(refused.length).toBeGreaterThan(0);
    expect(recoveries).toHaveLength(refused.length);
    log.forEach((call, index) => {
      if (call.overLimit) expect(log[index + 1]?.overLimit).toBe(false);
    });
    const entries = await transcriptOf(session);
    expectNoDuplicates(entries);
    expect(entries.filter((entry) => entry.role === "user")).toHaveLength(40);
    expect(entries.filter((entry) => entry.role === "assistant").length).toBe(
      log.length - refused.length,
    );
  });

  it("gives up after its recoveries and throws the provider's first error; other errors pass unchanged", async () => {
    // A session with a history to compact, and a provider that finds every prompt a fifth over
    // its window (its count drifting away from the engine's): the recovery sends a smaller
    // context, scaled by the provider's own figures, and it is refused again. (One recovery:
    // the first compacts down to what is never cut, so a second would be refused as
    // `context_over_window` and end the call the same way.)
    const session = await newSession(32_000);
    const history = Array.from({ length: 80 }, (_, index) => [
      { role: "user" as const, content: userText(100 + index) },
      { role: "assistant" as const, content: `Answer ${index}: the render loop runs twice.` },
    ]).flat();
    await session.append(history, { model: SESSION_MODEL });
    const { model, log } = mockModel({ limit: (tokens) => Math.floor(tokens * 0.8) });
    const recoveries: RecoveryEvent[] = [];
    const wrapped = wrapLanguageModel({
      model,
      middleware: condenseMiddleware({
        session,
        maxRecoveries: 1,
        onRecovery: (e) => recoveries.push(e),
      }),
    });
    const error = await generateText({ model: wrapped, prompt: userText(1), maxRetries: 0 }).catch(
      (e: unknown) => e,
    );
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).message).toContain(
      `However, your messages resulted in ${log[0]?.tokens} tokens`,
    );
    expect(log.map((call) => call.overLimit)).toEqual([true, true]);
    expect(log[1]?.tokens).toBeLessThan(log[0]?.tokens ?? 0);
    expect(recoveries.map((event) => event.attempt)).toEqual([1]);

    const failing = new MockLanguageModelV4({
      doGenerate: async () => {
        throw new APICallError({
          message: "Rate limit reached",
          url: "https://model.test",
          requestBodyValues: {},
          statusCode: 429,
          isRetryable: false,
        });
      },
    });
    const other = await generateText({
      model: wrapLanguageModel({ model: failing, middleware: condenseMiddleware({ session }) }),
      prompt: "hi",
      maxRetries: 0,
    }).catch((e: unknown) => e);
    expect((other as APICallError).statusCode).toBe(429);
  });

  it("throws the provider's first error at once when no context fits the window it states", async () => {
    const session = await newSession(8_000);
    // Nothing fits 5 tokens: the session says so (`context_over_window`, issue 33).
    const { model, log } = mockModel({ limit: 5 });
    const recoveries: RecoveryEvent[] = [];
    const wrapped = wrapLanguageModel({
      model,
      middleware: condenseMiddleware({ session, onRecovery: (e) => recoveries.push(e) }),
    });
    const error = await generateText({ model: wrapped, prompt: userText(1), maxRetries: 0 }).catch(
      (e: unknown) => e,
    );
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).message).toContain("maximum context length is 5 tokens");
    expect(log).toHaveLength(1);
    expect(recoveries).toEqual([]);
  });
});

describe("condenseMiddleware: concurrent calls on one session", () => {
  it("takes turns: each question is followed by its own answer, nothing lost or stored twice", async () => {
    const session = await newSession(64_000);
    const { model } = mockModel({ limit: 1_000_000 });
    const wrapped = wrapLanguageModel({ model, middleware: condenseMiddleware({ session }) });
    const questions = Array.from({ length: 6 }, (_, i) => `question ${i}`);
    const answers = await Promise.all(
      questions.map(async (question, i) => {
        if (i % 2 === 0) return (await generateText({ model: wrapped, prompt: question })).text;
        const result = streamText({ model: wrapped, prompt: question });
        return result.text;
      }),
    );
    const entries = await transcriptOf(session);
    expect(entries).toHaveLength(12);
    for (let i = 0; i < 12; i += 2) {
      const question = String(entries[i]?.message.content);
      const answer = String(entries[i + 1]?.message.content);
      expect(entries[i]?.role).toBe("user");
      expect(answer).toContain(`"${question}"`);
      expect(answers[questions.indexOf(question)]).toBe(answer);
    }
    expect(new Set(entries.filter((_, i) => i % 2 === 0).map((e) => e.message.content)).size).toBe(
      6,
    );
  });
});
