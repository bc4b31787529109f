/**
 * @module api/schemas/params
 * A request's query and header parameters, each declared in one call: its
 * name written once, beside its schema and what the OpenAPI document says of
 * it (`@hono/zod-openapi` reads the name and place from `param`).
 */

import { z } from "@hono/zod-openapi";

interface ParamDoc {
  description?: string;
  example?: string;
}

function param<T extends z.ZodType>(
  where: "query" | "header",
  name: string,
  schema: T,
  doc: ParamDoc,
): T {
  return schema.openapi({
    param: { name, in: where },
    ...(doc.description !== undefined ? { description: doc.description } : {}),
    ...(doc.example !== undefined ? { example: doc.example } : {}),
  });
}

/** `schema` as the query parameter `name` (`?name=`). */
export function queryParam<T extends z.ZodType>(name: string, schema: T, doc: ParamDoc = {}): T {
  return param("query", name, schema, doc);
}

/** `schema` as the request header `name`. */
export function headerParam<T extends z.ZodType>(name: string, schema: T, doc: ParamDoc): T {
  return param("header", name, schema, doc);
}

/** The `limit` of a page or of a search's results: 1 to `max`, `byDefault` when left out. */
export function limitParam(max: number, byDefault: number) {
  return queryParam("limit", z.coerce.number().int().min(1).max(max).optional(), {
    description: `1-${max}, default ${byDefault}`,
  });
}
