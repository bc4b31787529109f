/**
 * @module test/anthropic-server
 * A model provider speaking the Anthropic Messages protocol (`POST
 * /v1/messages`, JSON and server-sent events), for the tests of
 * `withCompaction` around the real `@anthropic-ai/sdk`. Started from Node (the
 * vitest globalSetup and the pack test), as workerd cannot listen.
 *
 * Like test/model-server.ts it plays scenarios that tests register (`POST
 * /scenarios`, then send the scenario's name as `model`): it counts the prompt
 * with its own tokenizer (characters / `charsPerToken`), refuses a prompt over
 * the limit with Anthropic's own overflow error (`prompt is too long: N tokens
 * > M maximum`), answers with text or a `tool_use` block, and with a signed
 * `thinking` block first when the scenario asks. It checks what Anthropic
 * checks about thinking: an assistant turn that carries a `tool_use` must come
 * back with its thinking block unmodified (signature included), else 400.
 * `GET /scenarios/{name}/log` returns what it received.
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface AnthropicScenario {
  name: string;
  /** Prompt tokens above which a request is refused as an overflow. */
  limit: number;
  /** Characters per token of the server's tokenizer (default 3). */
  charsPerToken?: number;
  /** Every `toolEvery`-th answer (1-based) is a tool_use instead of text (0: never). */
  toolEvery?: number;
  /** Start every answer with a signed thinking block. */
  thinking?: boolean;
  /** Characters of each text answer (default 300). */
  answerChars?: number;
}

export interface AnthropicLogEntry {
  stream: boolean;
  tokens: number;
  overLimit: boolean;
  status: number;
  /** Number of messages sent. */
  items: number;
  /** The `system` sent, as text. */
  system: string | null;
  /** The block types of each message sent (`text` for string content); kept small for the log. */
  blocks: string[][];
}

export interface AnthropicServer {
  origin: string;
  close(): Promise<void>;
}

interface State {
  scenario: AnthropicScenario;
  log: AnthropicLogEntry[];
  answers: number;
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function texts(value: unknown, out: string[]): void {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const item of value) texts(item, out);
  else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (key === "type" || key === "id" || key === "signature") continue;
      texts(item, out);
    }
  }
}

/** The server's token count: characters / `charsPerToken` plus 4 per message. */
function promptTokens(messages: unknown[], system: unknown, charsPerToken: number): number {
  const parts: string[] = [];
  texts(messages, parts);
  texts(system ?? null, parts);
  const chars = parts.reduce((sum, text) => sum + text.length, 0);
  return Math.ceil(chars / charsPerToken) + 4 * messages.length;
}

function systemText(system: unknown): string | null {
  if (typeof system === "string") return system;
  if (Array.isArray(system)) {
    return system
      .map((block) => (isRecord(block) && typeof block.text === "string" ? block.text : ""))
      .join("\n");
  }
  return null;
}

/** The signature the server gives its n-th thinking block (checked when the block comes back). */
function signatureOf(thinking: string): string {
  let hash = 0;
  for (const char of thinking) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
  return `sig-${hash.toString(16)}`;
}

/** A problem with the thinking blocks sent back, as Anthropic would report it, or none. */
function thinkingProblem(messages: unknown[], scenario: AnthropicScenario): string | null {
  if (scenario.thinking !== true) return null;
  for (const [index, message] of messages.entries()) {
    if (!isRecord(message) || message.role !== "assistant" || !Array.isArray(message.content))
      continue;
    const blocks = message.content.filter(isRecord);
    for (const block of blocks) {
      if (block.type === "thinking" && block.signature !== signatureOf(String(block.thinking))) {
        return `messages.${index}.content: Invalid \`signature\` in \`thinking\` block`;
      }
    }
    const usesTool = blocks.some((block) => block.type === "tool_use");
    const thinks = blocks.some((block) => block.type === "thinking");
    // Only the turns of the current tool loop need it; a summary may have replaced older ones.
    const later = messages.slice(index + 1);
    const inLoop = !later.some(
      (m) =>
        isRecord(m) &&
        m.role === "user" &&
        (typeof m.content === "string" ||
          (Array.isArray(m.content) &&
            m.content.every((block) => !isRecord(block) || block.type !== "tool_result"))),
    );
    if (usesTool && !thinks && inLoop) {
      return `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`tool_use\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block`;
    }
  }
  return null;
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
  response.writeHead(status, { "content-type": "application/json", "request-id": "req_test" });
  response.end(JSON.stringify(body));
}

function anthropicError(type: string, message: string): Json {
  return { type: "error", error: { type, message } };
}

function answerBlocks(state: State): Json[] {
  const { scenario } = state;
  const n = state.answers;
  const blocks: Json[] = [];
  if (scenario.thinking === true) {
    const thinking = `Step ${n}: I should look at module_${n} before answering.`;
    blocks.push({ type: "thinking", thinking, signature: signatureOf(thinking) });
  }
  const tool = (scenario.toolEvery ?? 0) > 0 && n % (scenario.toolEvery ?? 1) === 0;
  if (tool) {
    blocks.push({
      type: "tool_use",
      id: `toolu_${n}`,
      name: "read_file",
      input: { path: `src/module_${n}.ts` },
    });
  } else {
    const head = `Answer ${n}: the build step for module_${n} passes; next I check the tests. `;
    const chars = scenario.answerChars ?? 300;
    blocks.push({
      type: "text",
      text: head
        .padEnd(chars, "Details of the reasoning follow. ")
        .slice(0, Math.max(chars, head.length)),
    });
  }
  return blocks;
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let index = 0; index < text.length; index += size) out.push(text.slice(index, index + size));
  return out.length === 0 ? [""] : out;
}

function streamEvents(message: Json, blocks: Json[], inputTokens: number): string[] {
  const event = (type: string, data: Json) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const events = [
    event("message_start", {
      message: {
        ...message,
        content: [],
        stop_reason: null,
        usage: { input_tokens: inputTokens, output_tokens: 1 },
      },
    }),
  ];
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      events.push(
        event("content_block_start", { index, content_block: { type: "text", text: "" } }),
      );
      for (const piece of pieces(String(block.text), 64)) {
        events.push(
          event("content_block_delta", { index, delta: { type: "text_delta", text: piece } }),
        );
      }
    } else if (block.type === "thinking") {
      events.push(
        event("content_block_start", {
          index,
          content_block: { type: "thinking", thinking: "", signature: "" },
        }),
      );
      for (const piece of pieces(String(block.thinking), 16)) {
        events.push(
          event("content_block_delta", {
            index,
            delta: { type: "thinking_delta", thinking: piece },
          }),
        );
      }
      events.push(
        event("content_block_delta", {
          index,
          delta: { type: "signature_delta", signature: block.signature },
        }),
      );
    } else {
      events.push(
        event("content_block_start", {
          index,
          content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
        }),
      );
      for (const piece of pieces(JSON.stringify(block.input), 8)) {
        events.push(
          event("content_block_delta", {
            index,
            delta: { type: "input_json_delta", partial_json: piece },
          }),
        );
      }
    }
    events.push(event("content_block_stop", { index }));
  });
  events.push(
    event("message_delta", {
      delta: { stop_reason: message.stop_reason, stop_sequence: null },
      usage: { output_tokens: 50 },
    }),
  );
  events.push(event("message_stop", {}));
  return events;
}

/** Starts the server on 127.0.0.1 with a free port. */
export async function startAnthropicServer(): Promise<AnthropicServer> {
  const states = new Map<string, State>();
  const server = createServer((incoming, response) => {
    void (async () => {
      const path = new URL(incoming.url ?? "/", "http://localhost").pathname;
      const raw = await readBody(incoming);
      let body: unknown;
      try {
        body = raw === "" ? undefined : JSON.parse(raw);
      } catch {
        body = undefined;
      }
      if (path === "/scenarios" && incoming.method === "POST" && isRecord(body)) {
        const scenario = body as unknown as AnthropicScenario;
        states.set(scenario.name, { scenario, log: [], answers: 0 });
        sendJson(response, 200, { ok: true });
        return;
      }
      const logMatch = /^\/scenarios\/([^/]+)\/log$/.exec(path);
      if (logMatch?.[1] !== undefined) {
        sendJson(response, 200, states.get(decodeURIComponent(logMatch[1]))?.log ?? null);
        return;
      }
      if (path !== "/v1/messages" || incoming.method !== "POST") {
        sendJson(response, 404, anthropicError("not_found_error", `no route ${path}`));
        return;
      }
      if (!isRecord(body) || !Array.isArray(body.messages)) {
        sendJson(
          response,
          400,
          anthropicError("invalid_request_error", "messages: Field required"),
        );
        return;
      }
      const state = states.get(String(body.model));
      if (state === undefined) {
        sendJson(
          response,
          404,
          anthropicError("not_found_error", `model: ${String(body.model)} (register the scenario)`),
        );
        return;
      }
      const { scenario } = state;
      const messages: unknown[] = body.messages;
      const tokens = promptTokens(messages, body.system, scenario.charsPerToken ?? 3);
      const entry: AnthropicLogEntry = {
        stream: body.stream === true,
        tokens,
        overLimit: tokens > scenario.limit,
        status: 200,
        items: messages.length,
        system: systemText(body.system),
        blocks: messages.map((message) =>
          isRecord(message) && Array.isArray(message.content)
            ? message.content.map((block) => (isRecord(block) ? String(block.type) : "?"))
            : ["text"],
        ),
      };
      state.log.push(entry);
      const problem = thinkingProblem(messages, scenario);
      if (problem !== null) {
        entry.status = 400;
        sendJson(response, 400, anthropicError("invalid_request_error", problem));
        return;
      }
      if (entry.overLimit) {
        entry.status = 400;
        sendJson(
          response,
          400,
          anthropicError(
            "invalid_request_error",
            `prompt is too long: ${tokens} tokens > ${scenario.limit} maximum`,
          ),
        );
        return;
      }
      state.answers++;
      const blocks = answerBlocks(state);
      const message: Json = {
        id: `msg_test_${state.answers}`,
        type: "message",
        role: "assistant",
        model: body.model,
        content: blocks,
        stop_reason: blocks.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn",
        stop_sequence: null,
        usage: { input_tokens: tokens, output_tokens: 50 },
      };
      if (body.stream !== true) {
        sendJson(response, 200, message);
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream", "request-id": "req_test" });
      for (const event of streamEvents(message, blocks, tokens)) response.write(event);
      response.end();
    })().catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { "content-type": "application/json" });
      response.end(
        JSON.stringify(anthropicError("api_error", `test server failed: ${String(error)}`)),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}
