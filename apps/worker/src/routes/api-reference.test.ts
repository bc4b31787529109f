/**
 * The live API reference (`GET /docs`) as the Worker serves it: public, every script and
 * stylesheet from this origin's assets, under a CSP that allows this origin only; the inspector's
 * CSP is its own and unchanged.
 */

import { describe, expect, it } from "vitest";
import { call } from "../../test/support/helpers";
import { API_REFERENCE_CSP } from "./api-reference";
import { INSPECTOR_CSP } from "./inspector";

async function page(path = "/docs") {
  return call<string>("GET", path, { as: null });
}

function directives(csp: string): Map<string, string> {
  return new Map(
    csp.split(";").map((part) => {
      const [name = "", ...values] = part.trim().split(/\s+/);
      return [name, values.join(" ")];
    }),
  );
}

describe("GET /docs", () => {
  it("serves the page without a key, loading only this origin's files, with no inline script", async () => {
    for (const path of ["/docs", "/docs/"]) {
      const reply = await page(path);
      expect(reply.status, path).toBe(200);
      expect(reply.headers.get("content-type")).toMatch(/^text\/html/);
      expect(reply.headers.get("content-security-policy")).toBe(API_REFERENCE_CSP);
      expect(reply.headers.get("x-content-type-options")).toBe("nosniff");
      expect(reply.headers.get("cache-control")).toBe("no-cache");
      const html = String(reply.body);
      const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
      expect(scripts.map(([, attributes]) => /src="([^"]+)"/.exec(attributes ?? "")?.[1])).toEqual([
        expect.stringMatching(/^\/docs\/swagger-ui-[0-9a-f]{12}\.js$/),
        expect.stringMatching(/^\/docs\/start-[0-9a-f]{12}\.js$/),
      ]);
      for (const [, , body] of scripts) expect(body?.trim()).toBe("");
      expect(html).toMatch(/<link rel="stylesheet" href="\/docs\/swagger-ui-[0-9a-f]{12}\.css"/);
      expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    }
  });

  it("serves the bundle, the stylesheet and the start script, cached for good, with the same CSP", async () => {
    const html = String((await page()).body);
    const paths = [...html.matchAll(/(?:src|href)="(\/docs\/[^"]+)"/g)].map((m) => m[1] ?? "");
    expect(paths).toHaveLength(3);
    for (const path of paths) {
      const reply = await call<string>("GET", path, { as: null });
      expect(reply.status, path).toBe(200);
      expect(reply.headers.get("content-type"), path).toMatch(
        path.endsWith(".css") ? /^text\/css/ : /javascript/,
      );
      expect(reply.headers.get("cache-control")).toContain("immutable");
      expect(reply.headers.get("content-security-policy")).toBe(API_REFERENCE_CSP);
    }
    const start = paths.find((path) => path.includes("/start-")) ?? "";
    const script = String((await call<string>("GET", start, { as: null })).body);
    // Swagger UI renders this Worker's own document and calls no validator on another origin.
    expect(script).toContain('url: "/openapi.json"');
    expect(script).toContain("validatorUrl: null");
    expect(script).not.toMatch(/https?:\/\//);
  });

  it("allows only this origin under its CSP (data: images for Swagger UI's icons), and no framing", () => {
    const csp = directives(API_REFERENCE_CSP);
    expect(csp.get("default-src")).toBe("'self'");
    for (const name of ["script-src", "style-src", "connect-src", "font-src"]) {
      expect(csp.get(name), name).toBe("'self'");
    }
    expect(csp.get("img-src")).toBe("'self' data:");
    expect(csp.get("object-src")).toBe("'none'");
    expect(csp.get("frame-ancestors")).toBe("'none'");
    expect(API_REFERENCE_CSP).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
  });

  it("leaves the inspector's CSP as it was, Trusted Types included", async () => {
    const reply = await call<string>("GET", "/inspect", { as: null });
    expect(reply.headers.get("content-security-policy")).toBe(INSPECTOR_CSP);
    expect(INSPECTOR_CSP).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types 'none'",
    );
  });

  it("answers 404 not_found for a file that is not part of the build, and 405 for other methods", async () => {
    for (const path of ["/docs/missing-123.js", "/docs/..%2Fwrangler.jsonc", "/docs/index.html"]) {
      const reply = await call("GET", path, { as: null });
      expect(reply.status, path).toBe(404);
      expect(reply.body).toMatchObject({ error: { code: "not_found" } });
    }
    const post = await call("POST", "/docs", { as: null, body: {} });
    expect(post.status).toBe(405);
  });
});
