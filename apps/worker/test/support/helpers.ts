/**
 * @module test/support/helpers
 * What the Worker tests share: calling the API as a user, driving the
 * controllable LLM server, building conversations, and waiting for background
 * work without timing assertions.
 */

import { env, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import type {
  AppendResponseBody,
  CompactionsResponseBody,
  SessionStatusBody,
  TranscriptResponseBody,
} from "../../src/api/schemas";
import { createApp } from "../../src/app";
import type { SessionObject } from "../../src/session/session-object";
import { sessionStub } from "../../src/session/session-stub";
import { pendingDueAt, readSession } from "../../src/session/store/session-record";

export const BASE = "https://condense.test";

export const TOKENS: Record<string, string> = {
  alice: "alice-key",
  bob: "bob-key",
  carol: "carol-key",
  /** The docs' recorded examples only: its list and `DELETE /v1/me` must see no other file's data. */
  docs: "docs-key",
};

export interface CallOptions {
  /** A user from TOKENS, or null for no Authorization header. */
  as?: string | null;
  body?: unknown;
  /** Sent as-is instead of JSON.stringify(body). */
  rawBody?: BodyInit;
  headers?: Record<string, string>;
  /** Run the app in the test isolate with these bindings instead of the configured Worker. */
  env?: Partial<Env>;
}

export interface Reply<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

export async function call<T = Record<string, unknown>>(
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  const user = options.as === undefined ? "alice" : options.as;
  if (user !== null) headers.Authorization ??= `Bearer ${TOKENS[user] ?? user}`;
  let body: BodyInit | undefined = options.rawBody;
  if (body === undefined && options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["Content-Type"] ??= "application/json";
  }
  const init: RequestInit = { method, headers, ...(body !== undefined ? { body } : {}) };
  const response =
    options.env === undefined
      ? await SELF.fetch(`${BASE}${path}`, init)
      : await createApp().request(`${BASE}${path}`, init, { ...env, ...options.env });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === "" ? null : JSON.parse(text);
  } catch {
    // Left as text.
  }
  return { status: response.status, headers: response.headers, body: parsed as T };
}

/** A fresh session id for each test, so tests never share a Durable Object. */
export function freshSession(prefix = "s"): string {
  return `${prefix}-${crypto.randomUUID()}`;
}

export function stubFor(user: string, sessionId: string) {
  return sessionStub(env, { userId: user, sessionId });
}

type SessionStub = ReturnType<typeof sessionStub>;

/**
 * Moves the clock of session object `stub` on to when its pending background compaction (or that
 * one's retry) is due, when that is still ahead: the suite's `COMPACTION_DELAY_MS` is an hour, so no
 * alarm fires by itself and the alarm leaves a compaction until it is due. Time only moves forward.
 * Returns the object's time after the move.
 */
export function moveClockToDue(stub: SessionStub): Promise<number> {
  return runInDurableObject(stub, (instance: SessionObject, state) => {
    const sql = state.storage.sql;
    // A deleted session's object holds no tables (its tombstone only).
    const tables = sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'condense_session'");
    const session = tables.toArray().length > 0 ? readSession(sql) : undefined;
    const due = session !== undefined ? pendingDueAt(session) : undefined;
    const ahead = due === undefined ? 0 : due - instance.clock();
    if (ahead > 0) {
      const before = instance.clock;
      instance.clock = () => before() + ahead;
    }
    return instance.clock();
  });
}

/** The time by the clock of session object `stub` (moved on by {@link moveClockToDue}). */
export function sessionNow(stub: SessionStub): Promise<number> {
  return runInDurableObject(stub, (instance: SessionObject) => instance.clock());
}

/**
 * Fires the alarm of session object `stub` as the runtime does once its pending background
 * compaction is due ({@link moveClockToDue} first). What `runDurableObjectAlarm` answers: whether
 * an alarm was set.
 */
export async function runAlarmWhenDue(stub: SessionStub): Promise<boolean> {
  await moveClockToDue(stub);
  return runDurableObjectAlarm(stub);
}

/**
 * Fires the alarm of session object `stub` as a deployment with `COMPACTION_DELAY_MS` 0 (and no
 * `cachedSummaries` grace) would right after the append: its pending background compaction's due
 * time is moved back to the object's time, where {@link runAlarmWhenDue} moves an hour on and so
 * lets the provider's cache go cold.
 */
export async function runAlarmWithoutDelay(stub: SessionStub): Promise<boolean> {
  await runInDurableObject(stub, (instance: SessionObject, state) => {
    state.storage.sql.exec(
      "UPDATE condense_session SET pending_due_at = MIN(pending_due_at, ?) WHERE pending_due_at IS NOT NULL",
      instance.clock(),
    );
  });
  return runDurableObjectAlarm(stub);
}

// ---------------------------------------------------------------- session calls

/** Appends to session `id` (creating it on first use) as `as`. */
export const append = (
  id: string,
  body: unknown,
  as = "alice",
  headers: Record<string, string> = {},
) => call<AppendResponseBody>("POST", `/v1/sessions/${id}/messages`, { as, body, headers });

export const status = async (id: string) =>
  (await call<SessionStatusBody>("GET", `/v1/sessions/${id}`)).body;

export const compactions = async (id: string) =>
  (await call<CompactionsResponseBody>("GET", `/v1/sessions/${id}/compactions`)).body.compactions;

/** Every stored message of session `id` (up to 1000). */
export const transcript = async (id: string) =>
  (await call<TranscriptResponseBody>("GET", `/v1/sessions/${id}/transcript?limit=1000`)).body
    .messages;

// ---------------------------------------------------------------- the LLM server

export const llm = {
  async release(tag: string): Promise<void> {
    await fetch(`${env.TEST_LLM_URL}/release?tag=${encodeURIComponent(tag)}`, { method: "POST" });
  },
  async count(model: string): Promise<number> {
    const response = await fetch(`${env.TEST_LLM_URL}/requests?model=${encodeURIComponent(model)}`);
    return ((await response.json()) as { count: number }).count;
  },
  /** The text of every Chat Completions request `model` received, in order. */
  async prompts(model: string): Promise<string[]> {
    const response = await fetch(`${env.TEST_LLM_URL}/prompts?model=${encodeURIComponent(model)}`);
    return (await response.json()) as string[];
  },
  /** Waits until the server has received at least `n` requests for `model`. */
  async waitForRequests(model: string, n = 1): Promise<void> {
    await waitFor(async () => (await llm.count(model)) >= n, `${n} request(s) for ${model}`);
  },
};

/** Polls `check` until it holds; fails with `what` after many tries (no timing assertions). */
export async function waitFor(
  check: () => Promise<boolean> | boolean,
  what: string,
  tries = 400,
): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

// ---------------------------------------------------------------- conversations

export type Message = Record<string, unknown>;

/** One agent step: an assistant tool call and its (long) result. */
export function toolStep(i: number, outputChars = 2_000): Message[] {
  const id = `call_${i}`;
  return [
    {
      role: "assistant",
      content: `Step ${i}: reading file src/module_${i}.ts`,
      tool_calls: [
        {
          id,
          type: "function",
          function: {
            name: "read_file",
            arguments: JSON.stringify({ path: `src/module_${i}.ts` }),
          },
        },
      ],
    },
    {
      role: "tool",
      tool_call_id: id,
      content: `// module ${i}\n${"export const value = 42; // filler\n".repeat(Math.ceil(outputChars / 35))}`,
    },
  ];
}

export function conversation(steps: number, outputChars = 2_000): Message[] {
  const messages: Message[] = [
    { role: "system", content: "You are a careful coding agent." },
    {
      role: "user",
      content: "Fix the failing build in repo https://github.com/example/project and keep notes.",
    },
  ];
  for (let i = 1; i <= steps; i++) messages.push(...toolStep(i, outputChars));
  return messages;
}

/** Creates a session with small limits so that compaction triggers after a few steps. */
export async function createSmallSession(
  sessionId: string,
  settings: Record<string, unknown> = {},
  as = "alice",
): Promise<void> {
  const first = await call("POST", `/v1/sessions/${sessionId}/messages`, {
    as,
    body: { messages: conversation(0), model: "gpt-4o" },
  });
  if (first.status !== 200) throw new Error(`create failed: ${JSON.stringify(first.body)}`);
  const patch = await call("PATCH", `/v1/sessions/${sessionId}`, {
    as,
    body: { contextWindow: 16_000, ...settings },
  });
  if (patch.status !== 200) throw new Error(`patch failed: ${JSON.stringify(patch.body)}`);
}

const WORDS =
  "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa".split(
    " ",
  );

/** User/assistant prose that tool stripping cannot shrink, so compaction needs the summarizer. */
export function prose(turns: number, words = 250): Message[] {
  const messages: Message[] = [
    { role: "system", content: "You are a planning assistant." },
    {
      role: "user",
      content: "Plan the migration of service https://api.example.com/v2 to the new cluster.",
    },
  ];
  for (let t = 0; t < turns; t++) {
    const text = Array.from({ length: words }, (_, i) => WORDS[(i * 7 + t) % WORDS.length]).join(
      " ",
    );
    messages.push({ role: "assistant", content: `Turn ${t}: ${text}` });
    messages.push({
      role: "user",
      content: `Continue with part ${t + 1}, keeping ticket OPS-${1000 + t} in mind.`,
    });
  }
  return messages;
}

/** A session whose forced compactions go through the LLM tier (small tail, roomy window). */
export async function llmSession(summarizerModel: string, turns = 20): Promise<string> {
  const id = freshSession();
  const created = await call("POST", `/v1/sessions/${id}/messages`, {
    body: { messages: prose(turns), model: "gpt-4o" },
  });
  if (created.status !== 200) throw new Error(`append failed: ${JSON.stringify(created.body)}`);
  const patched = await call("PATCH", `/v1/sessions/${id}`, {
    body: { contextWindow: 100_000, tailTokens: 1_500, summarizerModel },
  });
  if (patched.status !== 200) throw new Error(`patch failed: ${JSON.stringify(patched.body)}`);
  return id;
}

export function textOf(message: unknown): string {
  const content = (message as { content?: unknown }).content;
  return typeof content === "string" ? content : JSON.stringify(content);
}
