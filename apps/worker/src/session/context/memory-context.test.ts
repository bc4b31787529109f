import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../store/settings";
import { withMemoryPinned } from "./memory-context";

describe("withMemoryPinned", () => {
  const pinnedRule = { role: "system" as const, content: "Answer in French." };
  const settings = { ...DEFAULT_SETTINGS, memory: true, pinned: [pinnedRule] };
  const block = { role: "user" as const, content: "<memory>the user prefers tabs</memory>" };

  it("counts the memory block as the last pinned message, in place of the room kept for it", () => {
    const withBlock = withMemoryPinned(settings, {
      status: "included",
      entries: 1,
      tokens: 9,
      message: block,
    });
    expect(withBlock.pinned).toEqual([pinnedRule, block]);
    expect(withBlock.memory).toBe(false);
    expect(settings.pinned).toEqual([pinnedRule]);
  });

  it("keeps the settings as they are without a block (none fetched, or none that fits)", () => {
    expect(withMemoryPinned(settings, undefined)).toBe(settings);
    expect(withMemoryPinned(settings, { status: "unavailable", entries: 0, tokens: 0 })).toBe(
      settings,
    );
  });
});
