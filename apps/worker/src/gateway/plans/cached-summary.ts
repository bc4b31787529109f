/**
 * @module gateway/plans/cached-summary
 * Summaries through the cache (issue 32, build 1): the channel a session's compaction writes its
 * summary through (core's `cachedPromptSummarizer`), made from the request a gateway turn just
 * sent upstream. A summary request is that request again, every field as it went (model,
 * system, tools, messages, cache markers, `prompt_cache_key`), its history extended by the
 * summary instruction as the last user turn, in the protocol the upstream speaks, not streamed:
 * the provider reads the prompt from the cache the turn just wrote. It goes with the turn's own
 * headers, so the caller's key reaches only its own upstream, for its own session, and only
 * while the turn's answer is handled: the channel lives in this Worker's memory, the session
 * object only calls it (a Workers RPC stub), and nothing of it is stored.
 *
 * What comes back is the model's answer as data: the summarizer checks it as every summary
 * (sections, size, refusals) and the engine falls to its next tier when it fails. Its usage counts
 * against the caller's daily cap as the turn's did (`sent.meter`, set by the spending guard).
 */

import { type CachedPromptTurn, isRecord, SummarizerError } from "@condense/core";
import { ApiError } from "../../api/errors";
import { canonicalMessages } from "../../api/formats";
import type { CachedSummaryChannel } from "../../session/compaction/local";
import { count, type GatewayProtocol, type RequestBody } from "../protocols/protocol";
import { readUpstreamBody } from "../upstream/upstream-call";
import type { SentRequest } from "./forward-plan";

/**
 * The summary request: `body` with `turns` after its history, every other field as it went and in
 * its place (a provider does not read JSON key order, but nothing is moved that need not be), not
 * streamed. Undefined when the request keeps its history elsewhere.
 */
export function summaryRequestBody(
  protocol: GatewayProtocol,
  body: RequestBody,
  turns: readonly CachedPromptTurn[],
): RequestBody | undefined {
  const history = protocol.history(body);
  if (history === undefined) return undefined;
  const appended = turns.map((turn) => ({ role: turn.role, content: turn.text }));
  const field = protocol.name === "responses" ? "input" : "messages";
  const { stream_options: _options, ...rest } = body;
  const extended = { ...rest, [field]: [...history.messages, ...appended] };
  return protocol.name === "chat" && body.stream === undefined
    ? extended
    : { ...extended, stream: false };
}

/** The answer's stop reason in the summarizer's words (`stop`, `length`, `content_filter`, `tool_calls`). */
function finishReason(protocol: GatewayProtocol, json: Record<string, unknown>): string | null {
  if (protocol.name === "anthropic") {
    const reason = json.stop_reason;
    if (reason === "max_tokens") return "length";
    if (reason === "refusal") return "content_filter";
    if (reason === "tool_use") return "tool_calls";
    return typeof reason === "string" ? "stop" : null;
  }
  if (protocol.name === "responses") {
    if (json.status !== "incomplete") return "stop";
    const details = isRecord(json.incomplete_details) ? json.incomplete_details.reason : undefined;
    return details === "content_filter" ? "content_filter" : "length";
  }
  const choice = Array.isArray(json.choices) ? json.choices[0] : undefined;
  return isRecord(choice) && typeof choice.finish_reason === "string" ? choice.finish_reason : null;
}

/** A failed summary request as the summarizer's error, by status: the engine then falls to its next tier. */
function failed(status: number): SummarizerError {
  const kind =
    status === 429
      ? "rate_limited"
      : status === 408 || status === 504
        ? "timeout"
        : status >= 500
          ? "server_error"
          : "other";
  return new SummarizerError(
    kind,
    `the upstream answered the summary request through the cache with HTTP ${status}`,
  );
}

/** The text of the answer's assistant messages (tool calls are no summary and are left out). */
function answerText(protocol: GatewayProtocol, messages: unknown[]): string {
  return canonicalMessages(messages, protocol.format)
    .filter((message) => message.role === "assistant")
    .map((message) =>
      typeof message.content === "string"
        ? message.content
        : (message.content ?? []).map((part) => (part.type === "text" ? part.text : "")).join(""),
    )
    .join("\n");
}

/**
 * The channel that extends `sent` (a gateway turn's request to its upstream, in `protocol`), or
 * undefined when its history is kept elsewhere (a chained Responses request) or the protocol has
 * none the gateway rewrites.
 */
export function cachedSummaryChannel(
  protocol: GatewayProtocol,
  sent: SentRequest,
): CachedSummaryChannel | undefined {
  if (protocol.name === "gemini" || protocol.history(sent.body) === undefined) return undefined;
  return async (turns) => {
    const body = summaryRequestBody(protocol, sent.body, turns);
    if (body === undefined)
      throw new SummarizerError("other", "the request has no history to extend");
    let text: string;
    let status: number;
    try {
      const outcome = await sent.post(JSON.stringify(body));
      status = outcome.response.status;
      text = await readUpstreamBody(outcome);
    } catch (error) {
      const timeout = error instanceof ApiError && error.status === 504;
      throw new SummarizerError(
        timeout ? "timeout" : "network",
        `the summary request through the cache did not get an answer (${error instanceof ApiError ? error.code : "error"})`,
      );
    }
    if (status < 200 || status >= 300) throw failed(status);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new SummarizerError(
        "malformed",
        "the upstream's answer to the summary request is not JSON",
      );
    }
    const answer = isRecord(json) ? protocol.answer(json) : undefined;
    if (answer === undefined || !isRecord(json)) {
      throw new SummarizerError(
        "malformed",
        "the upstream's answer to the summary request has no message",
      );
    }
    await sent.meter?.(answer);
    const usage = answer.usage;
    return {
      text: answerText(protocol, answer.messages),
      finishReason: finishReason(protocol, json),
      ...(usage !== undefined
        ? {
            usage: {
              inputTokens: usage.inputTokens,
              cacheReadTokens: usage.cacheReadTokens,
              cacheWriteTokens: usage.cacheWriteTokens,
              ...(count(answer.outputTokens) !== undefined
                ? { outputTokens: answer.outputTokens }
                : {}),
            },
          }
        : {}),
    };
  };
}
