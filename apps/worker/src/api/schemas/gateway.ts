/**
 * @module api/schemas/gateway
 * The gateway (`/v1/gateway/{upstream}/…`): the three protocols' requests as
 * far as the gateway reads them (everything else is forwarded untouched), its
 * headers, and the upstream's answers as documented.
 */

import { z } from "@hono/zod-openapi";
import { ModelName } from "./fields.js";
import { headerParam } from "./params.js";

const streamFlag = z.boolean().nullable().optional();

/**
 * The history of a gateway request: checked message by message by the engine when it is converted
 * (`invalid_messages` names each problem), so the schema only says it is a non-empty list; a
 * 150k-token history is then not walked twice.
 */
const gatewayHistory = z
  .array(z.unknown())
  .min(1)
  .openapi({ description: "The whole history, as the protocol writes it" });

/** A request of one protocol, as far as the gateway reads it: its model and `fields`. */
function gatewayRequest<T extends z.ZodRawShape>(name: string, fields: T, description: string) {
  return z.looseObject({ model: ModelName, ...fields }).openapi(name, { description });
}

export const GatewayChatRequest = gatewayRequest(
  "GatewayChatRequest",
  { messages: gatewayHistory, stream: streamFlag },
  "An OpenAI Chat Completions request: `messages` is the whole history; every other field is forwarded untouched",
);

export const GatewayResponsesRequest = gatewayRequest(
  "GatewayResponsesRequest",
  {
    input: z.union([z.string(), z.array(z.unknown())]).optional(),
    stream: streamFlag,
    previous_response_id: z.string().nullable().optional(),
    conversation: z.unknown().optional(),
  },
  "An OpenAI Responses request: `input` is the whole history; a request chaining `previous_response_id` or a `conversation` is forwarded unchanged (its history lives on OpenAI's side)",
);

export const GatewayMessagesRequest = gatewayRequest(
  "GatewayMessagesRequest",
  {
    messages: gatewayHistory,
    system: z.unknown().optional(),
    max_tokens: z.number().int().positive().optional(),
    stream: streamFlag,
  },
  "An Anthropic Messages request: `system` and `messages` are the whole history; every other field is forwarded untouched",
);

export const GatewayCountTokensRequest = gatewayRequest(
  "GatewayCountTokensRequest",
  { messages: gatewayHistory, system: z.unknown().optional() },
  "An Anthropic `count_tokens` request: `system` and `messages` are the whole history, as the agent would send them to `/v1/messages`; every other field (tools, thinking) is counted as it is",
);

export const GatewayResponsesCompactRequest = gatewayRequest(
  "GatewayResponsesCompactRequest",
  {
    input: z.union([z.string(), z.array(z.unknown())]).optional(),
    instructions: z.string().nullable().optional(),
    previous_response_id: z.string().nullable().optional(),
  },
  "An OpenAI `/responses/compact` request: `input` is the whole history to compact; every other field is forwarded untouched",
);

export const GatewayGenerateContentRequest = z
  .looseObject({
    contents: z.array(z.unknown()).optional(),
    systemInstruction: z.unknown().optional(),
    cachedContent: z.string().optional(),
  })
  .openapi("GatewayGenerateContentRequest", {
    description:
      "A Gemini `generateContent` (or `countTokens`) request: `systemInstruction` and `contents` are the whole history; one naming `cachedContent` is forwarded unchanged (part of its history lives on Google's side); every other field is forwarded untouched",
  });

export const GatewayUpstreamParam = z.object({
  upstream: z
    .string()
    .openapi({ param: { name: "upstream", in: "path" }, example: "openai" })
    .describe("A name the deployment configures: openai, anthropic, or one of GATEWAY_UPSTREAMS"),
});

export const GatewayGeminiParams = GatewayUpstreamParam.extend({
  model: z
    .string()
    .openapi({
      param: { name: "model", in: "path" },
      example: "gemini-2.5-pro:streamGenerateContent",
    })
    .describe(
      "The model and the method, as Gemini's API writes them: `{model}:generateContent`, `{model}:streamGenerateContent` (with `?alt=sse`) or `{model}:countTokens`",
    ),
});

export const GatewayHeaders = z.object({
  "X-Condense-Key": headerParam("X-Condense-Key", z.string().optional(), {
    description:
      "Your Condense API key or JWT; `Authorization` (or `x-api-key`) is then your provider key, passed upstream untouched. Without it, `Authorization` is the Condense credential and the upstream gets the deployment's own key",
  }),
  "X-Condense-Session": headerParam("X-Condense-Session", z.string().optional(), {
    description:
      "The session (same ids and per-user isolation as /v1/sessions/{id}). Without it, the session the agent names itself (x-claude-code-session-id, metadata.user_id, session-id, session_id, thread-id, x-session-id, x-session-affinity, metadata.session_id, prompt_cache_key: the first found, as `<family>:<value>`, hashed when the value is no plain id); without either, or with `none`, the request is compacted in place when it does not fit, and nothing is stored",
  }),
  "X-Condense-Context-Window": headerParam("X-Condense-Context-Window", z.string().optional(), {
    description:
      'The model\'s window (a number or "128k"), where the model table does not know it; a session keeps it as its `contextWindow` setting',
  }),
});

/** An upstream's answer in one protocol, documented by the list it carries. */
function upstreamAnswer<T extends z.ZodRawShape>(name: string, fields: T) {
  return z.looseObject(fields).openapi(name, {
    description: "The upstream's answer as it sent it (or its stream of events)",
  });
}

export const GatewayChatCompletion = upstreamAnswer("GatewayChatCompletion", {
  choices: z.array(z.unknown()),
});

export const GatewayResponse = upstreamAnswer("GatewayResponse", { output: z.array(z.unknown()) });

export const GatewayMessage = upstreamAnswer("GatewayMessage", { content: z.array(z.unknown()) });

export const GatewayGenerateContentResponse = upstreamAnswer("GatewayGenerateContentResponse", {
  candidates: z.array(z.unknown()).optional(),
});

export const GatewayTokenCount = upstreamAnswer("GatewayTokenCount", {
  input_tokens: z.number().int().nonnegative(),
});

export const GatewayCompactedResponse = upstreamAnswer("GatewayCompactedResponse", {
  object: z.literal("response.compaction"),
  output: z.array(z.unknown()),
});

export const GatewayModels = z
  .looseObject({ data: z.array(z.unknown()) })
  .openapi("GatewayModels", { description: "The upstream's list of models, as it sent it" });
