import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CONDENSE_COMPACTION_PREFIX,
  condenseCompactionItem,
  expandCondenseCompactions,
} from "./condense-compaction";

const item = fc.dictionary(fc.string(), fc.jsonValue());

describe("the gateway's own compaction items", () => {
  it("put back exactly the items they stand for, in their place, whatever those hold", () => {
    fc.assert(
      fc.property(fc.array(item), fc.array(item), fc.array(item), (before, items, after) => {
        const compaction = condenseCompactionItem(items);
        const body = { model: "gpt-5", input: [...before, compaction, ...after] };
        // JSON's own round trip: what a client sends back is what it parsed.
        const sent = JSON.parse(JSON.stringify(body)) as typeof body;
        expect(expandCondenseCompactions(sent)).toEqual(
          JSON.parse(JSON.stringify({ ...body, input: [...before, ...items, ...after] })),
        );
      }),
    );
  });

  it("leaves OpenAI's compaction items, a malformed one of its own and a string input alone", () => {
    const openai = { type: "compaction", id: "cmp_1", encrypted_content: "gAAAA-from-openai" };
    expect(expandCondenseCompactions({ input: [openai] })).toBeUndefined();
    const malformed = {
      type: "compaction",
      encrypted_content: `${CONDENSE_COMPACTION_PREFIX}not base64 JSON`,
    };
    expect(expandCondenseCompactions({ input: [malformed] })).toBeUndefined();
    expect(expandCondenseCompactions({ input: "hello" })).toBeUndefined();
  });

  it("hides what it carries from a reader of the item (base64 behind the prefix)", () => {
    const compaction = condenseCompactionItem([{ role: "user", content: "Summary: ünïcode ✓" }]);
    expect(compaction.encrypted_content.startsWith(CONDENSE_COMPACTION_PREFIX)).toBe(true);
    expect(compaction.encrypted_content).not.toContain("Summary");
    expect(compaction.id).toMatch(/^cmp_[0-9a-f]{32}$/);
  });
});
