import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../messages/types.js";
import { assistant, call, result, user } from "../test-support/conversation.js";
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
    expect(missingIdentifiers(summary, buildLedger(messages))).toEqual([]);
  });
});
