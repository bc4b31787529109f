/**
 * @module summary/extractive/sentences
 * The sentences the extractive summary quotes: the prose sentences of a
 * message (code fences, tables, tags and quotes left out), and the patterns
 * that pick them: constraints the user set, decisions the assistant made,
 * work it reports done, what it intends next, and guesses that are none of these.
 */

import { TRUNCATION_MARK } from "../ledger/ledger.js";
import { oneLine } from "../summary-lines.js";
import { MAX_SENTENCE } from "./range-reading.js";

/** Prose sentences of a message: code fences, tables, tags and quotes dropped, list markers removed. */
function sentences(text: string): string[] {
  const out: string[] = [];
  const parts = text.split("```");
  for (let p = 0; p < parts.length; p += 2) {
    for (const rawLine of (parts[p] ?? "").split("\n")) {
      if (/^\s*(?:[|<>{}$#]|\/\/|\s{4})/.test(rawLine)) continue;
      const line = rawLine
        .replace(/^\s*(?:[-*+]|\d+[.)])\s+/, "")
        .replace(/\*\*/g, "")
        .trim();
      if (line === "") continue;
      for (const sentence of line.split(/(?<=[.!?])\s+(?=[A-Z`"'(*[])/)) {
        const trimmed = sentence.trim();
        if (trimmed.length >= 12) out.push(oneLine(trimmed, MAX_SENTENCE));
      }
    }
  }
  return out;
}

export const CONSTRAINT =
  /\b(?:must|never|don'?t|do not|always|prefer(?:s|red)?|should(?:n'?t)?|avoid|make sure|ensure|required?|not allowed|forbidden|only use|instead of)\b/i;
export const DECISION =
  /\b(?:decided|decide to|instead|because|will use|I'll use|we'll use|going to use|chose|choose to|opted|rather than|switch(?:ed|ing)? to|root cause|the (?:fix|approach|solution|problem|issue) (?:is|was))\b/i;
const DONE_VERBS =
  "fixed|implemented|added|created|updated|completed|finished|resolved|committed|pushed|merged|removed|renamed|refactored|wrote|modified|replaced|installed|verified";
/** Reports of finished work: a sentence opening with a past-tense verb, a perfect tense, passing tests. */
export const DONE = new RegExp(
  `^(?:(?:I|We)(?:'ve| have)? )?(?:successfully )?(?:${DONE_VERBS})\\b` +
    `|\\b(?:has been|have been|is now|are now) (?:\\w+ )?(?:${DONE_VERBS}|working|passing)\\b` +
    "|\\b(?:I've|I have|we've|we have) (?:now |also |just |successfully )?\\w+(?:ed|en|t)\\b" +
    "|\\b(?:all|the) (?:\\d+ )?tests? (?:now )?pass(?:es|ed|ing)?\\b|\\bsuccessfully\\b" +
    "|\\b(?:is|are) (?:now )?(?:committed|pushed|complete|done|fixed)\\b",
  "i",
);
export const SPECULATION = /^(?:Maybe|Perhaps|Possibly|Let me|Let's|I wonder|It seems|Wait|Hmm)\b/i;
export const INTENT =
  /\b(?:next|then I|let me|let's|I'll|I will|we need to|need to|going to|remaining|TODO|still have to|will now)\b/i;
export const FUTURE = /\b(?:will|let me|let's|I'll|going to|need to|should|next|now I|try)\b/i;

export function matching(texts: readonly string[], pattern: RegExp, exclude?: RegExp): string[] {
  const found: string[] = [];
  for (const text of texts) {
    for (const sentence of sentences(text)) {
      // Questions and list headers (`Each response should include:`) are not statements.
      if (!pattern.test(sentence) || sentence.endsWith("?") || sentence.endsWith(":")) continue;
      if (exclude?.test(sentence)) continue;
      found.push(sentence);
    }
  }
  return [...new Set(found)];
}

/** A request the ledger cut: drop the mark and the sentence it cut in half. */
export function withoutCutSentence(text: string): string {
  if (!text.endsWith(TRUNCATION_MARK)) return text;
  const body = text.slice(0, -TRUNCATION_MARK.length);
  const end = Math.max(body.lastIndexOf(". "), body.lastIndexOf("\n"));
  return end === -1 ? "" : body.slice(0, end + 1);
}
