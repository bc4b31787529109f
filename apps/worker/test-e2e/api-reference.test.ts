/**
 * The live API reference (`GET /docs`) in a real browser: Debian's Chromium, driven by
 * playwright-core, against `wrangler dev`. Every request to another origin is refused and
 * recorded, so the page must render from the Worker alone, as it would with no network: every
 * operation of the Worker's own `/openapi.json`, with no script error and no CSP violation.
 */

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_FLAGS, chromiumPath } from "./chromium.ts";
import { type DevServer, startWranglerDev } from "./wrangler-dev.ts";

const workerDir = join(dirname(fileURLToPath(import.meta.url)), "..");

let server: DevServer;
let browser: Browser;

beforeAll(async () => {
  const executablePath = chromiumPath();
  server = await startWranglerDev({ workerDir, vars: { API_KEYS: "alice:alice-docs-e2e" } });
  browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_FLAGS });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

interface OpenApi {
  paths: Record<string, Record<string, unknown>>;
}

describe("GET /docs in a browser", () => {
  it("renders every operation of /openapi.json from this origin alone, with no error", async () => {
    const openApi = (await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as OpenApi;
    const operations = Object.entries(openApi.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.length).toBeGreaterThan(20);

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const origin = new URL(server.baseUrl).origin;
    const elsewhere: string[] = [];
    await context.route(
      (url) => url.origin !== origin && url.protocol !== "data:",
      (route) => {
        elsewhere.push(route.request().url());
        return route.abort("internetdisconnected");
      },
    );
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console: ${message.text()}`);
    });
    await page.exposeFunction("reportViolation", (text: string) => problems.push(text));
    await page.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (event) => {
        const report = (window as unknown as { reportViolation: (text: string) => void })
          .reportViolation;
        report(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
      });
    });

    const response = await page.goto(`${server.baseUrl}/docs`);
    expect(response?.status()).toBe(200);
    const blocks = page.locator(".opblock");
    await expect.poll(() => blocks.count(), { timeout: 30_000 }).toBe(operations.length);
    const rendered = await blocks.evaluateAll((elements) =>
      elements.map((element) => {
        const method = element.querySelector(".opblock-summary-method")?.textContent ?? "";
        const path = element.querySelector(".opblock-summary-path")?.getAttribute("data-path");
        return `${method.trim()} ${path ?? ""}`;
      }),
    );
    expect(rendered.sort()).toEqual([...operations].sort());
    await expect.poll(() => page.locator(".info .title").textContent()).toContain("Condense");

    // Opening an operation renders its schema from the same document.
    await page
      .locator(".opblock")
      .filter({ hasText: "/v1/sessions/{id}/messages" })
      .first()
      .click();
    await expect
      .poll(() => page.locator(".opblock.is-open .opblock-body").first().textContent())
      .toContain("messages");

    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
