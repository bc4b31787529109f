/**
 * @module demo/ledger
 * Ledger completeness: of the exact identifiers (file paths, hashes, URLs,
 * ids …) in the raw transcript's user and assistant text and tool-call
 * arguments, how many the final context still carries verbatim (summary and
 * tail), and how many more are retrievable from it: they sit in a tool output
 * that compaction pruned, whose `tool_call_id` the context still names, so an
 * agent can fetch it with `GET /tool-outputs/{toolCallId}`.
 */

import { extractIdentifiers, toolCallInput } from "@condense/core";
import type { SessionHandle } from "../src/index.js";
import type { Message } from "./transcript.js";

export interface LedgerCompleteness {
  total: number;
  inContext: number;
  retrievable: number;
  missing: string[];
}

function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(text).join("\n");
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    if (typeof record.text === "string") return record.text;
  }
  return "";
}

/** Identifiers of the user/assistant text and tool-call arguments (tool outputs excluded). */
export function ledgerIdentifiers(messages: readonly Message[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    if (message.role !== "user" && message.role !== "assistant") continue;
    const parts = [text(message.content)];
    for (const call of message.tool_calls ?? []) parts.push(toolCallInput(call));
    for (const part of parts) for (const id of extractIdentifiers(part)) ids.add(id);
  }
  return ids;
}

/** The tool_call_ids of tool messages in `context` whose content differs from the original. */
function prunedCallIds(context: unknown[], originals: Map<string, string>): string[] {
  const ids: string[] = [];
  for (const message of context) {
    const m = message as { role?: unknown; tool_call_id?: unknown; content?: unknown };
    if (m.role !== "tool" || typeof m.tool_call_id !== "string") continue;
    const original = originals.get(m.tool_call_id);
    if (original !== undefined && text(m.content) !== original) ids.push(m.tool_call_id);
  }
  return ids;
}

export async function ledgerCompleteness(
  transcript: readonly Message[],
  context: unknown[],
  session: SessionHandle,
): Promise<LedgerCompleteness> {
  const ids = ledgerIdentifiers(transcript);
  const contextText = JSON.stringify(context);
  const originals = new Map<string, string>();
  for (const message of transcript) {
    if (message.role === "tool" && typeof message.tool_call_id === "string") {
      originals.set(message.tool_call_id, text(message.content));
    }
  }
  const fetched: string[] = [];
  for (const callId of prunedCallIds(context, originals)) {
    const output = await session.toolOutput(callId);
    fetched.push(text(output.content));
  }
  const retrievableText = fetched.join("\n");
  let inContext = 0;
  let retrievable = 0;
  const missing: string[] = [];
  for (const id of ids) {
    // JSON escapes quotes and backslashes; look for both spellings.
    if (contextText.includes(id) || contextText.includes(JSON.stringify(id).slice(1, -1)))
      inContext++;
    else if (retrievableText.includes(id)) retrievable++;
    else missing.push(id);
  }
  return { total: ids.size, inContext, retrievable, missing };
}
