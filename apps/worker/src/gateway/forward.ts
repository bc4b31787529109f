/**
 * @module gateway/forward
 * Sends a request's plan upstream and answers the client. An upstream
 * overflow (core's classifier, as `/overflow` reads it) is compacted away by
 * the plan and retried, at most twice, before any byte reaches the client;
 * then, as for every other upstream error, the upstream's response goes back
 * as it was (status, body, its headers less the hop's own). A timeout or an
 * unreachable upstream is the gateway's own error (504, 502).
 */

import { isContextOverflowError } from "@condense/core";
import type { Context } from "hono";
import type { AppEnv } from "../http/app-env";
import type { GatewayWait } from "./keep-alive";
import type { ForwardPlan } from "./plans/forward-plan";
import { markRetriesSpent } from "./plans/overflow-count";
import { GATEWAY_HEADERS } from "./protocols/condense-headers";
import type { GatewayProtocol, RequestBody } from "./protocols/protocol";
import { respond, respondAfterRecall } from "./respond";
import {
  clientResponseHeaders,
  gatewayTimeouts,
  reachUpstream,
  readUpstreamBody,
  readUpstreamReply,
} from "./upstream/upstream-call";

/** Overflows recovered (compacted and retried) per request before the upstream's error is returned. */
const MAX_OVERFLOW_RETRIES = 2;

/** Where a request goes: the upstream's URL for it, and the headers sent there. */
export interface ForwardTarget {
  url: string;
  headers: Headers;
}

/**
 * Sends `plan.body` upstream, recovering from overflows, and answers the client. An overflow's
 * compaction is the gateway's own wait (`gatewayWait`: the client's connection is kept alive).
 */
export async function forward(
  c: Context<AppEnv>,
  protocol: GatewayProtocol,
  target: ForwardTarget,
  plan: ForwardPlan,
  gatewayWait: GatewayWait = (work) => work,
): Promise<Response> {
  const timeoutMs = gatewayTimeouts(c.env).responseMs;
  const post = (payload: string) =>
    reachUpstream(
      target.url,
      { method: "POST", headers: target.headers, body: payload },
      timeoutMs,
    );
  // The request as it came while nothing in it changed; re-serialized only once it did.
  let payload = plan.text ?? JSON.stringify(plan.body);
  let sent = plan.body;
  for (let retries = 0; ; retries++) {
    const outcome = await post(payload);
    if (retries > 0) plan.headers[GATEWAY_HEADERS.retries] = String(retries);
    // The answer's handler gets the request as it went, for a summary through the cache.
    const request = { body: sent, post };
    const answering: ForwardPlan = {
      ...plan,
      answered: (answer) => plan.answered(answer, request),
    };
    if (outcome.response.ok && plan.recall !== undefined) {
      const send = async (body: RequestBody) => readUpstreamReply(await post(JSON.stringify(body)));
      return respondAfterRecall(c, protocol, outcome, answering, plan.recall, sent, send);
    }
    if (outcome.response.ok || retries >= MAX_OVERFLOW_RETRIES) {
      if (!outcome.response.ok && retries > 0) markRetriesSpent(plan.headers, retries);
      return respond(c, protocol, outcome, answering);
    }
    const text = await readUpstreamBody(outcome);
    const status = outcome.response.status;
    const smaller = isContextOverflowError({ status, body: text })
      ? await gatewayWait(plan.recover({ status, text }))
      : undefined;
    if (smaller === undefined) {
      // Not an overflow, or nothing more to compact: the upstream's error as it was.
      const headers = clientResponseHeaders(outcome.response.headers, plan.headers);
      return new Response(text, { status, headers });
    }
    sent = smaller;
    payload = JSON.stringify(smaller);
  }
}
