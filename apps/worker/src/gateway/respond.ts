/**
 * @module gateway/respond
 * The client's response to a forwarded request: a stream relayed as it comes
 * (`gateway/stream-relay`), a body read and returned, or, for a request whose
 * recall calls the gateway answers, the answer that follows the hidden rounds
 * (`gateway/recall-rounds`). The upstream's status and headers go with it, and
 * the plan's (`X-Condense-*`); the complete answer goes to the plan (which
 * stores it) after the response, off the turn's path.
 */

import { createParser } from "eventsource-parser";
import type { Context } from "hono";
import type { AppEnv } from "../http/app-env";
import { GATEWAY_HEADERS } from "./condense-headers";
import type { ForwardPlan } from "./forward-plan";
import type { GatewayProtocol, ProtocolAnswer, RequestBody } from "./protocol";
import { runRecallRounds } from "./recall-rounds";
import type { RecallSource } from "./recall-source";
import { relayStream } from "./stream-relay";
import {
  clientResponseHeaders,
  gatewayTimeouts,
  readUpstreamBody,
  readUpstreamReply,
  type UpstreamReply,
  type UpstreamResponse,
} from "./upstream-call";

/** Waits for `promise` after the response (the answer's append), where the runtime allows it. */
export function afterResponse(c: Context<AppEnv>, promise: Promise<void>): void {
  try {
    c.executionCtx.waitUntil(promise);
  } catch {
    // No execution context (the app called directly in a test): the promise runs on its own.
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isStream(headers: Headers): boolean {
  return (headers.get("content-type") ?? "").includes("text/event-stream");
}

/** The answer of a whole reply: a JSON body, or a stream's events run through the accumulator. */
function replyAnswer(protocol: GatewayProtocol, reply: UpstreamReply): ProtocolAnswer | undefined {
  if (!isStream(reply.headers)) return protocol.answer(parseJson(reply.text));
  const accumulator = protocol.accumulator();
  const parser = createParser({ onEvent: (event) => accumulator.event(event) });
  parser.feed(reply.text);
  return accumulator.result();
}

/** The upstream's response to the client: a stream relayed, or a body read and returned. */
export async function respond(
  c: Context<AppEnv>,
  protocol: GatewayProtocol,
  outcome: UpstreamResponse,
  plan: ForwardPlan,
): Promise<Response> {
  const { response } = outcome;
  const headers = clientResponseHeaders(response.headers, plan.headers);
  if (isStream(response.headers) && response.body !== null) {
    // The deadline for the response is met; from here each pause of the stream has its own.
    outcome.endDeadline();
    const relay = relayStream(response.body, {
      accumulator: protocol.accumulator(),
      idleTimeoutMs: gatewayTimeouts(c.env).streamIdleMs,
      errorEvent: (reason) =>
        protocol.streamError(
          reason === "timeout" ? "upstream_timeout" : "upstream_unreachable",
          reason === "timeout"
            ? "the upstream sent nothing for longer than the gateway waits between two chunks (GATEWAY_STREAM_IDLE_TIMEOUT_MS); the answer is incomplete"
            : "the upstream's stream broke off; the answer is incomplete",
        ),
      onComplete: plan.answered,
    });
    afterResponse(c, relay.done);
    return new Response(relay.body, { status: response.status, headers });
  }
  const text = await readUpstreamBody(outcome);
  const answer = response.ok ? protocol.answer(parseJson(text)) : undefined;
  // Stored after the response, off the turn's path; a next turn that comes first carries the answer
  // in its history, and this append then finds the session moved on.
  if (answer !== undefined) afterResponse(c, plan.answered(answer));
  return new Response(text, { status: response.status, headers });
}

/**
 * The client's answer to a request that declares the recall tool: recall calls answered inside the
 * gateway (`gateway/recall-rounds`), then the answer that calls no recall returned and stored. A
 * stream is read whole before a byte of it is relayed (whether it calls recall is known only at its
 * end), then given to the client as it came; the response deadline covers the whole stream.
 */
export async function respondAfterRecall(
  c: Context<AppEnv>,
  protocol: GatewayProtocol,
  outcome: UpstreamResponse,
  plan: ForwardPlan,
  recall: RecallSource,
  sent: RequestBody,
  send: (body: RequestBody) => Promise<UpstreamReply>,
): Promise<Response> {
  const first = await readUpstreamReply(outcome);
  const read = (reply: UpstreamReply) => replyAnswer(protocol, reply);
  const { reply, rounds } = await runRecallRounds(protocol, sent, first, recall, { send, read });
  plan.headers[GATEWAY_HEADERS.recallRounds] = String(rounds);
  const headers = clientResponseHeaders(reply.headers, plan.headers);
  const ok = reply.status >= 200 && reply.status < 300;
  const answer = ok ? read(reply) : undefined;
  if (answer !== undefined) {
    // Only the final answer is stored, not the hidden rounds: the client's next history holds its
    // request and this answer, and must still extend the session for the next turn to match it.
    // Its provider count is the first round's: the prompt the session served, without the recalled
    // material, which is what calibrates the session's own count.
    const { usage: _rounds, ...final } = answer;
    const firstUsage = rounds === 0 ? answer.usage : read(first)?.usage;
    afterResponse(
      c,
      plan.answered(firstUsage === undefined ? final : { ...final, usage: firstUsage }),
    );
  }
  return new Response(reply.text, { status: reply.status, headers });
}
