/**
 * @module api/schemas/search
 * Recall: `GET /v1/sessions/{id}/search` over a session's whole transcript.
 */

import { z } from "@hono/zod-openapi";
import { limitParam, queryParam } from "./params.js";

export const SearchRole = z.enum(["system", "developer", "user", "assistant", "tool"]);

export const SearchQuery = z.object({
  q: queryParam("q", z.string().max(2_000).optional(), {
    description:
      "Words to find (BM25 ranking; every word first, then any word when no message has them all). Plain text: quotes and FTS5 operators are searched as text, not interpreted.",
    example: "migration ticket",
  }),
  limit: limitParam(50, 10),
  role: queryParam("role", SearchRole.optional(), { description: "Only messages of this role" }),
  after: queryParam("after", z.coerce.number().int().nonnegative().optional(), {
    description: "Only messages with seq > after",
  }),
});

export const SearchResult = z.object({
  seq: z.number().int().openapi({ description: "The message's transcript seq" }),
  role: z.string(),
  toolCallId: z.string().nullable().openapi({
    description:
      "A tool message's tool_call_id, or the (first) call an assistant message makes; pass it to /tool-outputs/{toolCallId}",
  }),
  toolName: z.string().nullable(),
  snippet: z.string().openapi({ description: "An excerpt with the matches marked «like this»" }),
  score: z.number().openapi({
    description:
      "Relevance, higher is better: negated BM25, or with semantic recall configured (VECTORIZE and AI) the reciprocal-rank fusion of the BM25 and embedding ranks",
  }),
  inContext: z.boolean().openapi({
    description:
      "Whether the message is still in the context as appended: after the last compaction's view, in the current generation, and not a pruned tool output",
  }),
  pruned: z
    .boolean()
    .openapi({ description: "A tool output a compaction replaced by a placeholder" }),
});

export const SearchResponse = z
  .object({
    query: z.string(),
    results: z.array(SearchResult),
    indexing: z.object({
      complete: z.boolean().openapi({
        description:
          "false while messages appended before search existed are still being indexed (results may miss them; ask again)",
      }),
    }),
  })
  .openapi("SearchResponse");
