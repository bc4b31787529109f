/**
 * @module session/threads
 * Which conversation a gateway session follows. An agent sends more than its
 * main conversation under one session header: titles, summaries of a command,
 * quota checks, sub-agents and its own compaction requests, each a thread of
 * its own, told apart by its prompt: the system and developer messages that
 * open its history, all of them (agents send a fixed first block, e.g. Claude
 * Code's one-line identity, before the prompt proper); histories without one
 * are one thread.
 *
 * The session follows one thread, its *main* conversation: the current
 * generation. A request whose history does not extend it is either a rewind or
 * edit of the main conversation (a new generation starts with it) or a side
 * request (forwarded statelessly, nothing stored):
 * - A request *may lead* when it declares tools or its history holds an
 *   assistant turn: a main conversation does one or the other by its second
 *   request; a title, a command summary or a quota check does neither.
 * - The main conversation is *settled* once it has called a tool or been
 *   extended past an answer. Until then it is provisional: whatever arrived
 *   first (often a title request) holds the session only until a request that
 *   may lead, of any thread, takes it over; a request of its own thread is
 *   always its rewind.
 * - A settled main conversation is left only by a rewind: a request of its
 *   thread that may lead. Every other request is a side request, sub-agents
 *   included: they run while the main conversation waits for their result, and
 *   following whichever thread grew last would start a new generation (and
 *   lose the compacted context) at every switch.
 */

import type { ChatMessage } from "@condense/core";

const PROMPT_ROLES = new Set(["system", "developer"]);

/** What a request shows of itself, computed where the whole request is at hand (the Worker). */
export interface RequestThread {
  /** How many system/developer messages open the history: its prompt. */
  promptMessages: number;
  /** Whether the request may lead the session: it declares tools, or its history holds an answer. */
  mayLead: boolean;
}

/** How many messages with these roles, in order, are prompt messages before the first that is not. */
function promptLength(roles: Iterable<string>): number {
  let length = 0;
  for (const role of roles) {
    if (!PROMPT_ROLES.has(role)) break;
    length++;
  }
  return length;
}

/** The thread facts of a request: its history (canonical) and its body (the protocols' `tools`). */
export function requestThread(
  history: readonly ChatMessage[],
  body: Readonly<Record<string, unknown>>,
): RequestThread {
  // Chat Completions, Responses and Anthropic Messages all declare tools in `tools`.
  const declaresTools = Array.isArray(body.tools) && body.tools.length > 0;
  return {
    promptMessages: promptLength(history.map((message) => message.role)),
    mayLead: declaresTools || history.some((message) => message.role === "assistant"),
  };
}

/** What becomes of a request whose history does not extend the main conversation. */
export type ThreadChoice = "new-generation" | "side-request";

/** Prompts longer than this are compared by their first this-many messages. */
const MAX_PROMPT_MESSAGES = 64;

/** How many prompt messages open the generation that starts at `firstSeq`. */
function storedPromptLength(sql: SqlStorage, firstSeq: number): number {
  const rows = sql
    .exec<{ role: string }>(
      "SELECT role FROM condense_transcript WHERE seq >= ? ORDER BY seq LIMIT ?",
      firstSeq,
      MAX_PROMPT_MESSAGES,
    )
    .toArray();
  return promptLength(rows.map((row) => row.role));
}

/**
 * Whether the generation `[firstSeq, lastSeq]` is settled: it called a tool, or an answer in it
 * was followed by more (the client came back to it).
 */
function isSettled(sql: SqlStorage, firstSeq: number, lastSeq: number): boolean {
  const extended = sql
    .exec(
      "SELECT 1 FROM condense_transcript WHERE seq >= ? AND seq < ? AND role = 'assistant' LIMIT 1",
      firstSeq,
      lastSeq,
    )
    .toArray();
  if (extended.length > 0) return true;
  return (
    sql.exec("SELECT 1 FROM condense_tool_outputs WHERE call_seq >= ? LIMIT 1", firstSeq).toArray()
      .length > 0
  );
}

/**
 * Whether the request is the main conversation's thread: both open with the same prompt messages
 * (by their hashes), or neither opens with a prompt.
 */
function sameThread(
  sql: SqlStorage,
  main: { firstSeq: number; hashes: readonly string[] },
  request: { promptMessages: number; hashes: readonly string[] },
): boolean {
  const length = Math.min(request.promptMessages, MAX_PROMPT_MESSAGES);
  if (storedPromptLength(sql, main.firstSeq) !== length) return false;
  for (let index = 0; index < length; index++) {
    if (main.hashes[index] !== request.hashes[index]) return false;
  }
  return true;
}

/**
 * For a request whose history does not extend the current generation `[firstSeq, lastSeq]` (whose
 * messages hash to `main.hashes`): a new generation, or a side request.
 */
export function chooseThread(
  sql: SqlStorage,
  main: { firstSeq: number; lastSeq: number; hashes: readonly string[] },
  request: RequestThread & { hashes: readonly string[] },
): ThreadChoice {
  const own = sameThread(sql, main, request);
  if (!isSettled(sql, main.firstSeq, main.lastSeq)) {
    return own || request.mayLead ? "new-generation" : "side-request";
  }
  return own && request.mayLead ? "new-generation" : "side-request";
}
