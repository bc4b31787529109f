/**
 * @module test/pack-consumer/consumer
 * What a user of the published packages writes, run by the packaging test in a
 * fresh project where `@condense/client` and `@condense/core` are installed
 * from their tarballs next to the registry's `openai`, `@anthropic-ai/sdk` and
 * `ai`. It is type checked there (strict, NodeNext), then run with Node
 * against the Worker under `wrangler dev`; it prints one JSON line of results.
 * Not part of the client's own type check: it imports the packages by name.
 */

import Anthropic from "@anthropic-ai/sdk";
import { Condense, CondenseApiError, condenseMiddleware, withCompaction } from "@condense/client";
import { compact, countTokens } from "@condense/core";
import { generateText, type LanguageModel, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import OpenAI from "openai";

interface Config {
  baseUrl: string;
  apiKey: string;
  openaiUrl: string;
  openaiModel: string;
  anthropicUrl: string;
  anthropicModel: string;
}

const config = JSON.parse(process.env.CONDENSE_PACK_CONFIG ?? "{}") as Config;
const condense = new Condense({ baseUrl: config.baseUrl, apiKey: config.apiKey });
const run = crypto.randomUUID().slice(0, 8);

// openai: a call and a stream on one session.
const openaiSession = condense.session(`pack-openai-${run}`);
const ai = withCompaction(new OpenAI({ apiKey: "sk-test", baseURL: `${config.openaiUrl}/v1` }), {
  session: openaiSession,
});
const reply = await ai.chat.completions.create({
  model: config.openaiModel,
  messages: [
    { role: "system", content: "You are terse." },
    { role: "user", content: "hello" },
  ],
});
const replyText: string | null | undefined = reply.choices[0]?.message.content;
// @ts-expect-error the types are the SDK's own: a completion has no `nope`
reply.nope;
const chunks = await ai.chat.completions.create({
  model: config.openaiModel,
  messages: [{ role: "user", content: "and now streamed" }],
  stream: true,
});
let streamed = "";
for await (const chunk of chunks) streamed += chunk.choices[0]?.delta.content ?? "";

// Anthropic: create and messages.stream on another session.
const anthropicSession = condense.session(`pack-anthropic-${run}`);
const claude = withCompaction(
  new Anthropic({ apiKey: "sk-ant-test", baseURL: config.anthropicUrl }),
  { session: anthropicSession },
);
const message = await claude.messages.create({
  model: config.anthropicModel,
  max_tokens: 100,
  system: "You are terse.",
  messages: [{ role: "user", content: "hello" }],
});
const final = await claude.messages
  .stream({
    model: config.anthropicModel,
    max_tokens: 100,
    system: "You are terse.",
    messages: [{ role: "user", content: "and now streamed" }],
  })
  .finalMessage();

// The AI SDK: generateText and streamText through the middleware.
const aiSdkSession = condense.session(`pack-ai-sdk-${run}`);
const mock = new MockLanguageModelV4({
  doGenerate: async () => ({
    content: [{ type: "text", text: "generated" }],
    finishReason: { unified: "stop", raw: undefined },
    usage: {
      inputTokens: { total: 10, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined },
    },
    warnings: [],
  }),
});
const model: LanguageModel = wrapLanguageModel({
  model: mock,
  middleware: condenseMiddleware({ session: aiSdkSession }),
});
const generated = await generateText({ model, system: "You are terse.", prompt: "hello" });

// The engine on its own.
const compacted = await compact(
  {
    model: "gpt-4o",
    messages: [
      { role: "system", content: "You are terse." },
      { role: "user", content: "hello" },
    ],
  },
  { contextWindow: 128_000 },
);

let notFound = "";
try {
  await condense.session(`pack-missing-${run}`).status();
} catch (error) {
  if (CondenseApiError.isInstance(error)) notFound = error.code;
}

const roles = async (session: typeof openaiSession) =>
  (await session.transcript()).messages.map((entry) => entry.role);

console.log(
  JSON.stringify({
    openai: { reply: replyText, streamed, roles: await roles(openaiSession) },
    anthropic: {
      reply: message.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
      streamed: final.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
      roles: await roles(anthropicSession),
    },
    aiSdk: { text: generated.text, roles: await roles(aiSdkSession) },
    core: { compacted: compacted.compacted, tokens: countTokens("hello world", "gpt-4o") },
    notFound,
  }),
);
