/**
 * @module api/schemas/fields
 * The compaction options that `POST /v1/compact` takes and a session's
 * settings store, defined once for both (not part of the public module: they
 * are fields, not bodies).
 */

import { z } from "@hono/zod-openapi";

export const contextWindowValue = z
  .union([z.number().int().positive(), z.string().regex(/^\s*\d+(\.\d+)?\s*[kKmM]?\s*$/)])
  .openapi({ description: 'Tokens the model accepts: a number or a string such as "128k"' });

export const IdentifierPolicy = z.enum(["strict", "custom", "off"]);
