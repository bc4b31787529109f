/**
 * @module digest
 * Hex SHA-256 of a string: the one digest the service stores or shows
 * (OpenAI key fingerprints, idempotency body hashes).
 */

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
