import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../messages/types.js";
import { fromCanonical, toCanonical } from "../convert.js";
import { fromGemini, GEMINI_PLACEHOLDER_SIGNATURE, toGemini } from "./convert.js";

const system = { parts: [{ text: "You are a coding agent." }] };

/** A Gemini CLI turn: a thought, a signed call without id, answered with the CLI's own id. */
const contents = [
  { role: "user", parts: [{ text: "Read the entry point." }] },
  {
    role: "model",
    parts: [
      { text: "Looking for it.", thought: true },
      {
        functionCall: { name: "read_file", args: { path: "src/index.ts" } },
        thoughtSignature: "sig-1",
      },
    ],
  },
  {
    role: "user",
    parts: [
      {
        functionResponse: {
          id: "read_file-1732-abc",
          name: "read_file",
          response: { output: "export {};" },
        },
      },
    ],
  },
  { role: "model", parts: [{ text: "It exports nothing." }] },
];

describe("Gemini contents ↔ canonical", () => {
  it("reads calls, their answers, thoughts and the system instruction", () => {
    const messages = fromGemini({ system, messages: contents });
    expect(messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(messages[0]?.content).toBe("You are a coding agent.");
    expect(messages[2]).toMatchObject({
      content: null,
      tool_calls: [
        {
          id: "call_0",
          function: { name: "read_file", arguments: JSON.stringify({ path: "src/index.ts" }) },
        },
      ],
    });
    // The CLI's own id answers the call Gemini gave no id.
    expect(messages[3]).toMatchObject({ tool_call_id: "call_0", content: "export {};" });
    // The thought is no content.
    expect(JSON.stringify(messages[2]?.content)).not.toContain("Looking");
  });

  it("names a call alike whether read from an answer or from the next history", () => {
    const answer = fromGemini({ messages: [contents[1]] });
    const history = fromGemini({ messages: contents });
    expect(answer[0]?.tool_calls).toEqual(history[1]?.tool_calls);
  });

  it("names a call alike when the next history gives it an id of its own (Gemini CLI 0.61)", () => {
    // Gemini CLI writes its id on the call in its history as well as on the response.
    const cliId = "run_shell_command_1795928835051_0";
    const renamed = contents.map((content, index) =>
      index === 1
        ? {
            role: "model",
            parts: [
              { text: "Looking for it.", thought: true },
              {
                functionCall: { id: cliId, name: "read_file", args: { path: "src/index.ts" } },
                thoughtSignature: "sig-1",
              },
            ],
          }
        : index === 2
          ? {
              role: "user",
              parts: [
                {
                  functionResponse: {
                    id: cliId,
                    name: "read_file",
                    response: { output: "export {};" },
                  },
                },
              ],
            }
          : content,
    );
    const answer = fromGemini({ messages: [contents[1]] });
    const history = fromGemini({ messages: renamed });
    expect(history[1]?.tool_calls).toEqual(answer[0]?.tool_calls);
    expect(history[2]).toMatchObject({ tool_call_id: "call_0" });
    // Sent back as the client wrote it, its ids included.
    expect(
      fromCanonical(toCanonical({ format: "gemini", messages: renamed }), "gemini").messages,
    ).toEqual(renamed);
  });

  it("answers two calls of one name by the client's ids, whatever order the responses come in", () => {
    const call = (id: string, path: string) => ({
      functionCall: { id, name: "read_file", args: { path } },
    });
    const response = (id: string, output: string) => ({
      functionResponse: { id, name: "read_file", response: { output } },
    });
    const messages = fromGemini({
      messages: [
        { role: "user", parts: [{ text: "Read both." }] },
        { role: "model", parts: [call("a", "a.ts"), call("b", "b.ts")] },
        { role: "user", parts: [response("b", "B"), response("a", "A")] },
      ],
    });
    expect(messages.slice(2)).toMatchObject([
      { tool_call_id: "call_1", content: "B" },
      { tool_call_id: "call_0", content: "A" },
    ]);
  });

  it("round-trips verbatim, thought signatures and ids included", () => {
    const messages = toCanonical({ format: "gemini", system, messages: contents });
    const back = fromCanonical(messages, "gemini");
    expect(back.messages).toEqual(contents);
    expect(back.system).toEqual(system);
  });

  it("keeps the signature of a call on a rewritten turn, and puts the placeholder where there was none", () => {
    const messages = toCanonical({ format: "gemini", messages: contents });
    const rewritten: ChatMessage[] = messages.map((message, index) =>
      index === 1 ? { ...message, content: "Reading it." } : message,
    );
    const back = fromCanonical(rewritten, "gemini").messages as Array<{
      parts: Array<Record<string, unknown>>;
    }>;
    expect(back[1]?.parts).toEqual([
      { text: "Reading it." },
      {
        functionCall: { name: "read_file", args: { path: "src/index.ts" } },
        thoughtSignature: "sig-1",
      },
    ]);
    const foreign: ChatMessage[] = [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "ls", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c1", content: "a.ts" },
    ];
    const written = toGemini(foreign).contents;
    expect(written[1]?.parts[0]).toEqual({
      functionCall: { name: "ls", args: {} },
      thoughtSignature: GEMINI_PLACEHOLDER_SIGNATURE,
    });
    expect(written[2]?.parts[0]).toEqual({
      functionResponse: { name: "ls", response: { output: "a.ts" } },
    });
  });

  it("merges turns of one role and writes a summary after the first turn as user text", () => {
    const messages: ChatMessage[] = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "one" },
      { role: "system", content: "<compacted-context>…</compacted-context>" },
      { role: "user", content: "two" },
      { role: "assistant", content: "ok" },
    ];
    const request = toGemini(messages);
    expect(request.systemInstruction).toEqual({ parts: [{ text: "Be brief." }] });
    expect(request.contents).toEqual([
      {
        role: "user",
        parts: [
          { text: "one" },
          { text: "<compacted-context>…</compacted-context>" },
          { text: "two" },
        ],
      },
      { role: "model", parts: [{ text: "ok" }] },
    ]);
  });

  it("lists every problem of malformed contents", () => {
    let problems: Array<{ index: number; kind: string }> = [];
    try {
      toCanonical({ format: "gemini", messages: [{ role: "assistant", parts: [] }, "x"] });
    } catch (error) {
      problems = (error as { problems: Array<{ index: number; kind: string }> }).problems;
    }
    expect(problems.map((problem) => `${problem.index}:${problem.kind}`)).toEqual([
      "0:invalid_role",
      "0:invalid_content",
      "1:invalid_content",
    ]);
  });

  it("refuses a file known only by its id rather than drop it", () => {
    expect(() =>
      toGemini([{ role: "user", content: [{ type: "file", file: { file_id: "file-1" } }] }]),
    ).toThrow(/file_id/);
  });
});
