import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../messages/types.js";
import { anthropicUnsupportedParts } from "./unsupported-parts.js";

describe("anthropicUnsupportedParts", () => {
  it("names audio and files Anthropic cannot hold, by message and part, and nothing else", () => {
    const messages: ChatMessage[] = [
      { role: "system", content: "Be brief." },
      {
        role: "user",
        content: [
          { type: "text", text: "Here." },
          { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=" } },
          { type: "file", file: { file_data: "data:image/png;base64,iVBORw0=" } },
          { type: "file", file: { file_id: "file-1" } },
          { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
          { type: "file", file: { file_data: "data:application/zip;base64,UEsDBA==" } },
        ],
      },
    ];
    const problems = anthropicUnsupportedParts(messages);
    expect(problems.map((problem) => `${problem.index}|${problem.path}|${problem.kind}`)).toEqual([
      "1|content[4]|unsupported_part",
      "1|content[5]|unsupported_part",
    ]);
    expect(problems[0]?.message).toContain("Claude takes no audio");
    expect(problems[1]?.message).toContain("application/zip");
  });
});
