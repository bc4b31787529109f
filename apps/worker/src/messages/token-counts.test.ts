import { type ChatMessage, messageTokens, parseMessages } from "@condense/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { knownTokenCounts } from "./token-counts";

/** Messages as an SDK writes them, parsed as the gateway parses a request's history. */
const history = (raw: Record<string, unknown>[]): ChatMessage[] =>
  raw.flatMap((message) => {
    try {
      return parseMessages([message]);
    } catch {
      // A message the engine refuses (an empty assistant turn) is not a history the gateway counts.
      return [];
    }
  });

describe("knownTokenCounts", () => {
  it("knows nothing of messages never counted, then what the engine counts for them", () => {
    const messages = history([
      { role: "user", content: "never counted before, one" },
      { role: "assistant", content: "never counted before, two" },
    ]);
    const first = knownTokenCounts(messages, "gpt-4.1");
    expect(first.counts).toEqual([null, null]);
    first.record();
    const again = history([{ role: "user", content: "never counted before, one" }]);
    expect(knownTokenCounts(again, "gpt-4.1").counts).toEqual([
      messageTokens(messages[0] as ChatMessage, "gpt-4.1"),
    ]);
    // A count is the model's: another model's tokenizer may count otherwise.
    expect(knownTokenCounts(again, "claude-sonnet-4-5").counts).toEqual([null]);
  });

  it("answers from the cache what the engine would count, for messages written any way (property)", () => {
    const text = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom("null", "a\nb", '["user",null,null,null,true]\nx', '[{"type":"text"}]'),
    );
    const part = fc.oneof(
      fc.record({ type: fc.constant("text"), text }),
      fc.record({
        type: fc.constant("image_url"),
        image_url: fc.record(
          {
            url: fc.constantFrom("https://a.example/x.png", "data:,1"),
            detail: fc.constantFrom("low", "high", "auto"),
          },
          { requiredKeys: ["url"] },
        ),
      }),
    );
    const content = fc.oneof(fc.constant(null), text, fc.array(part, { maxLength: 3 }));
    const message = fc.oneof(
      fc.record(
        { role: fc.constantFrom("user", "system"), content, name: fc.constantFrom("ann", "bob") },
        { requiredKeys: ["role", "content"] },
      ),
      fc.record(
        {
          role: fc.constant("assistant"),
          content,
          tool_calls: fc.array(
            fc.record({
              id: fc.constantFrom("call_1", "call_2"),
              type: fc.constant("function"),
              function: fc.record({ name: fc.constantFrom("read", "write"), arguments: text }),
            }),
            { maxLength: 2 },
          ),
        },
        { requiredKeys: ["role", "content"] },
      ),
      fc.record({ role: fc.constant("tool"), tool_call_id: fc.constantFrom("call_1"), content }),
    );
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 6 }),
        fc.constantFrom("gpt-4.1", "claude-sonnet-4-5"),
        (raw, model) => {
          const messages = history(raw);
          const expected = messages.map((m) => messageTokens(m, model));
          const known = knownTokenCounts(messages, model);
          known.counts.forEach((count, index) => {
            if (count !== null) expect(count).toBe(expected[index]);
          });
          known.record();
          // Parsed again (new objects, keys reordered as another SDK would write them): all known.
          const reparsed = history(raw.map((m) => Object.fromEntries(Object.entries(m).reverse())));
          expect(knownTokenCounts(reparsed, model).counts).toEqual(expected);
        },
      ),
    );
  });
});
