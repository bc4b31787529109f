import { readFile } from "node:fs/promises";
import { openai } from "@ai-sdk/openai"; // npm install ai @ai-sdk/openai zod @condense/client
import { Condense, condenseMiddleware } from "@condense/client";
import {
  generateText,
  type ModelMessage,
  stepCountIs,
  streamText,
  tool,
  wrapLanguageModel,
} from "ai";
import { z } from "zod";

const condense = new Condense({
  baseUrl: "http://127.0.0.1:8787",
  apiKey: process.env.CONDENSE_API_KEY ?? "",
});
const model = wrapLanguageModel({
  model: openai("gpt-4o"),
  middleware: condenseMiddleware({ session: condense.session("run-44") }),
});
const tools = {
  read_file: tool({
    description: "Read a file of the repository",
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => readFile(path, "utf8"),
  }),
};

// Keep your history as usual; the middleware appends only what the session does not have yet.
const messages: ModelMessage[] = [{ role: "user", content: "Why does src/app.ts fail its test?" }];
const result = await generateText({
  model,
  system: "You are a coding agent.",
  messages,
  tools,
  stopWhen: stepCountIs(20),
});
messages.push(...result.responseMessages, { role: "user", content: "Now fix it." });
const stream = streamText({
  model,
  system: "You are a coding agent.",
  messages,
  tools,
  stopWhen: stepCountIs(20),
});
for await (const text of stream.textStream) process.stdout.write(text);
