/**
 * @module test/gateway-upstream
 * The provider behind the gateway in tests and in the bench: a local HTTP
 * server (Node; workerd cannot listen) that speaks OpenAI Chat Completions
 * (`…/chat/completions`), OpenAI Responses (`…/responses`) and Anthropic
 * Messages (`…/v1/messages`), each as JSON or as server-sent events when the
 * request streams, and lists models (`…/models`).
 *
 * It records every request (path, headers, body) under the tag of its
 * `x-test-tag` header, and a request's `x-test-upstream` header scripts the
 * reply (`;`-separated):
 * - `limit=N`: refuses a request whose prompt counts more than N tokens, with the provider's own
 *   overflow error: OpenAI's `context_length_exceeded` with the figures, the
 *   Responses API's sentence without them, Anthropic's `prompt is too long:
 *   N tokens > M maximum`, or with `sum` Anthropic's `input length and
 *   max_tokens exceed context limit: N + M > L`;
 * - `fail=STATUS`: an error of that status in the protocol's shape;
 * - `hang`: never answers; `stall`: a stream that sends its first events, then nothing;
 * - `hold`: waits until `POST /control/release?tag=` releases the tag's requests (those
 *   after it pass at once), then answers as scripted;
 * - `delay=MS`: waits before answering; `slow=MS`: pauses that long between two events of a stream;
 * - `tool=NAME`: answers with a call of tool NAME;
 * - `cached=R;written=W`: the usage reports R prompt tokens read from the prompt cache, W written.
 * It refuses, as the providers do, what they refuse that the gateway might
 * send: an Anthropic request with more than 4 blocks carrying `cache_control`
 * (tools, system and messages counted), and Responses input whose outputs do
 * not answer an earlier call of their kind (`function_call_output` a
 * `function_call`, `custom_tool_call_output` a `custom_tool_call`, `X_output` an
 * `X`) or whose calls have no output.
 * A call whose client went away before the answer was whole is recorded as `aborted`.
 * Answers queued for a tag (`POST /control/answers`, canonical assistant
 * messages) are given in order, one per request of that tag, in the request's
 * protocol (custom tool calls included; `provider_data.anthropic.blocks` and
 * `provider_data.responses.items` are given as the answer's blocks and output
 * items as they are); otherwise the answer is `Answer N` (N counts every model
 * request).
 * `GET /control/requests?tag=` returns what the tag's requests carried.
 *
 * A prompt's tokens are what providers bill as input: its messages (the
 * engine's count for the request's model) and its tool definitions (and a
 * Responses request's `instructions`), counted as the JSON they came in. The
 * same count is the answer's `usage` and what `limit` compares; `cached=R;written=W`
 * reports R of them read from the prompt cache and W written to it, in each
 * protocol's own fields.
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type ChatMessage,
  countAnthropicCacheMarkers,
  countMessageTokens,
  countTokens,
  type MessageFormat,
  toCanonical,
} from "@condense/core";

export interface RecordedCall {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown> | null;
  /** The body's bytes as they came, to tell a body forwarded unchanged. */
  text: string;
  /** The prompt's tokens (messages, tools, instructions: see the module), or null for non-model calls. */
  tokens: number | null;
  /** The connection closed before the whole answer was written. */
  aborted: boolean;
}

export interface GatewayUpstream {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** Every recorded call, by tag. */
  calls: Map<string, RecordedCall[]>;
  close(): Promise<void>;
}

type Protocol = "chat" | "responses" | "anthropic";

interface Script {
  limit?: number;
  sum: boolean;
  fail?: number;
  hang: boolean;
  hold: boolean;
  stall: boolean;
  delayMs: number;
  slowMs: number;
  tool?: string;
  /** `cached=R;written=W`: the answer's usage says R prompt tokens were read from the cache, W written. */
  cache?: CacheUsage;
}

interface CacheUsage {
  read: number;
  write: number;
}

function parseScript(header: string | undefined): Script {
  const script: Script = {
    sum: false,
    hang: false,
    hold: false,
    stall: false,
    delayMs: 0,
    slowMs: 0,
  };
  for (const part of (header ?? "").split(";")) {
    const [name, value = ""] = part.trim().split("=");
    if (name === "limit") script.limit = Number(value);
    else if (name === "sum") script.sum = true;
    else if (name === "fail") script.fail = Number(value);
    else if (name === "hang") script.hang = true;
    else if (name === "hold") script.hold = true;
    else if (name === "stall") script.stall = true;
    else if (name === "delay") script.delayMs = Number(value);
    else if (name === "slow") script.slowMs = Number(value);
    else if (name === "tool") script.tool = value;
    else if (name === "cached")
      script.cache = { read: Number(value), write: script.cache?.write ?? 0 };
    else if (name === "written")
      script.cache = { read: script.cache?.read ?? 0, write: Number(value) };
  }
  return script;
}

function protocolOf(path: string): Protocol | undefined {
  const pathname = path.split("?")[0] ?? "";
  if (pathname.endsWith("/chat/completions")) return "chat";
  if (pathname.endsWith("/responses")) return "responses";
  if (pathname.endsWith("/v1/messages")) return "anthropic";
  return undefined;
}

const FORMATS: Record<Protocol, MessageFormat> = {
  chat: "openai",
  responses: "responses",
  anthropic: "anthropic",
};

function historyOf(protocol: Protocol, body: Record<string, unknown>): ChatMessage[] {
  if (protocol === "responses") {
    const input =
      typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
    return toCanonical({ format: "responses", messages: Array.isArray(input) ? input : [] });
  }
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return toCanonical({
    format: FORMATS[protocol],
    messages,
    ...(protocol === "anthropic" && body.system !== undefined ? { system: body.system } : {}),
  });
}

/** What the provider refuses of a request the gateway might send, in its words; undefined: nothing. */
function providerRefusal(protocol: Protocol, body: Record<string, unknown>): string | undefined {
  if (protocol === "anthropic") {
    const found = countAnthropicCacheMarkers(body);
    return found > 4
      ? `A maximum of 4 blocks with cache_control may be provided. Found ${found}.`
      : undefined;
  }
  if (protocol !== "responses" || !Array.isArray(body.input)) return undefined;
  const outputOf = (type: string) =>
    type === "function_call"
      ? "function_call_output"
      : type === "custom_tool_call"
        ? "custom_tool_call_output"
        : `${type}_output`;
  const open = new Map<string, string>();
  for (const raw of body.input as unknown[]) {
    const item = raw as { type?: unknown; call_id?: unknown };
    if (typeof item.type !== "string" || typeof item.call_id !== "string") continue;
    if (item.type.endsWith("_output")) {
      if (open.get(item.call_id) !== item.type)
        return `No tool call found for ${item.type.replaceAll("_", " ")} with call_id ${item.call_id}.`;
      open.delete(item.call_id);
    } else {
      open.set(item.call_id, outputOf(item.type));
    }
  }
  const [unanswered] = open.keys();
  return unanswered === undefined ? undefined : `No tool output found for call ${unanswered}.`;
}

/** Tokens a provider bills beside the messages: the tool definitions, and Responses' `instructions`. */
function fieldTokens(protocol: Protocol, body: Record<string, unknown>, model: string): number {
  const fields = protocol === "responses" ? ["tools", "instructions"] : ["tools"];
  return fields.reduce(
    (sum, field) =>
      body[field] === undefined ? sum : sum + countTokens(JSON.stringify(body[field]), model),
    0,
  );
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json", "x-upstream-request": "yes" });
  response.end(JSON.stringify(body));
}

function errorBody(protocol: Protocol, status: number, message: string, code: string | null) {
  if (protocol === "anthropic") {
    const type = status === 400 ? "invalid_request_error" : "api_error";
    return { type: "error", error: { type, message }, request_id: "req_test" };
  }
  const type = status === 400 ? "invalid_request_error" : "server_error";
  return { error: { message, type, param: status === 400 ? "messages" : null, code } };
}

function overflowError(
  protocol: Protocol,
  tokens: number,
  limit: number,
  script: Script,
  maxTokens: number,
) {
  if (protocol === "chat") {
    return errorBody(
      protocol,
      400,
      `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
      "context_length_exceeded",
    );
  }
  if (protocol === "responses") {
    return errorBody(
      protocol,
      400,
      "Your input exceeds the context window of this model. Please adjust your input and try again.",
      "context_length_exceeded",
    );
  }
  return errorBody(
    protocol,
    400,
    script.sum
      ? `input length and \`max_tokens\` exceed context limit: ${tokens} + ${maxTokens} > ${limit}, decrease input length or \`max_tokens\` and try again`
      : `prompt is too long: ${tokens} tokens > ${limit} maximum`,
    null,
  );
}

interface AnswerCall {
  id: string;
  name: string;
  /** A function's arguments, or a custom tool's input. */
  arguments: string;
  custom: boolean;
}

interface Answer {
  content: string;
  calls: AnswerCall[];
  /** Anthropic content blocks given as they are. */
  blocks?: unknown[];
  /** Responses output items given as they are. */
  items?: unknown[];
}

/** The answer as a canonical assistant message. */
function answerFor(queued: ChatMessage | undefined, script: Script, n: number): Answer {
  if (queued !== undefined) {
    const content =
      typeof queued.content === "string"
        ? queued.content
        : (queued.content ?? []).map((part) => (part.type === "text" ? part.text : "")).join("");
    const blocks = queued.provider_data?.anthropic?.blocks;
    const items = queued.provider_data?.responses?.items;
    return {
      content,
      calls: (queued.tool_calls ?? []).map((call) => ({
        id: call.id,
        name: call.type === "custom" ? call.custom.name : call.function.name,
        arguments: call.type === "custom" ? call.custom.input : call.function.arguments,
        custom: call.type === "custom",
      })),
      ...(blocks !== undefined ? { blocks } : {}),
      ...(items !== undefined ? { items } : {}),
    };
  }
  if (script.tool !== undefined) {
    return {
      content: `Calling ${script.tool}.`,
      calls: [
        {
          id: `call_${n}`,
          name: script.tool,
          arguments: JSON.stringify({ path: `src/${n}.ts` }),
          custom: false,
        },
      ],
    };
  }
  return { content: `Answer ${n}`, calls: [] };
}

function anthropicId(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, "_");
}

function chatJson(model: string, answer: Answer, n: number, tokens: number, cache?: CacheUsage) {
  return {
    id: `chatcmpl-${n}`,
    object: "chat.completion",
    created: 1_700_000_000,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: answer.content === "" && answer.calls.length > 0 ? null : answer.content,
          refusal: null,
          annotations: [],
          ...(answer.calls.length > 0
            ? {
                tool_calls: answer.calls.map((call) =>
                  call.custom
                    ? {
                        id: call.id,
                        type: "custom",
                        custom: { name: call.name, input: call.arguments },
                      }
                    : {
                        id: call.id,
                        type: "function",
                        function: { name: call.name, arguments: call.arguments },
                      },
                ),
              }
            : {}),
        },
        finish_reason: answer.calls.length > 0 ? "tool_calls" : "stop",
        logprobs: null,
      },
    ],
    usage: chatUsage(tokens, cache),
  };
}

/** Chat Completions usage, with the cached tokens in `prompt_tokens_details` when scripted. */
function chatUsage(tokens: number, cache: CacheUsage | undefined) {
  return {
    prompt_tokens: tokens,
    completion_tokens: 7,
    total_tokens: tokens + 7,
    ...(cache !== undefined ? { prompt_tokens_details: { cached_tokens: cache.read } } : {}),
  };
}

function chatEvents(
  model: string,
  answer: Answer,
  n: number,
  tokens: number,
  usage: boolean,
  cache?: CacheUsage,
): string[] {
  const base = {
    id: `chatcmpl-${n}`,
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model,
  };
  const chunk = (delta: unknown, finish: string | null) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] })}\n\n`;
  const events = [chunk({ role: "assistant", content: "", refusal: null }, null)];
  for (let i = 0; i < answer.content.length; i += 16) {
    events.push(chunk({ content: answer.content.slice(i, i + 16) }, null));
  }
  answer.calls.forEach((call, index) => {
    // A custom tool call streams its input as a function call streams its arguments.
    const first = call.custom
      ? { index, id: call.id, type: "custom", custom: { name: call.name, input: "" } }
      : { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } };
    events.push(chunk({ tool_calls: [first] }, null));
    for (let i = 0; i < call.arguments.length; i += 8) {
      const piece = call.arguments.slice(i, i + 8);
      const next = call.custom
        ? { index, custom: { input: piece } }
        : { index, function: { arguments: piece } };
      events.push(chunk({ tool_calls: [next] }, null));
    }
  });
  events.push(chunk({}, answer.calls.length > 0 ? "tool_calls" : "stop"));
  if (usage) {
    events.push(
      `data: ${JSON.stringify({ ...base, choices: [], usage: chatUsage(tokens, cache) })}\n\n`,
    );
  }
  events.push("data: [DONE]\n\n");
  return events;
}

function responsesJson(
  model: string,
  answer: Answer,
  n: number,
  tokens: number,
  cache?: CacheUsage,
) {
  const output: unknown[] = [];
  if (answer.items !== undefined) output.push(...answer.items);
  else if (answer.content !== "" || answer.calls.length === 0) {
    output.push({
      type: "message",
      id: `msg_${n}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: answer.content, annotations: [] }],
    });
  }
  if (answer.items === undefined) {
    answer.calls.forEach((call, index) => {
      output.push(
        call.custom
          ? {
              type: "custom_tool_call",
              id: `ctc_${n}_${index}`,
              call_id: call.id,
              name: call.name,
              input: call.arguments,
              status: "completed",
            }
          : {
              type: "function_call",
              id: `fc_${n}_${index}`,
              call_id: call.id,
              name: call.name,
              arguments: call.arguments,
              status: "completed",
            },
      );
    });
  }
  return {
    id: `resp_${n}`,
    object: "response",
    created_at: 1_700_000_000,
    status: "completed",
    model,
    output,
    usage: {
      input_tokens: tokens,
      output_tokens: 7,
      total_tokens: tokens + 7,
      ...(cache !== undefined ? { input_tokens_details: { cached_tokens: cache.read } } : {}),
    },
  };
}

function responsesEvents(json: ReturnType<typeof responsesJson>): string[] {
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...fields, sequence_number: sequence++ })}\n\n`;
  const events = [
    event("response.created", { response: { ...json, status: "in_progress", output: [] } }),
  ];
  json.output.forEach((item, index) => {
    events.push(event("response.output_item.added", { output_index: index, item }));
    events.push(event("response.output_item.done", { output_index: index, item }));
  });
  events.push(event("response.completed", { response: json }));
  return events;
}

function anthropicBlocks(answer: Answer): Array<Record<string, unknown>> {
  if (answer.blocks !== undefined) return answer.blocks as Array<Record<string, unknown>>;
  return [
    ...(answer.content !== "" ? [{ type: "text", text: answer.content }] : []),
    ...answer.calls.map((call) => ({
      type: "tool_use",
      id: anthropicId(call.id),
      name: call.name,
      input: call.custom
        ? { input: call.arguments }
        : (JSON.parse(call.arguments === "" ? "{}" : call.arguments) as unknown),
    })),
  ];
}

function anthropicJson(
  model: string,
  answer: Answer,
  n: number,
  tokens: number,
  cache?: CacheUsage,
) {
  return {
    id: `msg_${n}`,
    type: "message",
    role: "assistant",
    model,
    content: anthropicBlocks(answer),
    stop_reason: answer.calls.length > 0 ? "tool_use" : "end_turn",
    stop_sequence: null,
    // Anthropic's input_tokens leaves out what the cache read and wrote.
    usage:
      cache === undefined
        ? { input_tokens: tokens, output_tokens: 7 }
        : {
            input_tokens: tokens - cache.read - cache.write,
            cache_read_input_tokens: cache.read,
            cache_creation_input_tokens: cache.write,
            output_tokens: 7,
          },
  };
}

function anthropicEvents(json: ReturnType<typeof anthropicJson>): string[] {
  const event = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const events = [
    event("message_start", {
      message: {
        ...json,
        content: [],
        stop_reason: null,
        usage: { ...json.usage, output_tokens: 1 },
      },
    }),
  ];
  json.content.forEach((block, index) => {
    if (block.type === "text") {
      events.push(
        event("content_block_start", { index, content_block: { type: "text", text: "" } }),
      );
      const text = String(block.text);
      for (let i = 0; i < text.length; i += 16) {
        events.push(
          event("content_block_delta", {
            index,
            delta: { type: "text_delta", text: text.slice(i, i + 16) },
          }),
        );
      }
    } else if (block.input === undefined) {
      // A block without input (a server tool's result) starts whole, as Anthropic sends it.
      events.push(event("content_block_start", { index, content_block: block }));
    } else {
      events.push(event("content_block_start", { index, content_block: { ...block, input: {} } }));
      const input = JSON.stringify(block.input);
      for (let i = 0; i < input.length; i += 8) {
        events.push(
          event("content_block_delta", {
            index,
            delta: { type: "input_json_delta", partial_json: input.slice(i, i + 8) },
          }),
        );
      }
    }
    events.push(event("content_block_stop", { index }));
  });
  events.push(
    event("message_delta", {
      delta: { stop_reason: json.stop_reason, stop_sequence: null },
      usage: { output_tokens: 7 },
    }),
  );
  events.push(event("message_stop", {}));
  return events;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function startGatewayUpstream(): Promise<GatewayUpstream> {
  const calls = new Map<string, RecordedCall[]>();
  const answers = new Map<string, ChatMessage[]>();
  /** Tags released (`hold`), each with the promise its held requests wait on. */
  const releases = new Map<string, { released: Promise<void>; release: () => void }>();
  const releaseOf = (tag: string) => {
    let entry = releases.get(tag);
    if (entry === undefined) {
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      entry = { released, release };
      releases.set(tag, entry);
    }
    return entry;
  };
  let requests = 0;

  const record = (tag: string, call: RecordedCall) =>
    calls.set(tag, [...(calls.get(tag) ?? []), call]);

  const handle = async (
    incoming: IncomingMessage,
    response: ServerResponse,
    closed: Promise<void>,
  ) => {
    const raw = await readBody(incoming);
    const path = incoming.url ?? "/";
    const url = new URL(path, "http://localhost");
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
    }
    let body: Record<string, unknown> | null = null;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
        body = parsed as Record<string, unknown>;
      }
    } catch {
      // Not JSON.
    }

    if (url.pathname === "/control/answers" && incoming.method === "POST") {
      const tag = String(body?.tag ?? "");
      answers.set(tag, [...(answers.get(tag) ?? []), ...((body?.answers as ChatMessage[]) ?? [])]);
      sendJson(response, 200, { queued: answers.get(tag)?.length ?? 0 });
      return;
    }
    if (url.pathname === "/control/release" && incoming.method === "POST") {
      releaseOf(url.searchParams.get("tag") ?? "").release();
      sendJson(response, 200, { released: true });
      return;
    }
    if (url.pathname === "/control/requests") {
      sendJson(response, 200, calls.get(url.searchParams.get("tag") ?? "") ?? []);
      return;
    }

    const tag = headers["x-test-tag"] ?? "";
    const protocol = protocolOf(path);
    if (protocol === undefined) {
      record(tag, {
        method: incoming.method ?? "GET",
        path,
        headers,
        body,
        text: raw,
        tokens: null,
        aborted: false,
      });
      if (url.pathname.endsWith("/models")) {
        sendJson(response, 200, {
          object: "list",
          data: [{ id: "test-model", object: "model", created: 0, owned_by: "test" }],
        });
        return;
      }
      sendJson(response, 404, { error: { message: `no route ${path}`, type: "not_found" } });
      return;
    }
    if (body === null) {
      sendJson(response, 400, errorBody(protocol, 400, "invalid JSON", null));
      return;
    }
    const model = String(body.model ?? "test-model");
    let refusal = providerRefusal(protocol, body);
    let history: ChatMessage[] = [];
    try {
      history = historyOf(protocol, body);
    } catch (error) {
      // What the engine cannot read stands for what the provider refuses.
      refusal ??= `invalid request: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (refusal !== undefined) {
      record(tag, {
        method: incoming.method ?? "POST",
        path,
        headers,
        body,
        text: raw,
        tokens: null,
        aborted: false,
      });
      sendJson(response, 400, errorBody(protocol, 400, refusal, null));
      return;
    }
    const tokens = countMessageTokens(history, model) + fieldTokens(protocol, body, model);
    const call: RecordedCall = {
      method: incoming.method ?? "POST",
      path,
      headers,
      body,
      text: raw,
      tokens,
      aborted: false,
    };
    record(tag, call);
    let finished = false;
    void closed.then(() => {
      if (!finished) call.aborted = true;
    });
    requests += 1;
    const n = requests;
    const script = parseScript(headers["x-test-upstream"]);
    if (script.delayMs > 0) await Promise.race([sleep(script.delayMs), closed]);
    if (script.hold) await Promise.race([releaseOf(tag).released, closed]);
    if (script.hang) {
      await closed;
      return;
    }
    if (script.fail !== undefined) {
      finished = true;
      sendJson(
        response,
        script.fail,
        errorBody(protocol, script.fail, `scripted failure ${script.fail}`, null),
      );
      return;
    }
    if (script.limit !== undefined && tokens > script.limit) {
      const maxTokens = typeof body.max_tokens === "number" ? body.max_tokens : 1024;
      finished = true;
      sendJson(response, 400, overflowError(protocol, tokens, script.limit, script, maxTokens));
      return;
    }
    const queue = answers.get(tag) ?? [];
    const answer = answerFor(queue.shift(), script, n);
    const stream = body.stream === true;
    const includeUsage =
      (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    let json: unknown;
    let events: string[];
    if (protocol === "chat") {
      json = chatJson(model, answer, n, tokens, script.cache);
      events = chatEvents(model, answer, n, tokens, includeUsage, script.cache);
    } else if (protocol === "responses") {
      const whole = responsesJson(model, answer, n, tokens, script.cache);
      json = whole;
      events = responsesEvents(whole);
    } else {
      const whole = anthropicJson(model, answer, n, tokens, script.cache);
      json = whole;
      events = anthropicEvents(whole);
    }
    if (!stream) {
      finished = true;
      sendJson(response, 200, json);
      return;
    }
    response.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "x-upstream-request": "yes",
    });
    if (script.stall) {
      for (const event of events.slice(0, 2)) response.write(event);
      await closed;
      return;
    }
    for (const event of events) {
      if (response.destroyed) return;
      response.write(event);
      if (script.slowMs > 0) await Promise.race([sleep(script.slowMs), closed]);
    }
    finished = true;
    response.end();
  };

  const server = createServer((incoming, response) => {
    // The response closes once it is sent, or when the client goes away first.
    const closed = new Promise<void>((resolve) => response.once("close", () => resolve()));
    handle(incoming, response, closed).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { "content-type": "application/json" });
      response.end(
        JSON.stringify({ error: { message: `test upstream failed: ${String(error)}` } }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    calls,
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}
