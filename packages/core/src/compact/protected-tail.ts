/**
 * @module compact/protected-tail
 * The messages after the last assistant turn: the tool results the model
 * asked for and the user input it has not answered yet. The model has never
 * seen them, so no tier prunes, shrinks or summarizes them: the tail always
 * holds them (`compact/boundaries`), and pruning stops before them
 * (`compact/pass-context`). When the rest of the context cannot make room,
 * older parts are compacted harder; when they alone do not fit the window,
 * their tool outputs are cut to head and tail (`compact/fit-context`), never
 * dropped: a marker says what was cut and how to fetch the whole output.
 *
 * The engine's own summary is not new input: standing alone after the last
 * assistant message (a tail that held nothing but it), it is left out.
 */

import type { ChatMessage } from "../messages/types.js";
import { extractSummary } from "./assemble.js";

/**
 * The index of the first protected message (`messages.length` when the conversation ends with an
 * assistant message). `summaryAt` is the index of the engine's recognised summary, if any.
 */
export function protectedFrom(
  messages: readonly ChatMessage[],
  summaryAt: number | undefined,
): number {
  const from = messages.findLastIndex((message) => message.role === "assistant") + 1;
  if (summaryAt === undefined || summaryAt < from) return from;
  const summary = messages[summaryAt];
  // A summary merged into a message of the tail leaves that message protected (its remainder).
  const standsAlone = summary !== undefined && extractSummary(summary)?.remainder === undefined;
  return standsAlone ? summaryAt + 1 : from;
}
