import { MESSAGE_ENVELOPE_BYTES } from "@condense/core";
import { describe, expect, it } from "vitest";
import { canonicalMessages } from "./formats";

describe("canonicalMessages with the length of the text it was parsed from", () => {
  it("skips measuring messages only when the text cannot hold one over the limit", () => {
    const small = [{ role: "user", content: "é".repeat(1000) }];
    const text = JSON.stringify({ messages: small });
    expect(canonicalMessages(small, "openai", undefined, "messages", text.length)).toEqual(
      canonicalMessages(small),
    );
    // 1.4 Mi characters of 3-byte text is 4.2 MiB of UTF-8: measured, and refused.
    const large = [{ role: "user", content: "€".repeat(1_400_000 + MESSAGE_ENVELOPE_BYTES) }];
    const largeText = JSON.stringify({ messages: large });
    expect(() =>
      canonicalMessages(large, "openai", undefined, "messages", largeText.length),
    ).toThrow(/at most 4 MiB/);
  });
});
