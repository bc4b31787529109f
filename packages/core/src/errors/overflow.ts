/**
 * @module errors/overflow
 * Recognises "the request does not fit the model's context window" in whatever a provider
 * client threw: Error objects, OpenAI-SDK-style `APIError`s (`status`, `code`, `error`),
 * AWS SDK exceptions, plain `{ status, message, body }` objects, response bodies as JSON
 * strings, and bare strings, and reads the token figures the error states. It gathers every
 * text and status in the error and matches them against the wording table in
 * errors/overflow-wordings, where each provider's phrase and its source are listed.
 */

import {
  extractors,
  notOverflowStatuses,
  notOverflowWordings,
  type OverflowTokens,
  overflowWordings,
} from "./overflow-wordings.js";

export type { OverflowTokens } from "./overflow-wordings.js";

/** True when `error` says the request exceeded the model's context window. */
export function isContextOverflowError(error: unknown): boolean {
  return classify(collect(error));
}

/**
 * The token numbers in an overflow error, or undefined when `error` is not an overflow error
 * or carries no numbers (Groq and the OpenAI Responses API do not say how many).
 */
export function parseOverflowTokens(error: unknown): OverflowTokens | undefined {
  const facts = collect(error);
  if (!classify(facts)) return undefined;
  const promptTokens = facts.numbers.get("n_prompt_tokens");
  const contextSize = facts.numbers.get("n_ctx");
  if (promptTokens !== undefined && contextSize !== undefined) {
    return complete({ requested: promptTokens, limit: contextSize });
  }
  for (const text of facts.texts) {
    for (const extract of extractors) {
      const match = extract.pattern.exec(text);
      // A match whose figures are unusable (say, too many digits to be a number) is passed over.
      const tokens = match ? complete(extract.read(match.slice(1).map(toNumber))) : undefined;
      if (tokens) return tokens;
    }
  }
  return undefined;
}

// --- gathering ---------------------------------------------------------------------------

interface Facts {
  texts: string[];
  statuses: number[];
  /** Numeric fields by key, e.g. llama.cpp's `n_prompt_tokens` and `n_ctx`. */
  numbers: Map<string, number>;
}

const statusKeys = new Set(["status", "statusCode", "status_code", "httpStatusCode", "httpStatus"]);
const MAX_NODES = 400;
const MAX_DEPTH = 8;
const MAX_TEXT = 64_000;

function collect(error: unknown): Facts {
  const facts: Facts = { texts: [], statuses: [], numbers: new Map() };
  const seen = new Set<object>();
  let nodes = 0;

  const visit = (value: unknown, key: string, depth: number): void => {
    if (nodes++ >= MAX_NODES || depth > MAX_DEPTH) return;
    if (typeof value === "string") {
      if (statusKeys.has(key) && /^\d{3}$/.test(value)) facts.statuses.push(Number(value));
      const text = value.length > MAX_TEXT ? value.slice(0, MAX_TEXT) : value;
      facts.texts.push(text);
      const json = embeddedJson(text);
      if (json !== undefined) visit(json, key, depth + 1);
      return;
    }
    if (typeof value === "number") {
      // Gemini and OpenRouter put the HTTP status in the body's `code`.
      if ((statusKeys.has(key) || key === "code") && Number.isInteger(value)) {
        if (value >= 100 && value <= 599) facts.statuses.push(value);
      }
      if (Number.isFinite(value)) facts.numbers.set(key, value);
      return;
    }
    if (typeof value !== "object" || value === null || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const item of value.slice(0, 32)) visit(item, key, depth + 1);
      return;
    }
    // `message`, `name` and `cause` of Errors are not enumerable.
    if (value instanceof Error) {
      visit(value.message, "message", depth + 1);
      visit(value.name, "name", depth + 1);
      if (!Object.prototype.propertyIsEnumerable.call(value, "cause")) {
        visit(value.cause, "cause", depth + 1);
      }
    }
    let entries: Array<[string, unknown]>;
    try {
      entries = Object.entries(value);
    } catch {
      return; // a throwing getter or proxy: use what we have
    }
    for (const [childKey, child] of entries) {
      if (childKey !== "stack") visit(child, childKey, depth + 1);
    }
  };

  visit(error, "", 0);
  return facts;
}

/** The JSON object inside a string such as `400 {"error":{...}}`, if there is one. */
function embeddedJson(text: string): unknown {
  const start = text.search(/[{[]/);
  if (start < 0) return undefined;
  const end = Math.max(text.lastIndexOf("}"), text.lastIndexOf("]"));
  if (end <= start) return undefined;
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
}

// --- deciding ------------------------------------------------------------------------------

function classify(facts: Facts): boolean {
  if (facts.statuses.some((status) => notOverflowStatuses.has(status))) return false;
  const says = (wordings: readonly RegExp[]): boolean =>
    facts.texts.some((text) => wordings.some((pattern) => pattern.test(text)));
  return !says(notOverflowWordings) && says(overflowWordings);
}

// --- numbers -------------------------------------------------------------------------------

function toNumber(digits: string | undefined): number | undefined {
  return digits === undefined ? undefined : Number(digits.replaceAll(",", ""));
}

/**
 * Drops unknown numbers and adds `excess` when both sides are known. A wording that does not name
 * the input's share (no `inputTokens` key) counts the input alone, so `inputTokens` is `requested`.
 */
function complete(tokens: OverflowTokens): OverflowTokens | undefined {
  const out: OverflowTokens = {};
  if (tokens.requested !== undefined && Number.isFinite(tokens.requested)) {
    out.requested = tokens.requested;
  }
  const input = "inputTokens" in tokens ? tokens.inputTokens : tokens.requested;
  if (input !== undefined && Number.isFinite(input)) out.inputTokens = input;
  if (tokens.limit !== undefined && Number.isFinite(tokens.limit)) out.limit = tokens.limit;
  if (tokens.excess !== undefined && Number.isFinite(tokens.excess)) out.excess = tokens.excess;
  if (out.excess === undefined && out.requested !== undefined && out.limit !== undefined) {
    if (out.requested > out.limit) out.excess = out.requested - out.limit;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}
