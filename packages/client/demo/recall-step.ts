/**
 * @module demo/recall-step
 * The demo's last step: recall something compaction took out of the context.
 * Picks the earliest tool output the final context no longer carries whole,
 * and in it an identifier the context no longer mentions; searches the session
 * for it (`client.search`) and shows the top match, then answers a `recall`
 * tool call for that tool-call id as an agent's loop would (`answerRecall`).
 * A service without the search route (older than issue 11) gets a note, not a
 * failure: the tool-output half works on any version.
 */

import { extractIdentifiers } from "@condense/core";
import { answerRecall, type Condense, CondenseApiError } from "../src/index.js";
import { style } from "./terminal.js";
import type { Message } from "./transcript.js";

function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(text).join("\n");
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    if (typeof record.text === "string") return record.text;
  }
  return "";
}

interface Target {
  toolCallId: string;
  identifier: string;
}

/** The earliest tool output no longer whole in `context`, and an identifier the context lost with it. */
function pickTarget(transcript: readonly Message[], context: unknown[]): Target | undefined {
  const contextText = JSON.stringify(context);
  const inContext = new Map<string, string>();
  for (const message of context) {
    const m = message as { role?: unknown; tool_call_id?: unknown; content?: unknown };
    if (m.role === "tool" && typeof m.tool_call_id === "string") {
      inContext.set(m.tool_call_id, text(m.content));
    }
  }
  for (const message of transcript) {
    if (message.role !== "tool" || typeof message.tool_call_id !== "string") continue;
    const original = text(message.content);
    if (inContext.get(message.tool_call_id) === original) continue;
    const lost = (word: string) =>
      word.length >= 6 && !contextText.includes(word) && /[A-Za-z]/.test(word);
    const identifier =
      extractIdentifiers(original).find(lost) ??
      (original.match(/[A-Za-z_][A-Za-z0-9_]{7,}/g) ?? []).find(lost);
    if (identifier !== undefined) return { toolCallId: message.tool_call_id, identifier };
  }
  return undefined;
}

/** A route the service does not have: the Worker's 404 for an unknown path. */
function missingRoute(error: unknown): boolean {
  return (
    CondenseApiError.isInstance(error) &&
    error.status === 404 &&
    error.message.startsWith("no route")
  );
}

function indent(block: string, max: number): string {
  const shown =
    block.length > max
      ? `${block.slice(0, max)}\n… (${block.length - max} more characters)`
      : block;
  return shown
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
}

export async function recallStep(
  condense: Condense,
  sessionId: string,
  transcript: readonly Message[],
  context: unknown[],
): Promise<void> {
  console.log(style.bold("Recall"));
  const target = pickTarget(transcript, context);
  if (target === undefined) {
    console.log(style.dim("  nothing was compacted away from a tool output: nothing to recall\n"));
    return;
  }
  console.log(
    `  ${style.cyan(target.identifier)} left the context with tool output ${style.cyan(target.toolCallId)}.`,
  );
  try {
    const found = await condense.search(sessionId, { q: target.identifier, limit: 3 });
    const top = found.results[0];
    if (top === undefined) {
      console.log(style.yellow(`  search: no match for ${target.identifier}`));
    } else {
      console.log(
        `  search → ${found.results.length} match${found.results.length === 1 ? "" : "es"}; top: seq ${top.seq} (${top.role}${top.toolName === null ? "" : `, ${top.toolName}`}), inContext ${top.inContext}\n    ${top.snippet.replace(/\s+/g, " ").slice(0, 200)}`,
      );
    }
  } catch (error) {
    if (!missingRoute(error)) throw error;
    console.log(style.dim("  search route not available on this service (it predates issue 11)"));
  }
  const answer = await answerRecall(
    condense,
    sessionId,
    { function: { arguments: JSON.stringify({ toolCallId: target.toolCallId }) } },
    { maxChars: 2_000 },
  );
  console.log(
    `  recall {"toolCallId": "${target.toolCallId}"} → tool result:\n${style.dim(indent(answer, 900))}\n`,
  );
}
