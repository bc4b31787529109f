/**
 * @module api/list-data
 * Reads the answers of the routes the memory-and-recall work adds (`GET
 * /v1/sessions`, `GET /v1/sessions/{id}/search`, `GET /v1/memory`) into the
 * inspector's types. Until their schemas are in `src/api/schemas.ts` the field
 * names are not settled, so each field is read under the names that work is
 * likely to give it (`sessionId` or `id`, `lastActiveAt` or `updatedAt`, …);
 * anything else is ignored rather than trusted. Once the schemas land these
 * readers become type-only imports, like the other routes'.
 */

import type { MemoryEntry, SearchMatch, SessionListPage, SessionSummary } from "./types.ts";

type Fields = Record<string, unknown>;

function isRecord(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function first(record: Fields, names: readonly string[]): unknown {
  for (const name of names) {
    const value = record[name];
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}

function text(record: Fields, ...names: string[]): string | null {
  const value = first(record, names);
  if (typeof value === "string") return value;
  return typeof value === "number" ? String(value) : null;
}

function count(record: Fields, ...names: string[]): number | null {
  const value = first(record, names);
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function flag(record: Fields, ...names: string[]): boolean | null {
  const value = first(record, names);
  return typeof value === "boolean" ? value : null;
}

/** The array a list answer carries under one of `names` (or the answer itself, if it is one). */
function items(body: unknown, names: readonly string[]): Fields[] {
  const list = Array.isArray(body) ? body : isRecord(body) ? first(body, names) : undefined;
  return Array.isArray(list) ? list.filter(isRecord) : [];
}

/** `nextCursor` → `?cursor=`, `nextBefore` → `?before=`, `nextAfter` → `?after=`, `next` → `?cursor=`. */
const NEXT_PAGE: ReadonlyArray<[field: string, param: string]> = [
  ["nextCursor", "cursor"],
  ["nextBefore", "before"],
  ["nextAfter", "after"],
  ["nextOffset", "offset"],
  ["next", "cursor"],
  ["cursor", "cursor"],
];

export function readSessionList(body: unknown): SessionListPage {
  const sessions: SessionSummary[] = [];
  for (const item of items(body, ["sessions", "items", "data"])) {
    const id = text(item, "sessionId", "id");
    if (id === null) continue;
    const compactions = first(item, ["compactions", "compactionCount"]);
    sessions.push({
      id,
      model: text(item, "model"),
      createdAt: text(item, "createdAt", "created"),
      lastActiveAt: text(item, "lastActiveAt", "lastActive", "updatedAt", "lastActivity"),
      messageCount: count(item, "messageCount", "messages"),
      tokens: count(item, "contextTokens", "tokens"),
      contextWindow: count(item, "contextWindow", "window"),
      // A count, or the list of events itself.
      compactions: Array.isArray(compactions)
        ? compactions.length
        : typeof compactions === "number"
          ? compactions
          : null,
    });
  }
  let next: SessionListPage["next"] = null;
  if (isRecord(body)) {
    for (const [field, param] of NEXT_PAGE) {
      const value = body[field];
      if (typeof value === "string" || typeof value === "number") {
        next = { param, value: String(value) };
        break;
      }
    }
  }
  return { sessions, next };
}

export function readSearchMatches(body: unknown): SearchMatch[] {
  const matches: SearchMatch[] = [];
  for (const item of items(body, ["results", "matches", "hits"])) {
    const seq = count(item, "seq");
    if (seq === null) continue;
    matches.push({
      seq,
      role: text(item, "role") ?? "unknown",
      toolCallId: text(item, "toolCallId", "tool_call_id"),
      toolName: text(item, "toolName", "tool_name"),
      snippet: text(item, "snippet", "text") ?? "",
      inContext: flag(item, "inContext", "in_context"),
    });
  }
  return matches;
}

export function readMemories(body: unknown): MemoryEntry[] {
  const entries: MemoryEntry[] = [];
  for (const item of items(body, ["memories", "entries", "items", "results"])) {
    const id = text(item, "id", "memoryId");
    const content = text(item, "text", "content");
    if (id === null || content === null) continue;
    const source = isRecord(item.source) ? item.source : {};
    entries.push({
      id,
      text: content,
      kind: text(item, "kind", "type"),
      sourceSession:
        text(item, "sourceSessionId", "sourceSession", "sessionId") ??
        text(source, "sessionId", "session"),
      sourceSeq: count(item, "sourceSeq", "seq") ?? count(source, "seq"),
      createdAt: text(item, "createdAt", "created"),
      updatedAt: text(item, "updatedAt", "updated"),
    });
  }
  return entries;
}
