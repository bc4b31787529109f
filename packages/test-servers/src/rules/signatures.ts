/**
 * @module rules/signatures
 * The test servers sign the reasoning they emit, as the providers do
 * (Anthropic's thinking `signature`, OpenAI's `encrypted_content`), so a
 * client or gateway that changes or drops it is caught when it comes back.
 */

import { createHmac } from "node:crypto";

const SECRET = "condense-agents-e2e";

export function sign(text: string): string {
  return createHmac("sha256", SECRET).update(text).digest("base64");
}

export function verifies(text: string, signature: unknown): boolean {
  return typeof signature === "string" && signature === sign(text);
}

/** Encrypted reasoning as OpenAI returns it: opaque to the client, here the text and its signature. */
export function sealReasoning(text: string): string {
  return Buffer.from(JSON.stringify({ text, signature: sign(text) })).toString("base64");
}

/** The reasoning text of `sealed`, or undefined when it was not sealed here or was changed. */
export function openReasoning(sealed: unknown): string | undefined {
  if (typeof sealed !== "string") return undefined;
  try {
    const value = JSON.parse(Buffer.from(sealed, "base64").toString("utf8")) as {
      text?: unknown;
      signature?: unknown;
    };
    return typeof value.text === "string" && verifies(value.text, value.signature)
      ? value.text
      : undefined;
  } catch {
    return undefined;
  }
}
