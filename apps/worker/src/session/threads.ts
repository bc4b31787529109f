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
 * - A request whose prompt asks for a title (a title generator, a topic
 *   check) is a side request whenever the session holds a conversation,
 *   whatever tools it declares: agents may send their tool definitions with
 *   every request, to share the prompt cache.
 */

import type { ChatMessage } from "@condense/core";

const PROMPT_ROLES = new Set(["system", "developer"]);

/** What a request shows of itself, computed where the whole request is at hand (the Worker). */
export interface RequestThread {
  /** How many system/developer messages open the history: its prompt. */
  promptMessages: number;
  /** Whether the request may lead the session: it declares tools, or its history holds an answer. */
  mayLead: boolean;
  /** Whether its prompt asks for a title: it never takes a session that holds a conversation. */
  asksForTitle: boolean;
}

/**
 * How agents ask for a title or a topic in their prompt: opencode's "You are a title generator",
 * Claude Code's "…indicates a new conversation topic…", "Generate a short title for the
 * conversation", "write a 5-10 word title for the following conversation". Read in the prompt's
 * first characters only, where such a request states its task; a main conversation's prompt that
 * mentions titles later on is not one.
 */
const TITLE_PROMPT =
  /\btitle generator\b|\btitle\b[^.\n]{0,40}\b(?:conversation|thread|chat|discussion)\b|\bnew conversation topic\b/i;
const TITLE_PROMPT_CHARS = 500;

/** The text of a message's content (its text parts), for reading a prompt. */
function textOf(message: ChatMessage): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
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
  const promptMessages = promptLength(history.map((message) => message.role));
  // The Responses API's prompt is `instructions`, beside the history.
  const prompts = [
    ...(typeof body.instructions === "string" ? [body.instructions] : []),
    ...history.slice(0, promptMessages).map(textOf),
  ];
  return {
    promptMessages,
    mayLead: declaresTools || history.some((message) => message.role === "assistant"),
    asksForTitle: prompts.some((prompt) => TITLE_PROMPT.test(prompt.slice(0, TITLE_PROMPT_CHARS))),
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
  if (request.asksForTitle) return "side-request";
  const own = sameThread(sql, main, request);
  if (!isSettled(sql, main.firstSeq, main.lastSeq)) {
    return own || request.mayLead ? "new-generation" : "side-request";
  }
  return own && request.mayLead ? "new-generation" : "side-request";
}
