/**
 * @module summary/llm/answer-checks
 * What every LLM summarizer checks of a model's answer before it is a summary: no refusal (in
 * the refusal field or written as text), no content filter stop, no truncation, not empty; and
 * the summary inside the answer (inline reasoning, a wrapping fence and a short preamble
 * dropped). A failed check is a `SummarizerError` whose `kind` says which, so the engine falls
 * to the next tier. Shared by the OpenAI summarizer and the cached-prompt one.
 */

import { SummarizerError } from "../../errors/condense-error.js";
import { missingSections, REQUIRED_SECTIONS } from "../template.js";
import { stripInlineReasoning } from "./chunk.js";

/** Text before the first heading longer than this is kept (it is content, not a "Here is the summary:" preamble). */
const PREAMBLE_MAX_CHARS = 300;

// \u2019 is the typographic apostrophe, escaped: this module shares its bundle chunk with the
// rank data, which must stay ASCII (see scripts/bundle.ts).
const refusalStart =
  /^\s*(?:I['\u2019]m sorry|I am sorry|sorry\b|I apologi[sz]e|I can(?:no|['\u2019])t\b|I cannot\b|I won['\u2019]t\b|I will not\b|I['\u2019]m (?:not able|unable)\b|I am (?:not able|unable)\b|As an AI\b)/i;

/** A refusal written as text instead of in the refusal field: refusal wording and none of the template. */
export function looksLikeRefusal(text: string): boolean {
  return (
    refusalStart.test(text.slice(0, 300)) &&
    missingSections(text).length === REQUIRED_SECTIONS.length
  );
}

/**
 * The summary inside a model's answer: inline reasoning dropped, a wrapping
 * ```markdown fence and a short preamble before the first heading removed.
 */
export function unwrapSummary(answer: string): string {
  let text = stripInlineReasoning(answer).trim();
  const fenced = /^```[a-zA-Z]*\n([\s\S]*)\n```$/.exec(text);
  if (fenced?.[1] !== undefined) text = fenced[1].trim();
  const heading = /^#{1,4}\s/m.exec(text);
  if (heading !== null && heading.index > 0 && heading.index <= PREAMBLE_MAX_CHARS)
    text = text.slice(heading.index);
  return text;
}

/** The parts of a model's answer the checks read. */
export interface SummaryAnswer {
  content: string;
  refusal: string;
  finishReason: string | null;
}

/**
 * The summary in `answer` (of `model`, writing `what`), or a `SummarizerError` saying what is
 * wrong with it; `sanitize` makes the model's text fit to show in the error.
 */
export function acceptSummaryAnswer(
  answer: SummaryAnswer,
  what: string,
  model: string,
  sanitize: (text: string) => string,
): string {
  if (answer.refusal.trim() !== "") {
    throw new SummarizerError(
      "refusal",
      `the summarizer (${model}) refused ${what}: ${sanitize(answer.refusal.slice(0, 200))}`,
    );
  }
  if (answer.finishReason === "content_filter") {
    throw new SummarizerError(
      "refusal",
      `the summarizer (${model}) stopped ${what} on its content filter`,
    );
  }
  if (answer.finishReason === "length") {
    throw new SummarizerError(
      "truncated",
      `the summarizer (${model}) hit its token limit while writing ${what}; raise the summary size limit or maxOutputTokens`,
    );
  }
  const text = unwrapSummary(answer.content);
  if (text === "")
    throw new SummarizerError("empty", `the summarizer (${model}) returned an empty ${what}`);
  if (looksLikeRefusal(text)) {
    throw new SummarizerError(
      "refusal",
      `the summarizer (${model}) refused ${what}: ${sanitize(text.slice(0, 200))}`,
    );
  }
  return text;
}
