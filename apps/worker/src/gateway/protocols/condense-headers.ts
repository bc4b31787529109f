/**
 * @module gateway/protocols/condense-headers
 * The `X-Condense-*` headers of the gateway: those a request may send (its
 * session, the model's context window), read and checked, and those the
 * response carries (what was sent upstream, and how).
 */

import { parseContextWindow } from "@condense/core";
import { invalidRequest } from "../../api/errors";
import { SessionIdParam } from "../../api/schemas";
import { validate } from "../../http/route";

/** The gateway's headers: the request's session and context window, echoed or added to the response. */
export const GATEWAY_HEADERS = {
  session: "X-Condense-Session",
  /** Which field named the session: `X-Condense-Session`, or the agent's own (`gateway/agent-identity`). */
  sessionSource: "X-Condense-Session-Source",
  generation: "X-Condense-Generation",
  tokens: "X-Condense-Tokens",
  compaction: "X-Condense-Compaction",
  contextWindow: "X-Condense-Context-Window",
  stateless: "X-Condense-Stateless",
  sideRequest: "X-Condense-Side-Request",
  passthrough: "X-Condense-Passthrough",
  retries: "X-Condense-Overflow-Retries",
  /** `passed-through` when the upstream's overflow error goes back as it came (`gateway/plans/overflow-count`). */
  overflow: "X-Condense-Overflow",
  /** Why the overflow was passed through. */
  overflowReason: "X-Condense-Overflow-Reason",
  recallRounds: "X-Condense-Recall-Rounds",
  keepAlive: "X-Condense-Keep-Alive",
  /**
   * Who answered a count of tokens or a compaction (`count_tokens`, `:countTokens`,
   * `/responses/compact`): `upstream`, or `gateway` where the upstream has no such endpoint.
   */
  answeredBy: "X-Condense-Answered-By",
} as const;

/** What a request asks of the gateway in its headers. */
export interface CondenseRequest {
  /** The session the request belongs to; without one, nothing is stored. */
  sessionId: string | undefined;
  /** The model's window, for a model the table does not know (or a smaller deployment). */
  contextWindow: number | undefined;
}

/** The request's `X-Condense-*` headers, checked: a malformed one is the caller's 400. */
export function condenseRequest(headers: Headers): CondenseRequest {
  return { sessionId: sessionId(headers), contextWindow: contextWindow(headers) };
}

function sessionId(headers: Headers): string | undefined {
  const raw = headers.get(GATEWAY_HEADERS.session);
  if (raw === null) return undefined;
  return validate(SessionIdParam, { id: raw }, "path").id;
}

function contextWindow(headers: Headers): number | undefined {
  const raw = headers.get(GATEWAY_HEADERS.contextWindow);
  if (raw === null) return undefined;
  try {
    return parseContextWindow(raw);
  } catch {
    throw invalidRequest(
      "header",
      GATEWAY_HEADERS.contextWindow,
      `${GATEWAY_HEADERS.contextWindow} must be a number of tokens, e.g. 128000 or "128k" (got ${JSON.stringify(raw.slice(0, 40))})`,
    );
  }
}
