/**
 * @module api/schemas/responses-compact
 * OpenAI forwarding: `POST /v1/responses/compact`, passed to OpenAI as it is.
 */

import { z } from "@hono/zod-openapi";

export const ResponsesCompactRequest = z
  .looseObject({
    model: z.string().min(1),
    input: z.union([z.string(), z.array(z.unknown())]),
  })
  .openapi("ResponsesCompactRequest", {
    description: "Forwarded as-is to OpenAI `POST /responses/compact`",
  });

export const ResponsesCompactResponse = z
  .looseObject({ output: z.array(z.unknown()) })
  .openapi("ResponsesCompactResponse", { description: "OpenAI's answer, as-is" });
