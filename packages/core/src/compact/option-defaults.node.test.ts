/**
 * The `@default` tags of `CompactOptions` (compact/types.ts, which the docs' engine options page is
 * generated from) against what `resolveOptions` does with the option left out: every tag whose text
 * is a plain value (a number, `true`/`false`, a quoted string) must be the resolved value of that
 * option. Read from the source with TypeScript's parser, so a new tag is checked by itself.
 */

import { readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { resolveOptions } from "./options.js";

const TYPES = new URL("./types.ts", import.meta.url);

/** `CompactOptions`' members and the text of their `@default` tag (undefined without one). */
function defaultTags(): Map<string, string | undefined> {
  const source = ts.createSourceFile(
    TYPES.pathname,
    readFileSync(TYPES, "utf8"),
    ts.ScriptTarget.Latest,
    true,
  );
  const tags = new Map<string, string | undefined>();
  source.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node) || node.name.text !== "CompactOptions") return;
    for (const member of node.members) {
      if (!ts.isPropertySignature(member)) continue;
      const tag = ts.getJSDocTags(member).find((t) => t.tagName.text === "default");
      const text = tag === undefined ? undefined : ts.getTextOfJSDocComment(tag.comment)?.trim();
      tags.set(member.name.getText(source), text);
    }
  });
  return tags;
}

/** The tag's value when it is a plain JSON value, else undefined (a formula in words). */
function plainValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

describe("CompactOptions' @default tags", () => {
  const tags = defaultTags();

  it("document the options' defaults", () => {
    const documented = [...tags].filter(([, text]) => text !== undefined).map(([name]) => name);
    // The options with a default worth naming (the rest default to "not set").
    expect(documented).toEqual(
      expect.arrayContaining([
        "contextWindow",
        "policy",
        "floor",
        "threshold",
        "reserveTokens",
        "headMessages",
        "tailTokens",
        "minTailMessages",
        "summarizer",
        "identifierPolicy",
        "cooldownSeconds",
        "summaryMinTokens",
        "summaryMaxTokens",
        "pruneLargestOutputs",
      ]),
    );
  });

  it("say what resolveOptions does with the option left out", () => {
    const resolved: Record<string, unknown> = { ...resolveOptions("gpt-4o", {}) };
    const plain = [...tags].flatMap(([name, text]) => {
      const value = text === undefined ? undefined : plainValue(text);
      return value === undefined ? [] : [[name, value] as const];
    });
    expect(plain.length).toBeGreaterThanOrEqual(10);
    for (const [name, value] of plain) {
      expect({ option: name, value: resolved[name] }).toEqual({ option: name, value });
    }
  });
});
