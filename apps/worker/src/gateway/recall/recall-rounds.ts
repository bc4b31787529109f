/**
 * @module gateway/recall/recall-rounds
 * The gateway answers the `recall` tool itself, for a session whose setting
 * `recall` is on: the tool is added to the request, and while the upstream's
 * (complete) answer calls it, each call is answered here from the session
 * (a search, or a tool call's exact output, formatted by core's recall tool
 * as fenced data) and the request is sent again with that turn appended. The
 * client sees only the answer that follows. At most `MAX_RECALL_ROUNDS`
 * rounds: the last one asks for an answer without tool calls, so a model
 * that keeps recalling cannot hold a request forever nor run up its cost.
 */

import { formatRecallAnswer, formatRecallError, parseRecallArguments } from "@condense/core";
import { ApiError } from "../../api/errors";
import { logLine } from "../../log/log-lines";
import type {
  AnswerToolCall,
  GatewayProtocol,
  ProtocolAnswer,
  RequestBody,
  ToolResult,
} from "../protocols/protocol";
import type { UpstreamReply } from "../upstream/upstream-call";
import type { RecallSource } from "./recall-source";

/**
 * Rounds of recall calls answered per client request. Three lets a model search, then read an
 * output the search found, then check one more thing; each round is one more upstream call.
 */
export const MAX_RECALL_ROUNDS = 3;

export const RECALL_TOOL = "recall";

/** The result of a call of another tool made beside recall: it is the client's, and it never saw it. */
export const NOT_RUN =
  "This call was not run: it was made together with recall, whose results are here. Call it again if you still need it.";

export interface RecallRoundsResult {
  /** The reply for the client: an answer without recall calls, or an upstream error. */
  reply: UpstreamReply;
  /** Rounds of recall calls answered (0: the first answer called no recall). */
  rounds: number;
}

/** The text answering one recall call; never throws (a failure is text for the model). */
export async function answerRecallCall(source: RecallSource, input: unknown): Promise<string> {
  const parse = parseRecallArguments(input);
  if (!parse.ok) return formatRecallError(parse.message);
  const { request } = parse;
  try {
    if (request.kind === "search") {
      const results = await source.search({ q: request.query, limit: request.limit });
      return formatRecallAnswer({ kind: "search", query: request.query, results });
    }
    return formatRecallAnswer({
      kind: "tool-output",
      output: await source.toolOutput(request.toolCallId),
    });
  } catch (error) {
    // The service's own errors say what was wrong (an unknown tool-call id, a query with no word).
    if (error instanceof ApiError) {
      return formatRecallError(error.message);
    }
    // Anything else (the session object unreachable) fails this call, not the client's request.
    logLine({
      type: "recall_not_answered",
      level: "warn",
      error: error instanceof Error ? error.name : typeof error,
    });
    return formatRecallError("the conversation's history could not be read just now; try again");
  }
}

async function results(
  source: RecallSource,
  calls: readonly AnswerToolCall[],
): Promise<ToolResult[]> {
  return Promise.all(
    calls.map(async (call) => ({
      id: call.id,
      text: call.name === RECALL_TOOL ? await answerRecallCall(source, call.arguments) : NOT_RUN,
    })),
  );
}

/** How the rounds reach the upstream and read its replies. */
export interface RoundsTransport {
  /** Sends a request again, and reads the reply whole. */
  send(body: RequestBody): Promise<UpstreamReply>;
  /** The answer of a successful reply (a JSON body, or a whole stream), or undefined. */
  read(reply: UpstreamReply): ProtocolAnswer | undefined;
}

/**
 * Starting from the upstream's `first` reply to `body` (which declares the recall tool), answers
 * recall calls and sends the request again until an answer calls no recall, at most
 * `MAX_RECALL_ROUNDS` times. An upstream error in a later round is the reply, as it was.
 */
export async function runRecallRounds(
  protocol: GatewayProtocol,
  body: RequestBody,
  first: UpstreamReply,
  source: RecallSource,
  transport: RoundsTransport,
): Promise<RecallRoundsResult> {
  let reply = first;
  let current = body;
  for (let rounds = 0; ; rounds++) {
    if (reply.status < 200 || reply.status >= 300) return { reply, rounds };
    const answer = transport.read(reply);
    const calls = answer === undefined ? [] : protocol.tools.calls(answer);
    if (answer === undefined || !calls.some((call) => call.name === RECALL_TOOL)) {
      return { reply, rounds };
    }
    if (rounds >= MAX_RECALL_ROUNDS) {
      // The upstream ignored the last round's tool_choice none: its recall call cannot reach the client.
      throw new ApiError(
        502,
        "recall_rounds_exceeded",
        `the upstream still called recall after ${MAX_RECALL_ROUNDS} rounds and a request for an answer without tool calls; retry, or turn the session's recall setting off`,
      );
    }
    current = protocol.tools.withResults(current, answer, await results(source, calls));
    if (rounds + 1 === MAX_RECALL_ROUNDS) current = protocol.tools.withoutToolCalls(current);
    reply = await transport.send(current);
  }
}
