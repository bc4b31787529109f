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
import type { Context } from "hono";
import { ApiError } from "../api/errors";
import type { AppEnv } from "../http/app-env";

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

const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy": INSPECTOR_CSP,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
};

/** Built file names: the page, or a script or stylesheet named with its content hash. */
const ASSET_NAME = /^[A-Za-z0-9_-]+\.(js|css)$/;

async function serve(c: Context<AppEnv>, file: string): Promise<Response> {
  const assets = c.env.ASSETS;
  if (assets === undefined) {
    throw new ApiError(
      404,
      "not_found",
      "the inspector is not part of this deployment: its assets binding is missing (deploy with `pnpm build` and the `assets` section of wrangler.jsonc)",
    );
  }
  const found = await assets.fetch(new URL(`${INSPECTOR_PATH}/${file}`, c.req.url));
  if (found.status !== 200) {
    throw new ApiError(
      404,
      "not_found",
      file === "index.html"
        ? "the inspector's page is missing from the assets: build it with `pnpm build` (apps/worker/inspector/build.ts)"
        : `no inspector file ${INSPECTOR_PATH}/${file}; reload ${INSPECTOR_PATH} for the current build`,
    );
  }
  const response = new Response(found.body, found);
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.headers.set(name, value);
  // The page names the current build's files, so it is revalidated; those files never change.
  response.headers.set(
    "Cache-Control",
    file === "index.html" ? "no-cache" : "public, max-age=31536000, immutable",
  );
  return response;
}

export function inspectorRoutes(app: OpenAPIHono<AppEnv>): void {
  app.get(INSPECTOR_PATH, (c) => serve(c, "index.html"));
  app.get(`${INSPECTOR_PATH}/`, (c) => serve(c, "index.html"));
  app.get(`${INSPECTOR_PATH}/:file`, (c) => {
    const file = c.req.param("file");
    if (!ASSET_NAME.test(file)) {
      throw new ApiError(404, "not_found", `no inspector file ${INSPECTOR_PATH}/${file}`);
    }
    return serve(c, file);
  });
}
