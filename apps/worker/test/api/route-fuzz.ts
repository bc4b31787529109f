/**
 * @module test/api/route-fuzz
 * The route-level property test's calls and oracles. Random sequences of
 * valid and mutated calls to one session and its user's memory run as
 * fast-check commands against a model of the agent's session: appends in the
 * three formats (tool calls, interruptions, late results, empty turns),
 * pinned messages and other settings, manual compactions (with good, bad and
 * reused `Idempotency-Key`s), overflow reports, searches, memory writes and
 * searches. After every call four oracles hold:
 * - no 5xx;
 * - every error comes in its documented shape, with its documented details;
 * - the context, in every format, is valid for its provider once the calls
 *   it ends with are answered (core's `validateMessages`, and the rendered
 *   Anthropic and Responses forms read back);
 * - a refused request (4xx) changed nothing: the session's status,
 *   transcript and compactions, and the user's memories, are as before.
 */

import {
  type ChatMessage,
  fromCanonical,
  MAX_ITEM_NESTING,
  toCanonical,
  validateMessages,
} from "@condense/core";
import {
  type AgentEvent,
  type AgentState,
  agentMessages,
  arbAgentEvent,
} from "@condense/test-fixtures";
import fc from "fast-check";
import { expect } from "vitest";
import { type CallOptions, call, type Reply } from "../support/helpers";

// ---------------------------------------------------------------- the model and the real system

export interface FuzzModel {
  /** The agent's calls awaiting results, and the next call number, as appended so far. */
  agent: AgentState;
  /** Ids of calls whose result was appended. */
  answered: string[];
  /** Ids of the user's memories. */
  memories: string[];
  /** The session's last seq as the appends answered it. */
  lastSeq: number;
}

export interface FuzzReal {
  sessionId: string;
  /** The user's bearer token (a user of its own, so the memory is the run's alone). */
  as: string;
}

/** What a run did, for its summary line: calls made (each with its oracles), contexts checked. */
export const fuzzCounts = { calls: 0, contextsChecked: 0, refusals: 0 };

export function initialModel(): FuzzModel {
  return { agent: { awaiting: [], next: 0 }, answered: [], memories: [], lastSeq: 0 };
}

// ---------------------------------------------------------------- oracles

/** The documented `details` of each error code (README, "Error codes"); codes not listed: any. */
const DOCUMENTED_DETAILS: Record<string, (details: unknown) => void> = {
  invalid_request: (details) =>
    expect(details).toMatchObject({
      in: expect.any(String),
      issues: expect.arrayContaining([
        expect.objectContaining({ path: expect.any(String), message: expect.any(String) }),
      ]),
    }),
  invalid_session_id: (details) =>
    expect(details === null || Array.isArray(Reflect.get(Object(details), "issues"))).toBe(true),
  invalid_messages: (details) =>
    expect(details).toMatchObject({
      problems: expect.arrayContaining([
        expect.objectContaining({
          index: expect.any(Number),
          path: expect.any(String),
          kind: expect.any(String),
          message: expect.any(String),
        }),
      ]),
    }),
  invalid_options: (details) => expect(typeof details).toBe("object"),
  format_not_available: (details) =>
    expect(details === null || Array.isArray(Reflect.get(Object(details), "problems"))).toBe(true),
  message_too_large: (details) =>
    expect(details).toMatchObject({
      index: expect.any(Number),
      bytes: expect.any(Number),
      limitBytes: expect.any(Number),
    }),
  memory_too_long: (details) =>
    expect(details).toMatchObject({ maxChars: expect.any(Number), chars: expect.any(Number) }),
};

/** Oracles 1 and 2: never a 5xx, and an error in the API's shape with its code's details. */
export function expectDocumentedReply(reply: Reply<unknown>, what: string): void {
  expect(reply.status, `${what}: ${JSON.stringify(reply.body)}`).toBeLessThan(500);
  if (reply.status < 400) return;
  const body = reply.body as { error?: { code?: unknown; message?: unknown; details?: unknown } };
  expect(body, what).toMatchObject({
    error: { code: expect.any(String), message: expect.any(String) },
  });
  expect(body.error && "details" in body.error, `${what}: details`).toBe(true);
  const code = String(body.error?.code);
  expect(String(body.error?.message).length, what).toBeGreaterThan(0);
  DOCUMENTED_DETAILS[code]?.(body.error?.details);
}

function errorCode(body: unknown): unknown {
  return (body as { error?: { code?: unknown } } | null)?.error?.code;
}

/** The last assistant message's open calls answered, as the agent does before it sends the context. */
export function withOpenCallsAnswered(messages: readonly ChatMessage[]): ChatMessage[] {
  let last = messages.length - 1;
  while (last >= 0 && messages[last]?.role === "tool") last--;
  const answered = new Set(messages.slice(last + 1).map((message) => message.tool_call_id));
  const open = (messages[last]?.tool_calls ?? []).filter((toolCall) => !answered.has(toolCall.id));
  return [
    ...messages,
    ...open.map(
      (toolCall): ChatMessage => ({ role: "tool", content: "ok", tool_call_id: toolCall.id }),
    ),
  ];
}

/** Problems of `messages` for `provider`, less a missing user turn in a context of system text only. */
function providerProblems(messages: readonly ChatMessage[], provider: "openai" | "anthropic") {
  const conversation = messages.some(
    (message) => message.role !== "system" && message.role !== "developer",
  );
  return validateMessages(withOpenCallsAnswered(messages), provider).problems.filter(
    (problem) => conversation || problem.kind !== "no_user_turn",
  );
}

/** Text blocks Anthropic refuses (empty or whitespace only), wherever the rendered request has one. */
function blankAnthropicText(messages: readonly unknown[], system: unknown): string[] {
  const found: string[] = [];
  const blocks = (content: unknown, where: string) => {
    if (typeof content === "string") {
      if (content.trim() === "") found.push(where);
      return;
    }
    if (!Array.isArray(content)) return;
    content.forEach((block: unknown, index) => {
      if (typeof block !== "object" || block === null) return;
      if (Reflect.get(block, "type") === "text" && String(Reflect.get(block, "text")).trim() === "")
        found.push(`${where}[${index}]`);
    });
  };
  if (system !== undefined) blocks(system, "system");
  messages.forEach((message, index) => {
    blocks(Reflect.get(Object(message), "content"), `messages[${index}].content`);
  });
  return found;
}

type ContextBody = { messages: unknown[]; system?: unknown };

/** Oracle 3: the context in every format is valid for its provider (once its open calls are answered). */
export async function expectValidContexts(real: FuzzReal): Promise<void> {
  const path = `/v1/sessions/${real.sessionId}/context`;
  const canonical = await call<ContextBody>("GET", `${path}?format=openai&providerData=true`, {
    as: real.as,
  });
  expectDocumentedReply(canonical, "GET /context");
  if (canonical.status === 404) return;
  // What is never cut is over the window by itself: refused rather than served over it (issue 33).
  if (canonical.status === 422 && errorCode(canonical.body) === "context_over_window") return;
  fuzzCounts.contextsChecked++;
  expect(canonical.status, JSON.stringify(canonical.body)).toBe(200);
  const messages = canonical.body.messages as ChatMessage[];
  expect(providerProblems(messages, "openai"), "openai").toEqual([]);
  expect(providerProblems(messages, "anthropic"), "anthropic").toEqual([]);

  const anthropic = await call<ContextBody>("GET", `${path}?format=anthropic`, { as: real.as });
  expect(anthropic.status, JSON.stringify(anthropic.body)).toBe(200);
  expect(blankAnthropicText(anthropic.body.messages, anthropic.body.system)).toEqual([]);
  // A context with nothing to send yet (system text at most) is the agent's to begin.
  if (anthropic.body.messages.length === 0) return;
  const fromAnthropic = toCanonical({
    format: "anthropic",
    messages: anthropic.body.messages,
    ...(anthropic.body.system !== undefined ? { system: anthropic.body.system } : {}),
  });
  expect(providerProblems(fromAnthropic, "anthropic"), "anthropic, read back").toEqual([]);

  const responses = await call<ContextBody>("GET", `${path}?format=responses`, { as: real.as });
  expect(responses.status, JSON.stringify(responses.body)).toBe(200);
  const fromResponses = toCanonical({ format: "responses", messages: responses.body.messages });
  expect(providerProblems(fromResponses, "openai"), "responses, read back").toEqual([]);
}

/** What a refused request must leave as it was. */
async function snapshot(real: FuzzReal): Promise<unknown[]> {
  const session = `/v1/sessions/${real.sessionId}`;
  const read = async (path: string) => {
    const reply = await call("GET", path, { as: real.as });
    return { status: reply.status, body: reply.body };
  };
  return [
    await read(session),
    await read(`${session}/transcript?limit=1000`),
    await read(`${session}/compactions`),
    await read("/v1/memory?limit=100"),
  ];
}

/** The session status fields that follow from its window. */
const WINDOW_FIELDS = ["contextWindow", "learnedContextWindow", "budget", "warningLevel"] as const;

/**
 * The one refusal that keeps what it learned: an overflow report whose context still cannot be
 * served (`context_over_window`) has learned the provider's real window from the error (a fact
 * about the model, true whatever is served next), so `before` with the window's fields as they
 * are now — provided the window learned is smaller than the one before. Undefined otherwise.
 */
function learnedOverflow(
  path: string,
  reply: Reply<unknown>,
  before: unknown[],
  after: unknown[],
): unknown[] | undefined {
  const code = (reply.body as { error?: { code?: unknown } } | undefined)?.error?.code;
  if (!path.endsWith("/overflow") || reply.status !== 422 || code !== "context_over_window") {
    return undefined;
  }
  const statusOf = (shot: unknown[]) =>
    (shot[0] as { body?: Record<string, unknown> } | undefined)?.body ?? {};
  const was = statusOf(before);
  const now = statusOf(after);
  const learned = now.learnedContextWindow;
  if (typeof learned !== "number" || typeof was.contextWindow !== "number") return undefined;
  if (!(learned < was.contextWindow)) return undefined;
  const status = { ...was };
  for (const field of WINDOW_FIELDS) status[field] = now[field];
  return [{ ...(before[0] as object), body: status }, ...before.slice(1)];
}

/**
 * One call with the four oracles: checked against its documented reply, a refusal against the
 * state before it, then the contexts.
 */
export async function step(
  real: FuzzReal,
  what: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Reply<unknown>> {
  const writes = method !== "GET";
  const before = writes ? await snapshot(real) : undefined;
  const reply = await call<unknown>(method, path, { as: real.as, ...options });
  fuzzCounts.calls++;
  if (reply.status >= 400) fuzzCounts.refusals++;
  expectDocumentedReply(reply, what);
  if (before !== undefined && reply.status >= 400) {
    const after = await snapshot(real);
    expect(after, `${what} was refused (${reply.status}) but changed state`).toEqual(
      learnedOverflow(path, reply, before, after) ?? before,
    );
  }
  await expectValidContexts(real);
  return reply;
}

// ---------------------------------------------------------------- calls

/** A JSON value nesting `depth` levels. */
function nested(depth: number): unknown {
  let value: unknown = { leaf: "x" };
  for (let level = 1; level < depth; level++) value = [value];
  return value;
}

type Mutation =
  | "orphan_result"
  | "duplicate_result"
  | "reused_open_id"
  | "garbage"
  | "too_deep"
  | "blank_text_block"
  | "unknown_role"
  | "no_messages"
  /** A Responses reasoning item nested about as deep as an item may (`deepItemLevels`). */
  | "deep_item";

type Format = "openai" | "anthropic" | "responses";

class AppendCommand implements fc.AsyncCommand<FuzzModel, FuzzReal> {
  constructor(
    readonly format: Format,
    readonly events: AgentEvent[],
    readonly mutation: Mutation | null,
    readonly garbage: unknown,
    readonly idempotencyKey: string | null,
    /** Characters every tool result of the append is padded to: large outputs make compactions. */
    readonly outputChars: number,
    readonly deepItemLevels: number,
  ) {}

  check(): boolean {
    return true;
  }

  #mutated(messages: ChatMessage[], model: FuzzModel): unknown[] {
    const out: unknown[] = [...messages];
    switch (this.mutation) {
      case "orphan_result":
        out.push({ role: "tool", tool_call_id: "ghost_call", content: "nobody asked" });
        break;
      case "duplicate_result": {
        const id = model.answered[0];
        if (id !== undefined) out.push({ role: "tool", tool_call_id: id, content: "again" });
        break;
      }
      case "reused_open_id": {
        const id = model.agent.awaiting[0];
        if (id !== undefined)
          out.push({
            role: "assistant",
            content: null,
            tool_calls: [{ id, type: "function", function: { name: "bash", arguments: "{}" } }],
          });
        break;
      }
      case "garbage":
        out.splice(out.length === 0 ? 0 : out.length - 1, 1, this.garbage);
        break;
      case "too_deep":
        out.push({
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_deep",
              type: "function",
              function: { name: "bash", arguments: JSON.stringify(nested(MAX_ITEM_NESTING + 40)) },
            },
          ],
        });
        break;
      case "unknown_role":
        out.push({ role: "robot", content: "beep" });
        break;
      case "no_messages":
        out.length = 0;
        break;
      default:
        break;
    }
    return out;
  }

  /** The request body in the command's format; the openai format when the messages have no other form. */
  #body(messages: unknown[]): Record<string, unknown> {
    if (this.mutation === "deep_item") {
      const item = {
        type: "reasoning",
        id: "rs_deep",
        summary: [{ type: "summary_text", text: "thought", extra: nested(this.deepItemLevels) }],
      };
      const before: ChatMessage[] =
        messages.length > 0 ? (messages as ChatMessage[]) : [{ role: "user", content: "go" }];
      try {
        return {
          format: "responses",
          messages: [...fromCanonical(before, "responses").messages, item],
        };
      } catch {
        return { format: "responses", messages: [{ role: "user", content: "go" }, item] };
      }
    }
    if (this.format === "openai" || this.mutation === "garbage" || messages.length === 0) {
      return { messages };
    }
    let rendered: { messages: unknown[]; system?: unknown };
    try {
      rendered = fromCanonical(messages as ChatMessage[], this.format);
    } catch {
      return { messages };
    }
    if (this.format === "anthropic" && this.mutation === "blank_text_block") {
      rendered.messages = rendered.messages.map((message) => {
        const content = Reflect.get(Object(message), "content");
        if (Reflect.get(Object(message), "role") !== "user" || !Array.isArray(content))
          return message;
        return { ...(message as object), content: [{ type: "text", text: "" }, ...content] };
      });
    }
    return { format: this.format, ...rendered };
  }

  async run(model: FuzzModel, real: FuzzReal): Promise<void> {
    const agent: AgentState = { awaiting: [...model.agent.awaiting], next: model.agent.next };
    const messages = agentMessages(this.events, agent).map((message) =>
      message.role === "tool" && typeof message.content === "string"
        ? { ...message, content: message.content.padEnd(this.outputChars, " the tool's output.") }
        : message,
    );
    const body = this.#body(this.#mutated(messages, model));
    const reply = await step(
      real,
      this.toString(),
      "POST",
      `/v1/sessions/${real.sessionId}/messages`,
      {
        body,
        ...(this.idempotencyKey !== null
          ? { headers: { "Idempotency-Key": this.idempotencyKey } }
          : {}),
      },
    );
    const lastSeq = Reflect.get(Object(reply.body), "lastSeq");
    // A replayed append (an Idempotency-Key used with the same body) stored nothing this time.
    if (reply.status !== 200 || typeof lastSeq !== "number" || lastSeq <= model.lastSeq) return;
    model.lastSeq = lastSeq;
    model.agent = agent;
    for (const message of messages) {
      if (message.role === "tool" && message.tool_call_id !== undefined)
        model.answered.push(message.tool_call_id);
    }
  }

  toString(): string {
    const events = JSON.stringify(this.events);
    const shown = events.length > 400 ? `${events.slice(0, 400)}…` : events;
    return `append ${this.format} ${shown} ${this.mutation ?? ""} (outputs of ${this.outputChars})`;
  }
}

/** A call described by its request alone; its oracles are the step's. */
class RequestCommand implements fc.AsyncCommand<FuzzModel, FuzzReal> {
  constructor(
    readonly label: string,
    readonly method: string,
    readonly path: (real: FuzzReal, model: FuzzModel) => string,
    readonly options: CallOptions,
    readonly after?: (reply: Reply<unknown>, model: FuzzModel) => void,
  ) {}

  check(): boolean {
    return true;
  }

  async run(model: FuzzModel, real: FuzzReal): Promise<void> {
    const reply = await step(
      real,
      this.toString(),
      this.method,
      this.path(real, model),
      this.options,
    );
    this.after?.(reply, model);
  }

  toString(): string {
    return `${this.label} ${JSON.stringify(this.options.body ?? this.options.headers ?? "")}`;
  }
}

/**
 * A method no route of a path takes, or a path no route serves: refused in the API's shape, or on a
 * gateway path in its protocol's (OpenAI's, Anthropic's for its paths), so an SDK reads it.
 */
class WrongRouteCommand implements fc.AsyncCommand<FuzzModel, FuzzReal> {
  constructor(
    readonly method: string,
    readonly path: string,
  ) {}

  check(): boolean {
    return true;
  }

  async run(_model: FuzzModel, real: FuzzReal): Promise<void> {
    const path = this.path.replace("{id}", real.sessionId);
    const body = this.method === "GET" ? {} : { body: {} };
    const reply = await call<unknown>(this.method, path, { as: real.as, ...body });
    const what = this.toString();
    expect(reply.status, what).toBeGreaterThanOrEqual(400);
    expect(reply.status, what).toBeLessThan(500);
    if (!path.startsWith("/v1/gateway/")) {
      expectDocumentedReply(reply, what);
      return;
    }
    const anthropic = /^\/v1\/gateway\/[^/]+\/v1\//.test(path);
    expect(reply.body, what).toMatchObject(
      anthropic
        ? { type: "error", error: { type: expect.any(String), message: expect.any(String) } }
        : { error: { type: expect.any(String), message: expect.any(String) } },
    );
  }

  toString(): string {
    return `${this.method} ${this.path}`;
  }
}

const arbWrongRoute = fc
  .tuple(
    fc.constantFrom("PUT", "DELETE", "PATCH", "GET", "POST"),
    fc.constantFrom(
      "/v1/sessions/{id}/messages",
      "/v1/sessions/{id}/context",
      "/v1/memory/search",
      "/v1/gateway/up/chat/completions",
      "/v1/gateway/up/responses",
      "/v1/gateway/anthropic/v1/messages",
      "/v1/gateway/up/models",
      "/v1/gateway/up/no-such-endpoint",
      "/v1/gateway/anthropic/v1/no-such-endpoint",
    ),
  )
  .filter(([method, path]) => {
    // Only what no route serves: the right method on a route would be a real call.
    const served: Record<string, string> = {
      "/v1/sessions/{id}/messages": "POST",
      "/v1/sessions/{id}/context": "GET",
      "/v1/memory/search": "GET",
      "/v1/gateway/up/chat/completions": "POST",
      "/v1/gateway/up/responses": "POST",
      "/v1/gateway/anthropic/v1/messages": "POST",
      "/v1/gateway/up/models": "GET",
    };
    return served[path] !== method;
  })
  .map(([method, path]) => new WrongRouteCommand(method, path));

const session = (real: FuzzReal) => `/v1/sessions/${real.sessionId}`;

const MUTATIONS: Mutation[] = [
  "orphan_result",
  "duplicate_result",
  "reused_open_id",
  "garbage",
  "too_deep",
  "blank_text_block",
  "unknown_role",
  "no_messages",
  "deep_item",
];

const arbIdempotencyKey = fc.oneof(
  { weight: 4, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: fc.constantFrom("fuzz-key-1", "fuzz-key-2") },
  { weight: 1, arbitrary: fc.constantFrom("k".repeat(256), "has space", "tab\there") },
);

const arbAppend = fc
  .tuple(
    fc.constantFrom<Format>("openai", "openai", "anthropic", "responses"),
    fc.array(arbAgentEvent, { minLength: 1, maxLength: 6 }),
    fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, fc.constantFrom(...MUTATIONS)),
    fc.anything({ maxDepth: 2 }),
    arbIdempotencyKey,
    fc.constantFrom(0, 0, 4_000, 12_000),
    fc.integer({ min: MAX_ITEM_NESTING - 6, max: MAX_ITEM_NESTING + 3 }),
  )
  .map((args) => new AppendCommand(...args));

const arbPinned = mostly<unknown>(
  [
    null,
    [{ role: "system", content: "Rules: be brief." }],
    [
      { role: "user", content: "Answer in French." },
      { role: "assistant", content: "D'accord." },
    ],
  ],
  [
    [{ role: "developer", content: "" }],
    [{ role: "assistant", content: null }],
    [{ role: "system", content: [{ type: "text", text: " " }] }],
    [{ role: "tool", tool_call_id: "call_0", content: "no" }],
  ],
);

/** Mostly values a session takes, now and then one it must refuse. */
function mostly<T>(valid: readonly T[], invalid: readonly T[]): fc.Arbitrary<T> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...valid) },
    { weight: 1, arbitrary: fc.constantFrom(...invalid) },
  );
}

const arbSettings = fc
  .record(
    {
      pinned: arbPinned,
      contextWindow: mostly<unknown>([null, 3_000, 6_000, 12_000, "8k"], [-5, "huge"]),
      memory: fc.boolean(),
      recall: fc.boolean(),
      threshold: mostly<unknown>([null, 0.5, 0.9], [3]),
    },
    { requiredKeys: [] },
  )
  .map((body) => new RequestCommand("PATCH settings", "PATCH", session, { body }));

const arbCompact = fc
  .tuple(
    mostly<unknown>([{}, { instructions: "Keep the ids." }], [{ focus: 7 }]),
    arbIdempotencyKey,
  )
  .map(
    ([body, key]) =>
      new RequestCommand("compact", "POST", (real) => `${session(real)}/compact`, {
        body,
        ...(key !== null ? { headers: { "Idempotency-Key": key } } : {}),
      }),
  );

const arbOverflow = fc
  .record(
    {
      error: fc.constantFrom<unknown>(
        {
          status: 400,
          message:
            "This model's maximum context length is 3000 tokens. However, your messages resulted in 5000 tokens.",
        },
        { status: 400, message: "prompt is too long: 5000 tokens > 3000 maximum" },
        { status: 429, message: "Rate limit reached for requests per min." },
        { status: 400, message: "prompt is too long", body: nested(MAX_ITEM_NESTING + 5) },
        { status: 400, message: "prompt is too long", body: nested(5_000) },
        { message: 42 },
      ),
      format: fc.constantFrom<unknown>("openai", "anthropic", "responses", "gemini"),
      providerData: fc.boolean(),
    },
    { requiredKeys: ["error"] },
  )
  .map(
    (body) =>
      new RequestCommand("overflow", "POST", (real) => `${session(real)}/overflow`, { body }),
  );

const QUERY_FRAGMENTS = [
  "bash",
  "start",
  "call",
  "\u0000",
  " ",
  '"',
  "*",
  "NEAR(",
  "AND",
  "é",
  "ok",
  ":",
];

const arbSearch = fc
  .array(fc.constantFrom(...QUERY_FRAGMENTS), { maxLength: 5 })
  .map((parts) => parts.join(""))
  .map(
    (q) =>
      new RequestCommand(
        "search",
        "GET",
        (real) => `${session(real)}/search?q=${encodeURIComponent(q)}`,
        {},
        (reply) => {
          // The docs' promise: `q` never breaks the query; only a query without a word is refused.
          if (reply.status !== 404 && /[\p{L}\p{N}]/u.test(q)) expect(reply.status, q).toBe(200);
        },
      ),
  );

const arbMemoryText = mostly<unknown>(
  ["Prefers tabs over spaces.", "Deploys go through the staging cluster first."],
  ["", "   ", "x".repeat(2_001), "My key is sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD", 17],
);

const arbMemory = fc.oneof(
  fc
    .record({ text: arbMemoryText, kind: fc.constantFrom<unknown>("fact", "preference", "rumour") })
    .map(
      (body) =>
        new RequestCommand(
          "memory add",
          "POST",
          () => "/v1/memory",
          { body },
          (reply, model) => {
            const id = Reflect.get(Object(reply.body), "id");
            if (reply.status === 201 && typeof id === "string") model.memories.push(id);
          },
        ),
    ),
  fc
    .record(
      { text: arbMemoryText, kind: fc.constantFrom<unknown>("fact", "rumour") },
      {
        requiredKeys: [],
      },
    )
    .map(
      (body) =>
        new RequestCommand(
          "memory patch",
          "PATCH",
          (_real, model) => `/v1/memory/${model.memories[0] ?? "mem_unknown"}`,
          { body },
        ),
    ),
  fc
    .constantFrom("tabs", "tabs\u0000spaces", "", '"')
    .map(
      (q) =>
        new RequestCommand(
          "memory search",
          "GET",
          () => `/v1/memory/search?q=${encodeURIComponent(q)}`,
          {},
        ),
    ),
);

/** Every kind of call, appends weighted up: they are what the other calls act on. */
export const arbCommands = (maxCommands: number) =>
  fc.commands(
    [
      arbAppend,
      arbAppend,
      arbAppend,
      arbSettings,
      arbCompact,
      arbOverflow,
      arbSearch,
      arbMemory,
      arbWrongRoute,
    ],
    { maxCommands, size: "max" },
  );
