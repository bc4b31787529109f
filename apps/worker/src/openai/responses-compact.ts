/**
 * @module openai/responses-compact
 * The client of OpenAI's `POST /responses/compact`, shared by the forwarding
 * route and by sessions whose strategy is `openai`. It returns the upstream
 * status and body as they are; the key never leaves this module except as a
 * SHA-256 fingerprint.
 */

import { workerConfig } from "../config/worker-config";
import { sha256Hex } from "../digest";

/** Upstream calls give up after this long. */
const TIMEOUT_MS = 120_000;

export type UpstreamResult =
  | { ok: true; status: number; body: unknown }
  | { ok: false; status: number; body: unknown; message: string };

export function openAIKey(env: Env): string | undefined {
  const key = env.OPENAI_API_KEY?.trim();
  return key ? key : undefined;
}

export function responsesCompactEndpoint(env: Env): string {
  return `${workerConfig(env).openaiBaseUrl}/responses/compact`;
}

/** Hex SHA-256 of the key: says which key produced stored items without storing the key. */
export function keyFingerprint(key: string): Promise<string> {
  return sha256Hex(key);
}

export async function callResponsesCompact(
  env: Env,
  key: string,
  body: unknown,
): Promise<UpstreamResult> {
  let response: Response;
  try {
    response = await fetch(responsesCompactEndpoint(env), {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    const name = error instanceof Error ? error.name : "Error";
    return { ok: false, status: 502, body: null, message: `OpenAI could not be reached (${name})` };
  }
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === "" ? null : (JSON.parse(text) as unknown);
  } catch {
    // Not JSON: surfaced as text.
  }
  if (response.ok) return { ok: true, status: response.status, body: parsed };
  const upstreamMessage =
    typeof parsed === "object" &&
    parsed !== null &&
    typeof (parsed as { error?: { message?: unknown } }).error?.message === "string"
      ? String((parsed as { error: { message: string } }).error.message)
      : `HTTP ${response.status}`;
  return {
    ok: false,
    status: response.status,
    body: parsed,
    message: `OpenAI /responses/compact failed: ${upstreamMessage}`,
  };
}
