/**
 * @module gateway/plans/session-recovery
 * What a session's turn does when the upstream refuses its context as too
 * long: the session compacts (`gatewayOverflow`), and the request is retried
 * with its own history compacted, fitted further when the upstream's count of
 * what it refused says it must be (`gateway/plans/overflow-count`). It keeps
 * the tokens last sent, so a retry is only ever smaller, and writes the
 * headers the answer carries; nothing smaller to send, the upstream's error
 * goes back with a header that says why.
 */

import type { ChatMessage } from "@condense/core";
import { ApiError } from "../../api/errors";
import { renderMessages } from "../../api/formats";
import { unwrap } from "../../api/rpc-result";
import type { SessionStub } from "../../session/session-stub";
import type { SessionCall } from "../../session/store/session-record";
import type { GatewayContextByReference } from "../../session/turns/gateway-context";
import type { GatewayOverflowResult } from "../../session/turns/gateway-turn";
import { GATEWAY_HEADERS } from "../protocols/condense-headers";
import type { GatewayProtocol, RequestBody } from "../protocols/protocol";
import { markNoFit, markPassedThrough, type UpstreamCount, upstreamCount } from "./overflow-count";
import { fitStateless } from "./plan-stateless";
import {
  type Marking,
  NO_LAYOUT,
  referenceMessages,
  renderMarked,
  renderReference,
} from "./render-context";

/** The overflow error the upstream answered with. */
type UpstreamError = { status: number; text: string };

/** The served turn a recovery retries, and what it needs of its request. */
export interface RecoveryTurn {
  stub: SessionStub;
  key: SessionCall;
  protocol: GatewayProtocol;
  body: RequestBody;
  /** The request's history (canonical). */
  canonical: ChatMessage[];
  model: string;
  overheadTokens: number;
  /** The turn as the session served it. */
  served: { generation: number; lastSeq: number; tokens: number };
  /** The answer's headers, which the recovery updates. */
  headers: Record<string, string>;
  marking: Marking;
  /** The body as it goes upstream (with the recall tool, when the session's recall is on). */
  outgoing(next: RequestBody): RequestBody;
}

export class SessionRecovery {
  /** Engine tokens of the context last sent: a retry sends fewer, or the error goes back. */
  #sentTokens: number;

  constructor(private readonly turn: RecoveryTurn) {
    this.#sentTokens = turn.served.tokens;
  }

  /** The body to retry with after the upstream's overflow `error`, or undefined to return the error. */
  async recover(error: UpstreamError): Promise<RequestBody | undefined> {
    const { protocol, body, canonical, headers } = this.turn;
    // The upstream's count of what it refused, against the gateway's (`gateway/plans/overflow-count`).
    const count = upstreamCount(error, this.#sentTokens + this.turn.overheadTokens);
    const recovered = await this.#compact(error);
    if (recovered === undefined) return undefined;
    if (recovered.compactionTier !== null) {
      headers[GATEWAY_HEADERS.compaction] = String(recovered.compactionTier);
    }
    // The retry carries this request's own history, compacted: never messages other requests
    // appended meanwhile (an answer its client abandoned), which are not this conversation's turn.
    if (recovered.kind === "moved-on") {
      const window = Math.min(recovered.contextWindow, count?.window ?? recovered.contextWindow);
      const fit = await this.#fitInto(canonical, window);
      // Nothing smaller to send (what is never cut is over by itself): the same context would be
      // refused again, so the upstream's error goes back as it was.
      if (!this.#smaller(count, fit.tokens)) return undefined;
      return this.turn.outgoing(
        protocol.withContext(body, renderMessages(fit.messages, protocol.format)),
      );
    }
    const reference = recovered.context.byReference;
    const fitted = await this.#fitReference(reference, recovered.tokens, count);
    if (fitted !== "not-fitted") return fitted;
    if (!this.#smaller(count, recovered.tokens)) return undefined;
    const retried = renderReference(reference, canonical, protocol.format, this.turn.marking);
    // Nothing compacted: the same request would be refused the same way.
    if (retried === undefined) {
      markPassedThrough(headers, count, this.#sentTokens, recovered.tokens);
      return undefined;
    }
    return this.turn.outgoing(protocol.withContext(body, retried));
  }

  /** The session compacted for the overflow, or undefined when the error goes back as it was. */
  async #compact(error: UpstreamError): Promise<GatewayOverflowResult | undefined> {
    const { stub, key, protocol, served } = this.turn;
    try {
      return unwrap<GatewayOverflowResult>(
        await stub.gatewayOverflow(key, {
          error: { status: error.status, message: error.text.slice(0, 100_000) },
          format: protocol.format,
          generation: served.generation,
          lastSeq: served.lastSeq,
        }),
      );
    } catch (refused) {
      // Not an overflow by the session's reading, the session is gone, or no context of it fits
      // the window the upstream stated: the error goes back as it was.
      if (refused instanceof ApiError) {
        if (refused.code === "context_over_window") markNoFit(this.turn.headers, refused.message);
        return undefined;
      }
      throw refused;
    }
  }

  /**
   * The session's context is still over the window by the upstream's count: this request's is
   * fitted into that window (the session keeps its own, which fits by the gateway's count). The
   * body to retry with, undefined when nothing smaller can be sent, or `not-fitted` when no fitting
   * was needed or possible, or it saved nothing over the session's context.
   */
  async #fitReference(
    reference: GatewayContextByReference,
    tokens: number,
    count: UpstreamCount | undefined,
  ): Promise<RequestBody | undefined | "not-fitted"> {
    const { protocol, body, canonical, overheadTokens } = this.turn;
    if (count === undefined || tokens + overheadTokens <= count.window) return "not-fitted";
    // A view of OpenAI compaction items is sent as it is.
    const messages = referenceMessages(reference, canonical);
    if (messages === undefined) return "not-fitted";
    const fit = await this.#fitInto(messages, count.window);
    const smallest = Math.min(fit.tokens, tokens);
    if (smallest >= this.#sentTokens) {
      markPassedThrough(this.turn.headers, count, this.#sentTokens, smallest);
      return undefined;
    }
    if (fit.tokens >= tokens) return "not-fitted";
    this.#sent(fit.tokens);
    return this.turn.outgoing(
      protocol.withContext(
        body,
        renderMarked(fit.messages, protocol.format, this.turn.marking, NO_LAYOUT),
      ),
    );
  }

  /** `messages` fitted statelessly into `window` (the gateway's count, overhead included). */
  #fitInto(messages: ChatMessage[], window: number) {
    const { protocol, body, model, overheadTokens } = this.turn;
    const maxOutputTokens = protocol.maxOutputTokens(body);
    return fitStateless(messages, model, {
      contextWindow: window,
      ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
      overheadTokens,
      force: true,
    });
  }

  /**
   * Whether `tokens` is less than what was sent: then it is what is sent now; else the headers say
   * the error passed through.
   */
  #smaller(count: UpstreamCount | undefined, tokens: number): boolean {
    if (tokens >= this.#sentTokens) {
      markPassedThrough(this.turn.headers, count, this.#sentTokens, tokens);
      return false;
    }
    this.#sent(tokens);
    return true;
  }

  #sent(tokens: number): void {
    this.#sentTokens = tokens;
    this.turn.headers[GATEWAY_HEADERS.tokens] = String(tokens);
  }
}
