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
  MAX_MESSAGE_CONTENT_BYTES,
  type MarkerPlacement,
  MESSAGE_ENVELOPE_BYTES,
  type MessageFormat,
  type MessageProblem,
  messageSize,
  parseMessages,
  toCanonical,
  unsupportedParts,
} from "@condense/core";
import { ApiError } from "./errors";

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
 * cache markers (`gateway/plans/cache-markers`); no other marker is ever rendered.
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
