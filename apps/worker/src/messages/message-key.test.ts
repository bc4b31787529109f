import type { ChatMessage } from "@condense/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { messageHashes, messageHashesSync } from "./history-hash";
import { contentFingerprint, MessageKeyedCache, messageKey } from "./message-key";

const user = (content: string): ChatMessage => ({ role: "user", content });

/** `text` with the character at `at` replaced by another. */
const flipped = (text: string, at: number): string =>
  `${text.slice(0, at)}${text[at] === "x" ? "y" : "x"}${text.slice(at + 1)}`;

describe("MessageKeyedCache", () => {
  it("tells apart contents that share a fingerprint: same length, a character it does not read", () => {
    const a = "a".repeat(1000);
    const b = flipped(a, 1);
    expect(contentFingerprint(b)).toBe(contentFingerprint(a));
    const cache = new MessageKeyedCache<string>(100_000);
    cache.set(messageKey(user(a)), "a");
    expect(cache.get(messageKey(user(b)))).toBeUndefined();
    cache.set(messageKey(user(b)), "b");
    expect(cache.get(messageKey(user(a)))).toBe("a");
    expect(cache.get(messageKey(user(b)))).toBe("b");
  });

  it("tells apart messages with the same content and other small fields", () => {
    const cache = new MessageKeyedCache<string>(100_000);
    cache.set(messageKey(user("same")), "user");
    expect(cache.get(messageKey({ role: "assistant", content: "same" }))).toBeUndefined();
    expect(cache.get(messageKey({ role: "user", content: [{ type: "text", text: "same" }] }))).toBe(
      undefined,
    );
    expect(cache.get(messageKey(user("same")))).toBe("user");
  });

  it("keeps at most its bound, the least recently used evicted first", () => {
    // Every key is 100 characters of content and 28 of head: eight fit.
    const cache = new MessageKeyedCache<number>(8 * 128);
    const key = (index: number) => messageKey(user(String(index).padStart(100, "x")));
    for (let index = 0; index < 8; index++) cache.set(key(index), index);
    expect(cache.get(key(0))).toBe(0);
    cache.set(key(8), 8);
    expect(cache.get(key(1))).toBeUndefined();
    expect([0, 2, 3, 4, 5, 6, 7, 8].map((index) => cache.get(key(index)))).toEqual([
      0, 2, 3, 4, 5, 6, 7, 8,
    ]);
  });

  it("hashes a message whose text differs from a cached one in any one character as its own (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 300 }),
        fc.nat(),
        async (text, position) => {
          const other = flipped(text, position % text.length);
          const messages = [user(text), user(other)];
          await messageHashes([messages[0] ?? user("")]);
          expect(await messageHashes(messages)).toEqual(messageHashesSync(messages));
        },
      ),
    );
  });
});
