/**
 * @module upstream/scripted-upstream
 * The provider the agents talk to in these tests: a Node HTTP server on
 * loopback that serves each registered run under its own base path
 * (`/<run>/…`) in the run's protocol (`upstream/anthropic-messages`,
 * `upstream/openai-responses`, `upstream/chat-completions`). Each model
 * request is authenticated (the run's key, as the provider reads it), checked
 * against the protocol's documented rules, counted (`upstream/prompt-tokens`)
 * and refused with the provider's overflow error above the run's limit, then
 * answered by the run's scripted model — streamed when the request streams.
 * Every request is recorded, refused or not, for the run's figures.
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { isObject, type JsonObject, type Violation } from "@condense/test-servers";
import type { ScriptedModel } from "../model/scripted-model.ts";
import { promptTokens } from "./prompt-tokens.ts";
import type { WireProtocol } from "./wire.ts";

export interface UpstreamRun {
  /** The first path segment of the run's base URL. */
  name: string;
  protocol: WireProtocol;
  model: ScriptedModel;
  /** Prompt tokens above which a request is refused as an overflow. */
  limit: number;
  /** The API key the run's requests must carry. */
  key: string;
}

export interface RecordedCall {
  /** Milliseconds since the server started. */
  at: number;
  method: string;
  /** The path after the run's base path, with the query. */
  path: string;
  headers: Record<string, string>;
  body: JsonObject | null;
  /** The prompt's tokens (model requests). */
  tokens: number | null;
  status: number;
  /** A request that declares no tools (a title, a quota check), not a turn of the task. */
  side: boolean;
  /** Why the request was refused. */
  refused?: Violation;
}

export interface ScriptedUpstream {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  register(run: UpstreamRun): void;
  calls(run: string): RecordedCall[];
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    request.on("data", (part: Buffer) => parts.push(part));
    request.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    request.on("error", reject);
  });
}

function headersOf(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

function parseJson(raw: string): JsonObject | null {
  try {
    const value: unknown = JSON.parse(raw);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json", "request-id": "req_e2e" });
  response.end(JSON.stringify(body));
}

export async function startScriptedUpstream(): Promise<ScriptedUpstream> {
  const runs = new Map<string, UpstreamRun>();
  const recorded = new Map<string, RecordedCall[]>();
  const started = Date.now();
  let serial = 0;

  const handle = async (incoming: IncomingMessage, response: ServerResponse) => {
    const url = new URL(incoming.url ?? "/", "http://127.0.0.1");
    const [, name = "", ...rest] = url.pathname.split("/");
    const path = `/${rest.join("/")}${url.search}`;
    const run = runs.get(name);
    const raw = await readBody(incoming);
    if (run === undefined) {
      sendJson(response, 404, { error: { message: `no run named ${name}`, type: "not_found" } });
      return;
    }
    const headers = headersOf(incoming);
    const body = parseJson(raw);
    const call: RecordedCall = {
      at: Date.now() - started,
      method: incoming.method ?? "GET",
      path,
      headers,
      body,
      tokens: null,
      status: 200,
      side: false,
    };
    recorded.get(name)?.push(call);
    const { protocol } = run;
    const refuse = (violation: Violation) => {
      call.status = violation.status;
      call.refused = violation;
      sendJson(response, violation.status, protocol.errorBody(violation));
    };
    if (incoming.method === "GET" && url.pathname.endsWith("/models")) {
      sendJson(response, 200, {
        object: "list",
        data: [{ id: "e2e-model", object: "model", created: 0, owned_by: "e2e" }],
      });
      return;
    }
    if (incoming.method !== "POST" || !url.pathname.endsWith(protocol.path)) {
      refuse({
        status: 404,
        type: "not_found_error",
        message: `no route ${incoming.method} ${path}`,
      });
      return;
    }
    if (!protocol.authenticated(headers, run.key)) {
      refuse(protocol.unauthorized());
      return;
    }
    if (body === null) {
      refuse({ status: 400, message: "The request body is not valid JSON." });
      return;
    }
    const tokens = promptTokens(protocol.prompt(body));
    call.tokens = tokens;
    const request = protocol.read(body);
    call.side = run.model.isSide(request);
    const violation = protocol.violation(body, headers);
    if (violation !== undefined) {
      refuse(violation);
      return;
    }
    if (tokens > run.limit) {
      refuse(protocol.overflow(tokens, run.limit, body));
      return;
    }
    serial += 1;
    const answer = run.model.answer(request);
    const context = {
      model: typeof body.model === "string" ? body.model : "e2e-model",
      serial,
      inputTokens: tokens,
      request: body,
    };
    if (body.stream !== true) {
      sendJson(response, 200, protocol.json(answer, context));
      return;
    }
    response.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "request-id": "req_e2e",
    });
    for (const event of protocol.events(answer, context)) response.write(event);
    response.end();
  };

  const server = createServer((incoming, response) => {
    handle(incoming, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { "content-type": "application/json" });
      response.end(
        JSON.stringify({ error: { message: `scripted upstream failed: ${String(error)}` } }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    register(run) {
      runs.set(run.name, run);
      recorded.set(run.name, []);
    },
    calls: (name) => recorded.get(name) ?? [],
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}
