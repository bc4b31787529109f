/**
 * @module gateway/plans/openai-breakpoints
 * OpenAI's explicit cache breakpoints (issue 32, build 3;
 * developers.openai.com/api/docs/guides/prompt-caching): from the GPT-5.6 family on, OpenAI matches
 * a cached prefix only at a breakpoint (its implicit one at the end of the newest message, and those
 * a request marks with `prompt_cache_breakpoint: { mode: "explicit" }` on a content part), never at
 * a shorter unmarked prefix. After a compaction the implicit breakpoint alone would leave the head
 * (the messages before the summary, which every compaction keeps) unmatchable by the turn after the
 * next compaction, so the gateway marks, as it does on Anthropic (`plans/cache-markers`), the end of
 * the head and the summary. Two marks, within the three explicit breakpoints a request writes beside
 * the implicit one (four in all); a client's own later marks come first in OpenAI's count (it writes
 * the latest), which is the client's choice. Which models: the catalog's `explicitBreakpoints`
 * (core `modelPricing`), on Chat Completions and Responses; never on earlier models, which refuse
 * the field.
 *
 * Only the entries up to the summary are read (it sits in the compacted view at the context's
 * start), at most `scanLimit` of them, and the two marked entries are copied: no pass over the
 * whole history.
 */

import { modelPricing, SUMMARY_OPEN } from "@condense/core";
import type { GatewayProtocol, RequestBody } from "../protocols/protocol";
import { isRecord } from "../protocols/protocol";

const BREAKPOINT = { mode: "explicit" } as const;
/** Roles whose content parts take a breakpoint (the model's own output parts do not). */
const MARKABLE = new Set(["system", "developer", "user"]);

/** Whether the gateway marks breakpoints on requests of `protocol` for `model`. */
export function takesOpenAIBreakpoints(protocol: GatewayProtocol, model: string): boolean {
  if (protocol.name !== "chat" && protocol.name !== "responses") return false;
  const { caching } = modelPricing(model);
  return caching.kind === "prefix" && (caching.explicitBreakpoints ?? 0) > 0;
}

function textOf(entry: Record<string, unknown>): string {
  const { content } = entry;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const first: unknown = content[0];
  return isRecord(first) && typeof first.text === "string" ? first.text : "";
}

/** The entry with a breakpoint on its last content part (string content becomes one text part). */
function marked(entry: Record<string, unknown>, protocol: "chat" | "responses"): unknown {
  const { content } = entry;
  const parts: unknown[] = Array.isArray(content)
    ? [...content]
    : [{ type: protocol === "chat" ? "text" : "input_text", text: content }];
  const last = parts.length - 1;
  const part = parts[last];
  if (!isRecord(part) || part.prompt_cache_breakpoint !== undefined) return entry;
  parts[last] = { ...part, prompt_cache_breakpoint: BREAKPOINT };
  return { ...entry, content: parts };
}

/**
 * `body` with breakpoints at the end of the head and on the summary, when its first `scanLimit`
 * entries (Chat's `messages`, Responses' `input`) hold the compaction's summary; else `body`.
 */
export function withOpenAIBreakpoints(
  protocol: GatewayProtocol,
  body: RequestBody,
  scanLimit: number,
): RequestBody {
  const name = protocol.name === "chat" ? "messages" : "input";
  const list = body[name];
  if ((protocol.name !== "chat" && protocol.name !== "responses") || !Array.isArray(list)) {
    return body;
  }
  const entries = list as unknown[];
  const limit = Math.min(entries.length, scanLimit);
  let summary = -1;
  let head = -1;
  for (let index = 0; index < limit; index++) {
    const entry = entries[index];
    if (!isRecord(entry) || !MARKABLE.has(String(entry.role))) continue;
    if (entry.role === "user" && textOf(entry).trimStart().startsWith(SUMMARY_OPEN)) {
      summary = index;
      break;
    }
    if (typeof entry.content === "string" || Array.isArray(entry.content)) head = index;
  }
  if (summary < 0) return body;
  const out = [...entries];
  for (const at of head >= 0 ? [head, summary] : [summary]) {
    out[at] = marked(out[at] as Record<string, unknown>, protocol.name);
  }
  return { ...body, [name]: out };
}
