/**
 * @module rules/gemini-rules
 * The Gemini API's request rules the scripted upstream enforces, with
 * Gemini's wording: non-empty `contents` of roles `user` and `model`, no
 * content without parts; a function call turn comes right after a user turn
 * or a function response turn, and is answered by the next content with as
 * many function responses as it has calls; and (Gemini 3) each model turn of
 * the current turn carries a thought signature on its first function call:
 * one this server signed, unchanged, or Gemini's documented placeholder.
 */

import { type JsonObject, objects } from "../json.ts";
import { verifies } from "./signatures.ts";
import type { Violation } from "./violation.ts";

/** The signatures Gemini documents for calls it did not sign (another model's, or rewritten). */
export const GEMINI_PLACEHOLDERS = new Set([
  "skip_thought_signature_validator",
  "context_engineering_is_the_way_to_go",
]);

function invalid(message: string): Violation {
  return { status: 400, message, errorType: "INVALID_ARGUMENT" };
}

function parts(content: JsonObject): JsonObject[] {
  return objects(content.parts);
}

const calls = (content: JsonObject) => parts(content).filter((part) => part.functionCall);
const responses = (content: JsonObject) => parts(content).filter((part) => part.functionResponse);

/** What the server signs of a call: its name and arguments. */
export function callSignatureText(call: unknown): string {
  const { name, args } = (call ?? {}) as { name?: unknown; args?: unknown };
  return JSON.stringify([name, args ?? {}]);
}

export function geminiViolation(body: JsonObject): Violation | undefined {
  const contents = objects(body.contents);
  if (contents.length === 0) {
    return invalid("* GenerateContentRequest.contents: contents is not specified");
  }
  for (const [index, content] of contents.entries()) {
    const role = content.role ?? "user";
    if (role !== "user" && role !== "model") {
      return invalid(`Please use a valid role: user, model.`);
    }
    if (parts(content).length === 0) {
      return invalid(
        `* GenerateContentRequest.contents[${index}].parts: contents.parts must not be empty.`,
      );
    }
    if (calls(content).length > 0) {
      const before = contents[index - 1];
      if (before === undefined || (before.role ?? "user") !== "user") {
        return invalid(
          "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
        );
      }
      const next = contents[index + 1];
      if (next !== undefined && responses(next).length !== calls(content).length) {
        return invalid(
          "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
        );
      }
    }
    if (responses(content).length > 0) {
      const before = contents[index - 1];
      if (before === undefined || calls(before).length === 0) {
        return invalid(
          "Please ensure that function response turn comes immediately after a function call turn.",
        );
      }
    }
  }
  return signatureViolation(contents);
}

/** The current turn's model turns: each one's first call signed (by this server, or the placeholder). */
function signatureViolation(contents: JsonObject[]): Violation | undefined {
  let start = 0;
  contents.forEach((content, index) => {
    if ((content.role ?? "user") === "user" && parts(content).some((part) => "text" in part)) {
      start = index;
    }
  });
  for (const [index, content] of contents.entries()) {
    if (index < start || content.role !== "model") continue;
    const first = calls(content)[0];
    if (first === undefined) continue;
    const signature = first.thoughtSignature;
    if (signature === undefined) {
      const name = (first.functionCall as { name?: unknown }).name;
      return invalid(
        `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${String(name)}\` , position ${index + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
      );
    }
    if (
      !GEMINI_PLACEHOLDERS.has(String(signature)) &&
      !verifies(callSignatureText(first.functionCall), signature)
    ) {
      return invalid(`Thought signature is not valid. Content position ${index + 1}.`);
    }
  }
  return undefined;
}
