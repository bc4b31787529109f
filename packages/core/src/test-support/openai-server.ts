/**
 * @module test-support/openai-server
 * A local HTTP server that speaks the Chat Completions protocol, for tests
 * that drive the real `openai` SDK (or anything else that calls an
 * OpenAI-compatible endpoint). Node only (`node:http`): tests using it are
 * named `*.node.test.ts`.
 *
 * ```ts
 * const server = await startOpenAIServer((request) => ({ type: "completion", content: "## Goal\n…" }));
 * const summarizer = openAISummarizer({ apiKey: "test", baseURL: server.url, model: "m" });
 * // … server.requests holds every request: headers and parsed JSON body.
 * await server.close();
 * ```
 *
 * Replies (what the handler returns):
 * - `completion`: a normal answer (JSON, or SSE when the request asked `stream: true`);
 *   `content`, `refusal`, `finishReason` (`stop`, `length`, …) and `usage` are scriptable.
 * - `error`: an HTTP error with an OpenAI-style error body and optional headers (`retry-after`).
 * - `raw`: any body with any status and content type (malformed JSON, HTML error pages).
 * - `truncated`: the answer stops mid-way: half a JSON body, or SSE chunks
 *   without a finish reason or `[DONE]`; then the connection is cut, or with
 *   `stall: true` kept open and silent (a server that stops sending).
 * - `hang`: never answers (until the client gives up or the server closes).
 * Every reply may carry `delayMs` before anything is written.
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { SUMMARY_SECTIONS } from "../summary/template.js";

/** One request the server received. */
export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  path: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** The body as received. */
  rawBody: string;
  /** The body parsed as JSON (`undefined` when it is not JSON). */
  body: ChatRequestBody | undefined;
}

/** The part of a Chat Completions request body tests look at. */
export interface ChatRequestBody {
  model?: string;
  messages?: Array<{ role: string; content: unknown }>;
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

export type OpenAIServerReply =
  | {
      type: "completion";
      content?: string | null;
      refusal?: string | null;
      /** Default `stop`. */
      finishReason?: "stop" | "length" | "content_filter" | "tool_calls";
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

/** Decides the reply to a request; `index` counts requests from 0. */
export type OpenAIServerHandler = (
  request: RecordedRequest,
  index: number,
) => OpenAIServerReply | Promise<OpenAIServerReply>;

export interface OpenAIServer {
  /** Base URL for an OpenAI client, ending in `/v1`. */
  url: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  setHandler(handler: OpenAIServerHandler): void;
  close(): Promise<void>;
}

/** The text of every message of a recorded request, joined (system prompt included). */
export function requestText(request: RecordedRequest): string {
  const messages = request.body?.messages ?? [];
  return messages
    .map((message) => {
      const content = message.content;
      if (typeof content === "string") return content;
      if (Array.isArray(content)) {
        return content
          .map((part: unknown) =>
            typeof part === "object" &&
            part !== null &&
            "text" in part &&
            typeof part.text === "string"
              ? part.text
              : "",
          )
          .join("\n");
      }
      return "";
    })
    .join("\n\n");
}

/** The last user message of a recorded request (the prompt under the system prompt). */
export function lastUserText(request: RecordedRequest): string {
  const users = (request.body?.messages ?? []).filter((message) => message.role === "user");
  const last = users.at(-1)?.content;
  return typeof last === "string" ? last : "";
}

/**
 * A valid summary with every template section, echoing every `[[SECRET_n]]`
 * placeholder anywhere in the request (so tests can check restoration) and
 * the number of the request.
 */
export function templateSummary(request: RecordedRequest, index = 0): string {
  const placeholders = [...new Set(requestText(request).match(/\[\[SECRET_\d+\]\]/g) ?? [])];
  return SUMMARY_SECTIONS.map((section) => {
    let body = "None";
    if (section === "Goal") body = `Summary written for request ${index + 1}.`;
    if (section === "Critical context" && placeholders.length > 0)
      body = `Credentials: ${placeholders.join(" ")}`;
    return `## ${section}\n${body}`;
  }).join("\n\n");
}

/** The default handler: every request gets `templateSummary`. */
export const templateHandler: OpenAIServerHandler = (request, index) => ({
  type: "completion",
  content: templateSummary(request, index),
});

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function parseBody(raw: string): ChatRequestBody | undefined {
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === "object" && parsed !== null ? (parsed as ChatRequestBody) : undefined;
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

let completionCounter = 0;

function completionBody(
  model: string,
  message: { content: string | null; refusal: string | null },
  finishReason: string,
  usage: Usage | null,
) {
  completionCounter += 1;
  return {
    id: `chatcmpl-test-${completionCounter}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", ...message },
        finish_reason: finishReason,
        logprobs: null,
      },
    ],
    ...(usage === null
      ? {}
      : { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }),
  };
}

function chunkEvent(
  model: string,
  id: string,
  delta: Record<string, unknown>,
  finishReason: string | null,
) {
  return `data: ${JSON.stringify({
    id,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
  })}\n\n`;
}

/** Splits text into a few pieces, as a streaming server would. */
function pieces(text: string, size = 64): string[] {
  const out: string[] = [];
  for (let index = 0; index < text.length; index += size) out.push(text.slice(index, index + size));
  return out;
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
  const model = request.body?.model ?? "test-model";
  const streaming = request.body?.stream === true;
  switch (reply.type) {
    case "hang":
      await socketClosed;
      return;
    case "error": {
      const body = JSON.stringify({
        error: {
          message: reply.message ?? `scripted error ${reply.status}`,
          type: "server_error",
          code: null,
        },
      });
      response.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
      response.end(body);
      return;
    }
    case "raw":
      response.writeHead(reply.status ?? 200, {
        "content-type": reply.contentType ?? "application/json",
      });
      response.end(reply.body);
      return;
    case "truncated": {
      if (streaming) {
        response.writeHead(200, { "content-type": "text/event-stream" });
        const id = `chatcmpl-test-${++completionCounter}`;
        response.write(chunkEvent(model, id, { role: "assistant", content: "" }, null));
        for (const piece of pieces(reply.content))
          response.write(chunkEvent(model, id, { content: piece }, null));
      } else {
        const body = JSON.stringify(
          completionBody(model, { content: reply.content, refusal: null }, "stop", null),
        );
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
      const content = reply.content === undefined ? "" : reply.content;
      const refusal = reply.refusal ?? null;
      const finishReason = reply.finishReason ?? "stop";
      const usage = reply.usage === undefined ? roughUsage(request, content ?? "") : reply.usage;
      if (!streaming) {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(
          JSON.stringify(completionBody(model, { content, refusal }, finishReason, usage)),
        );
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const id = `chatcmpl-test-${++completionCounter}`;
      response.write(chunkEvent(model, id, { role: "assistant", content: "" }, null));
      for (const piece of pieces(content ?? ""))
        response.write(chunkEvent(model, id, { content: piece }, null));
      if (refusal !== null) response.write(chunkEvent(model, id, { refusal }, null));
      response.write(chunkEvent(model, id, {}, finishReason));
      if (usage !== null && request.body?.stream_options?.include_usage === true) {
        response.write(
          `data: ${JSON.stringify({
            id,
            object: "chat.completion.chunk",
            created: Math.floor(Date.now() / 1000),
            model,
            choices: [],
            usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
          })}\n\n`,
        );
      }
      response.end("data: [DONE]\n\n");
      return;
    }
  }
}

/**
 * Starts the server on 127.0.0.1 with a free port. Without a handler every
 * request gets `templateSummary`. Requests to paths other than
 * `…/chat/completions` get a 404.
 */
export async function startOpenAIServer(
  handler: OpenAIServerHandler = templateHandler,
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
      const recorded: RecordedRequest = {
        method: incoming.method ?? "GET",
        path: incoming.url ?? "/",
        headers,
        rawBody,
        body: parseBody(rawBody),
      };
      if (!recorded.path.split("?")[0]?.endsWith("/chat/completions")) {
        response.writeHead(404, { "content-type": "application/json" });
        response.end(
          JSON.stringify({ error: { message: `no route ${recorded.path}`, type: "not_found" } }),
        );
        return;
      }
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
  return {
    url: `http://127.0.0.1:${port}/v1`,
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
