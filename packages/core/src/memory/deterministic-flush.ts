/**
 * @module memory/deterministic-flush
 * The flush without a model: records what the user said explicitly should
 * hold beyond this conversation, with the seq it was said at. A sentence of a
 * user message that starts (after fillers such as "please", "ok,", "also")
 * with "always …", "I prefer …" (a preference), "never …", "don't ever …" (a
 * constraint), "remember (that) …" (a fact; "remember to …" a preference), or
 * "from now on …" / "going forward …" (a preference, or a constraint when what
 * follows forbids) becomes an `add`. Only user text counts: assistant text,
 * tool output and quoted summaries are data, whatever they say. Questions,
 * statements with a secret, and duplicates of the user's memories (or of each
 * other) are skipped.
 */

import { messageText } from "../messages/content.js";
import { withoutSummaryBlocks } from "../summary/template.js";
import {
  type FlushRequest,
  type FlushResult,
  MEMORY_TEXT_MAX_CHARS,
  OperationChecker,
} from "./operations.js";
import type { MemoryKind } from "./types.js";

/** A statement is at most this long (a paragraph that merely starts with "always" is not a rule). */
const STATEMENT_MAX_CHARS = 500;
/** Statements shorter than this after their keyword say nothing ("Always.", "Never!"). */
const MIN_BODY_CHARS = 3;

const FILLER = /^(?:please|pls|and|also|ok(?:ay)?|so|but|oh|note|btw|fyi|just)\b[\s,:;-]*/i;
const STANDING =
  /^(?:from now on|going forward|in (?:the )?future|for (?:all )?future (?:sessions|work))\b[\s,:;-]*/i;
const REMEMBER = /^(?:please\s+)?(?:always\s+)?remember\b(?:\s+that)?[\s,:;-]*/i;
const FORBIDS = /^(?:never|don['’]?t\s+ever|do\s+not\s+ever|don['’]?t|do\s+not|avoid)\b/i;
const ALWAYS = /^always\b/i;
const PREFERS = /^(?:i|we)(?:['’]d|\s+would)?\s+(?:(?:much|really|strongly)\s+)?prefer\b/i;

/** What a sentence states, if it is an explicit standing statement. */
export function classifyStatement(
  sentence: string,
): { kind: MemoryKind; text: string } | undefined {
  let text = sentence.trim();
  if (text === "" || text.length > STATEMENT_MAX_CHARS || /\?\s*$/.test(text)) return undefined;
  for (let strip = 0; strip < 4; strip++) {
    const filler = FILLER.exec(text);
    if (filler === null || filler[0] === "") break;
    text = text.slice(filler[0].length);
  }
  let standing = false;
  let remembered = false;
  const leads = STANDING.exec(text);
  if (leads !== null) {
    standing = true;
    text = text.slice(leads[0].length);
  }
  const remember = REMEMBER.exec(text);
  if (remember !== null) {
    remembered = true;
    text = text.slice(remember[0].length);
  }
  if (!standing) {
    // "remember, from now on …" reads the same as "from now on, remember …".
    const after = STANDING.exec(text);
    if (after !== null) {
      standing = true;
      text = text.slice(after[0].length);
    }
  }
  text = text.replace(/^(?:please\s+)/i, "");
  let kind: MemoryKind | undefined;
  let body = text;
  if (FORBIDS.test(text)) {
    // A bare "don't …" is an ask for now; it is standing only when said so (from now on, remember).
    const bare =
      /^(?:don['’]?t|do\s+not|avoid)\b/i.test(text) && !/\bever\b/i.test(text.slice(0, 16));
    if (!bare || standing || remembered) kind = "constraint";
    body = text.replace(FORBIDS, "");
  } else if (ALWAYS.test(text)) {
    kind = "preference";
    body = text.replace(ALWAYS, "");
  } else if (PREFERS.test(text)) {
    kind = "preference";
    body = text.replace(PREFERS, "");
  } else if (remembered) {
    const toDo = /^to\b/i.test(text);
    kind = toDo ? "preference" : "fact";
    if (toDo) text = text.replace(/^to\s+/i, "");
  } else if (standing) {
    kind = "preference";
  }
  if (kind === undefined || body.replace(/[\s.!,;:]+/g, "").length < MIN_BODY_CHARS)
    return undefined;
  const cleaned = text.replace(/\s+/g, " ").trim();
  return { kind, text: capitalize(clip(cleaned)) };
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function clip(text: string): string {
  if (text.length <= MEMORY_TEXT_MAX_CHARS) return text;
  return `${text.slice(0, MEMORY_TEXT_MAX_CHARS - 1).trimEnd()}…`;
}

/** Sentences of a text: split at line breaks and after ., ! or ? followed by a space. */
export function sentences(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?])\s+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== "");
}

/**
 * The `add` operations for the user's explicit statements in `request.messages`, checked like any
 * flush's (`OperationChecker`): never text of another role, never a secret, never a duplicate.
 */
export function deterministicFlush(request: FlushRequest): FlushResult {
  const checker = new OperationChecker(request.memories, request.seqs);
  let index = 0;
  request.messages.forEach((message, position) => {
    if (message.role !== "user") return;
    const seq = request.seqs?.[position] ?? null;
    // A summary block in a user turn was written by a model: not the user's word.
    for (const sentence of sentences(withoutSummaryBlocks(messageText(message)))) {
      const statement = classifyStatement(sentence);
      if (statement === undefined) continue;
      checker.offer(index, {
        op: "add",
        text: statement.text,
        kind: statement.kind,
        ...(seq === null ? {} : { sourceSeq: seq }),
      });
      index++;
    }
  });
  return checker.done();
}
