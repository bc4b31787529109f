/**
 * @module gateway/agent-identity
 * The session a gateway request belongs to when it names none: agents already
 * say which conversation a request is part of (Claude Code in
 * `x-claude-code-session-id` and `metadata.user_id`, Codex in `session-id` and
 * `prompt_cache_key`, opencode in `x-session-id`), so an agent that
 * only changes its base URL still gets a session. The id is kept per user like
 * every session (the caller's credential picks the user), prefixed by the
 * agent family so two agents' ids never meet, and reported in
 * `X-Condense-Session` with the field that named it in
 * `X-Condense-Session-Source`.
 *
 * An explicit `X-Condense-Session` wins; `X-Condense-Session: none` keeps the
 * request stateless. An identity value that is not a plain id (too long, or
 * with characters a session id cannot hold) is hashed, never refused: it is
 * the agent's, not the caller's, to get right.
 */

import { sha256Hex } from "../digest";
import type { RequestBody } from "./protocols/protocol";

/** `X-Condense-Session: none`: no session, even when the agent names one. */
export const NO_SESSION = "none";

/** Where a request's session came from: the header, or the agent field that named it. */
export type SessionSource =
  | "X-Condense-Session"
  | "x-claude-code-session-id"
  | "metadata.user_id"
  | "session-id"
  | "session_id"
  | "thread-id"
  | "x-session-id"
  | "x-session-affinity"
  | "prompt_cache_key"
  | "metadata.session_id";

export interface AgentSession {
  /** The session id the gateway uses: `<family>:<value>`, or `<family>:h-<hash>` for an odd value. */
  id: string;
  source: SessionSource;
}

/** One field an agent may name its conversation in, and the id family it belongs to. */
interface IdentityField {
  source: Exclude<SessionSource, "X-Condense-Session">;
  family: string;
  read(headers: Headers, body: RequestBody): string | undefined;
}

const header =
  (name: string) =>
  (headers: Headers): string | undefined =>
    headers.get(name) ?? undefined;

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/**
 * Claude Code's `metadata.user_id`: JSON with `session_id` (2.1), or the older
 * `user_<hash>_account_<uuid>_session_<uuid>` string.
 */
function claudeCodeUserId(_headers: Headers, body: RequestBody): string | undefined {
  const userId = text(record(body.metadata)?.user_id);
  if (userId === undefined) return undefined;
  if (userId.trimStart().startsWith("{")) {
    try {
      return text(record(JSON.parse(userId))?.session_id);
    } catch {
      return undefined;
    }
  }
  return /_session_([^_]+)$/.exec(userId)?.[1];
}

/**
 * In order: the agents' own fields before the generic ones, a session before a thread (a Codex
 * sub-agent has a thread of its own under its parent's session, and joins the parent's session as a
 * side request, as it would under an explicit header).
 */
const FIELDS: readonly IdentityField[] = [
  {
    source: "x-claude-code-session-id",
    family: "claude-code",
    read: header("x-claude-code-session-id"),
  },
  { source: "metadata.user_id", family: "claude-code", read: claudeCodeUserId },
  { source: "session-id", family: "codex", read: header("session-id") },
  { source: "session_id", family: "session", read: header("session_id") },
  { source: "thread-id", family: "codex", read: header("thread-id") },
  // opencode sends its session (`ses_…`) in both.
  { source: "x-session-id", family: "session", read: header("x-session-id") },
  { source: "x-session-affinity", family: "session", read: header("x-session-affinity") },
  {
    source: "metadata.session_id",
    family: "session",
    read: (_headers, body) => text(record(body.metadata)?.session_id),
  },
  {
    source: "prompt_cache_key",
    family: "cache-key",
    read: (_headers, body) => text(body.prompt_cache_key),
  },
];

/** A value kept as it is in a session id: what `SessionIdParam` allows after the family prefix. */
const PLAIN_VALUE = /^[A-Za-z0-9._-]{1,96}$/;

async function sessionIdFor(family: string, value: string): Promise<string> {
  if (PLAIN_VALUE.test(value)) return `${family}:${value}`;
  return `${family}:h-${(await sha256Hex(value)).slice(0, 40)}`;
}

/** The session the agent's own fields name, or undefined when it names none. */
export async function agentSession(
  headers: Headers,
  body: RequestBody,
): Promise<AgentSession | undefined> {
  for (const field of FIELDS) {
    const value = field.read(headers, body)?.trim();
    if (value === undefined || value === "") continue;
    return { id: await sessionIdFor(field.family, value), source: field.source };
  }
  return undefined;
}

/**
 * The request's session: the explicit one (`X-Condense-Session`, already checked), none for
 * `none`, else the agent's own.
 */
export async function requestSession(
  explicit: string | undefined,
  headers: Headers,
  body: RequestBody,
): Promise<AgentSession | undefined> {
  if (explicit === NO_SESSION) return undefined;
  if (explicit !== undefined) return { id: explicit, source: "X-Condense-Session" };
  return agentSession(headers, body);
}
