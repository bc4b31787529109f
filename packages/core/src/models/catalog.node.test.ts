import { describe, expect, it } from "vitest";
import { catalogVersion, extractCatalog } from "../../scripts/build-model-catalog.js";
import { CATALOG_SOURCE, catalogModels } from "./catalog.generated.js";
import { catalogMatches, catalogModel } from "./catalog.js";
import { normalizeModelName } from "./model-name.js";

describe("the generated catalog", () => {
  it("is what the installed @pydantic/genai-prices holds (else run scripts/build-model-catalog.ts)", () => {
    expect(CATALOG_SOURCE.version).toBe(catalogVersion());
    expect(catalogModels()).toEqual(extractCatalog());
  });
});

describe("catalogModel", () => {
  it("finds a model by the catalog's match rules, in any spelling", () => {
    expect(catalogModel("claude-opus-4-1-20250805")?.id).toBe("claude-opus-4-1");
    expect(catalogModel("us.anthropic.claude-sonnet-4-5-20250929-v1:0")?.id).toBe(
      "claude-sonnet-4-5",
    );
    expect(catalogModel("openrouter/openai/gpt-4o-2024-11-20")?.id).toBe("gpt-4o");
    expect(catalogModel("no-such-model")).toBeUndefined();
  });

  it("prefers the maker to a reseller listing the same model", () => {
    expect(catalogModel("claude-3-5-sonnet-20241022")?.provider).toBe("anthropic");
  });

  it("answers a name asked again as the catalog's search does, before and after its memory fills", () => {
    const names = ["gpt-4o-2024-11-20", "claude-sonnet-4-5", "no-such-model", " "];
    const search = (model: string) => {
      const name = normalizeModelName(model);
      return name === ""
        ? undefined
        : catalogModels().find((entry) => catalogMatches(entry.match, name))?.id;
    };
    for (const round of [1, 2]) {
      for (const name of names)
        expect(catalogModel(name)?.id, `${name} ${round}`).toBe(search(name));
      // More names than it keeps: it starts over, and answers the same.
      for (let i = 0; i < 1100; i++) catalogModel(`unknown-model-${round}-${i}`);
    }
  });
});

describe("catalogMatches", () => {
  it("reads every kind of rule", () => {
    expect(catalogMatches({ equals: "a" }, "a")).toBe(true);
    expect(catalogMatches({ starts_with: "gpt-" }, "gpt-4")).toBe(true);
    expect(catalogMatches({ ends_with: "-mini" }, "o3-mini")).toBe(true);
    expect(catalogMatches({ contains: "haiku" }, "claude-3-haiku")).toBe(true);
    expect(catalogMatches({ regex: "^o\\d$" }, "o3")).toBe(true);
    expect(catalogMatches({ or: [{ equals: "x" }, { equals: "y" }] }, "y")).toBe(true);
    expect(catalogMatches({ and: [{ starts_with: "a" }, { ends_with: "z" }] }, "abz")).toBe(true);
    expect(catalogMatches({ and: [{ starts_with: "a" }, { ends_with: "z" }] }, "abc")).toBe(false);
    // A pattern this runtime cannot compile matches nothing rather than throwing.
    expect(catalogMatches({ regex: "(" }, "(")).toBe(false);
  });
});
