/**
 * @module routes/compact
 * `POST /v1/compact`: the engine as a stateless endpoint. Nothing is stored;
 * the summarizer is the configured one (LLM or deterministic).
 */

import { type ChatMessage, type CompactResult, compact } from "@condense/core";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { canonicalMessages, renderMessages, rethrowEngineError } from "../api/formats";
import { CompactRequest, CompactResponse } from "../api/schemas";
import type { AppEnv } from "../http/app-env";
import { defineRoute } from "../http/route";
import { summarizerFor } from "../session/store/summarizer-config";

export function compactRoutes(app: OpenAPIHono<AppEnv>): void {
  defineRoute(
    app,
    {
      method: "post",
      path: "/v1/compact",
      summary: "Compact a message list (stateless)",
      description:
        "Returns the `compact()` result: the messages in the input's format, the summary, the tier, token counts, pruned tool outputs and the identifier ledger.",
      tags: ["compact"],
      body: CompactRequest,
      responses: { 200: { description: "The compaction result", schema: CompactResponse } },
    },
    async (c, { body }) => {
      const format = body.format ?? "openai";
      const messages = canonicalMessages(body.messages, format, body.system);
      let result: CompactResult<ChatMessage>;
      try {
        // Converted once (validated, sizes checked); kept messages keep their provider data.
        result = await compact(
          { model: body.model, messages },
          { ...body.options, summarizer: summarizerFor(c.env), signal: c.req.raw.signal },
        );
      } catch (error) {
        rethrowEngineError(error);
      }
      const rendered = renderMessages(result.messages, format);
      const log = c.get("log");
      log.tier = result.tier;
      log.tokensBefore = result.originalTokens;
      log.tokensAfter = result.finalTokens;
      return c.json(
        {
          ...result,
          messages: rendered.messages,
          ...(rendered.system !== undefined ? { system: rendered.system } : {}),
        },
        200,
      );
    },
  );
}
