/**
 * @module tokens/count
 * Token counts for text and for Chat Completions messages, the numbers every budget and
 * trigger in the engine is computed from.
 *
 * Message accounting follows OpenAI's cookbook: 3 tokens of framing per message, the role and
 * content tokens, the name plus 1 when a name is set, and 3 tokens priming the reply per
 * request. Tool calls (not covered by the cookbook) are estimated as their name and
 * arguments (a custom tool's input) plus 3 tokens of framing each. Images follow {@link imageTokens}, files and
 * audio {@link fileTokens} and {@link audioTokens}. Provider data
 * (thinking blocks, reasoning items) is not counted: providers drop or re-encode it.
 * For models whose tokenizer is estimated the per-message count is padded by the model's
 * safety margin (see {@link encodingFor}), rounding up.
 *
 * Each message is tokenized at most once per encoding: counts are cached by object identity
 * (messages are treated as immutable) and, for equal messages that arrive as new objects
 * (re-parsed JSON on every request), in a bounded LRU keyed by a 64-bit content hash. A caller
 * that stored a message's count earlier hands it back with {@link seedMessageTokens}, and the
 * message is not tokenized at all.
 */

import { toolCallInput, toolCallName } from "../messages/content.js";
import type { ChatMessage } from "../messages/types.js";
import { countTextTokens, type EncodingName, encodingFor } from "./encoder.js";
import { audioTokens, fileTokens } from "./file-tokens.js";
import { IMAGE_HEADER_CHARS, imageTokens } from "./image-tokens.js";

const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_NAME = 1;
const TOKENS_PER_TOOL_CALL = 3;
const REPLY_PRIMING_TOKENS = 3;
const CONTENT_CACHE_LIMIT = 4096;

/** Tokens in `text` for `model`, padded by the model's safety margin when the tokenizer is estimated. */
export function countTokens(text: string, model: string): number {
  const { encoding, safetyMargin } = encodingFor(model);
  return withMargin(countTextTokens(text, encoding), safetyMargin);
}

/** Tokens one message adds to a request for `model` (framing included, reply priming not). */
export function messageTokens(message: ChatMessage, model: string): number {
  const seeded = seededCounts.get(message)?.get(model);
  if (seeded !== undefined) return seeded;
  const { encoding, safetyMargin } = encodingFor(model);
  return withMargin(rawMessageTokens(message, encoding), safetyMargin);
}

/**
 * Tokens a request with these messages uses for `model`: the sum of {@link messageTokens}
 * plus 3 tokens priming the reply (0 for an empty list).
 */
export function countMessageTokens(messages: readonly ChatMessage[], model: string): number {
  if (messages.length === 0) return 0;
  let total = REPLY_PRIMING_TOKENS;
  for (const message of messages) total += messageTokens(message, model);
  return total;
}

/** Counts callers handed back, by message object and model: what `messageTokens` returns. */
const seededCounts = new WeakMap<ChatMessage, Map<string, number>>();

/**
 * Records `tokens` as `messageTokens(message, model)` (a count the caller computed earlier, e.g.
 * when the message was stored), so that this message object is not tokenized again. The count is
 * trusted as given; the message must not change afterwards.
 */
export function seedMessageTokens(message: ChatMessage, model: string, tokens: number): void {
  let perModel = seededCounts.get(message);
  if (perModel === undefined) {
    perModel = new Map();
    seededCounts.set(message, perModel);
  }
  perModel.set(model, tokens);
}

function withMargin(tokens: number, margin: number): number {
  return margin === 0 ? tokens : Math.ceil(tokens * (1 + margin));
}

const byIdentity = new WeakMap<ChatMessage, Map<EncodingName, number>>();
const byContent = new Map<string, number>();

function rawMessageTokens(message: ChatMessage, encoding: EncodingName): number {
  let perEncoding = byIdentity.get(message);
  const known = perEncoding?.get(encoding);
  if (known !== undefined) return known;
  const key = `${encoding}:${contentHash(message)}`;
  let tokens = byContent.get(key);
  if (tokens === undefined) {
    tokens = tokenize(message, encoding);
    if (byContent.size >= CONTENT_CACHE_LIMIT) {
      const oldest = byContent.keys().next();
      if (!oldest.done) byContent.delete(oldest.value);
    }
  } else {
    byContent.delete(key); // re-inserted below as the most recently used
  }
  byContent.set(key, tokens);
  if (!perEncoding) {
    perEncoding = new Map();
    byIdentity.set(message, perEncoding);
  }
  perEncoding.set(encoding, tokens);
  return tokens;
}

function tokenize(message: ChatMessage, encoding: EncodingName): number {
  let tokens = TOKENS_PER_MESSAGE + countTextTokens(message.role, encoding);
  if (message.name !== undefined) {
    tokens += TOKENS_PER_NAME + countTextTokens(message.name, encoding);
  }
  const content = message.content;
  if (typeof content === "string") {
    tokens += countTextTokens(content, encoding);
  } else if (Array.isArray(content)) {
    for (const part of content) {
      if (part.type === "text") tokens += countTextTokens(part.text, encoding);
      else if (part.type === "image_url") tokens += imageTokens(part);
      else if (part.type === "file")
        tokens += fileTokens(part, (text) => countTextTokens(text, encoding));
      else if (part.type === "input_audio") tokens += audioTokens(part);
      else tokens += countTextTokens(JSON.stringify(part as unknown), encoding);
    }
  }
  for (const call of message.tool_calls ?? []) {
    tokens +=
      TOKENS_PER_TOOL_CALL +
      countTextTokens(toolCallName(call), encoding) +
      countTextTokens(toolCallInput(call), encoding);
  }
  return tokens;
}

/**
 * Two independent 32-bit hashes (FNV-1a and a murmur-style mix) plus the total length over
 * exactly what {@link tokenize} reads, each field length-prefixed so that field boundaries
 * cannot shift. For images only the prefix the estimate depends on is hashed; files and audio
 * are hashed whole (their estimates read all of them).
 */
function contentHash(message: ChatMessage): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  let length = 0;
  const feed = (text: string): void => {
    mixCode(text.length);
    for (let i = 0; i < text.length; i++) mixCode(text.charCodeAt(i));
    length += text.length;
  };
  const mixCode = (code: number): void => {
    h1 = Math.imul(h1 ^ code, 0x01000193);
    h2 = Math.imul(h2 ^ code, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  };
  feed(message.role);
  if (message.name === undefined) mixCode(0);
  else {
    mixCode(1);
    feed(message.name);
  }
  const content = message.content;
  if (typeof content === "string") {
    mixCode(2);
    feed(content);
  } else if (Array.isArray(content)) {
    mixCode(3);
    mixCode(content.length);
    for (const part of content) {
      if (part.type === "text") {
        mixCode(4);
        feed(part.text);
      } else if (part.type === "image_url") {
        mixCode(5);
        feed(part.image_url.detail ?? "");
        feed(part.image_url.url.slice(0, IMAGE_HEADER_CHARS));
      } else if (part.type === "file") {
        mixCode(8);
        feed(part.file.file_data ?? "");
        feed(part.file.file_id ?? "");
        feed(part.file.filename ?? "");
      } else if (part.type === "input_audio") {
        mixCode(9);
        feed(part.input_audio.format);
        feed(part.input_audio.data);
      } else {
        mixCode(6);
        feed(JSON.stringify(part as unknown));
      }
    }
  } else {
    mixCode(7);
  }
  const calls = message.tool_calls ?? [];
  mixCode(calls.length);
  for (const call of calls) {
    mixCode(call.type === "custom" ? 11 : 10);
    feed(toolCallName(call));
    feed(toolCallInput(call));
  }
  return `${(h1 >>> 0).toString(36)}.${(h2 >>> 0).toString(36)}.${length.toString(36)}`;
}
