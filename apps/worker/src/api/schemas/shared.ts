/**
 * @module api/schemas/shared
 * The schemas every part of the API uses: the error body, the message formats
 * and the messages in and out, the warning level and the session id of a path.
 */

import { z } from "@hono/zod-openapi";

export const ErrorResponse = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "invalid_request" }),
      message: z.string(),
      details: z.unknown(),
    }),
  })
  .openapi("Error");

export const MessageFormat = z.enum(["openai", "anthropic", "responses"]).openapi("MessageFormat", {
  description:
    "openai: Chat Completions messages; anthropic: Messages API (`system` separate); responses: Responses API input items",
});

/** A message or item as the client sends it; its shape is checked by the engine per `format`. */
export const InputMessage = z.record(z.string(), z.unknown()).openapi("InputMessage", {
  description:
    "A Chat Completions message, an Anthropic message or a Responses input item, per `format`.",
});

/** A Chat Completions message as the service returns it (the canonical form). */
export const ChatMessage = z
  .looseObject({
    role: z.enum(["system", "developer", "user", "assistant", "tool"]),
    content: z.unknown(),
    name: z.string().optional(),
    tool_calls: z.array(z.unknown()).optional(),
    tool_call_id: z.string().optional(),
  })
  .openapi("ChatMessage");

export const WarningLevel = z.enum(["none", "warning", "critical"]).openapi("WarningLevel", {
  description: "none: fits; warning: over window − reserve; critical: over the window itself",
});

export const SessionIdParam = z.object({
  id: z
    .string()
    // `.` and `..` would be path segments a URL resolves away, so no request could carry them.
    .regex(
      /^(?!\.{1,2}$)[A-Za-z0-9._:-]{1,128}$/,
      "session ids are 1-128 characters of A-Z a-z 0-9 . _ : -, other than . and ..",
    )
    .openapi({ param: { name: "id", in: "path" }, example: "agent-run-42" }),
});
