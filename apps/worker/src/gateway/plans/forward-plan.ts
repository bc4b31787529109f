/**
 * @module gateway/plans/forward-plan
 * What the gateway does with a request, decided before it is forwarded
 * (`gateway/plans/plan-request`): the body it sends upstream and the headers it
 * adds to the response, how it makes the body smaller after an upstream
 * overflow, and what it does with the complete answer (a session stores it).
 */

import type { ProtocolAnswer, RequestBody } from "../protocols/protocol";
import type { RecallSource } from "../recall/recall-source";
import type { UpstreamResponse } from "../upstream/upstream-call";

/**
 * The request an answer came from, as it went upstream, and a way to send another to the same
 * upstream with the same headers (the caller's credentials): what a summary through the cache
 * extends (`gateway/plans/cached-summary`). Held only while the answer is handled.
 */
export interface SentRequest {
  body: RequestBody;
  post(payload: string): Promise<UpstreamResponse>;
  /**
   * Counts the answer of a further request `post` sent against the caller's daily cap, when the
   * request is guarded (`gateway/spending-guard` sets it); never rejects.
   */
  meter?(answer: ProtocolAnswer): Promise<void>;
}

/** What a request sends upstream, and what happens to an overflow and to the answer. */
export interface ForwardPlan {
  body: RequestBody;
  /** The request's body as the client sent it, when `body` is that request unchanged. */
  text?: string;
  /** The gateway's response headers (`gateway/protocols/condense-headers`), updated by `recover`. */
  headers: Record<string, string>;
  /** A smaller body after the upstream reported an overflow, or undefined when nothing can help. */
  recover(error: { status: number; text: string }): Promise<RequestBody | undefined>;
  /** Handles the complete answer (appends it to the session) of the request `sent`; never rejects. */
  answered(answer: ProtocolAnswer, sent?: SentRequest): Promise<void>;
  /** Set when `body` declares the recall tool that the gateway answers (`gateway/recall/recall-rounds`). */
  recall?: RecallSource;
}

/** The `answered` of a plan that stores nothing. */
export const nothingToStore = async (): Promise<void> => {};

/** The request as the client sent it: nothing to recover from an overflow, nothing stored. */
export function unchangedPlan(
  body: RequestBody,
  text: string,
  headers: Record<string, string>,
): ForwardPlan {
  return { body, text, headers, recover: async () => undefined, answered: nothingToStore };
}
