/**
 * @module gateway/gemini-protocol
 * Gemini's `generateContent` through the gateway: the history is `contents`
 * and `systemInstruction`, the answer is the first candidate's content (one
 * model message), a stream (`:streamGenerateContent?alt=sse`) is a run of
 * `GenerateContentResponse` chunks whose parts add up to that content, the
 * last one carrying `finishReason`. The prompt's count is `usageMetadata`:
 * `promptTokenCount` (cached content included) of which
 * `cachedContentTokenCount` were read from the cache; Gemini writes its
 * implicit cache without a premium. A request naming `cachedContent` keeps
 * part of its history on Google's side: it is forwarded unchanged. Errors the
 * gateway makes come in Google's shape (`{"error":{"code","message","status"}}`),
 * the gateway's stable code as the `reason` of a `google.rpc.ErrorInfo` detail.
 *
 * The request body carries no model (it is in the path): the route puts it in
 * `model` for the gateway's own use, and every body this module writes for the
 * upstream leaves it out again.
 */

import { type ProviderUsage, recallChatCompletionsTool } from "@condense/core";
import {
  type AnswerToolCall,
  count,
  eventData,
  type GatewayProtocol,
  isRecord,
  type ProtocolAnswer,
  protocolAnswer,
  type StreamAccumulator,
  type ToolRoundHooks,
} from "./protocol";

type Part = Record<string, unknown>;

/** The Gemini methods the gateway serves. */
export type GeminiMethodName = "generateContent" | "streamGenerateContent" | "countTokens";

/** The model and the method of a path's `{model}:{method}` segment, or undefined for another method. */
export function geminiMethod(
  segment: string,
): { model: string; name: GeminiMethodName } | undefined {
  const match = /^(.+):(generateContent|streamGenerateContent|countTokens)$/.exec(segment);
  if (match?.[1] === undefined || match[2] === undefined) return undefined;
  return { model: match[1], name: match[2] as GeminiMethodName };
}

/**
 * The path and query on the upstream: the request's own after `/v1/gateway/{upstream}` (the model
 * and method in it), without the `key` query parameter (the key goes in `x-goog-api-key`).
 */
export function geminiUpstreamPath(url: URL, routePath: string): string {
  const at = url.pathname.indexOf(routePath.slice(0, routePath.indexOf("{")));
  const query = new URLSearchParams(url.search);
  query.delete("key");
  const search = query.toString();
  return `${url.pathname.slice(Math.max(at, 0))}${search === "" ? "" : `?${search}`}`;
}

/** The body as the upstream takes it: without the `model` the route added. */
export function upstreamBody(body: Record<string, unknown>): Record<string, unknown> {
  const { model: _inPath, ...rest } = body;
  return rest;
}

/** Every prompt token, and those read from the cache (Gemini's implicit cache has no write premium). */
function promptUsage(metadata: unknown): ProviderUsage | undefined {
  if (!isRecord(metadata)) return undefined;
  const prompt = count(metadata.promptTokenCount);
  if (prompt === undefined) return undefined;
  const tools = count(metadata.toolUsePromptTokenCount) ?? 0;
  return {
    inputTokens: prompt + tools,
    cacheReadTokens: count(metadata.cachedContentTokenCount) ?? 0,
    cacheWriteTokens: 0,
  };
}

/** The answer's tokens: the candidates' and the thoughts'. */
function answerTokens(metadata: unknown): number | undefined {
  if (!isRecord(metadata)) return undefined;
  const candidates = count(metadata.candidatesTokenCount);
  const thoughts = count(metadata.thoughtsTokenCount);
  return candidates === undefined && thoughts === undefined
    ? undefined
    : (candidates ?? 0) + (thoughts ?? 0);
}

function firstCandidate(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const candidates = Array.isArray(body.candidates) ? body.candidates : [];
  const first: unknown = candidates[0];
  return isRecord(first) ? first : undefined;
}

function candidateParts(candidate: Record<string, unknown> | undefined): Part[] {
  const content = candidate?.content;
  return isRecord(content) && Array.isArray(content.parts) ? content.parts.filter(isRecord) : [];
}

/**
 * Adds a streamed chunk's parts to `parts`: text runs of one kind (thought or not) joined, as the
 * agents keep them, a signature that comes on a later piece kept on the joined part.
 */
function appendParts(parts: Part[], incoming: readonly Part[]): void {
  for (const part of incoming) {
    const last = parts.at(-1);
    const isText = typeof part.text === "string" && Object.keys(part).every(isTextKey);
    if (
      isText &&
      last !== undefined &&
      typeof last.text === "string" &&
      Object.keys(last).every(isTextKey) &&
      (last.thought === true) === (part.thought === true) &&
      last.thoughtSignature === undefined
    ) {
      last.text = `${last.text}${String(part.text)}`;
      if (part.thoughtSignature !== undefined) last.thoughtSignature = part.thoughtSignature;
      continue;
    }
    parts.push({ ...part });
  }
}

function isTextKey(key: string): boolean {
  return key === "text" || key === "thought" || key === "thoughtSignature";
}

function geminiAccumulator(): StreamAccumulator {
  const parts: Part[] = [];
  let usage: ProviderUsage | undefined;
  let outputTokens: number | undefined;
  let finished = false;
  let failed = false;
  return {
    event(event) {
      const data = eventData(event);
      if (data === undefined) return;
      if (data.error !== undefined) {
        failed = true;
        return;
      }
      usage = promptUsage(data.usageMetadata) ?? usage;
      outputTokens = answerTokens(data.usageMetadata) ?? outputTokens;
      const candidate = firstCandidate(data);
      appendParts(parts, candidateParts(candidate));
      if (typeof candidate?.finishReason === "string") finished = true;
    },
    result() {
      if (!finished || failed) return undefined;
      return protocolAnswer([{ role: "model", parts }], usage, outputTokens);
    },
  };
}

function answerParts(answer: ProtocolAnswer): Part[] {
  const message = answer.messages[0];
  return isRecord(message) && Array.isArray(message.parts) ? message.parts.filter(isRecord) : [];
}

/** The calls of a model content, named as core names them (`call_<n>` when Gemini gave no id). */
function calls(parts: readonly Part[]): Array<AnswerToolCall & { given: boolean }> {
  const found: Array<AnswerToolCall & { given: boolean }> = [];
  for (const part of parts) {
    const call = part.functionCall;
    if (!isRecord(call) || typeof call.name !== "string") continue;
    const given = typeof call.id === "string" && call.id !== "";
    found.push({
      id: given ? String(call.id) : `call_${found.length}`,
      name: call.name,
      arguments: call.args ?? {},
      given,
    });
  }
  return found;
}

/** The recall tool as a Gemini function declaration (its parameters as JSON Schema). */
function recallDeclaration(): Record<string, unknown> {
  const { name, description, parameters } = recallChatCompletionsTool().function;
  return { name, description, parametersJsonSchema: parameters };
}

const geminiTools: ToolRoundHooks = {
  declares(body, name) {
    const tools = Array.isArray(body.tools) ? body.tools : [];
    return tools.some(
      (tool) =>
        isRecord(tool) &&
        Array.isArray(tool.functionDeclarations) &&
        tool.functionDeclarations.some(
          (declaration: unknown) => isRecord(declaration) && declaration.name === name,
        ),
    );
  },
  withRecallTool: (body) => ({
    ...upstreamBody(body),
    tools: [
      ...(Array.isArray(body.tools) ? body.tools : []),
      { functionDeclarations: [recallDeclaration()] },
    ],
  }),
  calls: (answer) => calls(answerParts(answer)).map(({ given: _given, ...call }) => call),
  withResults(body, answer, results) {
    const parts = answerParts(answer);
    const byId = new Map(calls(parts).map((call) => [call.id, call]));
    const responses = results.map((result) => {
      const call = byId.get(result.id);
      return {
        functionResponse: {
          ...(call?.given === true ? { id: call.id } : {}),
          name: call?.name ?? "",
          response: { output: result.text },
        },
      };
    });
    const contents = Array.isArray(body.contents) ? body.contents : [];
    return upstreamBody({
      ...body,
      contents: [...contents, { role: "model", parts }, { role: "user", parts: responses }],
    });
  },
  withoutToolCalls: (body) =>
    upstreamBody({ ...body, toolConfig: { functionCallingConfig: { mode: "NONE" } } }),
};

/** Google's canonical status name for an HTTP status. */
function googleStatus(status: number): string {
  const names: Record<number, string> = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    413: "INVALID_ARGUMENT",
    422: "FAILED_PRECONDITION",
    429: "RESOURCE_EXHAUSTED",
    501: "UNIMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
  };
  return names[status] ?? (status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT");
}

/** An error in Google's shape, the gateway's code as an `ErrorInfo` reason. */
export function geminiErrorBody(status: number, code: string, message: string): unknown {
  return {
    error: {
      code: status,
      message,
      status: googleStatus(status),
      details: [
        { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: code, domain: "condense" },
      ],
    },
  };
}

export const geminiProtocol: GatewayProtocol = {
  name: "gemini",
  format: "gemini",
  history(body) {
    if (!Array.isArray(body.contents) || body.cachedContent !== undefined) return undefined;
    return body.systemInstruction === undefined
      ? { messages: body.contents }
      : { messages: body.contents, system: body.systemInstruction };
  },
  withContext(body, context) {
    const { systemInstruction: _replaced, ...rest } = upstreamBody(body);
    return context.system === undefined
      ? { ...rest, contents: context.messages }
      : { ...rest, systemInstruction: context.system, contents: context.messages };
  },
  // `systemInstruction` is the history's first message (canonical), counted with it.
  overheadFields: ["tools", "toolConfig"],
  maxOutputTokens(body) {
    return isRecord(body.generationConfig)
      ? count(body.generationConfig.maxOutputTokens)
      : undefined;
  },
  answer(body) {
    if (!isRecord(body)) return undefined;
    const candidate = firstCandidate(body);
    if (candidate === undefined || !isRecord(candidate.content)) return undefined;
    return protocolAnswer(
      [{ role: "model", parts: candidateParts(candidate) }],
      promptUsage(body.usageMetadata),
      answerTokens(body.usageMetadata),
    );
  },
  accumulator: geminiAccumulator,
  tools: geminiTools,
  errorBody({ status, code, message }) {
    return geminiErrorBody(status, code, message);
  },
  streamError(code, message) {
    return `data: ${JSON.stringify(geminiErrorBody(502, code, message))}\n\n`;
  },
};
