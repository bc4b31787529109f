/**
 * @module routes/api-reference
 * `GET /docs`: the live API reference, Swagger UI rendering this Worker's own `/openapi.json`.
 * Its page, bundle, stylesheet and start script are the Worker's static assets
 * (`api-reference/build.ts`, run with the inspector's build), so it works with no network and
 * no CDN. Public, like the document it renders. Its CSP allows this origin only, as the
 * inspector's does, with two differences Swagger UI needs: images may also be `data:` URLs (its
 * stylesheet draws its icons so), and Trusted Types are not required (it renders the document's
 * Markdown descriptions through DOMPurify into `innerHTML`).
 */

import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/app-env";
import { pageSecurityHeaders, staticPageRoutes } from "../http/static-assets";

export const API_REFERENCE_PATH = "/docs";

export const API_REFERENCE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export function apiReferenceRoutes(app: OpenAPIHono<AppEnv>): void {
  staticPageRoutes(app, {
    prefix: API_REFERENCE_PATH,
    what: "the API reference",
    builtBy: "apps/worker/api-reference/build.ts",
    headers: pageSecurityHeaders(API_REFERENCE_CSP),
  });
}
