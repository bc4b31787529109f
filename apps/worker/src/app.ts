/**
 * @module app
 * Route composition: request id and request log on every route, bearer auth
 * and the per-user rate limit on `/v1` (the gateway's routes authenticate
 * their own way, `X-Condense-Key` beside the provider's key, then are limited
 * alike), then the route groups (the inspector's page and
 * files at `/inspect` and the API reference's at `/docs` are public). Unknown paths are 404 `not_found`; a known path with
 * the wrong method is 405 `method_not_allowed` with `Allow` (on a gateway path
 * in its protocol's error shape, as the gateway's own errors); a session path
 * whose id is empty is 400 `invalid_session_id`, as a malformed id is.
 */

import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { except } from "hono/combine";
import { ApiError } from "./api/errors";
import { GATEWAY_HEADERS } from "./gateway/protocols/condense-headers";
import { CONDENSE_KEY_HEADER } from "./gateway/upstream/credentials";
import type { AppEnv } from "./http/app-env";
import { requireAuth } from "./http/auth";
import { configCheck } from "./http/config-check";
import { corsForListedOrigins } from "./http/cors";
import { errorResponse, handleError } from "./http/error-handler";
import { rateLimit } from "./http/rate-limit";
import { requestId } from "./http/request-id";
import { requestLog } from "./http/request-log";
import { apiReferenceRoutes } from "./routes/api-reference";
import { compactRoutes } from "./routes/compact";
import { gatewayErrorShape, gatewayRoutes } from "./routes/gateway";
import { inspectorRoutes } from "./routes/inspector";
import { meRoutes } from "./routes/me";
import { memoryRoutes } from "./routes/memory";
import { metaRoutes } from "./routes/meta";
import { responsesCompactRoutes } from "./routes/responses-compact";
import { sessionRoutes } from "./routes/sessions";

/** The paths a route matches; with `emptyId`, the same paths with an empty `:id` segment instead. */
function pathPattern(path: string, emptyId = false): RegExp {
  const escaped = path
    .split("/")
    .map((part) => {
      if (part === ":id" && emptyId) return "";
      return part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  return new RegExp(`^${escaped}/?$`);
}

/** The gateway's `X-Condense-*` headers: a browser may send them and read them. */
const condenseHeaders = Object.values(GATEWAY_HEADERS);

export function createApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.use("*", requestId());
  app.use("*", requestLog());
  app.use("*", configCheck());
  // Before authentication: a preflight carries no credentials.
  app.use(
    "*",
    corsForListedOrigins({
      allow: [CONDENSE_KEY_HEADER, ...condenseHeaders],
      expose: condenseHeaders,
    }),
  );
  app.use("/v1/*", except("/v1/gateway/*", requireAuth(), rateLimit()));

  metaRoutes(app);
  compactRoutes(app);
  sessionRoutes(app);
  memoryRoutes(app);
  meRoutes(app);
  responsesCompactRoutes(app);
  inspectorRoutes(app);
  apiReferenceRoutes(app);
  gatewayRoutes(app);

  const endpoints: Endpoint[] = app.routes
    .filter((route) => route.method !== "ALL")
    .map((route) => ({
      method: route.method,
      pattern: pathPattern(route.path),
      // The router never matches an empty segment, so `/v1/sessions//x` lands here.
      emptyId: route.path.includes("/:id") ? pathPattern(route.path, true) : undefined,
    }));

  app.notFound((c: Context<AppEnv>) => {
    return errorResponse(c, unrouted(c, endpoints), gatewayErrorShape(c.req.path));
  });
  app.onError(handleError);
  return app;
}

interface Endpoint {
  method: string;
  pattern: RegExp;
  emptyId: RegExp | undefined;
}

/**
 * Why no route answered: an empty session id (400), a known path with the wrong method (405), or 404.
 * Written here rather than with Hono's `hono/method-not-allowed`, which would change the answers: it
 * lists HEAD beside each GET in `Allow`, and it knows neither a path with a trailing slash nor one
 * whose session id is empty (`/v1/sessions//messages`), which are 404 to it.
 */
function unrouted(c: Context<AppEnv>, endpoints: readonly Endpoint[]): ApiError {
  const path = c.req.path;
  const withEmptyId = endpoints.filter((e) => e.emptyId?.test(path) === true);
  if (withEmptyId.some((e) => e.method === c.req.method)) {
    return new ApiError(
      400,
      "invalid_session_id",
      "the session id is empty: use 1-128 characters of A-Z a-z 0-9 . _ : - (other than . and ..)",
    );
  }
  const allowed = [
    ...new Set(
      endpoints
        .filter((e) => e.pattern.test(path) || e.emptyId?.test(path) === true)
        .map((e) => e.method),
    ),
  ];
  if (allowed.length > 0) {
    return new ApiError(
      405,
      "method_not_allowed",
      `${c.req.method} is not allowed on ${c.req.path}; use ${allowed.join(" or ")}`,
      { allowed },
      { Allow: allowed.join(", ") },
    );
  }
  return new ApiError(
    404,
    "not_found",
    `no route ${c.req.method} ${c.req.path}; see GET /openapi.json`,
  );
}
