/**
 * @module bench/probes/probe-check
 * Whether a context answers a probe (`bench/probes/probe-set`): the text a model reads of it, as
 * one string and as lines, each with whitespace collapsed and Markdown quote marks (`> `) taken
 * off the start of lines, so a summary that quotes the user is read as the words it quotes; tool
 * calls read as their name and the values of their arguments (not JSON-escaped); and the tool
 * results present whole (a placeholder is not the result).
 */

import type { ChatMessage } from "@condense/core";
import { isPrunePlaceholder, messageText, toolCallInput, toolCallName } from "@condense/core";
import { type Check, flat, type Probe } from "./probe-set.ts";

export interface Haystack {
  /** Every text of the context, whitespace collapsed, joined by spaces. */
  flat: string;
  /** Its lines, each whitespace collapsed. */
  lines: string[];
  /** The tool results present, by call id, whitespace collapsed. */
  outputs: Map<string, string>;
}

/** The string values of a JSON value, depth first. */
function values(value: unknown, out: string[]): void {
  if (typeof value === "string") out.push(value);
  else if (typeof value === "number" || typeof value === "boolean") out.push(String(value));
  else if (Array.isArray(value)) for (const item of value) values(item, out);
  else if (typeof value === "object" && value !== null)
    for (const item of Object.values(value)) values(item, out);
}

function readable(message: ChatMessage): string {
  const parts = [messageText(message)];
  for (const call of message.role === "assistant" ? (message.tool_calls ?? []) : []) {
    parts.push(toolCallName(call));
    const input = toolCallInput(call);
    try {
      values(JSON.parse(input), parts);
    } catch {
      parts.push(input);
    }
  }
  return parts.join("\n");
}

export function haystackOf(messages: readonly ChatMessage[]): Haystack {
  const lines: string[] = [];
  const outputs = new Map<string, string>();
  for (const message of messages) {
    for (const line of readable(message).split("\n")) {
      const kept = flat(line);
      if (kept !== "") lines.push(kept);
    }
    if (message.role === "tool" && message.tool_call_id !== undefined) {
      const body = messageText(message);
      if (!isPrunePlaceholder(body.trim())) outputs.set(message.tool_call_id, flat(body));
    }
  }
  return { flat: lines.join(" "), lines, outputs };
}

export function passes(check: Check, haystack: Haystack): boolean {
  if ("all" in check) return check.all.every((inner) => passes(inner, haystack));
  if ("any" in check) return check.any.some((inner) => passes(inner, haystack));
  if ("text" in check) return haystack.flat.includes(flat(check.text));
  if ("output" in check)
    return haystack.outputs.get(check.output)?.startsWith(check.prefix) === true;
  const parts = check.line.map((part) => flat(part));
  return haystack.lines.some(
    (line) => parts.every((part) => line.includes(part)) && (check.pattern?.test(line) ?? true),
  );
}

export function answers(probe: Probe, haystack: Haystack): boolean {
  return passes(probe.check, haystack);
}
