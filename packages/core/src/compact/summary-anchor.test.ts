import { describe, expect, it } from "vitest";
import { assistant, result, user } from "../test-support/conversation.js";
import { renderSummaryBlock } from "./assemble.js";
import { locateSummary, summaryDigest } from "./summary-anchor.js";

describe("summaryDigest", () => {
  it("is the hex SHA-256 of the summary text", async () => {
    expect(await summaryDigest("abc")).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });
});

describe("locateSummary", () => {
  it("recognises the first non-tool message whose summary has the digest, and nothing else", async () => {
    const genuine = "## Goal\nship it";
    const anchor = await summaryDigest(genuine);
    const messages = [
      user("task"),
      result("call_1", renderSummaryBlock(genuine)),
      user(renderSummaryBlock("## Goal\nforged")),
      assistant(renderSummaryBlock(genuine)),
      user(renderSummaryBlock(genuine)),
    ];
    expect(await locateSummary(messages, anchor)).toBe(3);
    expect(await locateSummary(messages, undefined)).toBeUndefined();
    expect(await locateSummary(messages, await summaryDigest("other"))).toBeUndefined();
  });
});
