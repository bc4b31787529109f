import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../messages/types.js";
import { assistant, call, result, user } from "../test-support/conversation.js";
import { leftOutForSize } from "../test-support/summary-figures.js";
import { countTokens } from "../tokens/count.js";
import { extractiveSummary } from "./extractive.js";
import { buildLedger, missingIdentifiers } from "./ledger.js";
import type { SummarizeRequest } from "./summarizer.js";
import { missingSections, parseSections } from "./template.js";

const MODEL = "gpt-4o";

function request(messages: ChatMessage[], extra: Partial<SummarizeRequest> = {}): SummarizeRequest {
  return {
    messages,
    model: MODEL,
    targetTokens: 2000,
    maxTokens: 12_000,
    identifierPolicy: "strict",
    ledger: buildLedger(messages),
    ...extra,
  };
}

function section(summary: string, name: string): string {
  return parseSections(summary).get(name) ?? "";
}

describe("extractiveSummary budget", () => {
  const messages: ChatMessage[] = [
    user("Make the flaky test suite green. You must keep the public API unchanged."),
  ];
  for (let i = 0; i < 120; i++) {
    messages.push(
      assistant(
        `Because step ${i} failed, I decided to retry with option ${i} instead of the default.`,
        [call(`call_${i}`, "bash", { command: `cd /repo && npm test -- --shard=${i}/120` })],
      ),
      result(`call_${i}`, i % 3 === 0 ? `Exit code 1\nError: shard ${i} failed` : "ok"),
    );
  }
  messages.push(
    assistant(null, [call("call_w", "Write", { file_path: "/repo/src/api.ts", content: "x" })]),
    result("call_w", "ok"),
  );

  it("fits maxTokens by trimming low-priority sections, never a ledger identifier or file", () => {
    const ledger = buildLedger(messages);
    const summary = extractiveSummary(request(messages, { maxTokens: 1000, ledger }));
    expect(countTokens(summary, MODEL)).toBeLessThanOrEqual(1000);
    expect(missingSections(summary)).toEqual([]);
    expect(missingIdentifiers(summary, ledger)).toEqual([]);
    expect(section(summary, "Files")).toContain("### Modified\n- /repo/src/api.ts");
    const untrimmed = extractiveSummary(request(messages, { maxTokens: 100_000, ledger }));
    expect(countTokens(untrimmed, MODEL)).toBeGreaterThan(1000);
    expect(section(untrimmed, "Goal")).toContain("Make the flaky test suite green.");
    // The goal outlives the commands.
    expect(section(summary, "Goal")).toContain("Make the flaky test suite green.");
    expect(section(summary, "Commands & errors").length).toBeLessThan(
      section(untrimmed, "Commands & errors").length,
    );
  });

  it("says a required section was trimmed when the budget took all of it", () => {
    const summary = extractiveSummary(request(messages, { maxTokens: 50 }));
    expect(section(summary, "Goal")).toBe("(trimmed to fit the token budget)");
    expect(missingSections(summary)).toEqual([]);
    // Past the last resort, what no line shows is counted in a line pointing to recall.
    expect(leftOutForSize(summary)).toBeGreaterThanOrEqual(
      missingIdentifiers(summary, buildLedger(messages)).length,
    );
  });
});

describe("extractiveSummary budget: a bound, what does not fit pointed to", () => {
  /** A range that names `count` distinct ids and reads `count` files: far more than 400 tokens. */
  const crowded = (count: number): ChatMessage[] => {
    const messages: ChatMessage[] = [user("Audit the deployment records.")];
    for (let i = 0; i < count; i++) {
      const id = `${(0x1000_0000 + i * 7919).toString(16)}${(0xabc0_0000 + i).toString(16)}`;
      messages.push(
        assistant(`Checking record ${id} next.`, [
          call(`call_${i}`, "Read", { file_path: `/srv/records/r${i}.json` }),
        ]),
        result(`call_${i}`, "{}"),
      );
    }
    return messages;
  };

  it("holds maxTokens when the ledger alone exceeds it: the newest shown, the rest counted with a pointer to recall", () => {
    const messages = crowded(300);
    const ledger = buildLedger(messages);
    const summary = extractiveSummary(request(messages, { maxTokens: 600, ledger }));
    expect(countTokens(summary, MODEL)).toBeLessThanOrEqual(600);
    expect(missingSections(summary)).toEqual([]);
    const missing = missingIdentifiers(summary, ledger);
    expect(missing.length).toBeGreaterThan(0);
    const pointed = [
      ...summary.matchAll(
        /^- (\d+) more [^\n]* left out for size: search the conversation \(recall\) for them\.$/gm,
      ),
    ];
    expect(pointed.reduce((sum, match) => sum + Number(match[1]), 0)).toBeGreaterThanOrEqual(
      missing.length,
    );
    // The newest stay: the last file read and the last id named.
    expect(summary).toContain("/srv/records/r299.json");
    expect(missing).not.toContain("/srv/records/r299.json");
  });

  it("leaves nothing out while it fits", () => {
    const messages = crowded(20);
    const ledger = buildLedger(messages);
    const summary = extractiveSummary(request(messages, { maxTokens: 12_000, ledger }));
    expect(missingIdentifiers(summary, ledger)).toEqual([]);
    expect(summary).not.toContain("left out for size");
  });
});
