/**
 * The inspector in a real browser: Debian's Chromium, driven by playwright-core,
 * against `wrangler dev` started here with test keys, and data created through
 * the API (a real agent transcript replayed in a 32k window, so it compacts
 * many times). Each view is checked against the API's own figures, and saved
 * as a screenshot in test-e2e/artifacts/ (git-ignored).
 *
 * The session list, search and memory are also checked against a service
 * older than those routes (the browser answers them 404 `not_found`, as such
 * a deployment does): the page must say so plainly and keep working.
 */

import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TRANSCRIPTS_DIR } from "@condense/test-fixtures/transcripts";
import { type Browser, type BrowserContextOptions, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { formatTokens } from "../inspector/src/format.ts";
import { diffSummaries, writtenSummaries } from "../inspector/src/model/summary-diff.ts";
import type {
  CompactionsResponseBody,
  ContextResponseBody,
  MemoryEntryBody,
  SessionListResponseBody,
  SessionStatusBody,
  ToolOutputResponseBody,
  TranscriptResponseBody,
} from "../src/api/schemas.ts";
import { apiAs, type Call, ok } from "./api.ts";
import { CHROMIUM_FLAGS, chromiumPath } from "./chromium.ts";
import { replayFixture } from "./replay.ts";
import { type DevServer, startWranglerDev } from "./wrangler-dev.ts";

const workerDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const artifacts = join(workerDir, "test-e2e", "artifacts");
const FIXTURE = join(TRANSCRIPTS_DIR, "mini-swe-agent__django__django-11910.json");

const KEYS = { alice: "alice-e2e-7f3a9c1d", bob: "bob-e2e-2b8e4f60" };
const REPLAY = "replay-django";
/** The same transcript appended without fetching a context and without usage (issue 32). */
const APPENDED = "appended-django";
const SMALL = "small-session";
const BOBS = "bobs-session";

let server: DevServer;
let browser: Browser;
let alice: Call;
let bob: Call;
const pages: Array<{ page: Page; problems: string[] }> = [];

/** A page in a fresh browser context, recording script errors and CSP violations. */
async function openPage(options: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    const text = message.text();
    // The browser logs every 4xx the API answers (a refused key, a validation error, a route not
    // deployed yet); those are the answers the tests ask for. Anything else is a problem.
    if (
      message.type() === "error" &&
      !/^Failed to load resource: the server responded with a status of 4\d\d/.test(text)
    ) {
      problems.push(`console: ${text}`);
    }
  });
  pages.push({ page, problems });
  return page;
}

async function signIn(page: Page, key: string): Promise<void> {
  await page.goto(`${server.baseUrl}/inspect`);
  await page.locator("#token").fill(key);
  await page.keyboard.press("Enter");
  await page.locator("button.sign-out").waitFor();
}

async function go(page: Page, hash: string): Promise<void> {
  await page.evaluate((target) => {
    window.location.hash = target;
  }, hash);
}

async function shot(page: Page, name: string, fullPage = false): Promise<void> {
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage });
}

/** Has `page` answer the session list, search and memory as a service without those routes does. */
async function withoutListRoutes(page: Page): Promise<void> {
  await page.route(
    (url) => /^\/v1\/(sessions|memory)$|^\/v1\/sessions\/[^/]+\/search$/.test(url.pathname),
    (route) =>
      route.fulfill({
        status: 404,
        contentType: "application/json",
        body: JSON.stringify({
          error: { code: "not_found", message: "no route for this path", details: null },
        }),
      }),
  );
}

beforeAll(async () => {
  const executablePath = chromiumPath();
  mkdirSync(artifacts, { recursive: true });
  server = await startWranglerDev({
    workerDir,
    vars: { API_KEYS: `alice:${KEYS.alice},bob:${KEYS.bob}`, COMPACTION_DELAY_MS: "0" },
  });
  browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_FLAGS });
  alice = apiAs(server.baseUrl, KEYS.alice);
  bob = apiAs(server.baseUrl, KEYS.bob);
  await replayFixture(alice, { sessionId: REPLAY, fixture: FIXTURE, contextWindow: 32_000 });
  await replayFixture(alice, {
    sessionId: APPENDED,
    fixture: FIXTURE,
    contextWindow: 32_000,
    fetchContext: false,
  });
  await ok(
    alice("POST", `/v1/sessions/${SMALL}/messages`, {
      messages: [
        {
          role: "user",
          content:
            "Render this: <img src=x onerror=\"document.title='pwned'\"><script>alert(1)</script>",
        },
        { role: "assistant", content: "I will treat <b>markup</b> as text." },
      ],
    }),
    "create the small session",
  );
  await ok(
    bob("POST", `/v1/sessions/${BOBS}/messages`, {
      messages: [{ role: "user", content: "bob's own work" }],
    }),
    "create bob's session",
  );
}, 300_000);

afterEach(async () => {
  // Every page of the test ran without a script error or a CSP violation.
  const seen = pages.splice(0);
  for (const { page } of seen) await page.context().close();
  expect(seen.flatMap((p) => p.problems)).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("signing in", () => {
  it("refuses a wrong key with a clear message and keeps it nowhere", async () => {
    const page = await openPage();
    await page.goto(`${server.baseUrl}/inspect`);
    await page.locator("#token").fill("not-a-key");
    await page.getByRole("button", { name: "Sign in" }).click();
    const error = page.locator("#sign-in-error");
    await expect.poll(() => error.textContent()).toContain("This key was not accepted");
    expect(await page.locator("#token").getAttribute("aria-invalid")).toBe("true");
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(await page.locator("button.sign-out").count()).toBe(0);
    await shot(page, "sign-in-refused");
  });

  it("lists the user's sessions with the list's own figures, and filters them by id", async () => {
    // The small session's figures: the replayed one may still be compacting in the background.
    const list = await ok(
      alice<SessionListResponseBody>("GET", "/v1/sessions?limit=100"),
      "session list",
    );
    const small = list.sessions.find((s) => s.id === SMALL);
    expect(small, "the small session is listed").toBeDefined();
    const page = await openPage();
    await signIn(page, KEYS.alice);
    const link = page.getByRole("link", { name: REPLAY, exact: true });
    await link.waitFor();
    const smallRow = page.locator("table.sessions tr", {
      has: page.getByRole("link", { name: SMALL, exact: true }),
    });
    expect((await smallRow.locator("td").allTextContents()).slice(0, 4)).toEqual([
      small?.model,
      formatTokens(small?.tokens ?? -1),
      formatTokens(small?.messageCount ?? -1),
      String(small?.compactions),
    ]);
    expect(await page.getByRole("link", { name: BOBS }).count()).toBe(0);
    await page.locator("#session-filter").fill("no-such-session");
    expect(await link.count()).toBe(0);
    await page.locator("#session-filter").fill("replay");
    expect(await link.count()).toBe(1);
    await shot(page, "sessions");
  });

  it("signs in and offers the id box where the service has no session list", async () => {
    const page = await openPage();
    await withoutListRoutes(page);
    await signIn(page, KEYS.alice);
    await expect
      .poll(() => page.locator("main").textContent())
      .toContain("The session list is not available on this deployment");
    await page.locator("#open-session-id").fill(REPLAY);
    await page.keyboard.press("Enter");
    await page.locator("figure.gauge").waitFor();
    await shot(page, "sessions-older-service");
  });
});

describe("a session that compacted many times", () => {
  it("opens by id; the gauge, the chart and the compaction list show the API's figures", async () => {
    const status = await ok(alice<SessionStatusBody>("GET", `/v1/sessions/${REPLAY}`), "status");
    const { compactions } = await ok(
      alice<CompactionsResponseBody>("GET", `/v1/sessions/${REPLAY}/compactions`),
      "compactions",
    );
    const transcript = await ok(
      alice<TranscriptResponseBody>("GET", `/v1/sessions/${REPLAY}/transcript?limit=1000`),
      "transcript",
    );
    const context = await ok(
      alice<ContextResponseBody>("GET", `/v1/sessions/${REPLAY}/context`),
      "context",
    );
    expect(compactions.length).toBeGreaterThanOrEqual(3);
    // The cost policy compacts deep (straight to a summary): every mark may be of one tier.
    expect(compactions.every((c) => c.tier >= 1)).toBe(true);
    // The bill as the page reads it: the context read above was a served turn too.
    const { bill, costSeries } = await ok(
      alice<CompactionsResponseBody>("GET", `/v1/sessions/${REPLAY}/compactions`),
      "the bill",
    );

    const page = await openPage();
    await signIn(page, KEYS.alice);
    await page.locator("#open-session-id").fill(REPLAY);
    await page.keyboard.press("Enter");
    await page.locator("table.compactions tbody tr").first().waitFor();
    expect(await page.evaluate(() => window.location.hash)).toBe(`#/s/${REPLAY}/overview`);

    const gauge = page.locator("figure.gauge");
    expect(Number(await gauge.getAttribute("data-tokens"))).toBe(status.contextTokens);
    expect(Number(await gauge.getAttribute("data-window"))).toBe(status.contextWindow);

    const rows = await page
      .locator("table.compactions tbody tr")
      .evaluateAll((trs) =>
        trs.map((tr) =>
          [tr.dataset.id, tr.dataset.tier, tr.dataset.tokensBefore, tr.dataset.tokensAfter].map(
            Number,
          ),
        ),
      );
    const expected = compactions.map((c) => [c.id, c.tier, c.tokensBefore, c.tokensAfter]);
    expect(rows).toEqual(expected);

    const marks = await page
      .locator("figure.chart a.mark")
      .evaluateAll((gs) =>
        gs.map((g) =>
          ["id", "tier", "seq", "tokensBefore", "tokensAfter"].map((name) =>
            Number((g as SVGAElement).dataset[name]),
          ),
        ),
      );
    expect(marks).toEqual(
      compactions.map((c) => [c.id, c.tier, c.range.toSeq, c.tokensBefore, c.tokensAfter]),
    );
    const rawTotal = transcript.messages.reduce((sum, m) => sum + m.tokens, 0);
    expect(Number(await page.locator("figure.chart svg").getAttribute("data-raw-total"))).toBe(
      rawTotal,
    );
    expect(rawTotal).toBe(status.transcriptTokens);

    // The cost chart beside it draws the bill's turns and says its ratio.
    const cost = page.locator("figure.cost-chart svg");
    expect(Number(await cost.getAttribute("data-turns"))).toBe(costSeries.length);
    expect(await cost.getAttribute("data-ratio")).toBe(String(bill.ratio ?? ""));
    expect(await cost.getAttribute("data-basis")).toBe(bill.basis);
    expect(Number(await cost.getAttribute("data-cold-turns"))).toBe(bill.coldTurns);

    // The parts add up to the context's tokens (each part is rounded).
    const parts = await page
      .locator("table.composition tbody tr")
      .evaluateAll((trs) => trs.map((tr) => Number(tr.dataset.tokens)));
    expect(Math.abs(parts.reduce((a, b) => a + b, 0) - context.tokens)).toBeLessThanOrEqual(
      parts.length,
    );

    // A mark says its figures when focused from the keyboard.
    const first = compactions[0];
    await page.locator("figure.chart a.mark").first().focus();
    await expect
      .poll(() => page.locator(".chart-focus").textContent())
      .toContain(`Compaction #${first?.id}, tier ${first?.tier}`);

    await page.locator("figure.chart a.mark").first().blur();
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, "overview");
    await shot(page, "overview-full", true);
    // The README's picture (docs/inspector.png): the gauge and the chart in one screen.
    await page.setViewportSize({ width: 1280, height: 1040 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, "overview-chart");
  });

  it("bills a session fed without fetching its context turn by turn, and says the bill is estimated", async () => {
    const { bill, costSeries, compactions } = await ok(
      alice<CompactionsResponseBody>("GET", `/v1/sessions/${APPENDED}/compactions`),
      "the bill",
    );
    const transcript = await ok(
      alice<TranscriptResponseBody>("GET", `/v1/sessions/${APPENDED}/transcript?limit=1000`),
      "transcript",
    );
    const answers = transcript.messages.filter((m) => m.role === "assistant").length;
    expect(compactions.length).toBeGreaterThanOrEqual(3);
    // One turn per answer, none of them measured.
    expect(bill.turns).toBe(answers);
    expect(bill.basis).toBe("estimated");
    expect(bill.cacheBusts).toBeGreaterThan(0);

    const page = await openPage();
    await signIn(page, KEYS.alice);
    await go(page, `#/s/${APPENDED}/overview`);
    const cost = page.locator("figure.cost-chart svg");
    await cost.waitFor();
    expect(Number(await cost.getAttribute("data-turns"))).toBe(costSeries.length);
    expect(costSeries.length).toBe(answers);
    expect(await cost.getAttribute("data-basis")).toBe("estimated");
    await expect
      .poll(() => page.locator("figure.cost-chart figcaption").textContent())
      .toContain(
        `over ${answers} turns, ${bill.cacheBusts} cache busts, 0 on a cold cache; estimated`,
      );
    await shot(page, "cost-estimated");
  });

  it("reads at phone width and in the dark scheme", async () => {
    for (const [name, options] of [
      ["overview-phone", { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }],
      ["overview-dark", { colorScheme: "dark" }],
    ] as const) {
      const page = await openPage(options);
      await signIn(page, KEYS.alice);
      await go(page, `#/s/${REPLAY}/overview`);
      await page.locator("figure.chart a.mark").first().waitFor();
      // Nothing but the tables' own scrolling areas is wider than the screen.
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
      ).toBe(true);
      await shot(page, name);
    }
  });

  it("opens a pruned tool output from /tool-outputs", async () => {
    const status = await ok(alice<SessionStatusBody>("GET", `/v1/sessions/${REPLAY}`), "status");
    const transcript = await ok(
      alice<TranscriptResponseBody>("GET", `/v1/sessions/${REPLAY}/transcript?limit=1000`),
      "transcript",
    );
    let pruned: ToolOutputResponseBody | undefined;
    for (const entry of transcript.messages) {
      const id = entry.message.tool_call_id;
      if (entry.role !== "tool" || id === undefined || entry.seq > status.coveredSeq) continue;
      const output = await ok(
        alice<ToolOutputResponseBody>(
          "GET",
          `/v1/sessions/${REPLAY}/tool-outputs/${encodeURIComponent(id)}`,
        ),
        "tool output",
      );
      if (output.pruned) {
        pruned = output;
        break;
      }
    }
    if (pruned === undefined) throw new Error("the replay pruned no tool output");

    const page = await openPage();
    await signIn(page, KEYS.alice);
    await go(page, `#/s/${REPLAY}/transcript?seq=${pruned.seq}`);
    const row = page.locator(`#msg-${pruned.seq}`);
    await row.waitFor();
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.id))
      .toBe(`msg-${pruned.seq}`);
    expect(await row.getAttribute("class")).toContain("target");
    await expect.poll(() => row.getAttribute("data-state")).not.toBe("unknown");
    expect(["pruned", "summarized"]).toContain(await row.getAttribute("data-state"));

    await row.getByRole("button", { name: "Open the full output" }).click();
    const panel = row.locator("section.tool-output");
    await panel.locator(".output-pruned").waitFor();
    expect(await panel.locator(".output-pruned").getAttribute("data-pruned")).toBe("true");
    const content =
      typeof pruned.content === "string" ? pruned.content : JSON.stringify(pruned.content, null, 2);
    expect(await panel.locator("pre.text").textContent()).toContain(content.slice(0, 80));
    expect(await panel.textContent()).toContain(`${pruned.tokens} tokens`);
    await shot(page, "transcript-output");
  });

  it("shows what a compaction added to and dropped from the summary before it", async () => {
    const { compactions } = await ok(
      alice<CompactionsResponseBody>("GET", `/v1/sessions/${REPLAY}/compactions`),
      "compactions",
    );
    // A tool strip hands back the summary before it: it is no pair's side (`writtenSummaries`).
    const summaries = writtenSummaries(compactions);
    const pairs = summaries.slice(1).map((after, i) => ({ before: summaries[i], after }));
    const pair = pairs.find(({ after }) => pairs.at(-1)?.after.id !== after.id);
    if (pair?.before === undefined)
      throw new Error("the replay has no two different summaries to compare");
    const diff = diffSummaries(pair.before.summary ?? "", pair.after.summary ?? "");
    const added = diff.flatMap((d) => d.added);
    const dropped = diff.flatMap((d) => d.dropped);
    expect(added.length + dropped.length).toBeGreaterThan(0);

    const page = await openPage();
    await signIn(page, KEYS.alice);
    await go(page, `#/s/${REPLAY}/summaries`);
    await page.locator("#summary-pair").waitFor();
    expect(await page.locator("#summary-pair option").count()).toBe(pairs.length);
    await page.locator("#summary-pair").selectOption(String(pair.after.id));
    await expect
      .poll(() => page.evaluate(() => window.location.hash))
      .toContain(`compare=${pair.after.id}`);
    const view = page.locator("div.diff");
    await expect.poll(() => view.getAttribute("data-added")).toBe(String(added.length));
    expect(await view.getAttribute("data-dropped")).toBe(String(dropped.length));
    expect(await view.locator("p[role=status]").textContent()).toContain(
      `From compaction #${pair.before.id} to #${pair.after.id}`,
    );
    const sample = added[0] ?? dropped[0] ?? "";
    const where = added.length > 0 ? "ins" : "del";
    expect(await view.locator(where).allTextContents()).toContainEqual(
      expect.stringContaining(sample.trim()),
    );
    // The latest summary is shown by section.
    expect(await page.locator(".summary-section h4").count()).toBeGreaterThan(2);
    await view.scrollIntoViewIfNeeded();
    await shot(page, "summaries-diff");
  });
});

describe("search", () => {
  it("says plainly when the service has no search route", async () => {
    const page = await openPage();
    await withoutListRoutes(page);
    await signIn(page, KEYS.alice);
    await go(page, `#/s/${REPLAY}/transcript`);
    await page.locator("#recall-query").fill("ModelState");
    await page.keyboard.press("Enter");
    await expect
      .poll(() => page.locator(".recall").textContent())
      .toContain("Search is not available on this deployment");
  });

  it("finds a compacted message and jumps to it", async () => {
    const page = await openPage();
    await signIn(page, KEYS.alice);
    await go(page, `#/s/${REPLAY}/transcript`);
    await page.locator("#recall-query").fill("AppRegistryNotReady");
    await page.keyboard.press("Enter");
    const result = page.locator(".search-results li").first();
    await result.waitFor();
    const seq = Number(await result.getAttribute("data-seq"));
    expect(await result.locator("mark").count()).toBeGreaterThan(0);
    await result.getByRole("link").click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe(`msg-${seq}`);
    // The match may lie past the message's 700-character preview: open it in full first.
    const message = page.locator(`#msg-${seq}`);
    const more = message.getByRole("button", { name: /^Show all of this message/ });
    if ((await more.count()) > 0) await more.click();
    expect(await message.textContent()).toMatch(/AppRegistryNotReady/i);
    await shot(page, "search");
  });
});

describe("settings", () => {
  it("shows the API's validation error next to the field, and saves a valid change", async () => {
    const refused = await alice<{
      error: { details: { issues: Array<{ path: string; message: string }> } };
    }>("PATCH", `/v1/sessions/${SMALL}`, { threshold: 1.5 });
    expect(refused.status).toBe(400);
    const apiMessage =
      refused.body.error.details.issues.find((i) => i.path === "threshold")?.message ?? "";
    expect(apiMessage).not.toBe("");

    const page = await openPage();
    await signIn(page, KEYS.alice);
    await go(page, `#/s/${SMALL}/settings`);
    const threshold = page.locator("#setting-threshold");
    await threshold.fill("1.5");
    await page.getByRole("button", { name: "Save settings" }).click();
    const error = page.locator("[data-field=threshold] .field-error");
    await expect.poll(() => error.textContent()).toBe(apiMessage);
    expect(await threshold.getAttribute("aria-invalid")).toBe("true");
    expect(await threshold.getAttribute("aria-describedby")).toContain("setting-threshold-error");
    await shot(page, "settings-error");

    await threshold.fill("0.6");
    await page.getByRole("button", { name: "Save settings" }).click();
    await expect.poll(() => page.locator(".saved").textContent()).toBe("Saved: threshold.");
    const status = await ok(alice<SessionStatusBody>("GET", `/v1/sessions/${SMALL}`), "status");
    expect(status.settings.threshold).toBe(0.6);
    expect(await page.locator(".field-error").count()).toBe(0);
  });
});

describe("untrusted text", () => {
  it("shows markup from the transcript as text, never as HTML", async () => {
    const page = await openPage();
    await signIn(page, KEYS.alice);
    await go(page, `#/s/${SMALL}/transcript`);
    const first = page.locator("#msg-1");
    await first.waitFor();
    expect(await first.locator("pre.text").textContent()).toContain(
      "<img src=x onerror=\"document.title='pwned'\">",
    );
    expect(
      await page.locator("ol.transcript img, ol.transcript script, ol.transcript b").count(),
    ).toBe(0);
    expect(await page.title()).toBe("Condense inspector");
  });
});

describe("memory", () => {
  it("lists the user's memories with their kind and source, and deletes one", async () => {
    const created = await ok(
      alice<MemoryEntryBody>("POST", "/v1/memory", {
        text: "Prefers pnpm over npm",
        kind: "preference",
        sourceSession: SMALL,
        sourceSeq: 1,
      }),
      "create memory",
    );
    const page = await openPage();
    await signIn(page, KEYS.alice);
    await go(page, "#/memory");
    const row = page.locator(`table.memories tr[data-id="${created.id}"]`);
    await row.waitFor();
    const cells = await row.locator("td").allTextContents();
    expect(cells.slice(0, 3)).toEqual(["Prefers pnpm over npm", "preference", `${SMALL} #1`]);
    await shot(page, "memory");
    await row.getByRole("button", { name: "Delete" }).click();
    await row.getByRole("button", { name: "Delete for good" }).click();
    await expect.poll(() => row.count()).toBe(0);
    const after = await alice("GET", `/v1/memory/${encodeURIComponent(created.id)}`);
    expect(after.status).toBe(404);
  });

  it("says plainly when the service has no memory routes", async () => {
    const page = await openPage();
    await withoutListRoutes(page);
    await signIn(page, KEYS.alice);
    await go(page, "#/memory");
    await expect
      .poll(() => page.locator("main").textContent())
      .toContain("Memory is not available on this deployment");
  });
});

describe("isolation", () => {
  it("shows another user's session as not found, never its data", async () => {
    const page = await openPage();
    await signIn(page, KEYS.bob);
    await go(page, `#/s/${REPLAY}/overview`);
    await expect.poll(() => page.locator("h1").textContent()).toBe("Session not found");
    for (const selector of ["figure.gauge", "figure.chart", "table.compactions", "ol.transcript"]) {
      expect(await page.locator(selector).count(), selector).toBe(0);
    }
    await go(page, `#/s/${REPLAY}/transcript`);
    await expect.poll(() => page.locator("h1").textContent()).toBe("Session not found");
    expect(await page.locator("ol.transcript").count()).toBe(0);
    await shot(page, "not-found");

    // Bob's own session opens: the "not found" above is the API's answer for Alice's, not a failure.
    await go(page, `#/s/${BOBS}/overview`);
    await page.locator("figure.gauge").waitFor();
  });

  it("signs out: the key is forgotten and nothing read with it stays on the page", async () => {
    const page = await openPage();
    await signIn(page, KEYS.alice);
    await go(page, `#/s/${REPLAY}/overview`);
    await page.locator("figure.chart").waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.locator("#token").waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(await page.evaluate(() => window.location.hash)).toBe("");
    const text = (await page.locator("body").textContent()) ?? "";
    expect(text).not.toContain(REPLAY);
    expect(await page.locator("figure, table, ol.transcript").count()).toBe(0);
    await page.reload();
    await page.locator("#token").waitFor();
    expect(await page.locator("button.sign-out").count()).toBe(0);
    await shot(page, "signed-out");
  });
});
