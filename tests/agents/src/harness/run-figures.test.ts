import { describe, expect, it } from "vitest";
import { anthropicMessages } from "../upstream/anthropic-messages.ts";
import type { RecordedCall } from "../upstream/scripted-upstream.ts";
import { runFigures } from "./run-figures.ts";

const call = (messages: unknown[], extra: Partial<RecordedCall> = {}): RecordedCall => ({
  at: 0,
  method: "POST",
  path: "/v1/messages",
  headers: {},
  body: { system: [{ type: "text", text: "sys" }], tools: [], messages },
  tokens: 100 * messages.length,
  status: 200,
  side: false,
  ...extra,
});
const marker = { cache_control: { type: "ephemeral" } };
const user = (text: string, extra = {}) => ({
  role: "user",
  content: [{ type: "text", text, ...extra }],
});

describe("run figures", () => {
  it("counts no prefix change when a turn only appends, moves cache markers or restates a string as a block", () => {
    const calls = [
      call([user("a", marker)]),
      call([user("a"), { role: "assistant", content: "b" }, user("c", marker)]),
      call([
        user("a"),
        { role: "assistant", content: [{ type: "text", text: "b" }] },
        user("c"),
        user("d"),
      ]),
    ];
    const figures = runFigures(anthropicMessages, calls, []);
    expect(figures.prefixChanges).toBe(0);
    expect(figures.turns).toBe(3);
    expect(figures.largestContext).toBe(400);
  });

  it("counts a turn whose earlier messages changed (a compaction), and lists refusals by turn", () => {
    const calls = [
      call([user("a"), { role: "assistant", content: "b" }, user("c")]),
      call([user("summary"), user("d")], {
        status: 400,
        refused: { status: 400, message: "prompt is too long: 9 tokens > 8 maximum" },
      }),
      call([user("t")], { side: true }),
    ];
    const figures = runFigures(anthropicMessages, calls, []);
    expect(figures.prefixChanges).toBe(1);
    expect(figures.turns).toBe(1);
    expect(figures.sideRequests).toBe(1);
    expect(figures.refusals).toEqual([
      { turn: 2, status: 400, message: "prompt is too long: 9 tokens > 8 maximum" },
    ]);
  });
});
