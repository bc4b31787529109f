/**
 * @module test/scenario-server
 * The model provider the `withCompaction` tests control:
 * `@condense/test-servers`' server (Chat Completions, Responses and Anthropic
 * Messages, JSON and SSE; started in vitest's globalSetup, as workerd cannot
 * listen) playing scenarios. It counts the prompt with its own "tokenizer"
 * (characters / 3 by default, deliberately not the engine's) and REJECTS
 * every request over the scenario's limit with a real provider's overflow
 * error: an OpenAI-protocol request gets OpenAI's, Anthropic's, vLLM's,
 * llama.cpp's, Gemini's and Mistral's in rotation (or the scenario's choice
 * of them), an Anthropic request Anthropic's own. It refuses what the
 * providers refuse (`@condense/test-servers`' rules: tool results that answer
 * no call, an Anthropic thinking block that lost its signature, …), answers
 * with text or a `read_file` call every `toolEvery`-th answer, and, when an
 * Anthropic request turns thinking on, with a signed thinking block first.
 *
 * Each test writes a `Scenario` (`@condense/test-servers`), registers it
 * (`registerScenario` in `test/model.ts`: `POST /scenarios` carries it) and
 * sends the scenario's name as the request's `model`, so tests running in
 * parallel never share state. It plays the scenario's `limit`,
 * `charsPerToken` (default 3), `providers`, `fail`, `tool`/`toolEvery` (a
 * `read_file` call by default), `reportUsage` and `answerChars` (default 300).
 * `GET /scenarios/{name}/log` returns what the server received.
 */

import {
  type ControlHandler,
  type Handler,
  isObject,
  OVERFLOW_PROVIDERS,
  type OverflowProvider,
  overflowBody,
  PROTOCOLS,
  type ProtocolName,
  type Reply,
  type Scenario,
  startTestServer,
  type TestServer,
} from "@condense/test-servers";

export interface LogEntry {
  protocol: ProtocolName;
  stream: boolean;
  tokens: number;
  /** Whether the request was refused as over the limit. */
  overLimit: boolean;
  /** Which provider's overflow error it got, when refused as over the limit. */
  provider: OverflowProvider | null;
  status: number;
  /** Number of messages / input items sent. */
  items: number;
  /** The system prompt sent (Anthropic's `system`, or the first system message), to check the head survives. */
  system: string | null;
  /** The block types of each message sent (`text` for string content); kept small for the log. */
  blocks: string[][];
}

interface State {
  scenario: Scenario;
  log: LogEntry[];
  answers: number;
  overflows: number;
}

/** Every string a prompt holds that a tokenizer would see. */
function texts(value: unknown, out: string[]): void {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const item of value) texts(item, out);
  else if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (key === "type" || key === "id" || key === "status" || key === "signature") continue;
      texts(item, out);
    }
  }
}

/** The server's token count: characters / `charsPerToken` plus 4 per message (a tokenizer unlike the engine's). */
export function promptTokens(items: unknown[], system: unknown, charsPerToken: number): number {
  const parts: string[] = [];
  texts(items, parts);
  texts(system ?? null, parts);
  const chars = parts.reduce((sum, text) => sum + text.length, 0);
  return Math.ceil(chars / charsPerToken) + 4 * items.length;
}

function systemOf(protocol: ProtocolName, body: Record<string, unknown>, items: unknown[]) {
  if (protocol === "anthropic") {
    if (typeof body.system === "string") return body.system;
    if (!Array.isArray(body.system)) return null;
    return body.system.map((block) => (isObject(block) ? String(block.text ?? "") : "")).join("\n");
  }
  for (const item of items) {
    if (isObject(item) && (item.role === "system" || item.role === "developer")) {
      return typeof item.content === "string" ? item.content : JSON.stringify(item.content);
    }
  }
  return null;
}

function blockTypes(items: unknown[]): string[][] {
  return items.map((item) =>
    isObject(item) && Array.isArray(item.content)
      ? item.content.map((block) => (isObject(block) ? String(block.type) : "?"))
      : ["text"],
  );
}

function answerText(n: number, chars: number): string {
  const head = `Answer ${n}: the build step for module_${n} passes; next I check the tests. `;
  return head
    .padEnd(chars, "Details of the reasoning follow. ")
    .slice(0, Math.max(chars, head.length));
}

/** Whether an Anthropic request turns extended thinking on. */
function thinkingOn(body: Record<string, unknown>): boolean {
  return isObject(body.thinking) && body.thinking.type !== "disabled";
}

/** A JSON reply with any status (a provider's error body, or the scenario's). */
function json(status: number, body: unknown): Reply {
  return { type: "raw", status, body: JSON.stringify(body) };
}

/** Starts the server; its `origin` takes the scenario calls and Anthropic requests, `url` (`…/v1`) OpenAI's. */
export async function startScenarioServer(): Promise<TestServer> {
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

  const handler: Handler = (request) => {
    const { protocol, body, headers } = request;
    if (body === undefined) return { type: "error", status: 400, message: "invalid JSON" };
    const state = states.get(String(body.model));
    if (state === undefined) {
      return {
        type: "error",
        status: 404,
        message: `unknown model ${String(body.model)}; register the scenario first`,
        code: "model_not_found",
      };
    }
    const { scenario } = state;
    const wire = PROTOCOLS[protocol];
    const items = wire.items(body);
    const system = protocol === "anthropic" ? body.system : body.instructions;
    const tokens = promptTokens(items, system, scenario.charsPerToken ?? 3);
    const limit = scenario.limit ?? Number.POSITIVE_INFINITY;
    const entry: LogEntry = {
      protocol,
      stream: body.stream === true,
      tokens,
      overLimit: tokens > limit,
      provider: null,
      status: 200,
      items: items.length,
      system: systemOf(protocol, body, items),
      blocks: blockTypes(items),
    };
    state.log.push(entry);

    const { fail } = scenario;
    if (fail !== undefined) {
      entry.status = typeof fail === "number" ? fail : fail.status;
      return typeof fail === "number"
        ? { type: "error", status: fail, message: `scripted failure ${fail}` }
        : json(fail.status, fail.body);
    }
    const violation = wire.violation(body, headers);
    if (violation !== undefined) {
      entry.status = violation.status;
      return { type: "error", ...violation };
    }
    if (entry.overLimit) {
      entry.status = 400;
      if (protocol === "anthropic") {
        entry.provider = "anthropic";
        return { type: "error", ...wire.overflow(tokens, limit) };
      }
      const names = scenario.providers ?? OVERFLOW_PROVIDERS;
      const provider = names[state.overflows % names.length] ?? "openai";
      entry.provider = provider;
      state.overflows++;
      return json(400, overflowBody(provider, tokens, limit));
    }
    state.answers++;
    const n = state.answers;
    const every = scenario.toolEvery ?? (scenario.tool === undefined ? 0 : 1);
    const tool = every > 0 && n % every === 0;
    const id = protocol === "anthropic" ? `toolu_${n}` : `call_${n}`;
    return {
      type: "completion",
      ...(protocol === "anthropic" && thinkingOn(body)
        ? { thinking: `Step ${n}: I should look at module_${n} before answering.` }
        : {}),
      content: tool ? null : answerText(n, scenario.answerChars ?? 300),
      toolCalls: tool
        ? [
            {
              id,
              name: scenario.tool ?? "read_file",
              arguments: JSON.stringify({ path: `src/module_${n}.ts` }),
            },
          ]
        : [],
      usage:
        scenario.reportUsage === false && protocol !== "anthropic"
          ? null
          : { prompt_tokens: tokens, completion_tokens: 50 },
    };
  };

  return startTestServer(handler, { control });
}
