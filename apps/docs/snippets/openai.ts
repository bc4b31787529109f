// #region snippet
import { Condense, withCompaction } from "@condense/client";
import OpenAI from "openai";

const condense = new Condense({
  baseUrl: "http://127.0.0.1:8787",
  apiKey: process.env.CONDENSE_API_KEY ?? "",
});
const ai = withCompaction(new OpenAI(), { session: condense.session("run-42") });

// Pass only what is new this turn (a system prompt once, the user's message, tool results).
const reply = await ai.chat.completions.create({
  model: "gpt-4o",
  messages: [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "Next step?" },
  ],
});
const stream = await ai.chat.completions.create({
  model: "gpt-4o",
  messages: [{ role: "user", content: "And then?" }],
  stream: true,
});
for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta.content ?? "");

// #endregion

// What the example leaves for the code after it.
export { reply };
