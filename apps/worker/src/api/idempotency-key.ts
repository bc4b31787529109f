/**
 * @module api/idempotency-key
 * The request side of `Idempotency-Key`: what a key may be, and the key with
 * the hash of the body as sent, which a session keeps its answers under
 * (`session/store/idempotency`).
 */

import { sha256Hex } from "../digest";
import { invalidRequest } from "./errors";

export interface IdempotencyInput {
  key: string;
  /** SHA-256 of the request body as sent. */
  bodyHash: string;
}

/** What an `Idempotency-Key` may be: 1-255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The idempotency input of a request, or undefined when it sent no `Idempotency-Key`. */
export async function idempotencyInput(
  header: string | undefined,
  bodyText: string,
): Promise<IdempotencyInput | undefined> {
  if (header === undefined) return undefined;
  if (!IDEMPOTENCY_KEY_PATTERN.test(header)) {
    throw invalidRequest(
      "header",
      "Idempotency-Key",
      "Idempotency-Key must be 1-255 visible ASCII characters (a UUID is a good choice)",
      "invalid_format",
    );
  }
  return { key: header, bodyHash: await sha256Hex(bodyText) };
}
