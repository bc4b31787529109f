/**
 * @module test/support/gateway-upstream
 * The provider behind the gateway in tests: `@condense/test-servers`' server
 * (Node; workerd cannot listen), which speaks OpenAI Chat Completions,
 * OpenAI Responses and Anthropic Messages, JSON or streamed, scripted by the
 * test's `Scenario` (`@condense/test-servers`), which reaches it through the
 * gateway as request headers (`scenarioHeaders`; the tests' clients send them,
 * `gateway-helpers`' `scenario` option).
 *
 * It records every request (path, headers, body) under its scenario's `name`,
 * and plays these fields of the scenario:
 * - `limit`: refuses a request whose prompt counts more than that many tokens, with the provider's
 *   own overflow error: OpenAI's `context_length_exceeded` with the figures, the
 *   Responses API's sentence without them, Anthropic's `prompt is too long:
 *   N tokens > M maximum`, or with `sumOverflow` Anthropic's `input length and
 *   max_tokens exceed context limit: N + M > L`;
 * - `fail`: an error of that status in the protocol's shape;
 * - `fault`: `hang` never answers; `stall` a stream that sends its first events, then nothing;
 *   `drop` hangs up partway through the answer (JSON or stream);
 * - `hold`: waits until `POST /control/release?tag=` releases the name's requests (those
 *   after it pass at once), then answers as scripted;
 * - `delayMs`: waits before answering; `slowMs`: pauses that long between two events of a stream;
 * - `tool`: answers with a call of that tool;
 * - `cache`: the usage reports that many prompt tokens read from the prompt cache, and written;
 * - `prefixCache`: the usage reports as read from the cache the tokens of the longest prefix of
 *   whole messages an earlier request of the name sent with the same other fields (model, system,
 *   tools, instructions; `stream` and the token limits aside), as a provider's prompt cache would;
 * - `cacheMiss`: an Anthropic answer's `diagnostics` say the cache missed that many tokens for a reason;
 *   without it, an Anthropic request that opts in to cache diagnostics (`diagnostics`) gets them as
 *   Anthropic computes them: its answer's `id` is remembered with the request's fingerprint (model,
 *   system, tools, messages; cache markers aside), and a later request naming it as
 *   `diagnostics.previous_message_id` is told the first of those that changed
 *   (`model_changed`, `system_changed`, `tools_changed`, `messages_changed` when its messages do not
 *   extend the earlier ones, with the earlier prompt's tokens as missed), `previous_message_not_found`
 *   for an id it does not know, and null diagnostics when nothing diverged or on the first turn
 *   (`previous_message_id: null`); a malformed opt-in is refused as Anthropic refuses it;
 * - `scale`: the provider counts a prompt as that many times the engine's count (another tokenizer,
 *   images, a hidden system prompt), in what `limit` compares and its overflow error states;
 * - `inject`: the name's first request is refused with OpenAI's overflow error saying N tokens
 *   over a window of L, whatever its size (a soak's injected fault); later ones pass as scripted;
 * - `bare`: the upstream has neither Anthropic's `count_tokens`, Gemini's `:countTokens` nor
 *   OpenAI's `/responses/compact` (they answer 404), as an OpenAI-compatible proxy or a local server.
 * Anthropic's `count_tokens` counts the prompt as a model request does (scaled by `scale`) and
 * refuses what a model request would; `/responses/compact` answers with the input's user
 * messages and one compaction item of its own (`gAAAA-encrypted-N`). A model named `claude-missing…`
 * is one the upstream does not know: `count_tokens` answers Anthropic's 404 `not_found_error`;
 * likewise `gemini-missing…` on `:countTokens`, Google's 404 `NOT_FOUND` naming the model.
 * It refuses, as the providers do, what they refuse that the gateway might
 * send: an Anthropic request with more than 4 blocks carrying `cache_control`
 * (tools, system and messages counted), OpenAI's prompt-cache fields
 * (`prompt_cache_options`, `prompt_cache_breakpoint`) on a model before GPT-5.6 or
 * malformed (a GPT-5.6 model's usage reports the `cache` writes as `cache_write_tokens`;
 * earlier models' none), and Responses input whose outputs do
 * not answer an earlier call of their kind or whose calls have no output
 * (the rules of `@condense/test-servers`), and what the engine cannot read.
 * A call whose client went away before the answer was whole is recorded as `aborted`.
 * Answers queued for a tag (`POST /control/answers`, canonical assistant
 * messages) are given in order, one per request of that tag, in the request's
 * protocol (custom tool calls included; `provider_data.anthropic.blocks` and
 * `provider_data.responses.items` are given as the answer's blocks and output
 * items as they are); otherwise the answer is `Answer N` (N counts every model
 * request). `GET /control/requests?tag=` returns what the tag's requests carried.
 *
 * It also plays a session's webhook (`POST /webhook?tag=T&fail=N`): each POST is recorded under
 * tag T, and the first N of the tag are answered 500, the others 200.
 *
 * A prompt's tokens are what providers bill as input: its messages (the
 * engine's count for the request's model) and its tool definitions (and a
 * Responses request's `instructions`), counted as the JSON they came in. The
 * same count is the answer's `usage` and what `limit` compares; `cached=R;written=W`
 * reports R of them read from the prompt cache and W written to it, in each
 * protocol's own fields.
 */

import {
  type ChatMessage,
  countMessageTokens,
  countTokens,
  type MessageFormat,
  toCanonical,
} from "@condense/core";
import {
  anthropicSumOverflow,
  type ControlHandler,
  type ControlReply,
  cacheControlViolation,
  callPairingViolation,
  diagnosticsViolation,
  geminiViolation,
  type Handler,
  openaiCacheViolation,
  PROTOCOLS,
  type ProtocolName,
  type ReceivedRequest,
  type RecordedRequest,
  type Reply,
  type Scenario,
  scenarioFromHeaders,
  startTestServer,
  type ToolCallReply,
  type Violation,
} from "@condense/test-servers";

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
  calls(tag: string): RecordedCall[];
  /** Drops what was recorded for `tag` (a long replay bills its calls, then lets them go). */
  forget(tag: string): void;
  close(): Promise<void>;
}

/** A request's scenario (`@condense/test-servers`' `scenarioHeaders`: `x-test-tag`, `x-test-upstream`). */
function scenarioOf(request: ReceivedRequest): Scenario {
  return scenarioFromHeaders(request.headers);
}

const FORMATS: Record<ProtocolName, MessageFormat> = {
  chat: "openai",
  responses: "responses",
  anthropic: "anthropic",
  gemini: "gemini",
};

function historyOf(protocol: ProtocolName, body: Record<string, unknown>): ChatMessage[] {
  if (protocol === "responses") {
    const input =
      typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
    return toCanonical({ format: "responses", messages: Array.isArray(input) ? input : [] });
  }
  if (protocol === "gemini") {
    return toCanonical({
      format: "gemini",
      messages: Array.isArray(body.contents) ? body.contents : [],
      ...(body.systemInstruction !== undefined ? { system: body.systemInstruction } : {}),
    });
  }
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return toCanonical({
    format: FORMATS[protocol],
    messages,
    ...(protocol === "anthropic" && body.system !== undefined ? { system: body.system } : {}),
  });
}

/** What the provider refuses of a request the gateway might send, in its words; undefined: nothing. */
function providerRefusal(
  protocol: ProtocolName,
  body: Record<string, unknown>,
): Violation | undefined {
  if (protocol === "anthropic") return diagnosticsViolation(body) ?? cacheControlViolation(body);
  if (protocol === "gemini") return geminiViolation(body);
  if (protocol === "chat") return openaiCacheViolation(body, "chat");
  return callPairingViolation(body) ?? openaiCacheViolation(body, "responses");
}

/** Tokens a provider bills beside the messages: the tool definitions, and Responses' `instructions`. */
function fieldTokens(protocol: ProtocolName, body: Record<string, unknown>, model: string): number {
  const fields =
    protocol === "responses"
      ? ["tools", "instructions"]
      : protocol === "gemini"
        ? ["tools", "toolConfig"]
        : ["tools"];
  return fields.reduce(
    (sum, field) =>
      body[field] === undefined ? sum : sum + countTokens(JSON.stringify(body[field]), model),
    0,
  );
}

function overflow(
  protocol: ProtocolName,
  tokens: number,
  limit: number,
  scenario: Scenario,
  body: Record<string, unknown>,
): Violation {
  if (protocol === "anthropic" && scenario.sumOverflow === true) {
    const maxTokens = typeof body.max_tokens === "number" ? body.max_tokens : 1024;
    return anthropicSumOverflow(tokens, maxTokens, limit);
  }
  return PROTOCOLS[protocol].overflow(tokens, limit);
}

/** A request's history as its messages' JSON, and its other fields that a cached prefix depends on. */
interface CachedPrompt {
  fields: string;
  messages: string[];
}

/** The fields outside the history that must match for a provider to reuse a cached prefix. */
function cachedPromptOf(protocol: ProtocolName, body: Record<string, unknown>): CachedPrompt {
  const {
    messages,
    input,
    stream: _stream,
    stream_options: _options,
    max_tokens: _max,
    max_completion_tokens: _completion,
    max_output_tokens: _output,
    ...fields
  } = body;
  const history = protocol === "responses" ? input : messages;
  return {
    fields: JSON.stringify(fields),
    messages: Array.isArray(history) ? history.map((message) => JSON.stringify(message)) : [],
  };
}

/** How many leading messages of `prompt` an earlier prompt with the same fields sent. */
function cachedMessages(prompt: CachedPrompt, earlier: readonly CachedPrompt[]): number {
  let best = 0;
  for (const before of earlier) {
    if (before.fields !== prompt.fields) continue;
    let k = 0;
    while (
      k < prompt.messages.length &&
      k < before.messages.length &&
      prompt.messages[k] === before.messages[k]
    )
      k++;
    best = Math.max(best, k);
  }
  return best;
}

/** What Anthropic's cache diagnostics remember of a request that opted in to them. */
interface Fingerprint {
  model: string;
  system: string;
  tools: string;
  messages: string[];
  tokens: number;
}

/** JSON without the cache markers: where the breakpoints sit is no change of the prompt. */
const unmarked = (value: unknown): string =>
  JSON.stringify(value ?? null, (key, field: unknown) =>
    key === "cache_control" ? undefined : field,
  );

function fingerprintOf(body: Record<string, unknown>, tokens: number): Fingerprint {
  return {
    model: String(body.model),
    system: unmarked(body.system),
    tools: unmarked(body.tools),
    messages: (Array.isArray(body.messages) ? body.messages : []).map(unmarked),
    tokens,
  };
}

/**
 * The `diagnostics` of an answer to a request that opted in (see the module), or undefined when it
 * did not; null when nothing diverged.
 */
function cacheDiagnostics(
  body: Record<string, unknown>,
  now: Fingerprint,
  fingerprints: ReadonlyMap<string, Fingerprint>,
): unknown {
  const { diagnostics } = body;
  if (typeof diagnostics !== "object" || diagnostics === null) return undefined;
  const previous = (diagnostics as { previous_message_id?: unknown }).previous_message_id;
  if (typeof previous !== "string") return null;
  const before = fingerprints.get(previous);
  if (before === undefined) return { cache_miss_reason: { type: "previous_message_not_found" } };
  const extends_ = before.messages.every((message, index) => now.messages[index] === message);
  const reason =
    before.model !== now.model
      ? "model_changed"
      : before.system !== now.system
        ? "system_changed"
        : before.tools !== now.tools
          ? "tools_changed"
          : !extends_
            ? "messages_changed"
            : undefined;
  return reason === undefined
    ? null
    : { cache_miss_reason: { type: reason, cache_missed_input_tokens: before.tokens } };
}

/** The completion that answers request `n`: the queued canonical message, a tool call, or text. */
function answerFor(
  queued: ChatMessage | undefined,
  scenario: Scenario,
  n: number,
  tokens: number,
  prefixTokens: number,
  anthropic: { id: string; diagnostics: unknown } | undefined,
): Reply {
  const usage = {
    prompt_tokens: tokens,
    completion_tokens: 7,
    ...(scenario.cache !== undefined
      ? { cache_read_tokens: scenario.cache.read, cache_write_tokens: scenario.cache.write }
      : scenario.prefixCache === true
        ? { cache_read_tokens: prefixTokens, cache_write_tokens: 0 }
        : {}),
  };
  const pace = {
    ...((scenario.slowMs ?? 0) > 0 ? { slowMs: scenario.slowMs } : {}),
    ...(scenario.fault === "stall" ? { stall: true } : {}),
    ...(scenario.cacheMiss !== undefined
      ? {
          diagnostics: {
            cache_miss_reason: {
              type: scenario.cacheMiss.reason,
              cache_missed_input_tokens: scenario.cacheMiss.tokens,
            },
          },
        }
      : anthropic?.diagnostics !== undefined
        ? { diagnostics: anthropic.diagnostics }
        : {}),
    ...(anthropic !== undefined ? { id: anthropic.id } : {}),
  };
  if (queued === undefined) {
    const toolCalls: ToolCallReply[] =
      scenario.tool === undefined
        ? []
        : [
            {
              id: `call_${n}`,
              name: scenario.tool,
              arguments: JSON.stringify({ path: `src/${n}.ts` }),
            },
          ];
    const content = scenario.tool === undefined ? `Answer ${n}` : `Calling ${scenario.tool}.`;
    return { type: "completion", content, toolCalls, usage, ...pace };
  }
  const text =
    typeof queued.content === "string"
      ? queued.content
      : (queued.content ?? []).map((part) => (part.type === "text" ? part.text : "")).join("");
  const toolCalls = (queued.tool_calls ?? []).map((call) =>
    call.type === "custom"
      ? { id: call.id, name: call.custom.name, arguments: call.custom.input, custom: true }
      : { id: call.id, name: call.function.name, arguments: call.function.arguments },
  );
  const blocks = queued.provider_data?.anthropic?.blocks;
  const items = queued.provider_data?.responses?.items;
  return {
    type: "completion",
    content: text === "" && toolCalls.length > 0 ? null : text,
    toolCalls,
    usage,
    ...(blocks !== undefined ? { blocks } : {}),
    ...(items !== undefined ? { items } : {}),
    ...pace,
  };
}

/** Tags released (`hold`), each with the promise its held requests wait on. */
class Releases {
  readonly #tags = new Map<string, { released: Promise<void>; release: () => void }>();

  of(tag: string): { released: Promise<void>; release: () => void } {
    let entry = this.#tags.get(tag);
    if (entry === undefined) {
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      entry = { released, release };
      this.#tags.set(tag, entry);
    }
    return entry;
  }
}

export async function startGatewayUpstream(
  options: { keepAliveTimeoutMs?: number } = {},
): Promise<GatewayUpstream> {
  const calls = new Map<string, Array<() => RecordedCall>>();
  const answers = new Map<string, ChatMessage[]>();
  const webhookPosts = new Map<string, number>();
  /** What each name's answered requests sent (`prefixCache`). */
  const prompts = new Map<string, CachedPrompt[]>();
  /** Each tag's Anthropic answers' ids, with what their requests sent (cache diagnostics). */
  const fingerprints = new Map<string, Map<string, Fingerprint>>();
  const releases = new Releases();
  /** Tags whose first request was refused by `inject`. */
  const injected = new Set<string>();
  let answered = 0;

  /** Records a call; `tokens` and `aborted` are read when the records are asked for. */
  const record = (request: ReceivedRequest, tokens: number | null, recorded?: RecordedRequest) => {
    const tag = request.headers["x-test-tag"] ?? "";
    const call = (): RecordedCall => ({
      method: request.method,
      path: request.path,
      headers: request.headers,
      body: request.body ?? null,
      text: request.rawBody,
      tokens,
      aborted: recorded?.aborted ?? false,
    });
    calls.set(tag, [...(calls.get(tag) ?? []), call]);
  };
  const callsOf = (tag: string) => (calls.get(tag) ?? []).map((call) => call());

  const handler: Handler = async (request, _index, { closed }) => {
    const { protocol, body } = request;
    if (body === undefined) return { type: "error", status: 400, message: "invalid JSON" };
    const model = String(body.model ?? "test-model");
    let refusal = providerRefusal(protocol, body);
    let history: ChatMessage[] = [];
    try {
      history = historyOf(protocol, body);
    } catch (error) {
      // What the engine cannot read stands for what the provider refuses.
      refusal ??= {
        status: 400,
        message: `invalid request: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    if (refusal !== undefined) {
      record(request, null);
      return { type: "error", ...refusal };
    }
    const tokens = countMessageTokens(history, model) + fieldTokens(protocol, body, model);
    record(request, tokens, request);
    answered += 1;
    const n = answered;
    const scenario = scenarioOf(request);
    const tag = scenario.name;
    const delayMs = scenario.delayMs ?? 0;
    if (delayMs > 0) {
      await Promise.race([new Promise((resolve) => setTimeout(resolve, delayMs)), closed]);
    }
    if (scenario.hold === true) await Promise.race([releases.of(tag).released, closed]);
    if (scenario.fault === "hang") return { type: "hang" };
    if (scenario.fault === "drop") return { type: "truncated", content: `Answer ${n} was cut` };
    if (scenario.fail !== undefined) {
      const status = typeof scenario.fail === "number" ? scenario.fail : scenario.fail.status;
      return {
        type: "error",
        status,
        message: `scripted failure ${status}`,
        ...(status === 400 ? { param: "messages" } : {}),
      };
    }
    if (scenario.inject !== undefined && !injected.has(tag)) {
      injected.add(tag);
      return {
        type: "error",
        ...PROTOCOLS.chat.overflow(scenario.inject.tokens, scenario.inject.limit),
      };
    }
    // What the provider counts: the engine's count, scaled by `scale`.
    const counted = Math.round(tokens * (scenario.scale ?? 1));
    if (scenario.limit !== undefined && counted > scenario.limit) {
      return { type: "error", ...overflow(protocol, counted, scenario.limit, scenario, body) };
    }
    let prefixTokens = 0;
    if (scenario.prefixCache === true) {
      const prompt = cachedPromptOf(protocol, body);
      const earlier = prompts.get(tag) ?? [];
      const k = cachedMessages(prompt, earlier);
      if (k > 0) {
        const key = protocol === "responses" ? "input" : "messages";
        const prefix = { ...body, [key]: (body[key] as unknown[]).slice(0, k) };
        prefixTokens =
          countMessageTokens(historyOf(protocol, prefix), model) +
          fieldTokens(protocol, body, model);
      }
      prompts.set(tag, [...earlier, prompt]);
    }
    let anthropic: { id: string; diagnostics: unknown } | undefined;
    if (protocol === "anthropic") {
      // Numbered within the tag (its calls so far, this one included), so a test's ids are the same
      // whatever ran before it; the fingerprints are the tag's own.
      const id = `msg_${calls.get(tag)?.length ?? n}`;
      const known = fingerprints.get(tag) ?? new Map<string, Fingerprint>();
      const fingerprint = fingerprintOf(body, tokens);
      const diagnostics = cacheDiagnostics(body, fingerprint, known);
      // Anthropic keeps a fingerprint only of a request that opted in.
      if (diagnostics !== undefined) fingerprints.set(tag, known.set(id, fingerprint));
      anthropic = { id, diagnostics };
    }
    return answerFor(answers.get(tag)?.shift(), scenario, n, tokens, prefixTokens, anthropic);
  };

  /**
   * Anthropic's `count_tokens`: the prompt's tokens as a model request counts them (scaled by
   * `scale`), refused as a model request would be; with the script `bare`, a 404 (an upstream
   * without the endpoint).
   */
  const countTokens = (request: ReceivedRequest): ControlReply => {
    const scenario = scenarioOf(request);
    const { body } = request;
    if (scenario.bare === true || body === undefined) {
      record(request, null);
      return {
        status: 404,
        body: { type: "error", error: { type: "not_found_error", message: "Not found" } },
      };
    }
    const model = String(body.model ?? "test-model");
    if (model.startsWith("claude-missing")) {
      record(request, null);
      return {
        status: 404,
        body: { type: "error", error: { type: "not_found_error", message: `model: ${model}` } },
      };
    }
    let refusal = cacheControlViolation(body);
    let tokens = 0;
    try {
      tokens =
        countMessageTokens(historyOf("anthropic", body), model) +
        fieldTokens("anthropic", body, model);
    } catch (error) {
      refusal ??= {
        status: 400,
        message: `invalid request: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    record(request, refusal === undefined ? tokens : null);
    if (refusal !== undefined) {
      return { status: refusal.status, body: PROTOCOLS.anthropic.errorBody(refusal) };
    }
    return { body: { input_tokens: Math.round(tokens * (scenario.scale ?? 1)) } };
  };

  /**
   * OpenAI's `/responses/compact`: the input's user messages, then one compaction item of the
   * provider's own; with the script `bare`, a 404 (an upstream without the endpoint).
   */
  const compactResponses = (request: ReceivedRequest): ControlReply => {
    const { body } = request;
    record(request, null);
    if (scenarioOf(request).bare === true || body === undefined) {
      return {
        status: 404,
        body: {
          error: { message: "Not found", type: "invalid_request_error", param: null, code: null },
        },
      };
    }
    answered += 1;
    const input =
      typeof body.input === "string"
        ? [{ role: "user", content: body.input }]
        : Array.isArray(body.input)
          ? body.input
          : [];
    const users = input.filter(
      (item: unknown) =>
        typeof item === "object" && item !== null && (item as { role?: unknown }).role === "user",
    );
    return {
      body: {
        id: `resp_compact_${answered}`,
        object: "response.compaction",
        created_at: 0,
        output: [
          ...users,
          {
            type: "compaction",
            id: `cmp_${answered}`,
            encrypted_content: `gAAAA-encrypted-${answered}`,
          },
        ],
        usage: {
          input_tokens: 100,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 10,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 110,
        },
      },
    };
  };

  const control: ControlHandler = (request) => {
    const url = new URL(request.path, "http://localhost");
    const tag = url.searchParams.get("tag") ?? "";
    if (url.pathname === "/control/answers" && request.method === "POST") {
      const queued = String(request.body?.tag ?? "");
      const more = (request.body?.answers ?? []) as ChatMessage[];
      answers.set(queued, [...(answers.get(queued) ?? []), ...more]);
      return { body: { queued: answers.get(queued)?.length ?? 0 } };
    }
    if (url.pathname === "/control/release" && request.method === "POST") {
      releases.of(tag).release();
      return { body: { released: true } };
    }
    if (url.pathname === "/control/requests") return { body: callsOf(tag) };
    if (url.pathname === "/webhook" && request.method === "POST") {
      const posts = (webhookPosts.get(tag) ?? 0) + 1;
      webhookPosts.set(tag, posts);
      record({ ...request, headers: { ...request.headers, "x-test-tag": tag } }, null);
      const failures = Number(url.searchParams.get("fail") ?? 0);
      return posts <= failures
        ? { status: 500, body: { error: "scripted webhook failure" } }
        : { body: { received: true } };
    }
    if (url.pathname.endsWith("/v1/messages/count_tokens") && request.method === "POST") {
      return countTokens(request);
    }
    if (url.pathname.endsWith("/responses/compact") && request.method === "POST") {
      return compactResponses(request);
    }
    const unknownGemini = /\/models\/(gemini-missing[^/:]*):countTokens$/.exec(url.pathname);
    if (unknownGemini !== null) {
      record(request, null);
      return {
        status: 404,
        body: {
          error: {
            code: 404,
            message: `models/${unknownGemini[1]} is not found for API version v1beta, or is not supported for countTokens. Call ListModels to see the list of available models and their supported methods.`,
            status: "NOT_FOUND",
          },
        },
      };
    }
    if (url.pathname.endsWith(":countTokens") && scenarioOf(request).bare === true) {
      record(request, null);
      return {
        status: 404,
        body: { error: { code: 404, message: "Not found", status: "NOT_FOUND" } },
      };
    }
    record(request, null);
    if (url.pathname.endsWith("/models")) {
      return {
        body: {
          object: "list",
          data: [{ id: "test-model", object: "model", created: 0, owned_by: "test" }],
        },
      };
    }
    return undefined;
  };

  const server = await startTestServer(handler, { control, ...options });
  return {
    origin: server.origin,
    calls: callsOf,
    forget: (tag) => void calls.delete(tag),
    close: () => server.close(),
  };
}
