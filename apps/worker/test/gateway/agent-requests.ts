/**
 * @module test/gateway/agent-requests
 * Request bodies as real agents send them, sent to the gateway byte for byte
 * (no SDK in between): what an agent's sequence of main and side requests does
 * to a session. The test upstream answers main requests with the answers an
 * agent's next history carries (queued for the main requests' tag), so that
 * history extends the session as it would with the real model.
 */

import { SELF } from "cloudflare:test";
import { type ScenarioFields, scenarioHeaders } from "@condense/test-servers";
import { queueAnswers } from "../support/gateway-helpers";
import { BASE, TOKENS } from "../support/helpers";

export type AgentRoute = "anthropic" | "chat" | "responses";

/** One request of an agent: its body, and for a main request the answer its next history carries. */
export interface AgentRequest {
  /** What the request is to the agent (read by people, and `main` requests get `answer` queued). */
  kind: "main" | "side";
  /** Why the agent sends it, e.g. `title`, `quota`, `sub-agent`. */
  label: string;
  body: Record<string, unknown>;
  /** The canonical assistant message the upstream answers with (main requests). */
  answer?: Record<string, unknown>;
}

export interface AgentReply {
  status: number;
  headers: Headers;
  /** The whole response body (a stream read to its end). */
  text: string;
}

const PATHS: Record<AgentRoute, string> = {
  anthropic: "/v1/gateway/anthropic/v1/messages",
  chat: "/v1/gateway/up/chat/completions",
  responses: "/v1/gateway/up/responses",
};

/** Sends `body` as the agent would, with the session header, and reads the whole response. */
export async function sendAgentRequest(
  route: AgentRoute,
  body: Record<string, unknown>,
  options: {
    session?: string;
    tag: string;
    /** How the test upstream treats the request; its name is the tag. */
    scenario?: ScenarioFields;
    headers?: Record<string, string>;
  },
): Promise<AgentReply> {
  const response = await SELF.fetch(`${BASE}${PATHS[route]}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "X-Condense-Key": TOKENS.alice ?? "alice",
      ...scenarioHeaders({ ...options.scenario, name: options.tag }),
      ...(route === "anthropic"
        ? { "x-api-key": "sk-ant-caller", "anthropic-version": "2023-06-01" }
        : { authorization: "Bearer sk-caller-openai" }),
      ...(options.session !== undefined ? { "X-Condense-Session": options.session } : {}),
      ...options.headers,
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/**
 * Sends an agent's requests in order under one session: main requests under `tag`, whose upstream
 * answers are the sequence's answers, side requests under a tag of their own (`${tag}-side`).
 */
export async function replayAgent(
  route: AgentRoute,
  requests: readonly AgentRequest[],
  options: { session: string; tag: string; headers?: Record<string, string> },
): Promise<AgentReply[]> {
  const answers = requests.flatMap((request) =>
    request.kind === "main" && request.answer !== undefined ? [request.answer] : [],
  );
  await queueAnswers(options.tag, answers);
  const replies: AgentReply[] = [];
  for (const request of requests) {
    const tag = request.kind === "main" ? options.tag : `${options.tag}-side`;
    replies.push(await sendAgentRequest(route, request.body, { ...options, tag }));
  }
  return replies;
}
