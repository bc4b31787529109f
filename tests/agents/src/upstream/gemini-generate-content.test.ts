import { describe, expect, it } from "vitest";
import { scriptedModel } from "../model/scripted-model.ts";
import { buildTask, noteText } from "../model/task.ts";
import { geminiGenerateContent } from "./gemini-generate-content.ts";

const task = buildTask("g1");
const tools = [{ functionDeclarations: [{ name: "read_file" }, { name: "run_shell_command" }] }];
const prompt = { role: "user", parts: [{ text: task.prompt }] };
const readCall = (n: number) => ({
  name: "read_file",
  args: { file_path: `/w/notes/part-${String(n).padStart(2, "0")}.md` },
});
/** A model turn with its call, answered as Gemini CLI answers: an id of its own. */
const exchange = (call: { name: string; args: object }, output: string) => [
  { role: "model", parts: [{ text: "Step." }, { functionCall: call }] },
  {
    role: "user",
    parts: [
      {
        functionResponse: {
          id: `${call.name}_1795928835051_0`,
          name: call.name,
          response: { output },
        },
      },
    ],
  },
];

describe("the agents' Gemini protocol", () => {
  it("reads each function response with the call it answers, so the model finds its step without ids", () => {
    const body = {
      tools,
      contents: [prompt, ...exchange(readCall(1), noteText("g1", 1))],
    };
    const request = geminiGenerateContent.read(body);
    expect(request.toolResults[0]?.call).toEqual({ name: "read_file", input: readCall(1).args });
    const model = scriptedModel({ agent: "gemini-cli", task, workspace: "/w" });
    // Step 1 read part 01; step 2 reads part 02.
    expect(model.answer(request).call).toMatchObject({
      name: "read_file",
      input: { file_path: "/w/notes/part-02.md" },
    });
    expect(model.failures).toEqual([]);
  });

  it("checks the output against the step its call names", () => {
    const body = { tools, contents: [prompt, ...exchange(readCall(2), "cut")] };
    const model = scriptedModel({ agent: "gemini-cli", task, workspace: "/w" });
    model.answer(geminiGenerateContent.read(body));
    expect(model.failures.map((failure) => failure.step)).toEqual([2]);
  });

  it("refuses turns that do not alternate, or a request that ends on the model's turn", () => {
    const twoUsers = { contents: [prompt, { role: "user", parts: [{ text: "more" }] }] };
    expect(geminiGenerateContent.violation(twoUsers, {})?.message).toBe(
      "Please ensure that multiturn requests alternate between user and model.",
    );
    const endsOnModel = { contents: [prompt, { role: "model", parts: [{ text: "Hi" }] }] };
    expect(geminiGenerateContent.violation(endsOnModel, {})?.message).toContain(
      "ends with a user role or a function response",
    );
    const fine = { tools, contents: [prompt] };
    expect(geminiGenerateContent.violation(fine, {})).toBeUndefined();
  });
});
