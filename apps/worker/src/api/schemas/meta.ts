/**
 * @module api/schemas/meta
 * The service's own routes: the health check and the OpenAPI document.
 */

import { z } from "@hono/zod-openapi";

export const HealthResponse = z.object({ ok: z.literal(true) }).openapi("Health");

export const OpenAPIDocument = z
  .looseObject({ openapi: z.string(), paths: z.record(z.string(), z.unknown()) })
  .openapi("OpenAPIDocument", { description: "An OpenAPI 3.1 document" });
