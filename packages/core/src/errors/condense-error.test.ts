import { describe, expect, it } from "vitest";
import { CondenseError, InvalidMessagesError, SummarizerError } from "./condense-error.js";

describe("error classes", () => {
  it("recognizes instances by marker, not by prototype", () => {
    const error = new InvalidMessagesError([
      {
        index: 2,
        path: "role",
        kind: "unknown_role",
        message: "unknown role `bot`; use user or assistant",
      },
    ]);
    const copy = Object.assign(Object.create(null), error) as unknown;
    expect(InvalidMessagesError.isInstance(copy)).toBe(true);
    expect(CondenseError.isInstance(error)).toBe(true);
    expect(SummarizerError.isInstance(error)).toBe(false);
    expect(error.message).toBe("message 2 (role): unknown role `bot`; use user or assistant");
  });
});
