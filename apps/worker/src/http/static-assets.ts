/**
 * @module http/static-assets
 * Serves a built page and its content-hashed files from the Worker's assets binding (`ASSETS`)
 * under one path prefix, with the security headers the caller gives (each page its own CSP):
 * the inspector at `/inspect`, the API reference at `/docs`. The page is revalidated; a hashed file
 * never changes, so it is cached for good. A name that is not a built script or stylesheet, or a
 * file the build did not write, is 404 `not_found`.
 */

import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ApiError } from "../api/errors";
import type { AppEnv } from "./app-env";

/** Built file names: a script or stylesheet named with its content hash. */
const ASSET_NAME = /^[A-Za-z0-9_-]+\.(js|css)$/;

export interface StaticPages {
  /** The path the page answers at, e.g. `/inspect`; its files are under `<prefix>/`. */
  prefix: string;
  /** What the page is, for error messages: "the inspector". */
  what: string;
  /** The script that builds the files, for error messages. */
  builtBy: string;
  headers: Readonly<Record<string, string>>;
}

/** The headers of every answer of a page served from this origin's assets, with its CSP. */
export function pageSecurityHeaders(csp: string): Record<string, string> {
  return {
    "Content-Security-Policy": csp,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
  };
}

/** The page is the build's `index.html`; a file is one of its hashed scripts and stylesheets. */
async function serve(c: Context<AppEnv>, pages: StaticPages, file: string): Promise<Response> {
  const assets = c.env.ASSETS;
  if (assets === undefined) {
    throw new ApiError(
      404,
      "not_found",
      `${pages.what} is not part of this deployment: its assets binding is missing (deploy with \`pnpm build\` and the \`assets\` section of wrangler.jsonc)`,
    );
  }
  const found = await assets.fetch(new URL(`${pages.prefix}/${file}`, c.req.url));
  if (found.status !== 200) {
    throw new ApiError(
      404,
      "not_found",
      file === "index.html"
        ? `${pages.what}'s page is missing from the assets: build it with \`pnpm build\` (${pages.builtBy})`
        : `no file ${pages.prefix}/${file} in ${pages.what}; reload ${pages.prefix} for the current build`,
    );
  }
  const response = new Response(found.body, found);
  for (const [name, value] of Object.entries(pages.headers)) response.headers.set(name, value);
  // The page names the current build's files, so it is revalidated; those files never change.
  response.headers.set(
    "Cache-Control",
    file === "index.html" ? "no-cache" : "public, max-age=31536000, immutable",
  );
  return response;
}

/** `GET <prefix>`, `GET <prefix>/` (the page) and `GET <prefix>/<file>` (its files). */
export function staticPageRoutes(app: OpenAPIHono<AppEnv>, pages: StaticPages): void {
  app.get(pages.prefix, (c) => serve(c, pages, "index.html"));
  app.get(`${pages.prefix}/`, (c) => serve(c, pages, "index.html"));
  app.get(`${pages.prefix}/:file`, (c) => {
    const file = c.req.param("file");
    if (!ASSET_NAME.test(file)) {
      throw new ApiError(404, "not_found", `no file ${pages.prefix}/${file} in ${pages.what}`);
    }
    return serve(c, pages, file);
  });
}
