/**
 * @module protocols/gemini-generate-content
 * Gemini's `generateContent` (`POST …/models/{model}:generateContent`) and
 * `:streamGenerateContent?alt=sse` for the test servers: the answer as
 * Gemini sends it — one candidate whose content has a thought part when
 * there is reasoning, the text, and the function calls (without ids, as
 * Gemini 2.5 sends them; the first one signed, as Gemini 3 signs it), with
 * `finishReason` and `usageMetadata` (`cachedContentTokenCount` for what the
 * cache read) — or its chunks as server-sent events, text in pieces and each
 * call whole, the last chunk with the finish and the usage. Gemini's errors,
 * its overflow wording, and its rules (`rules/gemini-rules`).
 */

import { objects } from "../json.ts";
import type { Answer } from "../reply.ts";
import { callSignatureText, geminiViolation } from "../rules/gemini-rules.ts";
import { sign } from "../rules/signatures.ts";
import type { Violation } from "../rules/violation.ts";
import { type AnswerContext, chunks, type RenderedAnswer, type WireProtocol } from "./wire.ts";

const TEXT_PIECE = 16;

type Part = Record<string, unknown>;

/** How the server writes calls: without ids (as Gemini 2.5 does), or with the scripted ids. */
export interface GeminiWireOptions {
  callIds: boolean;
}

function answerParts(answer: Answer, options: GeminiWireOptions): Part[] {
  const parts: Part[] = [];
  if (answer.thinking !== null) parts.push({ text: answer.thinking, thought: true });
  const text = answer.refusal ?? answer.text ?? "";
  if (text !== "") parts.push({ text });
  answer.toolCalls.forEach((call, index) => {
    const args = call.custom
      ? { input: call.arguments }
      : (JSON.parse(call.arguments === "" ? "{}" : call.arguments) as unknown);
    const functionCall = options.callIds
      ? { id: call.id, name: call.name, args }
      : { name: call.name, args };
    parts.push(
      index === 0
        ? { functionCall, thoughtSignature: sign(callSignatureText(functionCall)) }
        : { functionCall },
    );
  });
  return parts;
}

function finishReason(answer: Answer): string {
  if (answer.refusal !== null || answer.finishReason === "content_filter") return "SAFETY";
  return answer.finishReason === "length" ? "MAX_TOKENS" : "STOP";
}

function usageMetadata(answer: Answer): Record<string, number> | undefined {
  if (answer.usage === null) return undefined;
  const prompt = answer.usage.prompt_tokens;
  const candidates = answer.usage.completion_tokens;
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    totalTokenCount: prompt + candidates,
    ...(answer.usage.cache_read_tokens !== undefined && answer.usage.cache_read_tokens > 0
      ? { cachedContentTokenCount: answer.usage.cache_read_tokens }
      : {}),
  };
}

function response(parts: Part[], extra: Record<string, unknown>, context: AnswerContext) {
  return {
    candidates: [{ content: { role: "model", parts }, index: 0, ...extra }],
    modelVersion: context.model,
    responseId: `resp_${context.serial}`,
  };
}

/** A server-sent event as Gemini writes them: data only, CRLF line ends. */
function event(data: object): string {
  return `data: ${JSON.stringify(data)}\r\n\r\n`;
}

function render(
  answer: Answer,
  context: AnswerContext,
  options: GeminiWireOptions,
): RenderedAnswer {
  const parts = answerParts(answer, options);
  const usage = usageMetadata(answer);
  const finish = { finishReason: finishReason(answer) };
  const json = { ...response(parts, finish, context), ...(usage ? { usageMetadata: usage } : {}) };
  const events: string[] = [];
  for (const part of parts) {
    if (typeof part.text === "string" && part.thought !== true) {
      for (const piece of chunks(part.text, TEXT_PIECE)) {
        events.push(event(response([{ text: piece }], {}, context)));
      }
    } else {
      events.push(event(response([part], {}, context)));
    }
  }
  const beforeFinish = events.length;
  events.push(
    event({ ...response([], finish, context), ...(usage ? { usageMetadata: usage } : {}) }),
  );
  return { json, events, beforeFinish };
}

/** Google's status names for the statuses the tests use. */
function googleStatus(status: number): string {
  const names: Record<number, string> = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    503: "UNAVAILABLE",
  };
  return names[status] ?? (status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT");
}

/** Whether `path` is a Gemini method the server answers as a model request. */
export function isGeminiGenerate(pathname: string): boolean {
  return /\/models\/[^/]+:(?:generateContent|streamGenerateContent)$/.test(pathname);
}

/** Gemini's protocol, its calls with or without ids. */
export function geminiWire(options: GeminiWireOptions): WireProtocol {
  return {
    name: "gemini",
    path: ":generateContent",
    matches: isGeminiGenerate,
    streams: (path) => /:streamGenerateContent(?:\?|$)/.test(path),
    render: (answer, context) => render(answer, context, options),
    errorBody: (error: Violation) => ({
      error: {
        code: error.status,
        message: error.message,
        status: error.errorType ?? googleStatus(error.status),
      },
    }),
    overflow: (tokens, limit) => ({
      status: 400,
      message: `The input token count (${tokens}) exceeds the maximum number of tokens allowed (${limit}).`,
    }),
    unauthorized: () => ({
      status: 400,
      message: "API key not valid. Please pass a valid API key.",
      errorType: "INVALID_ARGUMENT",
    }),
    authenticated: (headers, key) => headers["x-goog-api-key"] === key,
    prompt: (body) => ({
      systemInstruction: body.systemInstruction,
      tools: body.tools,
      contents: body.contents,
    }),
    items: (body) => objects(body.contents),
    violation: (body) => geminiViolation(body),
  };
}

/** Gemini's protocol as Gemini 2.5 answers: calls without ids. */
export const geminiGenerateContent: WireProtocol = geminiWire({ callIds: false });
