/**
 * The inspector's page and files as the Worker serves them: public, from the
 * assets binding, with a CSP that allows only this origin and no inline script.
 */

import { describe, expect, it } from "vitest";
import { call } from "../../test/support/helpers";
import { INSPECTOR_CSP } from "./inspector";

async function page(path = "/inspect") {
  return call<string>("GET", path, { as: null });
}

describe("GET /inspect", () => {
  it("serves the page without a key, with a strict CSP and scripts only from this origin", async () => {
    const reply = await page();
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toMatch(/^text\/html/);
    expect(reply.headers.get("content-security-policy")).toBe(INSPECTOR_CSP);
    expect(reply.headers.get("x-content-type-options")).toBe("nosniff");
    const html = String(reply.body);
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBe(1);
    for (const [, attributes, body] of scripts) {
      expect(body?.trim()).toBe("");
      expect(attributes).toMatch(/src="\/inspect\/app-[A-Za-z0-9]+\.js"/);
    }
    expect(html).not.toMatch(/https?:\/\//);
  });

  it("serves the built script and stylesheet, cached for good, with the same CSP", async () => {
    const html = String((await page()).body);
    for (const match of html.matchAll(/(?:src|href)="(\/inspect\/[^"]+)"/g)) {
      const path = match[1] ?? "";
      const reply = await call<string>("GET", path, { as: null });
      expect(reply.status, path).toBe(200);
      expect(reply.headers.get("cache-control")).toContain("immutable");
      expect(reply.headers.get("content-security-policy")).toBe(INSPECTOR_CSP);
    }
  });

  it("answers 404 not_found for a file that is not part of the build", async () => {
    for (const path of [
      "/inspect/missing-123.js",
      "/inspect/..%2Fwrangler.jsonc",
      "/inspect/a.html",
    ]) {
      const reply = await call("GET", path, { as: null });
      expect(reply.status, path).toBe(404);
      expect(reply.body).toMatchObject({ error: { code: "not_found" } });
    }
  });

  it("is 405 for other methods", async () => {
    const reply = await call("POST", "/inspect", { as: null, body: {} });
    expect(reply.status).toBe(405);
  });
});
