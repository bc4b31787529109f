/**
 * @module upstream/gemini-alternation
 * A rule of Gemini's the shared test server leaves out, enforced for the
 * agents: the conversation alternates between `user` and `model` and ends on
 * the user's side (a text or the function responses). Vertex AI and the
 * earlier Gemini models refuse a request that breaks it, in these words; the
 * current API merges such turns, so a client (or a gateway rewriting its
 * history) that keeps to it works everywhere.
 */

import { type JsonObject, objects, type Violation } from "@condense/test-servers";

function invalid(message: string): Violation {
  return { status: 400, message, errorType: "INVALID_ARGUMENT" };
}

export function alternationViolation(body: JsonObject): Violation | undefined {
  const roles = objects(body.contents).map((content) => content.role ?? "user");
  if (roles.some((role, index) => index > 0 && roles[index - 1] === role)) {
    return invalid("Please ensure that multiturn requests alternate between user and model.");
  }
  if (roles.length > 0 && roles.at(-1) !== "user") {
    return invalid(
      "Please ensure that multiturn requests ends with a user role or a function response.",
    );
  }
  return undefined;
}
