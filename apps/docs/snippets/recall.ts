import type { Condense, SessionHandle } from "@condense/client";
import type OpenAI from "openai";

declare const condense: Condense;
declare const session: SessionHandle;
declare const openai: OpenAI;
declare const model: string;
declare const myTools: OpenAI.Chat.Completions.ChatCompletionTool[];
declare const toolResults: OpenAI.Chat.Completions.ChatCompletionMessageParam[];

// #region snippet
import {
  answerRecall,
  recallChatCompletionsResult,
  recallChatCompletionsTool,
} from "@condense/client";

const { messages } = await session.context(); // the openai format: Chat Completions messages
const reply = await openai.chat.completions.create({
  model,
  messages: messages as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
  tools: [...myTools, recallChatCompletionsTool()],
});
for (const call of reply.choices[0]?.message.tool_calls ?? []) {
  if (call.type === "function" && call.function.name === "recall") {
    const text = await answerRecall(condense, session.id, call); // also takes a Responses function_call or an Anthropic tool_use
    toolResults.push(recallChatCompletionsResult(call.id, text));
  }
}
// #endregion
