import { describe, expect, it } from "vitest";
import type { ModelRequest } from "./model-turn.ts";
import { scriptedModel, stepCallId } from "./scripted-model.ts";
import { buildTask, noteText } from "./task.ts";

const task = buildTask("t1");
const request = (
  toolResults: ModelRequest["toolResults"],
  tools = ["read", "bash", "write"],
): ModelRequest => ({
  tools,
  toolResults,
  userText: toolResults.length === 0 ? task.prompt : "",
  systemText: "",
  reasoning: false,
});

describe("the scripted model", () => {
  it("has 64 steps: 63 tool calls and a final answer", () => {
    expect(task.steps).toHaveLength(64);
    expect(task.steps.filter((step) => step.action.kind === "finish")).toHaveLength(1);
  });

  it("answers each step in the agent's dialect, the step read back from the newest tool result", () => {
    const model = scriptedModel({ agent: "pi", task, workspace: "/w" });
    expect(model.answer(request([])).call).toMatchObject({
      name: "bash",
      input: { command: "ls notes | wc -l" },
    });
    const second = model.answer(request([{ callId: `call_${stepCallId(0)}`, text: "40\n" }]));
    expect(second.call).toMatchObject({
      id: stepCallId(1),
      name: "read",
      input: { path: "notes/part-01.md" },
    });
    // A retry of the same request gets the same answer.
    const again = model.answer(request([{ callId: `call_${stepCallId(0)}`, text: "40\n" }]));
    expect(again.call?.id).toBe(stepCallId(1));
    expect(model.failures).toEqual([]);
  });

  it("records a failure when the file it read arrives pruned or cut", () => {
    const model = scriptedModel({ agent: "claude-code", task, workspace: "/w" });
    model.answer(
      request([{ callId: `toolu_${stepCallId(1)}`, text: "[Condense pruned 5,120 characters]" }]),
    );
    const whole = noteText("t1", 2);
    model.answer(request([{ callId: `toolu_${stepCallId(2)}`, text: whole.slice(0, 1000) }]));
    expect(model.failures.map((failure) => failure.step)).toEqual([1, 2]);
    expect(model.failures[0]?.problem).toContain("MARK-t1-01-BEGIN");
  });

  it("answers a request without tools as a side request (a title), not a turn", () => {
    const model = scriptedModel({ agent: "opencode", task, workspace: "/w" });
    const title = { ...request([], []), systemText: "You are a title generator." };
    expect(model.isSide(title)).toBe(true);
    expect(model.answer(title)).toEqual({ text: "Notes report" });
    expect(model.answered).toEqual([]);
  });

  it("uses apply_patch, a custom tool, for Codex's write", () => {
    const write = task.steps.find((step) => step.action.kind === "write");
    const model = scriptedModel({ agent: "codex", task, workspace: "/w" });
    const answer = model.answer(
      request([
        {
          callId: `call_${stepCallId((write?.index ?? 0) - 1)}`,
          text: task.steps[(write?.index ?? 0) - 1]?.expect.join(" ") ?? "",
        },
      ]),
    );
    expect(answer.call).toMatchObject({ kind: "custom", name: "apply_patch" });
    expect(answer.call?.input).toMatch(
      /^\*\*\* Begin Patch\n\*\*\* Add File: report\.md\n\+# Report/,
    );
  });
});
