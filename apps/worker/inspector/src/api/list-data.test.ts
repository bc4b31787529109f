import { describe, expect, it } from "vitest";
import { readMemories, readSearchMatches, readSessionList } from "./list-data.ts";

describe("readSessionList", () => {
  it("reads sessions under the names the list route may use, and the next page's cursor", () => {
    const page = readSessionList({
      sessions: [
        {
          sessionId: "run-2",
          model: "gpt-4o",
          createdAt: "2026-11-20T10:00:00Z",
          lastActiveAt: "2026-11-22T10:00:00Z",
          messageCount: 278,
          contextTokens: 15_988,
          contextWindow: 32_000,
          compactions: 15,
        },
        { id: "run-1", updatedAt: "2026-11-21T10:00:00Z", tokens: 12, compactions: [{}, {}] },
        { model: "no id: skipped" },
        "not an object",
      ],
      nextCursor: "abc",
    });
    expect(page.sessions).toEqual([
      {
        id: "run-2",
        model: "gpt-4o",
        createdAt: "2026-11-20T10:00:00Z",
        lastActiveAt: "2026-11-22T10:00:00Z",
        messageCount: 278,
        tokens: 15_988,
        contextWindow: 32_000,
        compactions: 15,
      },
      {
        id: "run-1",
        model: null,
        createdAt: null,
        lastActiveAt: "2026-11-21T10:00:00Z",
        messageCount: null,
        tokens: 12,
        contextWindow: null,
        compactions: 2,
      },
    ]);
    expect(page.next).toEqual({ param: "cursor", value: "abc" });
    expect(readSessionList({ sessions: [], nextBefore: null }).next).toBeNull();
    expect(readSessionList({ sessions: [], nextBefore: "2026-11-21" }).next).toEqual({
      param: "before",
      value: "2026-11-21",
    });
  });

  it("reads nothing from an answer of another shape", () => {
    expect(readSessionList(null)).toEqual({ sessions: [], next: null });
    expect(readSessionList({ sessions: "x" })).toEqual({ sessions: [], next: null });
  });
});

describe("readSearchMatches", () => {
  it("reads matches with seq, role, tool call, snippet and whether they are in the context", () => {
    expect(
      readSearchMatches({
        results: [
          {
            seq: 12,
            role: "tool",
            toolCallId: "call_1",
            toolName: "bash",
            snippet: "<mark>x</mark>",
            inContext: false,
          },
          { seq: 3, role: "user", snippet: "y" },
          { role: "user", snippet: "no seq: skipped" },
        ],
      }),
    ).toEqual([
      {
        seq: 12,
        role: "tool",
        toolCallId: "call_1",
        toolName: "bash",
        snippet: "<mark>x</mark>",
        inContext: false,
      },
      { seq: 3, role: "user", toolCallId: null, toolName: null, snippet: "y", inContext: null },
    ]);
  });
});

describe("readMemories", () => {
  it("reads entries with their source session and seq, flat or nested", () => {
    expect(
      readMemories({
        memories: [
          {
            id: "m1",
            text: "prefers pnpm",
            kind: "preference",
            sourceSessionId: "run-1",
            sourceSeq: 4,
          },
          {
            id: "m2",
            text: "never push to main",
            kind: "constraint",
            source: { sessionId: "run-2", seq: 9 },
          },
          { id: "m3" },
        ],
      }),
    ).toEqual([
      {
        id: "m1",
        text: "prefers pnpm",
        kind: "preference",
        sourceSession: "run-1",
        sourceSeq: 4,
        createdAt: null,
        updatedAt: null,
      },
      {
        id: "m2",
        text: "never push to main",
        kind: "constraint",
        sourceSession: "run-2",
        sourceSeq: 9,
        createdAt: null,
        updatedAt: null,
      },
    ]);
  });
});
