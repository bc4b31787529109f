/**
 * @module gateway/provider-endpoints
 * The providers' endpoints beside their model requests, answered for the
 * context the gateway would send (`gateway/preview`), so that what an agent
 * reads from them agrees with what its model is sent: Anthropic's
 * `/v1/messages/count_tokens` and Gemini's `:countTokens` (the agent's context
 * meter), and OpenAI's `/responses/compact`.
 *
 * A count goes to the upstream's own endpoint with the previewed body: the
 * provider's tokenizer is the truth (the engine's count is an estimate for
 * Claude and Gemini, and a provider counts what the engine cannot: images,
 * its own tool prompts). Where the upstream has no such endpoint (404, 405 or
 * 501: an OpenAI-compatible proxy, a local server), the gateway answers with
 * the engine's count in the provider's shape; Anthropic's or Google's own
 * refusal of the request (a model it does not know) passes through, told apart
 * by its error body (`providerRefusal`). A compaction goes upstream as
 * the client sent it (the provider compacts the history the client holds);
 * without the endpoint, the gateway answers with its engine's compaction
 * (`gateway/responses-compaction`). `X-Condense-Answered-By` says which.
 */

import type { Context } from "hono";
import { ApiError } from "../api/errors";
import { canonicalMessages } from "../api/formats";
import type { AppEnv } from "../http/app-env";
import { requestSession } from "./agent-identity";
import { type Preview, previewOf } from "./preview";
import { expandCondenseCompactions } from "./protocols/condense-compaction";
import { condenseRequest, GATEWAY_HEADERS } from "./protocols/condense-headers";
import type { GatewayProtocol, ProtocolAnswer, RequestBody } from "./protocols/protocol";
import { responsesProtocol } from "./protocols/responses-protocol";
import { emulatedCompaction } from "./responses-compaction";
import { meterAnswer } from "./spending-guard";
import {
  clientResponseHeaders,
  gatewayTimeouts,
  reachUpstream,
  readUpstreamReply,
  type UpstreamReply,
  upstreamRequestHeaders,
} from "./upstream/upstream-call";

/** An upstream's answer saying it has no such endpoint (rather than refusing the request). */
function missingEndpoint(status: number): boolean {
  return status === 404 || status === 405 || status === 501;
}

/**
 * Whether an upstream's 404 is the provider refusing the request rather than a route it lacks:
 * the provider's own error body of another kind than "not found", or a "not found" that names
 * the request's model (a model the upstream does not know). Anthropic's is
 * `{ type: "error", error: { type, message } }` (`not_found_error`, "model: <name>"); Google's
 * `{ error: { code, message, status } }` (`NOT_FOUND`, "models/<name> is not found…"). A server
 * without the route answers in its own words, or with a "not found" about the path.
 */
function providerRefusal(protocol: GatewayProtocol, text: string, model: unknown): boolean {
  const kinds = REFUSAL_SHAPES[protocol.name];
  if (kinds === undefined) return false;
  let error: unknown;
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body !== "object" || body === null) return false;
    if (kinds.envelope !== undefined && Reflect.get(body, "type") !== kinds.envelope) return false;
    error = Reflect.get(body, "error");
  } catch {
    return false;
  }
  if (typeof error !== "object" || error === null) return false;
  const kind: unknown = Reflect.get(error, kinds.kindField);
  const message: unknown = Reflect.get(error, "message");
  if (typeof kind !== "string") return false;
  if (kind !== kinds.notFound) return true;
  return typeof model === "string" && typeof message === "string" && message.includes(model);
}

/** Where each provider's error body says its kind, and which kind is "not found". */
const REFUSAL_SHAPES: Partial<
  Record<GatewayProtocol["name"], { envelope?: string; kindField: string; notFound: string }>
> = {
  anthropic: { envelope: "error", kindField: "type", notFound: "not_found_error" },
  gemini: { kindField: "status", notFound: "NOT_FOUND" },
};

/** POSTs `body` to the upstream's `path`, the client's provider headers with it. */
async function postUpstream(
  c: Context<AppEnv>,
  path: string,
  body: string,
): Promise<UpstreamReply> {
  const upstream = c.get("upstream");
  const headers = upstreamRequestHeaders(c.req.raw.headers, upstream.auth);
  const outcome = await reachUpstream(
    `${upstream.baseUrl}${path}`,
    { method: "POST", headers, body },
    gatewayTimeouts(c.env).responseMs,
  );
  return readUpstreamReply(outcome);
}

/** The upstream's reply passed back, with the gateway's headers. */
function passedBack(reply: UpstreamReply, headers: Record<string, string>): Response {
  return new Response(reply.text, {
    status: reply.status,
    headers: clientResponseHeaders(reply.headers, {
      ...headers,
      [GATEWAY_HEADERS.answeredBy]: "upstream",
    }),
  });
}

/**
 * Why the gateway cannot answer for a request it cannot read: the engine's own complaint about its
 * history (`invalid_messages`, naming the message), or a history kept on the provider's side.
 */
function unreadable(protocol: GatewayProtocol, body: RequestBody, text: string): ApiError {
  const history = protocol.history(body);
  if (history !== undefined) {
    try {
      canonicalMessages(history.messages, protocol.format, history.system, "messages", text.length);
    } catch (error) {
      if (error instanceof ApiError) return error;
      throw error;
    }
  }
  return new ApiError(
    400,
    "history_on_provider",
    "this request's history is kept on the provider's side (previous_response_id, conversation or cachedContent), and the upstream has no endpoint that counts or compacts it: send the whole history instead",
  );
}

/** The session a request names (`X-Condense-Session`, or the agent's own), as its response names it. */
async function sessionHeaders(
  c: Context<AppEnv>,
  body: RequestBody,
): Promise<Record<string, string>> {
  const explicit = condenseRequest(c.req.raw.headers);
  const session = await requestSession(explicit.sessionId, c.req.raw.headers, body);
  if (session === undefined) return {};
  return {
    [GATEWAY_HEADERS.session]: session.id,
    [GATEWAY_HEADERS.sessionSource]: session.source,
  };
}

export interface CountEndpoint {
  protocol: GatewayProtocol;
  /** The upstream's path (Gemini's with its model and query). */
  path: string;
  /** The body the upstream's endpoint takes for the previewed request. */
  upstreamBody(preview: Preview): RequestBody;
  /** The count in the provider's shape. */
  answer(tokens: number): Record<string, unknown>;
}

/** A count of tokens for the context the gateway would send (see the module). */
export async function serveCount(
  c: Context<AppEnv>,
  endpoint: CountEndpoint,
  body: RequestBody,
  text: string,
): Promise<Response> {
  const preview = await previewOf(c, endpoint.protocol, body, text);
  const sent = preview.text ?? JSON.stringify(endpoint.upstreamBody(preview));
  const reply = await postUpstream(c, endpoint.path, sent);
  const refusedByProvider = providerRefusal(endpoint.protocol, reply.text, body.model);
  if (!missingEndpoint(reply.status) || refusedByProvider) {
    return passedBack(reply, preview.headers);
  }
  if (preview.tokens === undefined) throw unreadable(endpoint.protocol, body, text);
  return c.json(endpoint.answer(preview.tokens), 200, {
    ...preview.headers,
    [GATEWAY_HEADERS.answeredBy]: "gateway",
  });
}

/** A compacted response as the Responses protocol reads an answer (undefined when it is not JSON). */
function compactionAnswer(text: string): ProtocolAnswer | undefined {
  try {
    return responsesProtocol.answer(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** `POST …/responses/compact` (see the module). */
export async function serveResponsesCompact(
  c: Context<AppEnv>,
  path: string,
  requestBody: RequestBody,
  requestText: string,
): Promise<Response> {
  // The gateway's own compaction items are put back as what they stand for: no upstream made them.
  const expanded = expandCondenseCompactions(requestBody);
  const body = expanded ?? requestBody;
  const text = expanded === undefined ? requestText : JSON.stringify(expanded);
  const reply = await postUpstream(c, path, text);
  const preview = missingEndpoint(reply.status)
    ? await previewOf(c, responsesProtocol, body, text)
    : undefined;
  if (preview === undefined) {
    // The provider's compaction is a model call: on the deployment's key, it counts for the day.
    if (reply.status === 200) await meterAnswer(c, compactionAnswer(reply.text));
    return passedBack(reply, await sessionHeaders(c, body));
  }
  const { messages, tokens } = preview;
  if (messages === undefined || tokens === undefined) {
    throw unreadable(responsesProtocol, body, text);
  }
  const { contextWindow } = condenseRequest(c.req.raw.headers);
  const compacted = await emulatedCompaction({ ...preview, messages, tokens }, body, contextWindow);
  return c.json(compacted, 200, { ...preview.headers, [GATEWAY_HEADERS.answeredBy]: "gateway" });
}
