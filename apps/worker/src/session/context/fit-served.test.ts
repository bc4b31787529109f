import { type ChatMessage, countMessageTokens, messageTokens } from "@condense/core";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../api/errors";
import type { SessionRow } from "../store/session-record";
import { DEFAULT_SETTINGS, type SessionSettings } from "../store/settings";
import { measureContext } from "./context-measure";
import { fitServed } from "./fit-served";
import type { Snapshot } from "./snapshot";

const model = "gpt-4o";

/** Storage with no indexed output: outputs after the view carry their seqs themselves. */
const sql = {
  exec: () => ({ toArray: () => [] }),
} as unknown as SqlStorage;

function session(): SessionRow {
  return {
    userId: "u",
    sessionId: "s 1",
    epoch: "e",
    createdAt: 0,
    updatedAt: 0,
    lastModel: model,
    messageCount: 0,
    transcriptTokens: 0,
    cooldownUntil: null,
    calibrationRatio: 1,
    calibrationSamples: 0,
    pendingTrigger: null,
    pendingDueAt: null,
    exhaustedSeq: null,
    ledger: null,
    learnedWindow: null,
    learnedWindowModel: null,
    servedTokens: null,
    servedSeq: null,
    failedAttempts: 0,
    lastFailureAt: null,
    lastFailure: null,
    retryAt: null,
    overheadTokens: 0,
    cacheExcessTokens: null,
    cacheCompactedTokens: null,
    cacheStableTokens: null,
    memoryBlock: null,
    memoryBlockCompaction: null,
  };
}

function settings(overrides: Partial<SessionSettings> = {}): SessionSettings {
  return { ...DEFAULT_SETTINGS, contextWindow: 12_000, ...overrides };
}

function lines(count: number, name: string): string {
  return Array.from({ length: count }, (_, i) => `${name} ${i}: row ${i} of the export`).join("\n");
}

/**
 * A view (a summary and the call) and, after it, the results of the call that came after the
 * compaction's snapshot (it leaves calls awaiting results out): what no compaction ever saw.
 */
function snapshotOf(view: ChatMessage[], tail: ChatMessage[], openaiItems?: unknown[]): Snapshot {
  const messages = [...view, ...tail];
  const counts = messages.map((message) => messageTokens(message, model));
  return {
    epoch: "e",
    view: undefined,
    coveredSeq: 10,
    lastSeq: 10 + tail.length,
    messages,
    seqs: [...view.map(() => null), ...tail.map((_, i) => 11 + i)],
    tokenCounts: counts,
    ...(openaiItems !== undefined ? { openaiItems } : {}),
    tail,
    tokens: counts.reduce((sum, count) => sum + count, 0),
  };
}

const view: ChatMessage[] = [
  { role: "system", content: "You are an export agent." },
  {
    role: "user",
    content: "<compacted-context>Earlier turns read the schema.</compacted-context>",
  },
  {
    role: "assistant",
    content: "Reading both exports.",
    tool_calls: ["a", "b"].map((id) => ({
      id: `read_${id}`,
      type: "function" as const,
      function: { name: "read", arguments: JSON.stringify({ path: `${id}.csv` }) },
    })),
  },
];
const results: ChatMessage[] = [
  { role: "tool", tool_call_id: "read_a", content: lines(900, "a") },
  { role: "tool", tool_call_id: "read_b", content: lines(700, "b") },
];

function textOf(message: ChatMessage | undefined): string {
  return typeof message?.content === "string" ? message.content : "";
}

describe("fitServed", () => {
  it("serves a context over its window fitted to its budget: the newest results cut, with the route to the whole ones", () => {
    const snapshot = snapshotOf(view, results);
    const measure = measureContext(session(), settings(), snapshot.tokens, undefined);
    expect(snapshot.tokens).toBeGreaterThan(measure.engineWindow);
    const fitted = fitServed(sql, snapshot, measure, settings({ recall: true }), "s 1");
    expect(fitted.snapshot.tokens).toBeLessThanOrEqual(measure.engineBudget);
    expect(countMessageTokens(fitted.snapshot.messages, model) - 3).toBe(fitted.snapshot.tokens);
    // The view is untouched; the tail's results are replaced, and said so by index.
    expect(fitted.snapshot.messages.slice(0, 3)).toEqual(view);
    expect(fitted.replaced.map(({ index }) => index)).toEqual([3, 4]);
    expect(fitted.snapshot.tail).toEqual(fitted.snapshot.messages.slice(3));
    const first = textOf(fitted.snapshot.tail[0]);
    expect(first.startsWith("a 0: row 0")).toBe(true);
    expect(first).toContain("a 899: row 899");
    expect(first).toContain(
      "fetch the whole output by tool call id read_a (GET /v1/sessions/s%201/tool-outputs/read_a?seq=11) (the `recall` tool takes it as toolCallId)",
    );
  });

  it("leaves a context within its budget as it is", () => {
    const snapshot = snapshotOf(view, [
      { role: "tool", tool_call_id: "read_a", content: "a" },
      { role: "tool", tool_call_id: "read_b", content: "b" },
    ]);
    const measure = measureContext(session(), settings(), snapshot.tokens, undefined);
    const fitted = fitServed(sql, snapshot, measure, settings(), "s");
    expect(fitted.snapshot).toBe(snapshot);
    expect(fitted.replaced).toEqual([]);
  });

  it("never touches a view of OpenAI compaction items", () => {
    const items = [{ type: "compaction", encrypted_content: "opaque" }];
    const itemView: ChatMessage[] = [{ role: "user", content: lines(300, "item") }];
    expect(messageTokens(itemView[0] as ChatMessage, model)).toBeGreaterThan(2_000);
    const snapshot = snapshotOf(itemView, [view[2] as ChatMessage, ...results], items);
    const measure = measureContext(session(), settings(), snapshot.tokens, undefined);
    const fitted = fitServed(sql, snapshot, measure, settings(), "s");
    expect(fitted.snapshot.messages[0]).toBe(itemView[0]);
    expect(fitted.snapshot.tokens).toBeLessThanOrEqual(measure.engineBudget);
  });

  it("refuses with context_over_window what no cut can make fit the window", () => {
    const pasted: ChatMessage = { role: "user", content: lines(1_600, "pasted") };
    const snapshot = snapshotOf([view[0] as ChatMessage], [pasted]);
    const measure = measureContext(session(), settings(), snapshot.tokens, undefined);
    let refused: unknown;
    try {
      fitServed(sql, snapshot, measure, settings(), "s");
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe("context_over_window");
    expect((refused as ApiError).status).toBe(422);
  });
});
