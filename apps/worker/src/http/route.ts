/**
 * @module http/route
 * Declares an API route once: the declaration is registered in the OpenAPI
 * document and the same zod schemas validate the request. Validation errors
 * become 400 `invalid_request` with the path of each bad field (an unknown
 * `format` is 400 `unknown_format`); the body is read by `readJsonBody`, so
 * size and content-type limits apply before any parsing. A route may run its
 * own middleware first (the gateway authenticates its own way) and answer its
 * errors in a shape of its own (the gateway's, in its protocol's).
 */

import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { ApiError, type ErrorShape } from "../api/errors";
import { IDEMPOTENCY_KEY_PATTERN } from "../api/idempotency-key";
import { ErrorResponse } from "../api/schemas";
import type { AppEnv } from "./app-env";
import { readJsonBody } from "./body";

type Method = "get" | "post" | "patch" | "delete";

export interface RouteSpec<
  P extends z.ZodType | undefined,
  Q extends z.ZodType | undefined,
  B extends z.ZodType | undefined,
> {
  method: Method;
  /** OpenAPI-style path, e.g. `/v1/sessions/{id}`. */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  params?: P;
  query?: Q;
  body?: B;
  /** An empty body reads as `{}` (every field of the body is optional). */
  bodyOptional?: boolean;
  /** Success responses: status → description and schema. */
  responses: Record<number, { description: string; schema?: z.ZodType }>;
  /** Error statuses this route documents besides 400/401/404/413/415/500. */
  errors?: Record<number, string>;
  /** Public routes skip the bearer-auth declaration. */
  public?: boolean;
  /** The route honours `Idempotency-Key` (declared as a header parameter). */
  idempotent?: boolean;
  /** Header parameters the route documents (it reads them itself). */
  headers?: z.ZodType;
  /** Run before the request is validated, in order (e.g. the gateway's own authentication). */
  middleware?: MiddlewareHandler<AppEnv>[];
  /**
   * The body of the route's error responses, its middleware's and its validation's included, when
   * not the API's own (`http/error-handler`). Such a route documents its errors itself (`errors`):
   * the standard ones are in the API's shape.
   */
  errorShape?: ErrorShape;
}

const IdempotencyHeaders = z.object({
  "Idempotency-Key": z
    .string()
    .regex(IDEMPOTENCY_KEY_PATTERN)
    .optional()
    .openapi({
      param: { name: "Idempotency-Key", in: "header" },
      description:
        "Makes retries safe: the same key with the same body returns the first answer; with a different body, 409 `idempotency_conflict`. 1-255 visible ASCII characters; kept 24 hours per session.",
      example: "3f0c1d9e-8f1b-4a7e-9c55-2d1f0b6a7c11",
    }),
});

type Infer<T> = T extends z.ZodType ? z.output<T> : undefined;

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** The raw body text (for idempotency hashing); empty for routes without a body. */
  bodyText: string;
}

/** The input of the handler of a route whose params, query and body are `P`, `Q` and `B`. */
export type RouteInputOf<
  P extends z.ZodType | undefined,
  Q extends z.ZodType | undefined,
  B extends z.ZodType | undefined,
> = RouteInput<Infer<P>, Infer<Q>, Infer<B>>;

function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out;
}

/** Validates `value` against `schema` or throws the API error for `where` (body, query, path). */
export function validate<T extends z.ZodType>(
  schema: T,
  value: unknown,
  where: "body" | "query" | "path",
): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    path: formatIssuePath(issue.path),
    message: issue.message,
    code: issue.code,
  }));
  const idIssue = where === "path" ? issues.find((issue) => issue.path === "id") : undefined;
  if (idIssue !== undefined) {
    throw new ApiError(
      400,
      "invalid_session_id",
      "invalid session id: use 1-128 characters of A-Z a-z 0-9 . _ : - (other than . and ..)",
      { issues: [idIssue] },
    );
  }
  const formatIssue = issues.find((issue) => issue.path === "format");
  if (formatIssue !== undefined) {
    throw new ApiError(
      400,
      "unknown_format",
      `unknown format in the ${where}: use one of openai, anthropic, responses`,
      { issues: [formatIssue] },
    );
  }
  const first = issues[0];
  const message =
    first === undefined
      ? `invalid request ${where}`
      : `invalid request ${where}: ${first.path === "" ? "" : `\`${first.path}\` `}${first.message}`;
  throw new ApiError(400, "invalid_request", message, { in: where, issues });
}

/** Every response carries the request's id (see `http/request-id`). */
export const requestIdHeader = {
  "X-Request-Id": {
    description: "The request's id (a well-formed incoming one is kept); quote it in a bug report",
    schema: { type: "string" as const },
  },
};

const standardErrors: Record<number, string> = {
  400: "Invalid request (invalid_json, invalid_request, invalid_messages, invalid_session_id, unknown_format)",
  401: "Missing or invalid bearer token",
  404: "Unknown session or resource",
  413: "Body over 16 MiB or a message over 4 MiB",
  415: "Body is not JSON",
  500: "Internal error (no details)",
  503: "Authentication is not configured on this deployment",
};

/** Registers `spec` in the OpenAPI document and installs its handler with validation. */
export function defineRoute<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(
  app: OpenAPIHono<AppEnv>,
  spec: RouteSpec<P, Q, B>,
  handler: (c: Context<AppEnv>, input: RouteInputOf<P, Q, B>) => Response | Promise<Response>,
): void {
  const responses: Record<string, object> = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    responses[status] = response.schema
      ? {
          description: response.description,
          headers: requestIdHeader,
          content: { "application/json": { schema: response.schema } },
        }
      : { description: response.description, headers: requestIdHeader };
  }
  const errorStatuses = spec.public
    ? {}
    : { ...(spec.errorShape === undefined ? standardErrors : {}), ...spec.errors };
  for (const [status, description] of Object.entries(errorStatuses)) {
    responses[status] = {
      description,
      headers: requestIdHeader,
      content: { "application/json": { schema: ErrorResponse } },
    };
  }
  const request: Record<string, unknown> = {};
  if (spec.params) request.params = spec.params;
  if (spec.query) request.query = spec.query;
  if (spec.idempotent) request.headers = IdempotencyHeaders;
  if (spec.headers) request.headers = spec.headers;
  if (spec.body) {
    request.body = {
      required: spec.bodyOptional !== true,
      content: { "application/json": { schema: spec.body } },
    };
  }
  app.openAPIRegistry.registerPath(
    createRoute({
      method: spec.method,
      path: spec.path,
      summary: spec.summary,
      description: spec.description,
      tags: spec.tags,
      security: spec.public ? [] : [{ bearer: [] }],
      request,
      responses,
    } as Parameters<typeof createRoute>[0]),
  );

  const honoPath = spec.path.replace(/\{([^}]+)\}/g, ":$1");
  const method = spec.method.toUpperCase();
  const { errorShape } = spec;
  if (errorShape !== undefined) {
    app.on(method, honoPath, async (c, next) => {
      c.set("errorShape", errorShape);
      await next();
    });
  }
  for (const middleware of spec.middleware ?? []) app.on(method, honoPath, middleware);
  app.on(method, honoPath, async (c) => {
    const params = spec.params ? validate(spec.params, c.req.param(), "path") : undefined;
    const query = spec.query ? validate(spec.query, c.req.query(), "query") : undefined;
    let body: unknown;
    let bodyText = "";
    if (spec.body) {
      const read = await readJsonBody(c.req.raw, { allowEmpty: spec.bodyOptional === true });
      bodyText = read.text;
      body = validate(spec.body, read.value, "body");
    }
    return handler(c, {
      params: params as Infer<P>,
      query: query as Infer<Q>,
      body: body as Infer<B>,
      bodyText,
    });
  });
}
