import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidMessagesError, type MessageProblem } from "../errors/condense-error.js";
import { arbMediaConversation } from "../test-support/message-arbitraries.js";
import { parseMessages } from "./parse.js";

function problemsOf(input: unknown): MessageProblem[] {
  try {
    parseMessages(input);
  } catch (error) {
    if (InvalidMessagesError.isInstance(error)) return error.problems;
    throw error;
  }
  throw new Error("expected parseMessages to throw");
}

describe("parseMessages: file and audio parts", () => {
  const pdf = "data:application/pdf;base64,JVBERi0xLjQK";

  it("keeps Chat Completions' file and input_audio parts of a user message", () => {
    const input = [
      {
        role: "user",
        content: [
          { type: "text", text: "Summarize these." },
          { type: "file", file: { file_data: pdf, filename: "spec.pdf" } },
          { type: "file", file: { file_id: "file-abc123" } },
          { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
          { type: "input_audio", input_audio: { data: "SUQz", format: "mp3" } },
        ],
      },
    ];
    expect(parseMessages(input)).toEqual(input);
  });

  it("drops unknown keys of a file part and null fields, as for other parts", () => {
    const [message] = parseMessages([
      {
        role: "user",
        content: [
          {
            type: "file",
            file: { file_data: pdf, file_id: null, filename: null, extra: 1 },
            cache: true,
          },
        ],
      },
    ]);
    expect(message?.content).toEqual([{ type: "file", file: { file_data: pdf } }]);
  });

  it("is the identity on conversations with images, files and audio (property)", () => {
    fc.assert(
      fc.property(arbMediaConversation, (messages) => {
        expect(parseMessages(JSON.parse(JSON.stringify(messages)))).toEqual(messages);
      }),
      { numRuns: 100 },
    );
  });

  it("names what is wrong with a file or audio part and how to fix it", () => {
    const problems = problemsOf([
      {
        role: "user",
        content: [
          { type: "file", file: "spec.pdf" },
          { type: "file", file: { filename: "spec.pdf" } },
          { type: "file", file: { file_data: 5, file_id: "" } },
          { type: "input_audio", input_audio: { data: "", format: "wav" } },
          { type: "input_audio", input_audio: { data: "UklGRg==", format: "ogg" } },
          { type: "input_audio" },
        ],
      },
      {
        role: "assistant",
        content: [{ type: "file", file: { file_id: "file-1" } }],
      },
      {
        role: "tool",
        tool_call_id: "c",
        content: [{ type: "input_audio", input_audio: { data: "SUQz", format: "mp3" } }],
      },
    ]);
    expect(problems.map((problem) => `${problem.index}|${problem.path}|${problem.kind}`)).toEqual([
      "0|content[0].file|invalid_part",
      "0|content[1].file|invalid_part",
      "0|content[2].file.file_data|invalid_part",
      "0|content[2].file.file_id|invalid_part",
      "0|content[3].input_audio.data|invalid_part",
      "0|content[4].input_audio.format|invalid_part",
      "0|content[5].input_audio|invalid_part",
      "1|content[0]|file_not_allowed",
      "2|content[0]|audio_not_allowed",
    ]);
    expect(problems[1]?.message).toContain("`file_data`");
    expect(problems[1]?.message).toContain("`file_id`");
    expect(problems[5]?.message).toContain("wav or mp3");
    expect(problems[7]?.message).toContain("user message");
  });
});
