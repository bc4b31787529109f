/**
 * @module template-summary
 * The answer of a summarizer that always does its job: a summary with every
 * section of the engine's template. The sections come from the caller
 * (`SUMMARY_SECTIONS` of `@condense/core`), as this package does not depend
 * on the engine it tests.
 */

import { requestText } from "./request-text.ts";
import type { Handler, ReceivedRequest } from "./server.ts";

/**
 * A summary with every one of `sections`, echoing every `[[SECRET_n]]` placeholder anywhere in
 * the request (so tests can check restoration) and the number of the request.
 */
export function templateSummary(
  sections: readonly string[],
  request: ReceivedRequest,
  index = 0,
): string {
  const placeholders = [...new Set(requestText(request).match(/\[\[SECRET_\d+\]\]/g) ?? [])];
  return sections
    .map((section) => {
      let body = "None";
      if (section === "Goal") body = `Summary written for request ${index + 1}.`;
      if (section === "Critical context" && placeholders.length > 0)
        body = `Credentials: ${placeholders.join(" ")}`;
      return `## ${section}\n${body}`;
    })
    .join("\n\n");
}

/** A handler that answers every request with `templateSummary` of `sections`. */
export function templateHandler(sections: readonly string[]): Handler {
  return (request, index) => ({
    type: "completion",
    content: templateSummary(sections, request, index),
  });
}
