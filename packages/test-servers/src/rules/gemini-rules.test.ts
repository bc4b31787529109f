import { describe, expect, it } from "vitest";
import { callSignatureText, geminiViolation } from "./gemini-rules.ts";
import { sign } from "./signatures.ts";

const call = { name: "read_file", args: { path: "a.ts" } };
const user = { role: "user", parts: [{ text: "Read a.ts" }] };
const answer = { role: "user", parts: [{ functionResponse: { name: "read_file", response: {} } }] };

function withSignature(signature?: string) {
  return {
    contents: [
      user,
      {
        role: "model",
        parts: [{ functionCall: call, ...(signature ? { thoughtSignature: signature } : {}) }],
      },
      answer,
    ],
  };
}

describe("Gemini's rules", () => {
  it("takes a call signed by the server, or the documented placeholder", () => {
    expect(geminiViolation(withSignature(sign(callSignatureText(call))))).toBeUndefined();
    expect(geminiViolation(withSignature("skip_thought_signature_validator"))).toBeUndefined();
  });

  it("refuses a current turn's call without its signature, or with a changed one", () => {
    expect(geminiViolation(withSignature())?.message).toMatch(
      /^Function call is missing a thought_signature/,
    );
    expect(geminiViolation(withSignature("forged"))?.message).toMatch(/not valid/);
  });

  it("refuses a call turn whose responses do not match its calls, and roles it does not know", () => {
    const twoCalls = {
      contents: [
        user,
        {
          role: "model",
          parts: [
            { functionCall: call, thoughtSignature: "skip_thought_signature_validator" },
            { functionCall: call },
          ],
        },
        answer,
      ],
    };
    expect(geminiViolation(twoCalls)?.message).toMatch(/number of function response parts/);
    expect(
      geminiViolation({ contents: [{ role: "assistant", parts: [{ text: "x" }] }] })?.message,
    ).toBe("Please use a valid role: user, model.");
    expect(geminiViolation({ contents: [answer] })?.message).toMatch(
      /function response turn comes immediately after a function call turn/,
    );
  });
});
