/**
 * @module api/schemas/user-lists
 * The caller's own lists: their sessions (`GET /v1/sessions`) and their
 * long-term memory (`/v1/memory…`), paged by keyset cursor.
 */

import { z } from "@hono/zod-openapi";
import { limitParam, queryParam } from "./params.js";

const cursorParam = queryParam("cursor", z.string().min(1).max(512).optional(), {
  description: "`nextCursor` of the previous page; leave it out for the first page",
});

export const SessionListQuery = z.object({ limit: limitParam(100, 20), cursor: cursorParam });

export const SessionListEntry = z
  .object({
    id: z.string(),
    model: z.string(),
    createdAt: z.string(),
    lastActiveAt: z.string().openapi({ description: "ISO time of the session's last change" }),
    messageCount: z.number().int(),
    tokens: z.number().int().openapi({ description: "Context tokens, as the session's status" }),
    compactions: z.number().int(),
  })
  .openapi("SessionListEntry");

export const SessionListResponse = z
  .object({
    sessions: z.array(SessionListEntry),
    nextCursor: z
      .string()
      .nullable()
      .openapi({ description: "Pass as `cursor` for the next page; null at the end" }),
  })
  .openapi("SessionListResponse");

export const MemoryKindName = z.enum(["fact", "preference", "constraint", "decision"]);

export const MemoryEntry = z
  .object({
    id: z.string(),
    text: z.string(),
    kind: MemoryKindName,
    sourceSession: z.string().nullable(),
    sourceSeq: z.number().int().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("MemoryEntry");

export const MemoryIdParam = z.object({
  memoryId: z
    .string()
    .min(1)
    .max(128)
    .openapi({ param: { name: "memoryId", in: "path" }, example: "mem_4f1c…" }),
});

export const MemoryListQuery = z.object({ limit: limitParam(100, 50), cursor: cursorParam });

export const MemoryListResponse = z
  .object({ memories: z.array(MemoryEntry), nextCursor: z.string().nullable() })
  .openapi("MemoryListResponse");

const memoryText = z.string().openapi({
  description:
    "1-2000 characters (longer: 400 `memory_too_long`); text holding a secret is refused (422 `memory_secret`)",
});

export const MemoryCreateRequest = z
  .strictObject({
    text: memoryText,
    kind: MemoryKindName,
    sourceSession: z.string().min(1).max(128).optional(),
    sourceSeq: z.number().int().positive().optional(),
  })
  .openapi("MemoryCreateRequest");

export const MemoryPatchRequest = z
  .strictObject({ text: memoryText.optional(), kind: MemoryKindName.optional() })
  .openapi("MemoryPatchRequest");

export const MemoryDeleteResponse = z
  .object({ deleted: z.literal(true), id: z.string() })
  .openapi("MemoryDeleteResponse");

export const MemorySearchQuery = z.object({
  q: queryParam("q", z.string().max(2000), {
    description: "Words to find (all of them); operators are matched as words",
  }),
  limit: limitParam(50, 10),
});

export const MemorySearchResponse = z
  .object({
    query: z.string(),
    results: z.array(
      z.object({
        memory: MemoryEntry,
        snippet: z.string().openapi({ description: "The matching words marked «like this»" }),
        score: z.number().openapi({ description: "Higher is better" }),
      }),
    ),
  })
  .openapi("MemorySearchResponse");
