/**
 * @module routes/meta
 * Public routes: `GET /healthz` (liveness) and `GET /openapi.json` (the
 * OpenAPI 3.1 document generated from the route declarations).
 */

import type { OpenAPIHono } from "@hono/zod-openapi";
import { HealthResponse, OpenAPIDocument } from "../api/schemas";
import type { AppEnv } from "../http/app-env";
import { defineRoute } from "../http/route";

export function metaRoutes(app: OpenAPIHono<AppEnv>): void {
  defineRoute(
    app,
    {
      method: "get",
      path: "/healthz",
      summary: "Liveness",
      tags: ["meta"],
      public: true,
      responses: { 200: { description: "The Worker is up", schema: HealthResponse } },
    },
    (c) => c.json({ ok: true as const }, 200),
  );

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description:
      "An API key from API_KEYS, or a JWT whose `sub` is the user: HS256 signed with JWT_SECRET, or RS256, ES256 or EdDSA signed with a key of the set at JWT_JWKS_URL (its `iss` and `aud` checked against JWT_ISSUER and JWT_AUDIENCE when set)",
  });

  defineRoute(
    app,
    {
      method: "get",
      path: "/openapi.json",
      summary: "This document",
      tags: ["meta"],
      public: true,
      responses: { 200: { description: "The OpenAPI 3.1 document", schema: OpenAPIDocument } },
    },
    (c) =>
      c.json(
        app.getOpenAPI31Document({
          openapi: "3.1.0",
          info: {
            title: "Condense",
            version: "0.1.0",
            description:
              "Context-window compaction for long-running LLM agents: per-user sessions that never overflow. Errors are `{ error: { code, message, details } }`; every response carries `X-Request-Id`.",
          },
          security: [{ bearer: [] }],
        }),
        200,
      ),
  );
}
