import { describe, expect, it } from "vitest";
import { messageText } from "../messages/content.js";
import type { ChatMessage } from "../messages/types.js";
import { assistant, bulkyOutput, call, result, user } from "../test-support/conversation.js";
import { countMessageTokens, countTokens } from "../tokens/count.js";
import { compact } from "./compact.js";
import { recentReadsFrom } from "./recent-reads.js";

const model = "gpt-4o";

/**
 * A session of 30 turns of 1,200-token reads, the turn before the last reading a 5.7k-token file,
 * the last reading three small ones (so that the tail's four messages hold only the last turn).
 */
function session(): { messages: ChatMessage[]; fresh: string } {
  const messages: ChatMessage[] = [user("Port the parser to the new API.")];
  for (let i = 0; i < 30; i++) {
    messages.push(
      assistant(`Reading module ${i}.`, [call(`call_${i}`, "Read", { file_path: `src/m${i}.py` })]),
      result(`call_${i}`, bulkyOutput(60, `m${i}`)),
    );
  }
  const fresh = bulkyOutput(290, "parser");
  messages.push(
    assistant("Reading the parser itself.", [
      call("call_parser", "Read", { file_path: "src/parser.py" }),
    ]),
    result("call_parser", fresh),
    assistant("Now the tests and their fixtures.", [
      call("call_tests", "Read", { file_path: "tests/test_parser.py" }),
      call("call_fixture_a", "Read", { file_path: "tests/fixtures/a.txt" }),
      call("call_fixture_b", "Read", { file_path: "tests/fixtures/b.txt" }),
    ]),
    result("call_tests", bulkyOutput(20, "tests")),
    result("call_fixture_a", bulkyOutput(5, "a")),
    result("call_fixture_b", bulkyOutput(5, "b")),
  );
  return { messages, fresh };
}

describe("recent reads stay", () => {
  it("keeps a 5.7k-token file read of the turn before whole at 64k: neither pruned nor summarized", async () => {
    const { messages, fresh } = session();
    expect(countTokens(fresh, model)).toBeGreaterThan(5_000);
    const compacted = await compact({ model, messages }, { contextWindow: 64_000, force: true });
    expect(compacted.compacted).toBe(true);
    const kept = compacted.messages.find(
      (m) => m.role === "tool" && m.tool_call_id === "call_parser",
    );
    expect(messageText(kept ?? { role: "tool", content: "" })).toBe(fresh);
    expect(compacted.prunedToolOutputs.map((output) => output.toolCallId)).not.toContain(
      "call_parser",
    );
  });

  it("at 32k, where the limit is the floor, keeps only the reads that fit the tail", async () => {
    // Each compaction at 32k fires at the limit, so what it keeps shortens the interval to the
    // next bust (docs/notes/small-windows.md): the 5.7k read goes to the summary, the last turn's
    // small reads stay whole.
    const { messages, fresh } = session();
    const compacted = await compact({ model, messages }, { contextWindow: 32_000, force: true });
    expect(compacted.compacted).toBe(true);
    const outputs = new Map(
      compacted.messages
        .filter((m) => m.role === "tool")
        .map((m) => [m.tool_call_id, messageText(m)] as const),
    );
    expect(outputs.get("call_parser")).not.toBe(fresh);
    expect(outputs.has("call_fixture_b")).toBe(true);
    const wide = await compact({ model, messages }, { contextWindow: 64_000, force: true });
    expect(compacted.finalTokens).toBeLessThan(wide.finalTokens - 4_000);
    // The same when the last turn is one small read: the tail's least four messages would reach
    // back to the parser's read.
    const oneRead = [
      ...messages.slice(0, -4),
      assistant("Now the tests.", [call("call_tests", "Read", { file_path: "tests/t.py" })]),
      result("call_tests", bulkyOutput(5, "tests")),
    ];
    const small = await compact(
      { model, messages: oneRead },
      { contextWindow: 32_000, force: true },
    );
    const parser = small.messages.find(
      (m) => m.role === "tool" && m.tool_call_id === "call_parser",
    );
    expect(parser === undefined ? undefined : messageText(parser)).not.toBe(fresh);
    expect(small.messages.some((m) => m.role === "tool" && m.tool_call_id === "call_tests")).toBe(
      true,
    );
  });

  it("at 32k keeps the turn before's large read cut to its head and tail, within half the tail", async () => {
    // A compaction that fires at the limit keeps little, but the output the model read a turn ago
    // is what it works from: its head and tail stay (with a marker saying how to fetch the rest),
    // not a summary line.
    const { messages, fresh } = session();
    const compacted = await compact({ model, messages }, { contextWindow: 32_000, force: true });
    expect(compacted.compacted).toBe(true);
    const index = compacted.messages.findIndex(
      (m) => m.role === "tool" && m.tool_call_id === "call_parser",
    );
    const kept = compacted.messages[index];
    const text = kept === undefined ? "" : messageText(kept);
    expect(text.startsWith(fresh.split("\n").slice(0, 3).join("\n"))).toBe(true);
    expect(text.endsWith(fresh.split("\n").at(-1) ?? "")).toBe(true);
    expect(text).toContain("[Condense cut ");
    const turn = compacted.messages.slice(index - 1, index + 1);
    expect(turn[0]?.role).toBe("assistant");
    expect(countMessageTokens(turn, model)).toBeLessThanOrEqual(1_000 + 10);
    expect(compacted.cutToolOutputs.map((output) => output.toolCallId)).toEqual(["call_parser"]);
    expect(compacted.cutToolOutputs[0]?.content).toBe(fresh);
  });

  it("at 32k keeps a small read of the turn before whole behind a large newest output", async () => {
    // The newest output alone is over the tail: the small read before it stays all the same.
    const { messages } = session();
    const small = bulkyOutput(5, "config");
    const shaped = [
      ...messages.slice(0, -6),
      assistant("Checking the config.", [call("call_config", "Read", { file_path: "setup.cfg" })]),
      result("call_config", small),
      assistant("Now the parser.", [call("call_parser", "Read", { file_path: "src/parser.py" })]),
      result("call_parser", bulkyOutput(130, "parser")),
    ];
    const compacted = await compact(
      { model, messages: shaped },
      { contextWindow: 32_000, force: true },
    );
    expect(compacted.compacted).toBe(true);
    const kept = compacted.messages.find(
      (m) => m.role === "tool" && m.tool_call_id === "call_config",
    );
    expect(kept === undefined ? undefined : messageText(kept)).toBe(small);
    expect(compacted.cutToolOutputs).toEqual([]);
  });

  it("at 32k keeps the turn before's read behind a newest call with large arguments", async () => {
    // The newest call (a file written whole) always stays with its result: its size is not the
    // turn before's to pay.
    const { messages, fresh } = session();
    const shaped = [
      ...messages.slice(0, -4),
      assistant(null, [
        call("call_write", "Write", { file_path: "src/parser.py", content: bulkyOutput(120, "w") }),
      ]),
      result("call_write", "File written."),
    ];
    const compacted = await compact(
      { model, messages: shaped },
      { contextWindow: 32_000, force: true },
    );
    const kept = compacted.messages.find(
      (m) => m.role === "tool" && m.tool_call_id === "call_parser",
    );
    expect(kept === undefined ? "" : messageText(kept)).toContain(fresh.split("\n")[0]);
    expect(compacted.cutToolOutputs.map((output) => output.toolCallId)).toEqual(["call_parser"]);
  });

  it("lets older reads go, and recent ones too when they alone would not fit", async () => {
    const { messages } = session();
    const compacted = await compact({ model, messages }, { contextWindow: 32_000, force: true });
    const reads = compacted.messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id);
    expect(reads).not.toContain("call_3");
    // In a 12k window the parser's read is over the share recent reads may keep.
    const small = await compact({ model, messages }, { contextWindow: 12_000, force: true });
    expect(small.compacted).toBe(true);
    expect(small.finalTokens).toBeLessThanOrEqual(small.budget);
  });
});

describe("recentReadsFrom", () => {
  const turn = (id: string): ChatMessage[] => [
    assistant(null, [call(id, "bash", { command: "ls" })]),
    result(id, "out"),
  ];
  const messages: ChatMessage[] = [
    user("task"),
    ...turn("a"),
    ...turn("b"),
    assistant("Done with that."),
    user("Next, the parser."),
    ...turn("c"),
    ...turn("d"),
  ];
  const tokens = messages.map(() => 10);
  const newestFrom = messages.length;

  it("keeps the last two turns with calls and what lies between them", () => {
    expect(recentReadsFrom(messages, tokens, newestFrom, 1_000)).toBe(7);
    const spaced = [...messages.slice(0, 9), assistant("Now d."), user("ok"), ...messages.slice(9)];
    expect(
      recentReadsFrom(
        spaced,
        spaced.map(() => 10),
        spaced.length,
        1_000,
      ),
    ).toBe(7);
  });

  it("keeps fewer turns when the budget is short, and never reaches the previous summary", () => {
    expect(recentReadsFrom(messages, tokens, newestFrom, 25)).toBe(9);
    expect(recentReadsFrom(messages, tokens, newestFrom, 1_000, 8)).toBe(9);
    expect(recentReadsFrom(messages, tokens, newestFrom, 5)).toBe(newestFrom);
  });
});
