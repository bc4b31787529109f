import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { freshMessages } from "./overlap.js";

const isSystemKey = (key: string) => key.startsWith("S");
const prompt = (keys: string[]) => keys.map((key) => ({ key, system: isSystemKey(key) }));
const picked = (keys: string[], known: string[]) =>
  freshMessages(known, prompt(keys), isSystemKey).fresh.map((index) => keys[index]);

/** Distinct conversation messages (u0, a1, …), as a session would hold them. */
const history = fc
  .array(fc.constantFrom("u", "a", "t"), { maxLength: 30 })
  .map((kinds) => kinds.map((kind, index) => `${kind}${index}`));

describe("freshMessages", () => {
  it("takes what follows the session's messages in a full history, a window of it, or alone", () => {
    fc.assert(
      fc.property(history, fc.integer({ min: 1, max: 5 }), fc.nat(), (known, extra, cut) => {
        const added = Array.from({ length: extra }, (_, i) => `n${i}`);
        const window = known.slice(cut % (known.length + 1));
        expect(picked([...known, ...added], known)).toEqual(added);
        expect(picked([...window, ...added], known)).toEqual(added);
        expect(picked(added, known)).toEqual(added);
      }),
    );
  });

  it("adds nothing for a repeat of the last call, or a history that stops short of the session's end", () => {
    fc.assert(
      fc.property(history, fc.nat(), (known, cut) => {
        expect(picked(known, known)).toEqual([]);
        if (known.length > 0)
          expect(picked(known.slice(0, 1 + (cut % known.length)), known)).toEqual([]);
      }),
    );
  });

  it("skips a system prompt the session has, wherever it comes, and appends a new one", () => {
    expect(picked(["S1", "u0", "a1", "u2"], ["S1", "u0", "a1"])).toEqual(["u2"]);
    expect(picked(["S2", "u2"], ["S1", "u0", "a1"])).toEqual(["S2", "u2"]);
  });

  it("takes a repeated text after an answer as a new message", () => {
    expect(picked(["u0"], ["u9", "a1", "u0", "a2"])).toEqual(["u0"]);
  });

  it("adds only the new turn when the history lost the middle of a tool loop", () => {
    // Session: u0 a1(call) t2 a3; the caller kept u0 a3 and adds u4.
    expect(picked(["u0", "a3", "u4"], ["u0", "a1", "t2", "a3"])).toEqual(["u4"]);
  });
});
