/**
 * @module test/model-server
 * A model provider the `withCompaction` tests control: a Node HTTP server
 * speaking OpenAI's Chat Completions and Responses protocols (JSON and SSE),
 * started in vitest's globalSetup (workerd cannot listen). It counts the
 * prompt with its own "tokenizer" (characters / 3 by default, deliberately
 * not the engine's) and REJECTS every request over the scenario's limit with a real
 * provider's overflow error, rotating through OpenAI, Anthropic, vLLM,
 * llama.cpp, Gemini and Mistral (or the scenario's choice of them).
 *
 * Each test registers a scenario (`POST /scenarios`) and sends the scenario's
 * name as the request's `model`, so tests running in parallel never share
 * state. `GET /scenarios/{name}/log` returns what the server received.
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ProviderName } from "./providers.js";

export interface Scenario {
  name: string;
  /** Prompt tokens above which a request is refused as an overflow. */
  limit: number;
  /** The server's tokenizer: characters per token (default 3; the engine's is about 4). */
  charsPerToken?: number;
  /** Report `usage` (prompt tokens) in answers (default true). */
  reportUsage?: boolean;
  /** Every `toolEvery`-th answer (1-based) is a tool call instead of text (0: never). */
  toolEvery?: number;
  /** The providers whose overflow errors it sends, in rotation (default: all of them). */
  providers?: ProviderName[];
  /** Answer every request with this HTTP error instead (a non-overflow failure). */
  failWith?: { status: number; body: unknown };
  /** Characters of each text answer (default 300). */
  answerChars?: number;
}

export interface LogEntry {
  api: "chat" | "responses";
  stream: boolean;
  tokens: number;
  /** Whether the request was refused as over the limit. */
  overLimit: boolean;
  /** Which provider's overflow error it got, when refused. */
  provider: string | null;
  status: number;
  /** Number of messages / input items sent. */
  items: number;
  /** Text of the first system message sent, to check the head survives compaction. */
  system: string | null;
}

interface State {
  scenario: Scenario;
  log: LogEntry[];
  answers: number;
  overflows: number;
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every string a prompt holds that a tokenizer would see. */
function texts(value: unknown, out: string[]): void {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const item of value) texts(item, out);
  else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (key === "type" || key === "id" || key === "status") continue;
      texts(item, out);
    }
  }
}

/** The server's token count: characters / `charsPerToken` plus 4 per message (a tokenizer unlike the engine's). */
export function promptTokens(
  items: unknown[],
  instructions: unknown,
  charsPerToken: number,
): number {
  const parts: string[] = [];
  texts(items, parts);
  if (typeof instructions === "string") parts.push(instructions);
  const chars = parts.reduce((sum, text) => sum + text.length, 0);
  return Math.ceil(chars / charsPerToken) + 4 * items.length;
}

/** Real overflow errors, as each provider sends them. */
const PROVIDERS: Array<{ name: ProviderName; error: (tokens: number, limit: number) => Json }> = [
  {
    name: "openai",
    error: (tokens, limit) => ({
      error: {
        message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    }),
  },
  {
    name: "anthropic",
    error: (tokens, limit) => ({
      type: "error",
      error: {
        type: "invalid_request_error",
        message: `prompt is too long: ${tokens} tokens > ${limit} maximum`,
      },
    }),
  },
  {
    name: "vllm",
    error: (tokens, limit) => ({
      object: "error",
      message: `This model's maximum context length is ${limit} tokens. However, you requested ${tokens} tokens (${tokens} in the messages, 0 in the completion). Please reduce the length of the messages or completion.`,
      type: "BadRequestError",
      param: null,
      code: 400,
    }),
  },
  {
    name: "llama.cpp",
    error: (tokens, limit) => ({
      error: {
        code: 400,
        message: "the request exceeds the available context size, try increasing it",
        type: "exceed_context_size_error",
        n_prompt_tokens: tokens,
        n_ctx: limit,
      },
    }),
  },
  {
    name: "gemini",
    error: (tokens, limit) => ({
      error: {
        code: 400,
        message: `The input token count (${tokens}) exceeds the maximum number of tokens allowed (${limit}).`,
        status: "INVALID_ARGUMENT",
      },
    }),
  },
  {
    name: "mistral",
    error: (tokens, limit) => ({
      object: "error",
      message: `Prompt contains ${tokens} tokens and 0 draft tokens, too large for model with ${limit} maximum context length`,
      type: "invalid_request_message_error",
      param: null,
      code: "3051",
    }),
  },
];

function answerText(state: State, chars: number): string {
  const head = `Answer ${state.answers}: the build step for module_${state.answers} passes; next I check the tests. `;
  return head
    .padEnd(chars, "Details of the reasoning follow. ")
    .slice(0, Math.max(chars, head.length));
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

function sse(response: ServerResponse, events: unknown[], named = false): void {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const event of events) {
    const type =
      named && isRecord(event) && typeof event.type === "string" ? `event: ${event.type}\n` : "";
    response.write(`${type}data: ${JSON.stringify(event)}\n\n`);
  }
  response.end("data: [DONE]\n\n");
}

/** Splits text into pieces as a streaming server would. */
function pieces(text: string, size = 40): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function firstSystem(items: unknown[]): string | null {
  for (const item of items) {
    if (isRecord(item) && (item.role === "system" || item.role === "developer")) {
      return typeof item.content === "string" ? item.content : JSON.stringify(item.content);
    }
  }
  return null;
}

function chat(state: State, body: Json, response: ServerResponse, tokens: number): void {
  const scenario = state.scenario;
  state.answers++;
  const model = String(body.model);
  const id = `chatcmpl-${state.answers}`;
  const tool = (scenario.toolEvery ?? 0) > 0 && state.answers % (scenario.toolEvery ?? 1) === 0;
  const usage = { prompt_tokens: tokens, completion_tokens: 50, total_tokens: tokens + 50 };
  const text = answerText(state, scenario.answerChars ?? 300);
  const call = {
    id: `call_${state.answers}`,
    type: "function",
    function: {
      name: "read_file",
      arguments: JSON.stringify({ path: `src/module_${state.answers}.ts` }),
    },
  };
  const stream = body.stream === true;
  if (!stream) {
    send(response, 200, {
      id,
      object: "chat.completion",
      created: 1_700_000_000,
      model,
      choices: [
        {
          index: 0,
          message: tool
            ? { role: "assistant", content: null, refusal: null, tool_calls: [call] }
            : { role: "assistant", content: text, refusal: null },
          finish_reason: tool ? "tool_calls" : "stop",
          logprobs: null,
        },
      ],
      ...(scenario.reportUsage === false ? {} : { usage }),
    });
    return;
  }
  const chunk = (delta: Json, finish: string | null) => ({
    id,
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  const events: unknown[] = [chunk({ role: "assistant", content: tool ? null : "" }, null)];
  if (tool) {
    // The call arrives the way OpenAI streams it: id and name first, then the arguments in pieces.
    events.push(
      chunk(
        {
          tool_calls: [
            {
              index: 0,
              id: call.id,
              type: "function",
              function: { name: "read_file", arguments: "" },
            },
          ],
        },
        null,
      ),
    );
    for (const piece of pieces(call.function.arguments, 7)) {
      events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }, null));
    }
  } else {
    for (const piece of pieces(text)) events.push(chunk({ content: piece }, null));
  }
  events.push(chunk({}, tool ? "tool_calls" : "stop"));
  const options = isRecord(body.stream_options) ? body.stream_options : {};
  if (options.include_usage === true && scenario.reportUsage !== false) {
    events.push({
      id,
      object: "chat.completion.chunk",
      created: 1_700_000_000,
      model,
      choices: [],
      usage,
    });
  }
  sse(response, events);
}

function responses(state: State, body: Json, response: ServerResponse, tokens: number): void {
  const scenario = state.scenario;
  state.answers++;
  const tool = (scenario.toolEvery ?? 0) > 0 && state.answers % (scenario.toolEvery ?? 1) === 0;
  const text = answerText(state, scenario.answerChars ?? 300);
  const item = tool
    ? {
        type: "function_call",
        id: `fc_${state.answers}`,
        call_id: `call_${state.answers}`,
        name: "read_file",
        arguments: JSON.stringify({ path: `src/module_${state.answers}.ts` }),
        status: "completed",
      }
    : {
        type: "message",
        id: `msg_${state.answers}`,
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text, annotations: [] }],
      };
  const final = {
    id: `resp_${state.answers}`,
    object: "response",
    created_at: 1_700_000_000,
    status: "completed",
    model: String(body.model),
    output: [item],
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    ...(scenario.reportUsage === false
      ? {}
      : {
          usage: {
            input_tokens: tokens,
            output_tokens: 50,
            total_tokens: tokens + 50,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens_details: { reasoning_tokens: 0 },
          },
        }),
  };
  if (body.stream !== true) {
    send(response, 200, final);
    return;
  }
  let sequence = 0;
  const event = (fields: Json) => ({ ...fields, sequence_number: sequence++ });
  const events: unknown[] = [
    event({ type: "response.created", response: { ...final, status: "in_progress", output: [] } }),
    event({
      type: "response.output_item.added",
      output_index: 0,
      item: { ...item, status: "in_progress" },
    }),
  ];
  if (!tool) {
    for (const piece of pieces(text)) {
      events.push(
        event({
          type: "response.output_text.delta",
          item_id: item.id,
          output_index: 0,
          content_index: 0,
          delta: piece,
        }),
      );
    }
  }
  events.push(event({ type: "response.output_item.done", output_index: 0, item }));
  events.push(event({ type: "response.completed", response: final }));
  sse(response, events, true);
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

export interface ModelServer {
  url: string;
  close(): Promise<void>;
}

export async function startModelServer(): Promise<ModelServer> {
  const states = new Map<string, State>();

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? "/", "http://localhost");
    const raw = await readBody(request);
    let body: Json = {};
    try {
      const parsed: unknown = raw === "" ? {} : JSON.parse(raw);
      if (isRecord(parsed)) body = parsed;
    } catch {
      send(response, 400, { error: { message: "invalid JSON", type: "invalid_request_error" } });
      return;
    }

    if (url.pathname === "/scenarios" && request.method === "POST") {
      const scenario = body as unknown as Scenario;
      states.set(scenario.name, { scenario, log: [], answers: 0, overflows: 0 });
      send(response, 200, { ok: true });
      return;
    }
    const logMatch = /^\/scenarios\/([^/]+)\/log$/.exec(url.pathname);
    if (logMatch?.[1] !== undefined) {
      send(response, 200, states.get(decodeURIComponent(logMatch[1]))?.log ?? null);
      return;
    }

    const api = url.pathname.endsWith("/chat/completions")
      ? "chat"
      : url.pathname.endsWith("/responses")
        ? "responses"
        : undefined;
    if (api === undefined || request.method !== "POST") {
      send(response, 404, { error: { message: `no route ${request.method} ${url.pathname}` } });
      return;
    }
    const state = states.get(String(body.model));
    if (state === undefined) {
      send(response, 404, {
        error: {
          message: `unknown model ${String(body.model)}; register the scenario first`,
          code: "model_not_found",
        },
      });
      return;
    }
    const items = api === "chat" ? body.messages : body.input;
    const list = Array.isArray(items)
      ? items
      : typeof items === "string"
        ? [{ role: "user", content: items }]
        : [];
    const tokens = promptTokens(list, body.instructions, state.scenario.charsPerToken ?? 3);
    const entry: LogEntry = {
      api,
      stream: body.stream === true,
      tokens,
      overLimit: tokens > state.scenario.limit,
      provider: null,
      status: 200,
      items: list.length,
      system: firstSystem(list),
    };
    state.log.push(entry);

    if (state.scenario.failWith !== undefined) {
      entry.status = state.scenario.failWith.status;
      send(response, state.scenario.failWith.status, state.scenario.failWith.body);
      return;
    }
    if (entry.overLimit) {
      const names = state.scenario.providers ?? PROVIDERS.map((p) => p.name);
      const wanted = names[state.overflows % names.length];
      const provider = PROVIDERS.find((p) => p.name === wanted);
      if (provider === undefined) throw new Error(`unknown provider ${String(wanted)}`);
      entry.provider = provider.name;
      entry.status = 400;
      state.overflows++;
      send(response, 400, provider.error(tokens, state.scenario.limit));
      return;
    }
    if (api === "chat") chat(state, body, response, tokens);
    else responses(state, body, response, tokens);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        send(response, 500, { error: { message: `model server failed: ${String(error)}` } });
      else response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}
