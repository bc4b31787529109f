/**
 * @module app
 * Route composition: request id and request log on every route, bearer auth
 * on `/v1`, then the route groups. Unknown paths are 404 `not_found`; a known
 * path with the wrong method is 405 `method_not_allowed` with `Allow`.
 */

import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { requireAuth } from "./auth";
import type { AppEnv } from "./env";
import { ApiError, errorResponse, handleError } from "./http/errors";
import { requestLog } from "./http/log";
import { requestId } from "./http/request-id";
import { compactRoutes } from "./routes/compact";
import { metaRoutes } from "./routes/meta";
import { responsesCompactRoutes } from "./routes/responses-compact";
import { sessionRoutes } from "./routes/sessions";

function pathPattern(path: string): RegExp {
  const escaped = path
    .split("/")
    .map((part) => (part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${escaped}/?$`);
}

export function createApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.use("*", requestId());
  app.use("*", requestLog());
  app.use("/v1/*", requireAuth());

  metaRoutes(app);
  compactRoutes(app);
  sessionRoutes(app);
  responsesCompactRoutes(app);

  const endpoints = app.routes
    .filter((route) => route.method !== "ALL")
    .map((route) => ({ method: route.method, pattern: pathPattern(route.path) }));

  app.notFound((c: Context<AppEnv>) => {
    const allowed = [
      ...new Set(endpoints.filter((e) => e.pattern.test(c.req.path)).map((e) => e.method)),
    ];
    if (allowed.length > 0) {
      return errorResponse(
        c,
        new ApiError(
          405,
          "method_not_allowed",
          `${c.req.method} is not allowed on ${c.req.path}; use ${allowed.join(" or ")}`,
          { allowed },
          { Allow: allowed.join(", ") },
        ),
      );
    }
    return errorResponse(
      c,
      new ApiError(
        404,
        "not_found",
        `no route ${c.req.method} ${c.req.path}; see GET /openapi.json`,
      ),
    );
  });
  app.onError(handleError);
  return app;
}
