/**
 * @module demo/ai-sdk-replay
 * `pnpm demo --via ai-sdk`: the replay as an AI SDK agent runs it. The model is
 * the AI SDK's `MockLanguageModelV4` wrapped with `wrapLanguageModel` and
 * `condenseMiddleware`; each turn the agent calls it with its whole history
 * (as `generateText` does at every step) and it answers with the transcript's
 * next assistant message. The middleware appends what the session lacks, sends
 * the session's context instead, and recovers from the overflow error the
 * simulated model throws (OpenAI's, as an `APICallError`) when the prompt does
 * not fit the window.
 *
 * The simulated model counts its prompt as the transcript's provider received
 * it: tool-call arguments as the transcript recorded them (the AI SDK hands a
 * model parsed arguments, which its providers re-serialize), so the figures
 * are comparable with the replay through the client.
 */

import type { LanguageModelV4Content, LanguageModelV4Prompt } from "@ai-sdk/provider";
import { type ChatMessage, toolCallInput, toolCallName } from "@condense/core";
import { APICallError, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { fromCanonical } from "../src/ai-sdk/from-canonical.js";
import { PromptMemory } from "../src/ai-sdk/message-keys.js";
import { toCanonical } from "../src/ai-sdk/to-canonical.js";
import { condenseMiddleware, type SessionHandle } from "../src/index.js";
import type { Transcript } from "./transcript.js";

export interface AiSdkCall {
  /** Prompt tokens of the request the model accepted (or of the last one it refused). */
  tokens: number;
  /** Requests the model refused as too long. */
  refusals: number;
  /** Whether the call failed after the middleware's recoveries. */
  failed: boolean;
  /** `coveredSeq` of the last context the middleware got (what compaction covers). */
  coveredSeq: number;
}

function textOf(content: ChatMessage["content"]): string {
  if (typeof content === "string") return content;
  if (content === null) return "";
  return content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** The transcript's assistant message as a model's answer. */
function answerOf(message: ChatMessage): LanguageModelV4Content[] {
  const content: LanguageModelV4Content[] = [];
  const text = textOf(message.content);
  if (text !== "") content.push({ type: "text", text });
  for (const call of message.tool_calls ?? []) {
    content.push({
      type: "tool-call",
      toolCallId: call.id,
      toolName: toolCallName(call),
      input: toolCallInput(call),
    });
  }
  return content;
}

export interface AiSdkReplay {
  /** Runs turn `index`: the model call whose answer is the turn's first message. */
  call(index: number): Promise<AiSdkCall>;
  /** Appends what the agent got after the last answer (no model call follows it). */
  finish(): Promise<void>;
}

export function aiSdkReplay(options: {
  session: SessionHandle;
  transcript: Transcript;
  model: string;
  window: number;
  count: (messages: readonly ChatMessage[]) => number;
  onRefusal: (tokens: number) => void;
}): AiSdkReplay {
  const { session, transcript, window, count } = options;
  // The arguments each call had in the transcript, by call id.
  const recorded = new Map<string, string>();
  for (const message of transcript.messages)
    for (const call of message.tool_calls ?? []) recorded.set(call.id, toolCallInput(call));

  /** The recorded text of a call's arguments, unless compaction shrank them since. */
  const asRecorded = (id: string, args: string): string => {
    const original = recorded.get(id);
    if (original === undefined) return args;
    try {
      return JSON.stringify(JSON.parse(original)) === args ? original : args;
    } catch {
      return args;
    }
  };
  const promptTokens = (prompt: LanguageModelV4Prompt) => {
    const messages = prompt
      .flatMap((message) => toCanonical(message))
      .map(({ message }) => {
        const calls = message.tool_calls?.map((call) =>
          call.type === "custom"
            ? call
            : {
                ...call,
                function: {
                  ...call.function,
                  arguments: asRecorded(call.id, call.function.arguments),
                },
              },
        );
        return calls === undefined ? message : { ...message, tool_calls: calls };
      });
    return count(messages as ChatMessage[]);
  };

  let answer: LanguageModelV4Content[] = [];
  let tokens = 0;
  let refusals = 0;
  let lastFailed = false;
  let coveredSeq = 0;
  const model = new MockLanguageModelV4({
    modelId: options.model,
    doGenerate: async ({ prompt }) => {
      tokens = promptTokens(prompt);
      if (tokens > window) {
        refusals++;
        options.onRefusal(tokens);
        const message = `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`;
        throw new APICallError({
          message,
          url: "https://model.demo/v1/chat/completions",
          requestBodyValues: {},
          statusCode: 400,
          responseBody: JSON.stringify({
            error: { message, type: "invalid_request_error", code: "context_length_exceeded" },
          }),
          isRetryable: false,
        });
      }
      const calls = answer.some((part) => part.type === "tool-call");
      return {
        content: answer,
        finishReason: { unified: calls ? "tool-calls" : "stop", raw: undefined },
        // Like the replay through the client, it reports no usage.
        usage: {
          inputTokens: {
            total: undefined,
            noCache: undefined,
            cacheRead: undefined,
            cacheWrite: undefined,
          },
          outputTokens: { total: undefined, text: undefined, reasoning: undefined },
        },
        warnings: [],
      };
    },
  });
  const wrapped = wrapLanguageModel({
    model,
    middleware: condenseMiddleware({
      session,
      model: options.model,
      onContext: (context) => {
        coveredSeq = context.coveredSeq;
      },
    }),
  });

  /** The agent's history before turn `index`, as the AI SDK holds it. */
  const history = (index: number): LanguageModelV4Prompt =>
    fromCanonical(
      [...transcript.head, ...transcript.turns.slice(0, index).flat()],
      new PromptMemory(),
    );

  return {
    async call(index) {
      const turn = transcript.turns[index] ?? [];
      const first = turn[0];
      answer = first?.role === "assistant" ? answerOf(first) : [];
      refusals = 0;
      let failed = false;
      try {
        await wrapped.doGenerate({ prompt: history(index) });
      } catch (error) {
        if (!APICallError.isInstance(error)) throw error;
        // The agent goes on with the answer it had: it is in the next call's history, which the
        // middleware appends.
        failed = true;
      }
      lastFailed = failed;
      return { tokens, refusals, failed, coveredSeq };
    },
    async finish() {
      const last = transcript.turns.at(-1) ?? [];
      const rest = lastFailed ? last : last.slice(1);
      if (rest.length > 0)
        await session.append(
          rest.map((message) => ({ ...message })),
          { model: options.model },
        );
    },
  };
}
