/**
 * @module formats/convert
 * One entry point per direction between the supported input formats and the
 * canonical Chat Completions messages: `toCanonical` checks untrusted input of
 * any format (`InvalidMessagesError` listing every problem), `fromCanonical`
 * writes canonical messages back in the caller's format.
 */

import {
  CondenseError,
  InvalidMessagesError,
  type MessageProblem,
} from "../errors/condense-error.js";
import { parseMessages } from "../messages/parse.js";
import type { ChatMessage, MessageFormat } from "../messages/types.js";
import { fromAnthropic, toAnthropic } from "./anthropic/convert.js";
import { anthropicUnsupportedParts } from "./anthropic/unsupported-parts.js";
import { type MarkerPlacement, placeOpenAIMarkers } from "./cache-markers.js";
import { fromGemini, geminiUnsupportedParts, toGemini } from "./gemini/convert.js";
import { fromResponses, responsesUnsupportedParts, toResponses } from "./responses/convert.js";

export interface CanonicalInput {
  /** Default `openai`. */
  format?: MessageFormat;
  messages: readonly unknown[];
  /** Anthropic top-level `system`, or Gemini's `systemInstruction`; only with those formats. */
  system?: unknown;
}

export interface FormattedMessages {
  messages: unknown[];
  /** Anthropic top-level `system` or Gemini's `systemInstruction`, when there is one. */
  system?: unknown;
}

function unknownFormat(format: unknown): CondenseError {
  const shown = typeof format === "string" ? format : String(typeof format);
  return new CondenseError(
    "unknown_format",
    `format \`${shown}\` is not supported; use openai, anthropic, responses or gemini`,
    { details: { format: shown } },
  );
}

function rejectSystem(format: MessageFormat, system: unknown): void {
  if (system === undefined) return;
  const where =
    format === "openai"
      ? "a system message first in `messages`"
      : "a system or developer message item first in `messages`";
  throw new InvalidMessagesError([
    {
      index: -1,
      path: "system",
      kind: "unexpected_system",
      message: `\`system\` is only used with format anthropic; for ${format} put ${where}`,
    },
  ]);
}

/**
 * Checks and converts messages of any supported format to canonical messages.
 * Throws `InvalidMessagesError` for bad input and `CondenseError` with code
 * `unknown_format` for an unsupported format.
 */
export function toCanonical(input: CanonicalInput): ChatMessage[] {
  const format: unknown = input.format ?? "openai";
  switch (format) {
    case "openai":
      rejectSystem(format, input.system);
      return parseMessages(input.messages);
    case "anthropic":
      return fromAnthropic({ system: input.system, messages: input.messages });
    case "responses":
      rejectSystem(format, input.system);
      return fromResponses(input.messages);
    case "gemini":
      return fromGemini({ system: input.system, messages: input.messages });
    default:
      throw unknownFormat(format);
  }
}

function withoutProviderData(message: ChatMessage): ChatMessage {
  if (message.provider_data === undefined) return message;
  const { provider_data: _dropped, ...rest } = message;
  return rest;
}

/**
 * Writes canonical messages in `format` (`provider_data` is dropped for openai). With
 * `options.markers`, a request's cache markers are placed on the messages they name (anthropic:
 * blocks; openai: content parts; responses has none, `prompt_cache_key` being a request field); no
 * other marker is ever written (`formats/cache-markers`). Throws `InvalidMessagesError` (kind
 * `unsupported_part`) when a part has no equivalent in `format`: audio for anthropic and
 * responses, files other than PDF, text and images for anthropic.
 */
export function fromCanonical(
  messages: readonly ChatMessage[],
  format: MessageFormat,
  options: { markers?: MarkerPlacement } = {},
): FormattedMessages {
  const requested: unknown = format;
  switch (requested) {
    case "openai": {
      const plain = messages.map(withoutProviderData);
      return {
        messages:
          options.markers === undefined ? plain : placeOpenAIMarkers(plain, options.markers),
      };
    }
    case "anthropic": {
      const request = toAnthropic(messages, options.markers);
      return request.system === undefined
        ? { messages: request.messages }
        : { messages: request.messages, system: request.system };
    }
    case "responses":
      return { messages: toResponses(messages) };
    case "gemini": {
      const request = toGemini(messages);
      return request.systemInstruction === undefined
        ? { messages: request.contents }
        : { messages: request.contents, system: request.systemInstruction };
    }
    default:
      throw unknownFormat(requested);
  }
}

/**
 * The parts of `messages` that `format` cannot carry, which `fromCanonical` refuses (kind
 * `unsupported_part`): audio for anthropic and responses, files other than PDF, text and images
 * for anthropic. Empty for openai, the canonical format itself.
 */
export function unsupportedParts(
  messages: readonly ChatMessage[],
  format: MessageFormat,
): MessageProblem[] {
  const requested: unknown = format;
  switch (requested) {
    case "openai":
      return [];
    case "anthropic":
      return anthropicUnsupportedParts(messages);
    case "responses":
      return responsesUnsupportedParts(messages);
    case "gemini":
      return geminiUnsupportedParts(messages);
    default:
      throw unknownFormat(requested);
  }
}
