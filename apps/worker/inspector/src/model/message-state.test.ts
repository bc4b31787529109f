import { describe, expect, it } from "vitest";
import type { ChatLike } from "../api/types.ts";
import { messageStates } from "./message-state.ts";

const head: ChatLike = { role: "user", content: "Fix the bug" };
const middle: ChatLike = { role: "assistant", content: "Looking at the code" };
const output: ChatLike = { role: "tool", tool_call_id: "call_1", content: "a long listing" };
const gone: ChatLike = { role: "tool", tool_call_id: "call_0", content: "older output" };
const kept: ChatLike = { role: "assistant", content: "Patched src/app.ts" };

describe("messageStates", () => {
  const stateOf = messageStates({
    coveredSeq: 5,
    messages: [
      head,
      { role: "user", content: "<compacted-context>…</compacted-context>" },
      { role: "tool", tool_call_id: "call_1", content: "[output of read pruned]" },
      kept,
    ],
  });

  it("tells messages in the context from pruned, summarized and left-out ones", () => {
    expect(stateOf({ seq: 1, message: head })).toBe("context");
    expect(stateOf({ seq: 2, message: middle })).toBe("summarized");
    expect(stateOf({ seq: 3, message: gone })).toBe("summarized");
    expect(stateOf({ seq: 4, message: output })).toBe("pruned");
    expect(stateOf({ seq: 5, message: kept })).toBe("context");
  });

  it("counts everything after the compacted range as in the context, except empty turns", () => {
    expect(stateOf({ seq: 6, message: middle })).toBe("context");
    expect(stateOf({ seq: 7, message: { role: "assistant", content: "" } })).toBe("omitted");
  });
});
