/**
 * @module api/schemas/gateway
 * The gateway (`/v1/gateway/{upstream}/…`): the three protocols' requests as
 * far as the gateway reads them (everything else is forwarded untouched), its
 * headers, and the upstream's answers as documented.
 */

import { z } from "@hono/zod-openapi";
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

export const GatewayChatRequest = z
  .looseObject({
    model: z.string().min(1).max(200),
    messages: gatewayHistory,
    stream: streamFlag,
  })
  .openapi("GatewayChatRequest", {
    description:
      "An OpenAI Chat Completions request: `messages` is the whole history; every other field is forwarded untouched",
  });

export const GatewayResponsesRequest = z
  .looseObject({
    model: z.string().min(1).max(200),
    input: z.union([z.string(), z.array(z.unknown())]).optional(),
    stream: streamFlag,
    previous_response_id: z.string().nullable().optional(),
    conversation: z.unknown().optional(),
  })
  .openapi("GatewayResponsesRequest", {
    description:
      "An OpenAI Responses request: `input` is the whole history; a request chaining `previous_response_id` or a `conversation` is forwarded unchanged (its history lives on OpenAI's side)",
  });

export const GatewayMessagesRequest = z
  .looseObject({
    model: z.string().min(1).max(200),
    messages: gatewayHistory,
    system: z.unknown().optional(),
    max_tokens: z.number().int().positive().optional(),
    stream: streamFlag,
  })
  .openapi("GatewayMessagesRequest", {
    description:
      "An Anthropic Messages request: `system` and `messages` are the whole history; every other field is forwarded untouched",
  });

export const GatewayUpstreamParam = z.object({
  upstream: z
    .string()
    .openapi({ param: { name: "upstream", in: "path" }, example: "openai" })
    .describe("A name the deployment configures: openai, anthropic, or one of GATEWAY_UPSTREAMS"),
});

export const GatewayHeaders = z.object({
  "X-Condense-Key": headerParam("X-Condense-Key", z.string().optional(), {
    description:
      "Your Condense API key or JWT; `Authorization` (or `x-api-key`) is then your provider key, passed upstream untouched. Without it, `Authorization` is the Condense credential and the upstream gets the deployment's own key",
  }),
  "X-Condense-Session": headerParam("X-Condense-Session", z.string().optional(), {
    description:
      "The session (same ids and per-user isolation as /v1/sessions/{id}); without it the request is compacted in place when it does not fit, and nothing is stored",
  }),
  "X-Condense-Context-Window": headerParam("X-Condense-Context-Window", z.string().optional(), {
    description:
      'The model\'s window (a number or "128k"), where the model table does not know it; a session keeps it as its `contextWindow` setting',
  }),
});

export const GatewayChatCompletion = z
  .looseObject({ choices: z.array(z.unknown()) })
  .openapi("GatewayChatCompletion", {
    description: "The upstream's answer as it sent it (or its stream of events)",
  });

export const GatewayResponse = z
  .looseObject({ output: z.array(z.unknown()) })
  .openapi("GatewayResponse", {
    description: "The upstream's answer as it sent it (or its stream of events)",
  });

export const GatewayMessage = z
  .looseObject({ content: z.array(z.unknown()) })
  .openapi("GatewayMessage", {
    description: "The upstream's answer as it sent it (or its stream of events)",
  });

export const GatewayModels = z
  .looseObject({ data: z.array(z.unknown()) })
  .openapi("GatewayModels", { description: "The upstream's list of models, as it sent it" });
