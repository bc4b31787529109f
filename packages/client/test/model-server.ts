/**
 * @module test/model-server
 * A model provider the `withCompaction` tests control: `@condense/test-servers`' OpenAI
 * server (Chat Completions and Responses, JSON and SSE; started in vitest's
 * globalSetup, as workerd cannot listen) with scenarios on top. It counts the
 * prompt with its own "tokenizer" (characters / 3 by default, deliberately
 * not the engine's) and REJECTS every request over the scenario's limit with a real
 * provider's overflow error, rotating through OpenAI, Anthropic, vLLM,
 * llama.cpp, Gemini and Mistral (or the scenario's choice of them).
 *
 * Each test registers a scenario (`POST /scenarios`) and sends the scenario's
 * name as the request's `model`, so tests running in parallel never share
 * state. `GET /scenarios/{name}/log` returns what the server received.
 */

import {
  type ControlHandler,
  type OpenAIServer,
  type OpenAIServerHandler,
  type OpenAIServerReply,
  startOpenAIServer,
} from "@condense/test-servers";
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

function firstSystem(items: unknown[]): string | null {
  for (const item of items) {
    if (isRecord(item) && (item.role === "system" || item.role === "developer")) {
      return typeof item.content === "string" ? item.content : JSON.stringify(item.content);
    }
  }
  return null;
}

/** A JSON reply with any status (a provider's error body, or the server's own). */
function json(status: number, body: unknown): OpenAIServerReply {
  return { type: "raw", status, body: JSON.stringify(body) };
}

/** Starts the server; its `origin` takes the scenario calls, `url` (`…/v1`) the model requests. */
export async function startModelServer(): Promise<OpenAIServer> {
  const states = new Map<string, State>();

  const control: ControlHandler = (request) => {
    const { pathname } = new URL(request.path, "http://localhost");
    if (pathname === "/scenarios" && request.method === "POST") {
      const scenario = request.body as unknown as Scenario;
      states.set(scenario.name, { scenario, log: [], answers: 0, overflows: 0 });
      return { body: { ok: true } };
    }
    const logMatch = /^\/scenarios\/([^/]+)\/log$/.exec(pathname);
    if (logMatch?.[1] !== undefined) {
      return { body: states.get(decodeURIComponent(logMatch[1]))?.log ?? null };
    }
    return undefined;
  };

  const handler: OpenAIServerHandler = (request) => {
    const body = request.body;
    if (body === undefined)
      return json(400, { error: { message: "invalid JSON", type: "invalid_request_error" } });
    const state = states.get(String(body.model));
    if (state === undefined) {
      return json(404, {
        error: {
          message: `unknown model ${String(body.model)}; register the scenario first`,
          code: "model_not_found",
        },
      });
    }
    const scenario = state.scenario;
    const items = request.api === "chat" ? body.messages : body.input;
    const list: unknown[] = Array.isArray(items)
      ? items
      : typeof items === "string"
        ? [{ role: "user", content: items }]
        : [];
    const tokens = promptTokens(list, body.instructions, scenario.charsPerToken ?? 3);
    const entry: LogEntry = {
      api: request.api,
      stream: body.stream === true,
      tokens,
      overLimit: tokens > scenario.limit,
      provider: null,
      status: 200,
      items: list.length,
      system: firstSystem(list),
    };
    state.log.push(entry);

    if (scenario.failWith !== undefined) {
      entry.status = scenario.failWith.status;
      return json(scenario.failWith.status, scenario.failWith.body);
    }
    if (entry.overLimit) {
      const names = scenario.providers ?? PROVIDERS.map((p) => p.name);
      const wanted = names[state.overflows % names.length];
      const provider = PROVIDERS.find((p) => p.name === wanted);
      if (provider === undefined) throw new Error(`unknown provider ${String(wanted)}`);
      entry.provider = provider.name;
      entry.status = 400;
      state.overflows++;
      return json(400, provider.error(tokens, scenario.limit));
    }
    state.answers++;
    const n = state.answers;
    const tool = (scenario.toolEvery ?? 0) > 0 && n % (scenario.toolEvery ?? 1) === 0;
    return {
      type: "completion",
      content: tool ? null : answerText(state, scenario.answerChars ?? 300),
      toolCalls: tool
        ? [
            {
              id: `call_${n}`,
              name: "read_file",
              arguments: JSON.stringify({ path: `src/module_${n}.ts` }),
            },
          ]
        : [],
      usage:
        scenario.reportUsage === false ? null : { prompt_tokens: tokens, completion_tokens: 50 },
    };
  };

  return startOpenAIServer(handler, { control });
}
