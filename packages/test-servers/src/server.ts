/**
 * @module server
 * A local HTTP server that speaks OpenAI's Chat Completions and Responses
 * protocols (JSON and SSE), for tests that drive the real `openai` SDK (or
 * anything else that calls an OpenAI-compatible endpoint). Node only
 * (`node:http`): tests using it are named `*.node.test.ts`, or start it from
 * vitest's globalSetup (the worker and client tests, whose workerd cannot listen).
 *
 * ```ts
 * const server = await startOpenAIServer(() => ({ type: "completion", content: "## Goal\n…" }));
 * const summarizer = openAISummarizer({ apiKey: "test", baseURL: server.url, model: "m" });
 * // … server.requests holds every request: headers and parsed JSON body.
 * await server.close();
 * ```
 *
 * `POST …/chat/completions` and `POST …/responses` go to the handler (and are
 * recorded, with `api` saying which); any other path goes to the optional
 * `control` handler (a harness's own endpoints) or gets a 404.
 *
 * Replies (what the handler returns), in the protocol the request used:
 * - `completion`: a normal answer (JSON, or SSE when the request asked `stream: true`);
 *   `content`, `refusal`, `toolCalls`, `finishReason` (`stop`, `length`, …) and `usage` are scriptable.
 * - `error`: an HTTP error with an OpenAI-style error body and optional headers (`retry-after`).
 * - `raw`: any body with any status and content type (malformed JSON, HTML error pages,
 *   another provider's error body).
 * - `truncated`: the answer stops mid-way: half a JSON body, or SSE events
 *   without the finish or `[DONE]`; then the connection is cut, or with
 *   `stall: true` kept open and silent (a server that stops sending).
 * - `hang`: never answers (until the client gives up or the server closes).
 * Every reply may carry `delayMs` before anything is written.
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** The protocol of a model request: Chat Completions or Responses. */
export type OpenAIApi = "chat" | "responses";

/** One request the server received. */
export interface ReceivedRequest {
  method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  path: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** The body as received. */
  rawBody: string;
  /** The body parsed as a JSON object (`undefined` when it is not one). */
  body: OpenAIRequestBody | undefined;
}

/** A model request (`…/chat/completions` or `…/responses`), as recorded in `requests`. */
export interface RecordedRequest extends ReceivedRequest {
  api: OpenAIApi;
}

/** The part of a request body tests look at. */
export interface OpenAIRequestBody {
  model?: string;
  /** Chat Completions. */
  messages?: Array<{ role: string; content: unknown }>;
  /** Responses: a string or a list of input items. */
  input?: unknown;
  /** Responses: the system prompt. */
  instructions?: unknown;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  max_completion_tokens?: number;
  [key: string]: unknown;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** A function call in an answer: Chat `tool_calls[]`, or a Responses `function_call` item. */
export interface ToolCallReply {
  /** The call id (`call_id` in Responses). */
  id: string;
  name: string;
  /** The arguments as JSON text. */
  arguments: string;
}

export type FinishReason = "stop" | "length" | "content_filter" | "tool_calls";

export type OpenAIServerReply =
  | {
      type: "completion";
      /** Default `""`, or `null` when the answer has tool calls. */
      content?: string | null;
      refusal?: string | null;
      toolCalls?: ToolCallReply[];
      /** Default `tool_calls` when there are tool calls, else `stop`. */
      finishReason?: FinishReason;
      /** Default: rough counts (characters / 4); `null` sends no usage. */
      usage?: Usage | null;
      delayMs?: number;
    }
  | {
      type: "error";
      status: number;
      message?: string;
      headers?: Record<string, string>;
      delayMs?: number;
    }
  | { type: "raw"; body: string; status?: number; contentType?: string; delayMs?: number }
  | { type: "truncated"; content: string; stall?: boolean; delayMs?: number }
  | { type: "hang"; delayMs?: number };

/** Decides the reply to a model request; `index` counts model requests from 0. */
export type OpenAIServerHandler = (
  request: RecordedRequest,
  index: number,
) => OpenAIServerReply | Promise<OpenAIServerReply>;

/** A JSON answer to a control request (status default 200). */
export interface ControlReply {
  status?: number;
  body: unknown;
}

/** Answers a request to any other path; `undefined` is a 404. */
export type ControlHandler = (
  request: ReceivedRequest,
) => ControlReply | undefined | Promise<ControlReply | undefined>;

export interface OpenAIServerOptions {
  /** The harness's own endpoints (scenarios, logs, releasing held requests, fakes of other APIs). */
  control?: ControlHandler;
}

export interface OpenAIServer {
  /** Base URL for an OpenAI client, ending in `/v1`. */
  url: string;
  /** `http://127.0.0.1:<port>`, for control requests. */
  origin: string;
  /** Every model request received, in order. */
  requests: RecordedRequest[];
  setHandler(handler: OpenAIServerHandler): void;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The conversation of a request: Chat `messages`, or Responses `input` (a string is one user message). */
function conversation(request: ReceivedRequest): unknown[] {
  const body = request.body;
  if (body === undefined) return [];
  if (Array.isArray(body.messages)) return body.messages;
  if (typeof body.input === "string") return [{ role: "user", content: body.input }];
  return Array.isArray(body.input) ? body.input : [];
}

/** The text of a message's `content` (a string or text parts), or of a Responses tool output. */
function itemText(item: unknown): string {
  if (!isRecord(item)) return "";
  const content = item.content ?? item.output;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: unknown) => (isRecord(part) && typeof part.text === "string" ? part.text : ""))
    .join("\n");
}

/** The text of every message of a request, joined (system prompt or `instructions` included). */
export function requestText(request: ReceivedRequest): string {
  const texts = conversation(request).map(itemText);
  const instructions = request.body?.instructions;
  return (typeof instructions === "string" ? [instructions, ...texts] : texts).join("\n\n");
}

/** The last user message of a request (the prompt under the system prompt). */
export function lastUserText(request: ReceivedRequest): string {
  const users = conversation(request).filter((item) => isRecord(item) && item.role === "user");
  const last = users.at(-1);
  return isRecord(last) && typeof last.content === "string" ? last.content : "";
}

/**
 * A summary with every one of `sections` (the engine's template: `SUMMARY_SECTIONS` of
 * `@condense/core`), echoing every `[[SECRET_n]]` placeholder anywhere in the request (so tests
 * can check restoration) and the number of the request.
 */
export function templateSummary(
  sections: readonly string[],
  request: ReceivedRequest,
  index = 0,
): string {
  const placeholders = [...new Set(requestText(request).match(/\[\[SECRET_\d+\]\]/g) ?? [])];
  return sections
    .map((section) => {
      let body = "None";
      if (section === "Goal") body = `Summary written for request ${index + 1}.`;
      if (section === "Critical context" && placeholders.length > 0)
        body = `Credentials: ${placeholders.join(" ")}`;
      return `## ${section}\n${body}`;
    })
    .join("\n\n");
}

/** A handler that answers every request with `templateSummary` of `sections`. */
export function templateHandler(sections: readonly string[]): OpenAIServerHandler {
  return (request, index) => ({
    type: "completion",
    content: templateSummary(sections, request, index),
  });
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function parseBody(raw: string): OpenAIRequestBody | undefined {
  try {
    const parsed: unknown = JSON.parse(raw);
    return isRecord(parsed) ? (parsed as OpenAIRequestBody) : undefined;
  } catch {
    return undefined;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function roughUsage(request: RecordedRequest, content: string): Usage {
  return {
    prompt_tokens: Math.ceil(requestText(request).length / 4),
    completion_tokens: Math.ceil(content.length / 4),
  };
}

/** Splits text into pieces, as a streaming server would. */
function pieces(text: string, size = 64): string[] {
  const out: string[] = [];
  for (let index = 0; index < text.length; index += size) out.push(text.slice(index, index + size));
  return out;
}

/** Tool-call arguments stream in small pieces, as OpenAI sends them. */
const ARGUMENT_PIECE = 8;

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

/** A `completion` (or `truncated`) reply with every default filled in. */
interface Answer {
  content: string | null;
  refusal: string | null;
  toolCalls: ToolCallReply[];
  finishReason: FinishReason;
  usage: Usage | null;
}

/** An answer rendered in one protocol: the JSON body, or the SSE events. */
interface Rendered {
  json: Json;
  events: string[];
  /** How many of `events` come before the finish (what a truncated stream sends). */
  beforeFinish: number;
  /** Sent after the events (`data: [DONE]` in Chat Completions). */
  end: string;
}

let answerCounter = 0;

function chatRender(model: string, answer: Answer, includeUsage: boolean): Rendered {
  answerCounter += 1;
  const id = `chatcmpl-test-${answerCounter}`;
  const created = Math.floor(Date.now() / 1000);
  const usage =
    answer.usage === null
      ? undefined
      : {
          ...answer.usage,
          total_tokens: answer.usage.prompt_tokens + answer.usage.completion_tokens,
        };
  const toolCalls = answer.toolCalls.map((call) => ({
    id: call.id,
    type: "function",
    function: { name: call.name, arguments: call.arguments },
  }));
  const json: Json = {
    id,
    object: "chat.completion",
    created,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: answer.content,
          refusal: answer.refusal,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: answer.finishReason,
        logprobs: null,
      },
    ],
    ...(usage === undefined ? {} : { usage }),
  };
  const chunk = (delta: Json, finishReason: string | null) =>
    `data: ${JSON.stringify({
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
    })}\n\n`;
  // A call-only answer starts with `content: null`; any other with "", as OpenAI's streams do.
  const events = [
    chunk({ role: "assistant", content: answer.toolCalls.length > 0 ? null : "" }, null),
  ];
  for (const piece of pieces(answer.content ?? "")) events.push(chunk({ content: piece }, null));
  answer.toolCalls.forEach((call, index) => {
    // The way OpenAI streams a call: id and name first, then the arguments in pieces.
    events.push(
      chunk(
        {
          tool_calls: [
            { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } },
          ],
        },
        null,
      ),
    );
    for (const piece of pieces(call.arguments, ARGUMENT_PIECE))
      events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null));
  });
  if (answer.refusal !== null) events.push(chunk({ refusal: answer.refusal }, null));
  const beforeFinish = events.length;
  events.push(chunk({}, answer.finishReason));
  if (usage !== undefined && includeUsage) {
    events.push(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage })}\n\n`,
    );
  }
  return { json, events, beforeFinish, end: "data: [DONE]\n\n" };
}

function responsesRender(model: string, answer: Answer): Rendered {
  answerCounter += 1;
  const n = answerCounter;
  const incomplete =
    answer.finishReason === "length"
      ? "max_output_tokens"
      : answer.finishReason === "content_filter"
        ? "content_filter"
        : null;
  const items: Json[] = [];
  const text = answer.content ?? "";
  if (answer.toolCalls.length === 0 || text !== "" || answer.refusal !== null) {
    items.push({
      type: "message",
      id: `msg_test_${n}`,
      role: "assistant",
      status: "completed",
      content: [
        ...(answer.content === null ? [] : [{ type: "output_text", text, annotations: [] }]),
        ...(answer.refusal === null ? [] : [{ type: "refusal", refusal: answer.refusal }]),
      ],
    });
  }
  answer.toolCalls.forEach((call, index) => {
    items.push({
      type: "function_call",
      id: `fc_test_${n}_${index}`,
      call_id: call.id,
      name: call.name,
      arguments: call.arguments,
      status: "completed",
    });
  });
  const json: Json = {
    id: `resp_test_${n}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: incomplete === null ? "completed" : "incomplete",
    incomplete_details: incomplete === null ? null : { reason: incomplete },
    model,
    output: items,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    ...(answer.usage === null
      ? {}
      : {
          usage: {
            input_tokens: answer.usage.prompt_tokens,
            output_tokens: answer.usage.completion_tokens,
            total_tokens: answer.usage.prompt_tokens + answer.usage.completion_tokens,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens_details: { reasoning_tokens: 0 },
          },
        }),
  };
  let sequence = 0;
  const event = (type: string, fields: Json) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...fields, sequence_number: sequence++ })}\n\n`;
  const events = [
    event("response.created", { response: { ...json, status: "in_progress", output: [] } }),
  ];
  let beforeFinish: number | undefined;
  items.forEach((item, index) => {
    const started =
      item.type === "message"
        ? { ...item, status: "in_progress", content: [] }
        : { ...item, status: "in_progress", arguments: "" };
    events.push(event("response.output_item.added", { output_index: index, item: started }));
    if (item.type === "message") {
      for (const piece of pieces(text)) {
        events.push(
          event("response.output_text.delta", {
            item_id: item.id,
            output_index: index,
            content_index: 0,
            delta: piece,
          }),
        );
      }
    } else {
      for (const piece of pieces(String(item.arguments), ARGUMENT_PIECE)) {
        events.push(
          event("response.function_call_arguments.delta", {
            item_id: item.id,
            output_index: index,
            delta: piece,
          }),
        );
      }
    }
    beforeFinish ??= events.length;
    events.push(event("response.output_item.done", { output_index: index, item }));
  });
  events.push(
    event(incomplete === null ? "response.completed" : "response.incomplete", { response: json }),
  );
  // The Responses stream has no `[DONE]`: it ends with the connection.
  return { json, events, beforeFinish: beforeFinish ?? events.length - 1, end: "" };
}

function render(request: RecordedRequest, answer: Answer): Rendered {
  const model = request.body?.model ?? "test-model";
  return request.api === "chat"
    ? chatRender(model, answer, request.body?.stream_options?.include_usage === true)
    : responsesRender(model, answer);
}

async function answer(
  request: RecordedRequest,
  reply: OpenAIServerReply,
  response: ServerResponse,
  socketClosed: Promise<void>,
): Promise<void> {
  if (reply.delayMs !== undefined && reply.delayMs > 0) {
    await Promise.race([sleep(reply.delayMs), socketClosed]);
  }
  if (response.destroyed) return;
  const streaming = request.body?.stream === true;
  switch (reply.type) {
    case "hang":
      await socketClosed;
      return;
    case "error":
      response.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
      response.end(
        JSON.stringify({
          error: {
            message: reply.message ?? `scripted error ${reply.status}`,
            type: "server_error",
            code: null,
          },
        }),
      );
      return;
    case "raw":
      response.writeHead(reply.status ?? 200, {
        "content-type": reply.contentType ?? "application/json",
      });
      response.end(reply.body);
      return;
    case "truncated": {
      const rendered = render(request, {
        content: reply.content,
        refusal: null,
        toolCalls: [],
        finishReason: "stop",
        usage: null,
      });
      if (streaming) {
        response.writeHead(200, { "content-type": "text/event-stream" });
        for (const event of rendered.events.slice(0, rendered.beforeFinish)) response.write(event);
      } else {
        const body = JSON.stringify(rendered.json);
        response.writeHead(200, { "content-type": "application/json" });
        response.write(body.slice(0, Math.floor(body.length / 2)));
      }
      if (reply.stall === true) {
        await socketClosed;
        return;
      }
      // Cut the connection without finishing the response.
      await sleep(10);
      response.socket?.destroy();
      return;
    }
    case "completion": {
      const toolCalls = reply.toolCalls ?? [];
      const content =
        reply.content === undefined ? (toolCalls.length > 0 ? null : "") : reply.content;
      const rendered = render(request, {
        content,
        refusal: reply.refusal ?? null,
        toolCalls,
        finishReason: reply.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
        usage: reply.usage === undefined ? roughUsage(request, content ?? "") : reply.usage,
      });
      if (!streaming) {
        sendJson(response, 200, rendered.json);
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      for (const event of rendered.events) response.write(event);
      response.end(rendered.end);
      return;
    }
  }
}

/** Which protocol a path speaks, if any. */
function apiOf(path: string): OpenAIApi | undefined {
  const pathname = path.split("?")[0] ?? "";
  if (pathname.endsWith("/chat/completions")) return "chat";
  if (pathname.endsWith("/responses")) return "responses";
  return undefined;
}

/** Starts the server on 127.0.0.1 with a free port. */
export async function startOpenAIServer(
  handler: OpenAIServerHandler,
  options: OpenAIServerOptions = {},
): Promise<OpenAIServer> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  const server = createServer((incoming, response) => {
    const socketClosed = new Promise<void>((resolve) =>
      incoming.socket.once("close", () => resolve()),
    );
    void (async () => {
      const rawBody = await readBody(incoming);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
      }
      const received: ReceivedRequest = {
        method: incoming.method ?? "GET",
        path: incoming.url ?? "/",
        headers,
        rawBody,
        body: parseBody(rawBody),
      };
      const api = apiOf(received.path);
      if (api === undefined) {
        const reply = await options.control?.(received);
        if (reply === undefined) {
          sendJson(response, 404, {
            error: { message: `no route ${received.method} ${received.path}`, type: "not_found" },
          });
        } else {
          sendJson(response, reply.status ?? 200, reply.body);
        }
        return;
      }
      const recorded: RecordedRequest = { ...received, api };
      const index = requests.length;
      requests.push(recorded);
      const reply = await current(recorded, index);
      await answer(recorded, reply, response, socketClosed);
    })().catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: `test server failed: ${String(error)}` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/v1`,
    origin,
    requests,
    setHandler(next) {
      current = next;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}
