/**
 * @module server
 * A local HTTP server that answers model requests the way its handler
 * scripts them (`reply`), in the protocol each request speaks: OpenAI's Chat
 * Completions (`…/chat/completions`) and Responses (`…/responses`),
 * Anthropic's Messages (`…/v1/messages`), as JSON or as server-sent events
 * when the request streams (`protocols/*`). Node only (`node:http`): tests
 * that run in workerd start it from vitest's globalSetup, as workerd cannot
 * listen.
 *
 * ```ts
 * const server = await startTestServer(() => ({ type: "completion", content: "## Goal\n…" }));
 * const summarizer = openAISummarizer({ apiKey: "test", baseURL: server.url, model: "m" });
 * // … server.requests holds every model request: headers, parsed JSON body, protocol.
 * await server.close();
 * ```
 *
 * Model requests go to the handler (and are recorded, with `protocol` saying
 * which); any other path goes to the optional `control` handler (a harness's
 * own endpoints, fakes of other APIs) or gets a 404. A request whose client
 * went away before its answer was whole is marked `aborted`.
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { isObject } from "./json.ts";
import { anthropicMessages } from "./protocols/anthropic-messages.ts";
import { chatCompletions } from "./protocols/chat-completions.ts";
import { openaiResponses } from "./protocols/openai-responses.ts";
import type { ProtocolName, WireProtocol } from "./protocols/wire.ts";
import { answerOf, type Reply, type Usage } from "./reply.ts";
import { requestText } from "./request-text.ts";

/** The part of a request body tests look at. */
export interface RequestBody {
  model?: string;
  /** Chat Completions and Anthropic. */
  messages?: Array<{ role: string; content: unknown }>;
  /** Responses: a string or a list of input items. */
  input?: unknown;
  /** Responses: the system prompt. */
  instructions?: unknown;
  /** Anthropic: the system prompt. */
  system?: unknown;
  tools?: unknown;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  max_completion_tokens?: number;
  [key: string]: unknown;
}

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
  body: RequestBody | undefined;
}

/** A model request, as recorded in `requests`. */
export interface RecordedRequest extends ReceivedRequest {
  protocol: ProtocolName;
  /** The client went away before the whole answer was written. */
  aborted: boolean;
}

/** The connection a model request came on. */
export interface Connection {
  /** Resolves once the answer is sent, or the client went away first. */
  closed: Promise<void>;
}

/** Decides the reply to a model request; `index` counts model requests from 0. */
export type Handler = (
  request: RecordedRequest,
  index: number,
  connection: Connection,
) => Reply | Promise<Reply>;

/** A JSON answer to a control request (status default 200). */
export interface ControlReply {
  status?: number;
  body: unknown;
}

/** Answers a request to any other path; `undefined` is a 404. */
export type ControlHandler = (
  request: ReceivedRequest,
) => ControlReply | undefined | Promise<ControlReply | undefined>;

export interface TestServerOptions {
  /** The harness's own endpoints (scenarios, logs, releasing held requests, fakes of other APIs). */
  control?: ControlHandler;
  /**
   * How long an idle connection is kept open (Node's default is 5 s; providers keep theirs a
   * minute or more). A client that reuses a connection just as the server closes it sees it reset.
   */
  keepAliveTimeoutMs?: number;
}

export interface TestServer {
  /** Base URL for an OpenAI client, ending in `/v1`. */
  url: string;
  /** `http://127.0.0.1:<port>`: an Anthropic client's base URL, and the control requests'. */
  origin: string;
  /** Every model request received, in order. */
  requests: RecordedRequest[];
  setHandler(handler: Handler): void;
  close(): Promise<void>;
}

export const PROTOCOLS: Record<ProtocolName, WireProtocol> = {
  chat: chatCompletions,
  responses: openaiResponses,
  anthropic: anthropicMessages,
};

/** Which protocol a path speaks, if any. */
export function protocolOf(path: string): ProtocolName | undefined {
  const pathname = path.split("?")[0] ?? "";
  return Object.values(PROTOCOLS).find((protocol) => pathname.endsWith(protocol.path))?.name;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function parseBody(raw: string): RequestBody | undefined {
  try {
    const parsed: unknown = JSON.parse(raw);
    return isObject(parsed) ? (parsed as RequestBody) : undefined;
  } catch {
    return undefined;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Characters / 4: what an answer reports when its reply sets no usage. */
function roughUsage(request: RecordedRequest, text: string): Usage {
  return {
    prompt_tokens: Math.ceil(requestText(request).length / 4),
    completion_tokens: Math.ceil(text.length / 4),
  };
}

/** Sent with every answer, as the providers send theirs (the Anthropic SDK reads it). */
const REQUEST_ID = { "request-id": "req_test" };

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json", ...REQUEST_ID });
  response.end(JSON.stringify(body));
}

function startStream(response: ServerResponse): void {
  response.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    ...REQUEST_ID,
  });
}

/**
 * Writes `reply` to a model request; resolves once it is written or the client went away, with
 * whether the whole answer was written.
 */
async function answer(
  request: RecordedRequest,
  reply: Reply,
  serial: number,
  response: ServerResponse,
  closed: Promise<void>,
): Promise<boolean> {
  if (reply.delayMs !== undefined && reply.delayMs > 0) {
    await Promise.race([sleep(reply.delayMs), closed]);
  }
  if (response.destroyed) return false;
  const protocol = PROTOCOLS[request.protocol];
  const streaming = request.body?.stream === true;
  const context = {
    model: request.body?.model ?? "test-model",
    serial,
    request: request.body ?? {},
  };
  switch (reply.type) {
    case "hang":
      await closed;
      return false;
    case "error": {
      const { type: _, headers, delayMs: __, message, ...error } = reply;
      response.writeHead(error.status, {
        "content-type": "application/json",
        ...REQUEST_ID,
        ...headers,
      });
      response.end(
        JSON.stringify(
          protocol.errorBody({ ...error, message: message ?? `scripted error ${error.status}` }),
        ),
      );
      return true;
    }
    case "raw":
      response.writeHead(reply.status ?? 200, {
        "content-type": reply.contentType ?? "application/json",
        ...reply.headers,
      });
      response.end(reply.body);
      return true;
    case "truncated": {
      const rendered = protocol.render(
        answerOf({ content: reply.content, usage: null }, () => ({
          prompt_tokens: 0,
          completion_tokens: 0,
        })),
        context,
      );
      if (streaming) {
        startStream(response);
        for (const event of rendered.events.slice(0, rendered.beforeFinish)) response.write(event);
      } else {
        const body = JSON.stringify(rendered.json);
        response.writeHead(200, { "content-type": "application/json", ...REQUEST_ID });
        response.write(body.slice(0, Math.floor(body.length / 2)));
      }
      if (reply.stall !== true) {
        // Cut the connection without finishing the response.
        await sleep(10);
        response.socket?.destroy();
      }
      await closed;
      return false;
    }
    case "completion": {
      const rendered = protocol.render(
        answerOf(reply, (text) => roughUsage(request, text)),
        context,
      );
      if (!streaming) {
        sendJson(response, 200, rendered.json);
        return true;
      }
      startStream(response);
      if (reply.stall === true) {
        for (const event of rendered.events.slice(0, 2)) response.write(event);
        await closed;
        return false;
      }
      for (const event of rendered.events) {
        if (response.destroyed) return false;
        response.write(event);
        if (reply.slowMs !== undefined && reply.slowMs > 0) {
          await Promise.race([sleep(reply.slowMs), closed]);
        }
      }
      response.end();
      return true;
    }
  }
}

/** Starts the server on 127.0.0.1 with a free port. */
export async function startTestServer(
  handler: Handler,
  options: TestServerOptions = {},
): Promise<TestServer> {
  let current = handler;
  let serial = 0;
  const requests: RecordedRequest[] = [];
  const server = createServer(
    options.keepAliveTimeoutMs === undefined
      ? {}
      : { keepAliveTimeout: options.keepAliveTimeoutMs },
    (incoming, response) => {
      // The response closes once it is sent, or when the client goes away first.
      const closed = new Promise<void>((resolve) => response.once("close", () => resolve()));
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
        const protocol = protocolOf(received.path);
        if (protocol === undefined) {
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
        const recorded: RecordedRequest = { ...received, protocol, aborted: false };
        const index = requests.length;
        requests.push(recorded);
        let finished = false;
        void closed.then(() => {
          if (!finished) recorded.aborted = true;
        });
        const reply = await current(recorded, index, { closed });
        serial += 1;
        finished = await answer(recorded, reply, serial, response, closed);
      })().catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500, { "content-type": "application/json" });
        response.end(
          JSON.stringify({ error: { message: `test server failed: ${String(error)}` } }),
        );
      });
    },
  );
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
