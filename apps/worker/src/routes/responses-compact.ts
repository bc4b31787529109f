/**
 * @module routes/responses-compact
 * `POST /v1/responses/compact`: forwards the body to OpenAI's
 * `/responses/compact` with the server's `OPENAI_API_KEY`. Without a key the
 * route answers 501 `not_configured`; upstream errors keep their status.
 */

import type { OpenAPIHono } from "@hono/zod-openapi";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError } from "../api/errors";
import { ResponsesCompactRequest, ResponsesCompactResponse } from "../api/schemas";
import type { AppEnv } from "../http/app-env";
import { defineRoute } from "../http/route";
import { callResponsesCompact, openAIKey } from "../openai/responses-compact";

function upstreamStatus(status: number): ContentfulStatusCode {
  return (status >= 400 && status <= 599 ? status : 502) as ContentfulStatusCode;
}

export function responsesCompactRoutes(app: OpenAPIHono<AppEnv>): void {
  defineRoute(
    app,
    {
      method: "post",
      path: "/v1/responses/compact",
      summary: "Forward to OpenAI /responses/compact",
      description:
        "Uses the server's OPENAI_API_KEY and OPENAI_BASE_URL. Upstream errors keep their status.",
      tags: ["openai"],
      body: ResponsesCompactRequest,
      responses: {
        200: { description: "OpenAI's answer, as-is", schema: ResponsesCompactResponse },
      },
      errors: { 501: "No OPENAI_API_KEY is configured", 502: "OpenAI could not be reached" },
    },
    async (c, { body }) => {
      const key = openAIKey(c.env);
      if (key === undefined) {
        throw new ApiError(
          501,
          "not_configured",
          "this deployment has no OPENAI_API_KEY; set it as a secret to forward /responses/compact",
        );
      }
      const result = await callResponsesCompact(c.env, key, body);
      if (!result.ok) {
        throw new ApiError(upstreamStatus(result.status), "upstream_error", result.message, {
          upstreamStatus: result.status,
          upstreamBody: result.body,
        });
      }
      return c.json(result.body as Record<string, unknown>, 200);
    },
  );
}
