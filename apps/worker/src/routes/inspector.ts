/**
 * @module routes/inspector
 * Serves the inspector, the browser app built into `inspector/dist` and
 * bound as the Worker's static assets (`ASSETS`): `GET /inspect` is its page,
 * `GET /inspect/<file>` its content-hashed script and stylesheet. The page is
 * public and holds no data; the app calls the authenticated `/v1` API from
 * the browser with the key the developer enters, so it shows nothing that key
 * cannot read. Every answer carries a strict Content-Security-Policy: only
 * this origin's scripts, styles and API, no inline script, no framing, and
 * Trusted Types required, so no string can reach an HTML sink (`innerHTML`).
 */

import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/app-env";
import { pageSecurityHeaders, staticPageRoutes } from "../http/static-assets";

export const INSPECTOR_PATH = "/inspect";

export const INSPECTOR_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join("; ");

export function inspectorRoutes(app: OpenAPIHono<AppEnv>): void {
  staticPageRoutes(app, {
    prefix: INSPECTOR_PATH,
    what: "the inspector",
    builtBy: "apps/worker/inspector/build.ts",
    headers: pageSecurityHeaders(INSPECTOR_CSP),
  });
}
