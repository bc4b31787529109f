import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateMessages } from "../formats/validate.js";
import { messageText, toolCallInput } from "../messages/content.js";
import {
  arbConversation,
  assistant,
  bulkyOutput,
  call,
  result,
  user,
} from "../test-support/conversation.js";
import { countMessageTokens } from "../tokens/count.js";
import { isPrunePlaceholder, pruneToolOutputs } from "./prune.js";

const model = "gpt-4o";

describe("pruneToolOutputs", () => {
  const big = bulkyOutput(80);
  const messages = [
    user("start"),
    assistant(null, [call("c1", "read_file", { path: "a.py" })]),
    result("c1", big),
    assistant(null, [call("c2", "bash", { command: "ls" })]),
    result("c2", "short output"),
    assistant(null, [call("c3", "read_file", { path: "b.py" })]),
    result("c3", bulkyOutput(80, "b")),
    user("end"),
  ];

  it("replaces long outputs with a one-line placeholder naming the tool and call id", () => {
    const outcome = pruneToolOutputs(messages, model, {
      from: 0,
      to: messages.length,
      needToSave: Number.POSITIVE_INFINITY,
    });
    const replaced = messageText(outcome.messages[2] ?? user(""));
    expect(replaced).toContain("read_file");
    expect(replaced).toContain("c1");
    expect(replaced).not.toContain("\n");
    expect(isPrunePlaceholder(replaced)).toBe(true);
    expect(outcome.messages[4]?.content).toBe("short output");
    expect(outcome.pruned.map((p) => p.toolCallId)).toEqual(["c1", "c3"]);
    expect(outcome.pruned[0]?.content).toBe(big);
    expect(outcome.pruned[0]?.toolName).toBe("read_file");
    expect(outcome.saved).toBeGreaterThan(0);
  });

  it("prunes oldest first and stops once enough is saved", () => {
    const outcome = pruneToolOutputs(messages, model, {
      from: 0,
      to: messages.length,
      needToSave: 10,
    });
    expect(outcome.pruned.map((p) => p.toolCallId)).toEqual(["c1"]);
    expect(outcome.messages[6]).toBe(messages[6]);
  });

  it("never touches messages outside the range", () => {
    const outcome = pruneToolOutputs(messages, model, {
      from: 0,
      to: 5,
      needToSave: Number.POSITIVE_INFINITY,
    });
    expect(outcome.messages[6]).toBe(messages[6]);
  });

  it("deduplicates an output repeated later, naming the later call", () => {
    const repeated = [
      user("go"),
      assistant(null, [call("c1", "bash", { command: "pytest" })]),
      result("c1", big),
      assistant(null, [call("c2", "bash", { command: "pytest" })]),
      result("c2", big),
    ];
    const outcome = pruneToolOutputs(repeated, model, { from: 0, to: 3, needToSave: 1 });
    expect(messageText(outcome.messages[2] ?? user(""))).toContain(
      "identical to the later result of tool call id c2",
    );
    expect(outcome.messages[4]).toBe(repeated[4]);
  });

  it("tells two calls that share an id apart, in placeholders and in what it hands back", () => {
    const reused = [
      user("go"),
      assistant(null, [call("call_0", "bash", { command: "pytest" })]),
      result("call_0", big),
      assistant(null, [call("call_0", "read_file", { path: "a.py" })]),
      result("call_0", bulkyOutput(80, "a")),
      assistant(null, [call("call_0", "bash", { command: "pytest" })]),
      result("call_0", big),
    ];
    const outcome = pruneToolOutputs(reused, model, {
      from: 0,
      to: 5,
      needToSave: Number.POSITIVE_INFINITY,
    });
    expect(messageText(outcome.messages[2] ?? user(""))).toContain(
      "identical to the later result of tool call id call_0 (call 3 with that id)",
    );
    expect(messageText(outcome.messages[4] ?? user(""))).toContain(
      "fetch it back by tool call id call_0 (call 2 with that id)",
    );
    expect(outcome.pruned.map((p) => [p.occurrence, p.toolName])).toEqual([
      [1, "bash"],
      [2, "read_file"],
    ]);
  });

  it("shrinks oversized tool-call arguments and keeps them valid JSON", () => {
    const write = [
      user("write it"),
      assistant(null, [call("w1", "write_file", { path: "big.ts", content: "x".repeat(20_000) })]),
      result("w1", "ok"),
    ];
    const outcome = pruneToolOutputs(write, model, {
      from: 0,
      to: 3,
      needToSave: Number.POSITIVE_INFINITY,
    });
    const shrunk = outcome.messages[1]?.tool_calls?.[0];
    const args = shrunk === undefined ? "" : toolCallInput(shrunk);
    const parsed = JSON.parse(args) as { path: string; content: string };
    expect(parsed.path).toBe("big.ts");
    expect(parsed.content.length).toBeLessThan(1_000);
  });

  it("keeps the identifiers of the part of an argument it cuts", () => {
    const script = `${"x = 1\n".repeat(400)}open(os.path.join(root, 'settings.py'))\nfetch('https://api.example.com/v2/items')`;
    const write = [
      user("run it"),
      assistant(null, [call("w1", "bash", { command: script })]),
      result("w1", "ok"),
    ];
    const outcome = pruneToolOutputs(write, model, {
      from: 0,
      to: 3,
      needToSave: Number.POSITIVE_INFINITY,
    });
    const shrunk = outcome.messages[1]?.tool_calls?.[0];
    const args = shrunk === undefined ? "" : toolCallInput(shrunk);
    const command = (JSON.parse(args) as { command: string }).command;
    expect(command.length).toBeLessThan(script.length);
    expect(command).toContain("settings.py");
    expect(command).toContain("https://api.example.com/v2/items");
  });

  it("keeps conversations valid and never grows them", () => {
    fc.assert(
      fc.property(arbConversation(), (conversation) => {
        const outcome = pruneToolOutputs(conversation, model, {
          from: 0,
          to: conversation.length,
          needToSave: Number.POSITIVE_INFINITY,
        });
        expect(outcome.messages).toHaveLength(conversation.length);
        expect(validateMessages(outcome.messages, "openai").ok).toBe(true);
        expect(countMessageTokens(outcome.messages, model)).toBeLessThanOrEqual(
          countMessageTokens(conversation, model),
        );
      }),
      { numRuns: 60 },
    );
  });
});
