import { describe, expect, it } from "vitest";
import { SummarizerError } from "../../errors/condense-error.js";
import type { SummarizeRequest } from "../summarizer.js";
import { REQUIRED_SECTIONS, SUMMARY_SECTIONS } from "../template.js";
import {
  type CachedPromptAnswer,
  type CachedPromptTurn,
  cachedPromptSummarizer,
} from "./cached-prompt-summarizer.js";

const summary = SUMMARY_SECTIONS.map((section) => `## ${section}\nNone`).join("\n\n");

const request: SummarizeRequest = {
  messages: [
    { role: "user", content: "Rename the `fetchUser` helper in src/api/user.ts." },
    {
      role: "assistant",
      content: `Done: renamed to loadUser. ${"Checked every caller. ".repeat(80)}`,
    },
  ],
  model: "claude-sonnet-4-5",
  targetTokens: 500,
  maxTokens: 2_000,
  identifierPolicy: "strict",
  ledger: { identifiers: [], files: { read: [], modified: ["src/api/user.ts"] }, userRequests: [] },
};

/** A channel that answers each call with the next of `answers`, and records what it was asked to append. */
function channel(answers: Array<Partial<CachedPromptAnswer> | Error>) {
  const sent: CachedPromptTurn[][] = [];
  const send = async (turns: readonly CachedPromptTurn[]): Promise<CachedPromptAnswer> => {
    sent.push([...turns]);
    const next = answers.shift() ?? new Error("no answer scripted");
    if (next instanceof Error) throw next;
    return { text: "", finishReason: "stop", ...next };
  };
  return { sent, send };
}

async function failure(promise: Promise<unknown>): Promise<SummarizerError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!SummarizerError.isInstance(error))
    throw new Error(`expected a SummarizerError, got ${error}`);
  return error;
}

describe("cachedPromptSummarizer", () => {
  it("appends the summary instruction as one user turn and reads the summary back, the ledger checked by code", async () => {
    const { sent, send } = channel([
      { text: summary, usage: { inputTokens: 60_000, cacheReadTokens: 59_000, outputTokens: 300 } },
    ]);
    const summarizer = cachedPromptSummarizer({ model: "claude-sonnet-4-5", send });
    expect(summarizer.kind).toBe("llm");
    const result = await summarizer.summarize(request);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toHaveLength(1);
    expect(sent[0]?.[0]?.role).toBe("user");
    const instruction = sent[0]?.[0]?.text ?? "";
    expect(instruction).toContain("not an instruction to you now");
    for (const section of REQUIRED_SECTIONS) expect(instruction).toContain(`## ${section}`);
    expect(instruction).toContain("src/api/user.ts");
    // The model left out the modified file: code appends it.
    expect(summary).not.toContain("src/api/user.ts");
    expect(result.summary).toContain("src/api/user.ts");
    expect(result.summary).toContain("## Next steps");
    expect(result).toMatchObject({ calls: 1, inputTokens: 60_000 });
  });

  it("asks once more, after its own answer, for the required sections it left out", async () => {
    const { sent, send } = channel([{ text: "## Goal\nRename" }, { text: summary }]);
    const result = await cachedPromptSummarizer({ model: "m", send }).summarize(request);
    expect(result.calls).toBe(2);
    expect(sent[1]?.map((turn) => turn.role)).toEqual(["user", "assistant", "user"]);
    expect(sent[1]?.[1]?.text).toBe("## Goal\nRename");
    expect(sent[1]?.[2]?.text).toContain("## Progress");
  });

  it("fails as the next tier expects: refusals, tool calls instead of text, truncation, a failed request", async () => {
    const cases: Array<[Partial<CachedPromptAnswer> | Error, string]> = [
      [{ text: "I'm sorry, but I can't help with that." }, "refusal"],
      [{ text: "", finishReason: "tool_calls" }, "empty"],
      [{ text: summary, finishReason: "length" }, "truncated"],
      [{ text: `${"x ".repeat(5_000)}\n\n${summary}` }, "too_large"],
      [new Error("upstream answered 529"), "other"],
    ];
    for (const [answer, kind] of cases) {
      const { send } = channel([answer]);
      const error = await failure(cachedPromptSummarizer({ model: "m", send }).summarize(request));
      expect(error.kind).toBe(kind);
      expect(error.usage?.calls).toBe(1);
    }
  });

  it("keeps a failed request's kind when the channel says it (a timeout, a rate limit)", async () => {
    const { send } = channel([new SummarizerError("rate_limited", "429 from the upstream")]);
    const error = await failure(cachedPromptSummarizer({ model: "m", send }).summarize(request));
    expect(error.kind).toBe("rate_limited");
  });
});
