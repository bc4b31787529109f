/**
 * @module api/formats
 * The API's side of message formats: untrusted request messages become
 * canonical Chat Completions messages (or a 400 `invalid_messages` with the
 * engine's list of problems, or 413 `message_too_large`), and canonical
 * messages are rendered in the format a client asks for (or refused with 409
 * `format_not_available` when they hold a part that format cannot carry).
 */

import {
  type ChatMessage,
  CondenseError,
  fromCanonical,
  InvalidMessagesError,
  type MarkerPlacement,
  type MessageFormat,
  type MessageProblem,
  parseMessages,
  toCanonical,
  unsupportedParts,
} from "@condense/core";
import { ApiError } from "./errors";

/** Content a single message may hold. */
export const MAX_MESSAGE_CONTENT_BYTES = 4 * 1024 * 1024;
/** Allowance on top of the content for the role, ids, names and tool-call envelopes. */
export const MESSAGE_ENVELOPE_BYTES = 64 * 1024;

/** UTF-8 length of a string without encoding it. */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** Bytes of text a message holds: every string in it, in UTF-8 (JSON syntax not counted). */
export function messageSize(value: unknown): number {
  if (typeof value === "string") return utf8Length(value);
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + messageSize(item), 0);
  if (typeof value === "object" && value !== null) {
    let sum = 0;
    for (const [key, item] of Object.entries(value)) sum += key.length + messageSize(item);
    return sum;
  }
  return 0;
}

function rethrow(error: unknown): never {
  if (InvalidMessagesError.isInstance(error)) {
    throw new ApiError(400, "invalid_messages", error.message, { problems: error.problems });
  }
  if (CondenseError.isInstance(error) && error.code === "unknown_format") {
    throw new ApiError(400, "unknown_format", error.message);
  }
  if (CondenseError.isInstance(error) && error.code === "invalid_options") {
    throw new ApiError(400, "invalid_options", error.message, error.details);
  }
  throw error;
}

/**
 * Canonical messages from a request, or the 400/413 `ApiError` that says what is wrong.
 * `sourceLength`, the length of the JSON text the messages were parsed from, spares measuring each
 * message when the whole text cannot hold a message over the limit (a gateway turn resends its whole
 * history: measuring every message of it cost more than converting it).
 */
export function canonicalMessages(
  messages: readonly unknown[],
  format: MessageFormat = "openai",
  system?: unknown,
  path = "messages",
  sourceLength?: number,
): ChatMessage[] {
  let canonical: ChatMessage[];
  try {
    canonical =
      format === "openai" && system === undefined
        ? parseMessages(messages)
        : toCanonical({ format, messages, ...(system !== undefined ? { system } : {}) });
  } catch (error) {
    rethrow(error);
  }
  const limit = MAX_MESSAGE_CONTENT_BYTES + MESSAGE_ENVELOPE_BYTES;
  // A UTF-16 unit is at most 3 bytes of UTF-8; conversion adds less than the envelope to a message.
  if (sourceLength !== undefined && sourceLength * 3 <= MAX_MESSAGE_CONTENT_BYTES) return canonical;
  canonical.forEach((message, index) => {
    const size = messageSize(message);
    if (size > limit) {
      throw new ApiError(
        413,
        "message_too_large",
        `${path}[${index}] holds ${size} bytes; a message may hold at most 4 MiB of content (plus 64 KiB for its envelope). Split it or store the data elsewhere`,
        { index, bytes: size, limitBytes: limit },
      );
    }
  });
  return canonical;
}

export { rethrow as rethrowEngineError };

/**
 * The 409 for a context holding parts `format` cannot carry (audio for anthropic and responses,
 * files other than PDF, text and images for anthropic): refused, never dropped.
 */
export function partsNotAvailable(format: MessageFormat, problems: MessageProblem[]): ApiError {
  const first = problems[0];
  const where =
    first === undefined ? "" : ` (message ${first.index}, ${first.path}: ${first.message})`;
  return new ApiError(
    409,
    "format_not_available",
    `this session's context holds parts the ${format} format cannot carry${where}; ask for format=openai, which carries every part`,
    { problems },
  );
}

/** Refuses `format` when the messages hold parts it cannot carry. */
export function checkPartsAvailable(messages: readonly ChatMessage[], format: MessageFormat): void {
  const problems = unsupportedParts(messages, format);
  if (problems.length > 0) throw partsNotAvailable(format, problems);
}

/**
 * Canonical messages in `format`; Anthropic's system prompt comes back separately. With
 * `providerData`, the openai format keeps each message's `provider_data` (the canonical messages
 * as stored); the other formats always carry it in their own shape. `markers` places a request's
 * cache markers (`gateway/cache-markers`); no other marker is ever rendered.
 */
export function renderMessages(
  messages: ChatMessage[],
  format: MessageFormat,
  options: { providerData?: boolean; markers?: MarkerPlacement | undefined } = {},
): { messages: unknown[]; system?: unknown } {
  if (format === "openai" && options.providerData === true) return { messages };
  checkPartsAvailable(messages, format);
  try {
    return fromCanonical(
      messages,
      format,
      options.markers === undefined ? {} : { markers: options.markers },
    );
  } catch (error) {
    rethrow(error);
  }
}
