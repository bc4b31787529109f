/**
 * @module session/list-reporter.test
 * The session list reporter on its own: creation at once, bursts coalesced into one trailing report
 * of the latest figures, a deletion that cancels what is pending and comes last.
 */

import { describe, expect, it } from "vitest";
import type { SessionReport } from "../user/session-list";
import { ListReporter } from "./list-reporter";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await sleep(10);
  }
  throw new Error(`gave up waiting for ${what}`);
}

function harness(intervalMs: number) {
  let messageCount = 1;
  let exists = true;
  const log: string[] = [];
  const reporter = new ListReporter({
    read: () =>
      exists
        ? {
            userId: "u",
            report: {
              sessionId: "s",
              model: "m",
              createdAt: 0,
              lastActiveAt: messageCount,
              messageCount,
              tokens: 0,
              compactions: 0,
            } satisfies SessionReport,
          }
        : undefined,
    send: async (_user, report) => {
      log.push(`report ${report.messageCount}`);
    },
    forget: async () => {
      log.push("forget");
    },
    waitUntil: () => {},
    intervalMs,
  });
  return {
    reporter,
    log,
    append: () => {
      messageCount++;
      reporter.changed();
    },
    remove: () => {
      exists = false;
    },
  };
}

describe("ListReporter", () => {
  it("reports a creation at once and coalesces a burst of changes into one trailing report", async () => {
    const h = harness(40);
    await h.reporter.created();
    expect(h.log).toEqual(["report 1"]);
    for (let i = 0; i < 5; i++) h.append();
    // The burst came within the interval: nothing is sent before it has passed.
    expect(h.log).toEqual(["report 1"]);
    await eventually(() => h.log.length === 2, "the trailing report");
    expect(h.log).toEqual(["report 1", "report 6"]);
    await sleep(120);
    expect(h.log).toEqual(["report 1", "report 6"]);
  });

  it("drops a pending report when the session is deleted, and forgets it last", async () => {
    const h = harness(40);
    await h.reporter.created();
    h.append();
    h.remove();
    await h.reporter.deleted("u", "s");
    await sleep(120);
    expect(h.log).toEqual(["report 1", "forget"]);
  });
});
